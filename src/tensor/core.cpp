// Small pieces of the tensor module: errors, dtypes, devices, shapes, storage.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>
#include <new>
#include <ostream>

#ifdef __linux__
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "tenferro/tensor/device.hpp"
#include "tenferro/tensor/dtype.hpp"
#include "tenferro/tensor/error.hpp"
#include "tenferro/tensor/scalar.hpp"
#include "tenferro/tensor/shape.hpp"
#include "tenferro/tensor/storage.hpp"

namespace tenferro {

void Error::prepend_context(std::string_view context) { message_->insert(0, context); }

namespace detail {
void internal_assert_fail(const char* cond, const char* file, int line, const std::string& msg) {
  throw InternalError(str("internal error (a bug in tenferro): ", cond, " failed at ", file, ":",
                          line, msg.empty() ? "" : ": ", msg));
}
}  // namespace detail

std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

std::ostream& operator<<(std::ostream& os, DTypeSet s) {
  os << "{";
  bool first = true;
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    if (!s.contains(d)) continue;
    os << (first ? "" : ", ") << d;
    first = false;
  }
  return os << "}";
}

std::ostream& operator<<(std::ostream& os, Device d) {
  if (d.kind == DeviceKind::cpu) return os << "cpu";
  if (d.kind == DeviceKind::webgpu) return os << "webgpu:" << d.index;
  return os << "cuda:" << d.index;
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.dtype()) {
    case DType::bool_:
      return os << (s.to<bool>() ? "true" : "false");
    case DType::i32:
    case DType::i64:
      return os << s.to<std::int64_t>();
    case DType::c64:
    case DType::c128: {
      auto z = s.to<std::complex<double>>();
      return os << z.real() << (z.imag() < 0 ? "-" : "+") << std::abs(z.imag()) << "i";
    }
    default:
      return os << s.to<double>();
  }
}

std::ostream& operator<<(std::ostream& os, const SmallVec<std::int64_t>& v) {
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os << "]";
}

std::int64_t shape_numel(std::span<const std::int64_t> shape, const char* op) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    TF_CHECK(d >= 0, ValueError, op, "negative extent ", d, " in shape ", Shape(shape));
    TF_CHECK(!__builtin_mul_overflow(n, d, &n), ValueError, op, "shape ", Shape(shape),
             " has more elements than fit in int64");
  }
  return n;
}

Strides col_major_strides(std::span<const std::int64_t> shape) {
  Strides s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
  return s;
}

Strides row_major_strides(std::span<const std::int64_t> shape) {
  Strides s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
  return s;
}

std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank, const char* op) {
  TF_CHECK(axis >= -rank && axis < rank, IndexError, op, "axis ", axis,
           " is out of range for a tensor of rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

void check_permutation(std::span<const std::int64_t> perm, std::int64_t rank, const char* op) {
  TF_CHECK(static_cast<std::int64_t>(perm.size()) == rank, ValueError, op, "permutation ",
           DimVec(perm), " has ", perm.size(), " entries for a tensor of rank ", rank);
  std::uint64_t seen_small = 0;
  std::vector<bool> seen_large;
  for (std::int64_t p : perm) {
    TF_CHECK(p >= 0 && p < rank, IndexError, op, "permutation ", DimVec(perm),
             " has entry ", p, " outside [0, ", rank, ")");
    bool dup;
    if (rank <= 64) {
      dup = (seen_small >> p) & 1u;
      seen_small |= std::uint64_t{1} << p;
    } else {
      if (seen_large.empty()) seen_large.resize(static_cast<std::size_t>(rank));
      dup = seen_large[static_cast<std::size_t>(p)];
      seen_large[static_cast<std::size_t>(p)] = true;
    }
    TF_CHECK(!dup, ValueError, op, "permutation ", DimVec(perm), " repeats axis ", p);
  }
}

namespace detail {

std::optional<Strides> reshape_view_strides(const Shape& shape, const Strides& strides,
                                            const Shape& target) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  bool contiguous = true;
  std::int64_t expected = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1 && strides[i] != expected) contiguous = false;
    expected *= shape[i];
  }
  if (n == 0 || contiguous) return col_major_strides(target);
  // Drop extent-1 axes, then match groups of old axes with groups of new
  // axes of equal element count (column-major order); each group of old
  // axes must be contiguous in memory for the group to be re-split.
  Shape os;
  Strides ost;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1) {
      os.push_back(shape[i]);
      ost.push_back(strides[i]);
    }
  Strides nst(target.size(), 0);
  std::size_t i = 0, j = 0;
  while (i < os.size()) {
    while (j < target.size() && target[j] == 1) ++j;
    if (j == target.size()) return std::nullopt;
    std::size_t i1 = i + 1, j1 = j + 1;
    std::int64_t po = os[i], pn = target[j];
    while (po != pn) {
      if (pn < po) {
        if (j1 == target.size()) return std::nullopt;
        pn *= target[j1++];
      } else {
        if (i1 == os.size()) return std::nullopt;
        po *= os[i1++];
      }
    }
    for (std::size_t k = i; k + 1 < i1; ++k)
      if (ost[k + 1] != ost[k] * os[k]) return std::nullopt;
    std::int64_t stride = ost[i];
    for (std::size_t k = j; k < j1; ++k) {
      nst[k] = stride;
      stride *= target[k];
    }
    i = i1;
    j = j1;
  }
  // Axes of extent 1 take the stride their position would have.
  for (std::size_t k = 0; k < target.size(); ++k)
    if (target[k] == 1) nst[k] = k > 0 ? nst[k - 1] * target[k - 1] : 1;
  return nst;
}

}  // namespace detail

// ---- Storage ----------------------------------------------------------------

Storage::Storage(void* data, std::size_t nbytes, Device device, Deleter deleter, void* context,
                 std::shared_ptr<void> keep_alive)
    : data_(data),
      nbytes_(nbytes),
      device_(device),
      deleter_(deleter),
      context_(context),
      keep_alive_(std::move(keep_alive)) {}

Storage::~Storage() {
  if (deleter_ != nullptr && data_ != nullptr) deleter_(data_, nbytes_, context_);
}

namespace {
constexpr std::size_t kHostAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeThreshold = std::size_t{4} << 20;
std::size_t alignment_for(std::size_t nbytes) { return nbytes >= kHugeThreshold ? kHugePage : kHostAlignment; }
void free_host(void* data, std::size_t nbytes, void*) { detail::free_host_bytes(data, nbytes); }

// Note [Host memory limit] (tenferro/tensor/storage.hpp).
std::atomic<std::size_t> g_limit{0};   // budget for all live buffers; 0: the default rule
std::atomic<std::size_t> g_in_use{0};  // bytes of live host buffers
// Requests below this are not held to the available memory (reading it costs
// a few microseconds; a small request cannot be what exhausts the machine).
constexpr std::size_t kCheckAvailableFrom = std::size_t{64} << 20;

std::string format_bytes(std::size_t n) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  std::ostringstream os;
  os.precision(v < 10 && u > 0 ? 2 : 3);
  os << v << " " << units[u];
  return os.str();
}

// Bytes the system can give now: MemAvailable (else the physical memory),
// capped by the address-space and data-segment limits when they are set.
std::size_t system_available() {
  std::size_t avail = 0;
#ifdef __linux__
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f) != nullptr)
      if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
        avail = static_cast<std::size_t>(kb) * 1024;
        break;
      }
    std::fclose(f);
  }
#endif
  if (avail == 0) {
    long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) avail = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
  }
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    ::rlimit r{};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      avail = std::min(avail, static_cast<std::size_t>(r.rlim_cur));
  }
  return avail == 0 ? std::numeric_limits<std::size_t>::max() : avail;
}

// Counts `n` bytes as in use, or throws MemoryError when they exceed the
// budget (or, without one, the memory available now).
void reserve_host_bytes(std::size_t n, const char* op) {
  std::size_t limit = g_limit.load(std::memory_order_relaxed);
  if (limit == 0) {
    if (n >= kCheckAvailableFrom) {
      std::size_t avail = system_available();
      if (n > avail)
        throw MemoryError(detail::str(op, ": ", n, " bytes (", format_bytes(n),
                                      ") requested, but the host memory limit is ", format_bytes(avail),
                                      " (the memory available now)"),
                          n, avail);
    }
    g_in_use.fetch_add(n, std::memory_order_relaxed);
    return;
  }
  std::size_t used = g_in_use.load(std::memory_order_relaxed);
  do {
    if (n > limit || used > limit - n)
      throw MemoryError(detail::str(op, ": ", n, " bytes (", format_bytes(n), ") requested, but ",
                                    format_bytes(limit - std::min(used, limit)), " of tenferro's host memory budget of ",
                                    format_bytes(limit), " are left (set_host_memory_limit)"),
                        n, limit - std::min(used, limit));
  } while (!g_in_use.compare_exchange_weak(used, used + n, std::memory_order_relaxed));
}
}  // namespace

namespace detail {

// Note [Huge pages]: buffers of several MiB are aligned to 2 MiB and offered
// to the kernel's transparent huge pages (madvise). Strided kernels
// (permutations, reductions over slow axes) touch many pages per cache-sized
// tile; with 4 KiB pages they are bound by TLB misses, and on a VM even
// memcpy runs at about half the speed.
//
// Except for a buffer of kFreshHugeLimit or more that cannot come from
// memory this process freed in the last kWarmSeconds. On the VMs we measure
// on, the balloon device reports free 2 MiB blocks to the host a few seconds
// after they are freed, and the host must then back them again: the first
// touch of such huge pages costs 1.5-2.2 s per GiB, against 0.1 s for huge
// pages freed a moment before and 0.4 s for 4 KiB pages either way (2 GiB
// buffers, one core). A one-off contraction with GiB intermediates gets
// small pages for them (gm_queen5_5_3 along opt_flops, one cold call on one
// core: 8.6-10.3 s with huge pages, 3.6-5.5 s with this rule), while one
// that fits in the huge pages of buffers freed a moment before gets them.
// The price: such a buffer allocated fresh and then kept stays on small
// pages for its life; memcpy between two 2 GiB tensors made once runs at
// about half the speed (bench_core memcpy/rotation_6d, one core: 6.1
// against 13.7 GB/s before this rule).
//
// The limit was 256 MiB until str_nw_mera_closed_120 along opt_flops (one
// cold call, one core; intermediates up to 268 MB, 1.4 GiB faulted) was seen
// to spend 2.6-3.6 s against 1.7-2.8 s with fresh buffers from 64 MiB on
// small pages (runs alternating 12 s apart, the spread is the VM's; 1.8-2.3
// s from 16 MiB), and gm_queen5_5_3 along opt_flops 3.6-3.7 against 2.8-3.0
// s. Its price, the same as above: a loop whose buffers of 64-256 MiB come
// from the CPU backend's cache (Note [Buffer cache]) keeps the small pages
// of its first pass: bin_outer_product_4096 (a 134 MB output) 8.7 -> 9.7 ms
// a call, tensornetwork_permutation_light_415 along opt_flops 130 -> 135 ms.
namespace {
constexpr std::size_t kFreshHugeLimit = std::size_t{64} << 20;
constexpr double kWarmSeconds = 1.0;

struct RecentFrees {
  using Clock = std::chrono::steady_clock;
  struct Entry {
    Clock::time_point when;
    std::size_t bytes = 0;  // not yet reused
  };
  std::mutex mu;
  Entry ring[16];  // the latest frees of huge-page buffers; older ones drop out
  int next = 0;
  std::vector<const void*> small_paged;  // live buffers denied huge pages

  // Whether p (n bytes) gets huge pages: below kFreshHugeLimit, or when it
  // fits in huge pages freed within kWarmSeconds (consumed if so).
  bool offer(const void* p, std::size_t n) {
    if (n < kFreshHugeLimit) return true;
    const auto now = Clock::now();
    std::lock_guard lock(mu);
    std::size_t warm = 0;
    for (Entry& e : ring) {
      if (std::chrono::duration<double>(now - e.when).count() > kWarmSeconds) e.bytes = 0;  // cold by now
      warm += e.bytes;
    }
    if (n > warm) {
      small_paged.push_back(p);
      return false;
    }
    for (Entry& e : ring) {
      const std::size_t take = std::min(n, e.bytes);
      e.bytes -= take;
      n -= take;
    }
    return true;
  }
  void freed(const void* p, std::size_t n) {
    const auto now = Clock::now();
    std::lock_guard lock(mu);
    if (n >= kFreshHugeLimit) {
      auto it = std::find(small_paged.begin(), small_paged.end(), p);
      if (it != small_paged.end()) {
        small_paged.erase(it);
        return;
      }
    }
    ring[next] = {now, n};
    next = (next + 1) % 16;
  }
};
// Never destroyed: buffers may be freed during static destruction.
RecentFrees& recent_frees() {
  static RecentFrees* r = new RecentFrees;
  return *r;
}
}  // namespace

void* allocate_host_bytes(std::size_t nbytes, const char* op) {
  if (nbytes == 0) return nullptr;
  reserve_host_bytes(nbytes, op);
  std::size_t align = alignment_for(nbytes);
  void* p = nullptr;
  try {
    p = ::operator new(nbytes, std::align_val_t{align});
  } catch (const std::bad_alloc&) {
    g_in_use.fetch_sub(nbytes, std::memory_order_relaxed);
    throw MemoryError(detail::str(op, ": ", nbytes, " bytes (", format_bytes(nbytes),
                                  ") requested, but the system refused them"),
                      nbytes, system_available());
  }
#ifdef __linux__
  if (align == kHugePage && recent_frees().offer(p, nbytes)) (void)::madvise(p, nbytes, MADV_HUGEPAGE);
#endif
  return p;
}

void free_host_bytes(void* p, std::size_t nbytes) {
  if (p == nullptr) return;
  if (nbytes >= kHugeThreshold) recent_frees().freed(p, nbytes);  // before p can be handed out again
  ::operator delete(p, std::align_val_t{alignment_for(nbytes)});
  g_in_use.fetch_sub(nbytes, std::memory_order_relaxed);
}

}  // namespace detail

std::shared_ptr<Storage> Storage::allocate_host(std::size_t nbytes, const char* op) {
  void* p = detail::allocate_host_bytes(nbytes, op);
  try {
    return std::make_shared<Storage>(p, nbytes, Device::cpu(), &free_host, nullptr);
  } catch (...) {
    detail::free_host_bytes(p, nbytes);
    throw;
  }
}

void set_host_memory_limit(std::size_t bytes) { g_limit.store(bytes, std::memory_order_relaxed); }
std::size_t host_memory_limit() { return g_limit.load(std::memory_order_relaxed); }
std::size_t host_memory_in_use() { return g_in_use.load(std::memory_order_relaxed); }

}  // namespace tenferro

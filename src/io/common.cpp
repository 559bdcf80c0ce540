// Files, sinks and the byte-range -> tensor step shared by .npy, .npz and
// safetensors.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <random>

#include "detail.hpp"

namespace tenferro::io {

const Tensor& find(const std::vector<NamedTensor>& tensors, std::string_view name) {
  for (const NamedTensor& t : tensors)
    if (t.name == name) return t.tensor;
  std::string names;
  for (const NamedTensor& t : tensors) names += (names.empty() ? "'" : ", '") + t.name + "'";
  TF_THROW(ValueError, "io.find", "no tensor named '", name, "' (the names are ",
           names.empty() ? std::string("none") : names, ")");
}

namespace detail {

namespace {

/// A private (copy-on-write) read-write mapping of a whole file.
struct Mapping {
  void* base = nullptr;
  std::size_t size = 0;
  ~Mapping() {
    if (base != nullptr) ::munmap(base, size);
  }
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void system_failure(const Context& ctx, const char* what, int err) {
  throw FormatError(tenferro::detail::str(ctx.op, ": '", ctx.file, "': ", what, ": ",
                                          std::strerror(err)),
                    ErrorCode::BackendFailure);
}

}  // namespace

Bytes read_file(const std::filesystem::path& path, MapMode mode, const Context& ctx) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) system_failure(ctx, "cannot open the file", errno);
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) system_failure(ctx, "cannot stat the file", errno);
  if (!S_ISREG(st.st_mode)) fail(ctx, "not a regular file");
  const auto size = static_cast<std::size_t>(st.st_size);
  const bool map = size > 0 && (mode == MapMode::always ||
                                (mode == MapMode::automatic && size >= kMapThreshold));
  if (map) {
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, f.fd, 0);
    if (p == MAP_FAILED) system_failure(ctx, "cannot map the file", errno);
    auto m = std::make_shared<Mapping>();
    m->base = p;
    m->size = size;
    return {static_cast<const std::byte*>(p), size, m};
  }
  std::shared_ptr<Storage> buffer;
  try {
    buffer = Storage::allocate_host(size, ctx.op);
  } catch (MemoryError& e) {  // keeps its type; says which file, and the way out
    e.prepend_context(tenferro::detail::str("'", ctx.file, "' (map it instead): "));
    throw;
  }
  auto* out = static_cast<char*>(buffer->data());
  std::size_t done = 0;
  while (done < size) {
    ssize_t got = ::read(f.fd, out + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) system_failure(ctx, "cannot read the file", errno);
    if (got == 0) fail(ctx, "the file shrank from ", size, " to ", done, " bytes while it was read");
    done += static_cast<std::size_t>(got);
  }
  return {static_cast<const std::byte*>(buffer->data()), size, buffer};
}

// ---- sinks ------------------------------------------------------------------

void Sink::put16(std::uint16_t v) {
  unsigned char b[2] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8)};
  write(b, 2);
}
void Sink::put32(std::uint32_t v) {
  put16(static_cast<std::uint16_t>(v));
  put16(static_cast<std::uint16_t>(v >> 16));
}
void Sink::put64(std::uint64_t v) {
  put32(static_cast<std::uint32_t>(v));
  put32(static_cast<std::uint32_t>(v >> 32));
}

void VectorSink::write(const void* data, std::size_t n) {
  const auto* p = static_cast<const std::byte*>(data);
  bytes.insert(bytes.end(), p, p + n);
  position_ += n;
}

FileSink::FileSink(const std::filesystem::path& path, const char* op) : path_(path), op_(op) {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  tmp_ = path;
  tmp_ += tenferro::detail::str(".tmp-", ::getpid(), "-", rd() % 100000, "-", counter++);
  file_ = std::fopen(tmp_.c_str(), "wbx");
  if (file_ == nullptr)
    system_failure({op_, path_.string(), ""}, "cannot create a file next to it", errno);
}

FileSink::~FileSink() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void FileSink::write(const void* data, std::size_t n) {
  if (n == 0) return;
  if (std::fwrite(data, 1, n, file_) != n)
    system_failure({op_, path_.string(), ""}, "cannot write", errno);
  position_ += n;
}

void FileSink::commit() {
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) {
    int err = errno;
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
    system_failure({op_, path_.string(), ""}, "cannot write", err);
  }
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
    system_failure({op_, path_.string(), ""}, "cannot replace the file", ec.value());
  }
}

// ---- tensors from bytes -------------------------------------------------------

std::uint64_t checked_nbytes(const Context& ctx, const Shape& shape, std::size_t elem_size) {
  // The product over the non-zero extents must fit too: the strides of an
  // empty tensor are computed from them.
  std::uint64_t nonzero = elem_size;
  bool empty = false;
  for (std::int64_t e : shape) {
    if (e < 0) fail(ctx, "shape ", shape, " has a negative extent");
    if (e == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(nonzero, static_cast<std::uint64_t>(e), &nonzero) ||
        nonzero > static_cast<std::uint64_t>(INT64_MAX))
      fail(ctx, "shape ", shape, " of ", elem_size, "-byte elements overflows 63 bits");
  }
  return empty ? 0 : nonzero;
}

namespace {
void swap_elements(std::byte* p, std::size_t count, std::size_t width) {
  for (std::size_t i = 0; i < count; ++i, p += width) std::reverse(p, p + width);
}
}  // namespace

Tensor tensor_from_bytes(const Bytes& src, DType dtype, const Shape& shape, bool row_major,
                         bool big_endian) {
  const std::size_t esize = dtype_size(dtype);
  const std::size_t nbytes = src.size;
  Strides strides = row_major ? row_major_strides(shape) : col_major_strides(shape);
  bool bools_ok = true;
  if (dtype == DType::bool_) {
    const auto* b = reinterpret_cast<const unsigned char*>(src.data);
    for (std::size_t i = 0; i < nbytes && bools_ok; ++i) bools_ok = b[i] <= 1;
  }
  const bool aligned = reinterpret_cast<std::uintptr_t>(src.data) % esize == 0;
  if (src.owner && aligned && bools_ok && (!big_endian || esize == 1)) {
    // Note: the owner's memory is writable (a private mapping or our own
    // buffer), so handing out a mutable view is sound.
    auto storage = std::make_shared<Storage>(const_cast<std::byte*>(src.data), nbytes,
                                             Device::cpu(), nullptr, nullptr, src.owner);
    return Tensor(std::move(storage), dtype, shape, std::move(strides), 0);
  }
  std::shared_ptr<Storage> storage = Storage::allocate_host(nbytes);
  auto* out = static_cast<std::byte*>(storage->data());
  if (nbytes > 0) std::memcpy(out, src.data, nbytes);
  if (big_endian && esize > 1) {
    // A complex number is two reals, each swapped on its own.
    const std::size_t width = is_complex(dtype) ? esize / 2 : esize;
    swap_elements(out, nbytes / width, width);
  }
  if (!bools_ok) {
    auto* b = reinterpret_cast<unsigned char*>(out);
    for (std::size_t i = 0; i < nbytes; ++i) b[i] = b[i] != 0;
  }
  return Tensor(std::move(storage), dtype, shape, std::move(strides), 0);
}

void check_writable(const char* op, const Tensor& t, std::string_view what) {
  TF_CHECK(t.defined(), ValueError, op, what, " is undefined");
  TF_CHECK(t.device().is_cpu(), DeviceError, op, what, " is on ", t.device(),
           "; download it to the host first");
}

}  // namespace detail
}  // namespace tenferro::io

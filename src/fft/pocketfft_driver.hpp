#pragma once
// The pocketfft driver (Note [Pocketfft driver] in pocketfft_provider.cpp),
// compiled once per instruction set: a translation unit defines
// TF_POCKETFFT_ISA (a namespace name) and includes this header, which
// places pocketfft itself and the driver in namespace
// tenferro::fft::detail::TF_POCKETFFT_ISA, so the baseline and the AVX2
// builds of the same templates never meet at link time.
#ifndef TF_POCKETFFT_ISA
#error "define TF_POCKETFFT_ISA before including pocketfft_driver.hpp"
#endif

// Everything pocketfft includes, included here first: inside the namespace
// below its #includes then expand to nothing.
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <complex>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <numbers>
#include <queue>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "provider.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro::fft::detail::TF_POCKETFFT_ISA {

// Note [pocketfft allocation]
// pocketfft's arr<T> allocates its scratch and twiddle buffers with an
// unqualified aligned_alloc(64, n * sizeof(T)), a size that need not be a
// multiple of 64 (e.g. 32 bytes for two complex<float>). C11 and C++17's
// std::aligned_alloc require the size to be an integral multiple of the
// alignment; glibc accepts other sizes, AddressSanitizer rejects them and
// aborts. The header is included inside this namespace, so its unqualified
// call finds this function first (no argument-dependent lookup on the
// integer arguments): it rounds the size up to the alignment and calls the
// standard allocator. The memory is released with free(), as pocketfft does.
inline void* aligned_alloc(std::size_t alignment, std::size_t size) {
  if (alignment == 0 || size > SIZE_MAX - (alignment - 1)) return nullptr;  // bad_alloc upstream
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}

#define POCKETFFT_NO_MULTITHREADING
#include TENFERRO_POCKETFFT_HEADER

namespace pf = pocketfft::detail;

template <class R>
using Cx = pf::cmplx<R>;

template <class R>
constexpr std::int64_t kLanes = static_cast<std::int64_t>(pf::VLEN<R>::val);

template <class R>
Cx<R> cx_mul(const Cx<R>& a, const Cx<R>& b) {
  return {a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r};
}
template <class R>
Cx<R> cx_conj(const Cx<R>& a) {
  return {a.r, -a.i};
}

// Note [Long transforms]
// pocketfft's radix passes sweep the whole line once per factor, which is
// fast while a line fits in cache and memory-bound beyond (2^20 points: ten
// sweeps over 16 MB). Lines of at least kLongLength points therefore go
// through LongFft instead:
// - four-step (Bailey): n = n1 n2 with n1 the largest divisor <= sqrt(n).
//   Writing j = j1 + n1 j2 and k = k2 + n2 k1,
//     X[k2 + n2 k1] = sum_j1 w_n1^(j1 k1) w_n^(j1 k2) sum_j2 w_n2^(j2 k2) x[j1 + n1 j2],
//   i.e. n1 transforms of length n2 (stride n1, V neighbouring lines per
//   SIMD block) into a scratch buffer with the twiddles w_n^(j1 k2) applied
//   on the way out, then n2 transforms of length n1 written transposed to
//   the output. Each sub-transform is a pocketfft plan working in cache, and
//   the data crosses memory four times instead of once per factor. Twiddles
//   come from two tables of ~sqrt(n) entries (w^m = w^(hi 2^b) w^(lo)).
// - Bluestein, when the largest prime factor p has p^2 > n (no useful
//   split): with the chirp c_j = exp(-i pi (j^2 mod 2n)/n),
//     X_k = c_k sum_j (x_j c_j) conj(c_(k-j)),
//   a cyclic convolution of length M >= 2n - 1 (a 2,3,5,7,11-smooth size),
//   done by two four-step transforms of length M against the precomputed
//   transform of the chirp. The inverse direction conjugates input and output.
// Real transforms of long lines (LongReal): for even n, the n reals are n/2
// complex numbers z_j = x_2j + i x_2j+1; with Z = DFT_(n/2)(z) and
// w = exp(-2 pi i/n),
//     X_k = (Z_k + conj Z_(h-k))/2 - (i/2) w^k (Z_k - conj Z_(h-k)),  h = n/2,
// and the inverse runs the same relation backwards,
//     Z_k = (X_k + conj X_(h-k)) + i w^-k (X_k - conj X_(h-k)),
// followed by an inverse transform of length h whose output, read as reals,
// is the signal (entries 0 and h contribute only their real parts). For odd n
// the real line is transformed as a complex one (still faster than the radix
// passes once the line is long).
template <class R>
constexpr std::int64_t kLongLength = 1 << 15;

// Largest prime factor of n >= 1.
inline std::int64_t largest_prime_factor(std::int64_t n) {
  std::int64_t p = 1;
  for (std::int64_t f = 2; f * f <= n; ++f)
    while (n % f == 0) {
      p = f;
      n /= f;
    }
  return n > 1 ? std::max(p, n) : p;
}

inline bool needs_bluestein(std::int64_t n) {
  const std::int64_t p = largest_prime_factor(n);
  return p > 64 && p * p > n;
}

// ---- lines ----------------------------------------------------------------------------

// The lines of one pass: the other axes, coalesced.
struct Lines {
  SmallVec<std::int64_t> extent, src_stride, dst_stride;
  std::int64_t count = 1;
};

Lines one_dim_lines(std::int64_t count, std::int64_t src_stride, std::int64_t dst_stride) {
  Lines l;
  l.extent = {count};
  l.src_stride = {src_stride};
  l.dst_stride = {dst_stride};
  l.count = count;
  return l;
}

// Offsets of consecutive lines.
class LineCursor {
 public:
  LineCursor(const Lines& lines, std::int64_t start) : lines_(lines), index_(lines.extent.size(), 0) {
    for (std::size_t d = 0; d < index_.size(); ++d) {
      index_[d] = start % lines.extent[d];
      start /= lines.extent[d];
      src_ += index_[d] * lines.src_stride[d];
      dst_ += index_[d] * lines.dst_stride[d];
    }
  }
  std::int64_t src() const { return src_; }
  std::int64_t dst() const { return dst_; }
  void next() {
    for (std::size_t d = 0; d < index_.size(); ++d) {
      src_ += lines_.src_stride[d];
      dst_ += lines_.dst_stride[d];
      if (++index_[d] < lines_.extent[d]) return;
      src_ -= index_[d] * lines_.src_stride[d];
      dst_ -= index_[d] * lines_.dst_stride[d];
      index_[d] = 0;
    }
  }

 private:
  const Lines& lines_;
  SmallVec<std::int64_t> index_;
  std::int64_t src_ = 0, dst_ = 0;
};

// Runs run(begin, end) over [0, count) lines, split into chunks of whole
// V-line blocks across up to `threads` OpenMP threads when there is enough
// work (`work` ~ elements touched).
template <class Run>
void parallel_lines(std::int64_t count, std::int64_t lanes, std::int64_t work, int threads,
                    Run&& run) {
  std::int64_t useful = std::min<std::int64_t>(count / (2 * lanes), work / 4096);
  int nt = static_cast<int>(std::clamp<std::int64_t>(useful, 1, threads));
  if (nt == 1) return run(std::int64_t(0), count);
  std::exception_ptr error;
#pragma omp parallel num_threads(nt)
  {
    std::int64_t t = omp_get_thread_num(), tn = omp_get_num_threads();
    std::int64_t blocks = (count + lanes - 1) / lanes;
    std::int64_t b0 = blocks * t / tn, b1 = blocks * (t + 1) / tn;
    try {
      run(std::min(count, b0 * lanes), std::min(count, b1 * lanes));
    } catch (...) {
#pragma omp critical(tenferro_fft_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// Complex transforms of length n along lines [begin, end): line l reads
// src[offset + i ss] and writes dst[offset + k ds]. `post` may change the
// results before they are written: post.block(l, block, n) for the SIMD
// block of lines l..l+V-1, post.line(l, line, n) for one line.
struct NoPost {
  template <class B>
  void block(std::int64_t, B*, std::int64_t) const {}
  template <class B>
  void line(std::int64_t, B*, std::int64_t) const {}
};

template <class R, class Post = NoPost>
void c2c_lines(const pf::pocketfft_c<R>& plan, std::int64_t n, bool forward, R fct,
               const Cx<R>* src, std::int64_t ss, Cx<R>* dst, std::int64_t ds, const Lines& lines,
               std::int64_t begin, std::int64_t end, const Post& post = {}) {
  constexpr bool kPlain = std::is_same_v<Post, NoPost>;
  LineCursor cur(lines, begin);
  std::int64_t l = begin;
#ifndef POCKETFFT_NO_VECTORS
  constexpr std::int64_t V = kLanes<R>;
  if (end - l >= V) {
    pf::arr<Cx<pf::vtype_t<R>>> block(static_cast<std::size_t>(n));
    std::int64_t so[V], dof[V];
    for (; end - l >= V; l += V) {
      for (std::int64_t j = 0; j < V; ++j, cur.next()) so[j] = cur.src(), dof[j] = cur.dst();
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < V; ++j) {
          const Cx<R>& z = src[so[j] + i * ss];
          block[i].r[j] = z.r;
          block[i].i[j] = z.i;
        }
      plan.exec(block.data(), fct, forward);
      post.block(l, block.data(), n);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < V; ++j) dst[dof[j] + i * ds].Set(block[i].r[j], block[i].i[j]);
    }
  }
#endif
  if (l == end) return;
  pf::arr<Cx<R>> line(ds == 1 && kPlain ? 0 : static_cast<std::size_t>(n));
  for (; l < end; ++l, cur.next()) {
    const Cx<R>* s = src + cur.src();
    Cx<R>* d = dst + cur.dst();
    Cx<R>* buf = ds == 1 && kPlain ? d : line.data();
    if (buf != s)
      for (std::int64_t i = 0; i < n; ++i) buf[i] = s[i * ss];
    plan.exec(buf, fct, forward);
    post.line(l, buf, n);
    if (buf != d)
      for (std::int64_t i = 0; i < n; ++i) d[i * ds] = buf[i];
  }
}

// ---- shared pocketfft plans --------------------------------------------------------------

// The 1-D pocketfft plan of length n (real or complex), shared between all
// plans through a table of weak references (Note [Pocketfft driver]).
template <class R>
std::shared_ptr<const void> kernel(bool real, std::int64_t n) {
  static std::mutex mutex;
  static std::map<std::tuple<bool, DType, std::int64_t>, std::weak_ptr<const void>> table;
  auto key = std::make_tuple(real, dtype_of<R>, n);
  std::lock_guard lock(mutex);
  if (auto it = table.find(key); it != table.end()) {
    if (auto p = it->second.lock()) return p;
  }
  std::erase_if(table, [](const auto& kv) { return kv.second.expired(); });
  std::shared_ptr<const void> p;
  if (real) p = std::make_shared<const pf::pocketfft_r<R>>(static_cast<std::size_t>(n));
  else p = std::make_shared<const pf::pocketfft_c<R>>(static_cast<std::size_t>(n));
  table[key] = p;
  return p;
}

template <class R>
std::shared_ptr<const pf::pocketfft_c<R>> complex_kernel(std::int64_t n) {
  return std::static_pointer_cast<const pf::pocketfft_c<R>>(kernel<R>(false, n));
}

// ---- long lines (Note [Long transforms]) ----------------------------------------------------

// exp(-2 pi i m / n) for 0 <= m <= n from two tables of ~sqrt(n) entries.
template <class R>
class Twiddles {
 public:
  Twiddles() = default;
  explicit Twiddles(std::int64_t n) : n_(n) {
    while ((std::int64_t(1) << (2 * shift_)) < n) ++shift_;
    lo_.resize(std::size_t(1) << shift_);
    hi_.resize(static_cast<std::size_t>((n >> shift_) + 1));
    for (std::size_t m = 0; m < lo_.size(); ++m) lo_[m] = unit(std::int64_t(m));
    for (std::size_t q = 0; q < hi_.size(); ++q) hi_[q] = unit(std::int64_t(q) << shift_);
  }
  Cx<R> operator()(std::int64_t m) const {
    return cx_mul(hi_[static_cast<std::size_t>(m >> shift_)],
               lo_[static_cast<std::size_t>(m & ((std::int64_t(1) << shift_) - 1))]);
  }

 private:
  Cx<R> unit(std::int64_t m) const {
    long double a = -2.0L * std::numbers::pi_v<long double> * static_cast<long double>(m % n_) /
                    static_cast<long double>(n_);
    return {static_cast<R>(std::cos(a)), static_cast<R>(std::sin(a))};
  }
  std::int64_t n_ = 1;
  int shift_ = 0;
  std::vector<Cx<R>> lo_, hi_;
};

// A complex transform of one long line (four-step or Bluestein).
template <class R>
class LongFft {
  // The four-step scratch is [n1 + pad, n2]: with n1 a power of two, an
  // unpadded column stride would map every element of a column to the same
  // cache sets (measured: 6-9% slower at 2^16 and 2^20 points).
  static constexpr std::int64_t kScratchPad = 8;

 public:
  explicit LongFft(std::int64_t n) : n_(n) {
    if (needs_bluestein(n)) {
      m_ = static_cast<std::int64_t>(pf::util::good_size_cmplx(static_cast<std::size_t>(2 * n - 1)));
      inner_ = std::make_unique<const LongFft>(m_);
      // c_j = exp(-i pi (j^2 mod 2n)/n) = w_2n^(j^2 mod 2n).
      const Twiddles<R> w2n(2 * n);
      chirp_.resize(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < n; ++j) chirp_[std::size_t(j)] = w2n((j * j) % (2 * n));
      // The transform of h_m = conj(c_|m|) (m cyclic mod M), divided by M.
      spectrum_.assign(static_cast<std::size_t>(m_), Cx<R>{R(0), R(0)});
      spectrum_[0] = cx_conj(chirp_[0]);
      for (std::int64_t j = 1; j < n; ++j)
        spectrum_[std::size_t(j)] = spectrum_[std::size_t(m_ - j)] = cx_conj(chirp_[std::size_t(j)]);
      std::vector<Cx<R>> scratch(static_cast<std::size_t>(inner_->scratch_size()));
      inner_->exec(spectrum_.data(), 1, spectrum_.data(), R(1) / static_cast<R>(m_), true,
                   scratch.data(), 1);
      return;
    }
    n1_ = 1;
    for (std::int64_t d = 1; d * d <= n; ++d)
      if (n % d == 0) n1_ = d;
    n2_ = n / n1_;
    rows_ = complex_kernel<R>(n1_);
    cols_ = complex_kernel<R>(n2_);
    twiddles_ = Twiddles<R>(n);
#ifndef POCKETFFT_NO_VECTORS
    lanes_.resize(static_cast<std::size_t>(n2_));
    for (std::int64_t k = 0; k < n2_; ++k)
      for (std::int64_t j = 0; j < kLanes<R>; ++j) {
        const Cx<R> w = twiddles_((j * k) % n);
        lanes_[std::size_t(k)].r[j] = w.r;
        lanes_[std::size_t(k)].i[j] = w.i;
      }
#endif
  }

  std::int64_t length() const { return n_; }
  /// Complex elements of scratch memory that `exec` needs.
  std::int64_t scratch_size() const {
    return inner_ ? m_ + inner_->scratch_size() : (n1_ + kScratchPad) * n2_;
  }

  /// out[k] = fct sum_j in[j is] exp(-+2 pi i jk/n) (contiguous `out`, which
  /// may be `in` when is == 1).
  void exec(const Cx<R>* in, std::int64_t is, Cx<R>* out, R fct, bool forward, Cx<R>* scratch,
            int threads) const {
    if (inner_) return bluestein(in, is, out, fct, forward, scratch, threads);
    // Step 1: n1 transforms of length n2 (lines j1, stride n1 is) into
    // scratch[j1 + n1 k2], times w^(j1 k2).
    const std::int64_t ld = n1_ + kScratchPad;  // padded: see kScratchPad
    const Lines cols = one_dim_lines(n1_, is, 1);
    const TwiddlePost post{this, forward};
    parallel_lines(n1_, kLanes<R>, n_, threads, [&](std::int64_t b, std::int64_t e) {
      c2c_lines<R>(*cols_, n2_, forward, R(1), in, n1_ * is, scratch, ld, cols, b, e, post);
    });
    // Step 2: n2 transforms of length n1 (contiguous lines k2 of scratch),
    // written transposed: out[k2 + n2 k1].
    const Lines rows = one_dim_lines(n2_, ld, 1);
    parallel_lines(n2_, kLanes<R>, n_, threads, [&](std::int64_t b, std::int64_t e) {
      c2c_lines<R>(*rows_, n1_, forward, fct, scratch, 1, out, n2_, rows, b, e);
    });
  }

 private:
  void bluestein(const Cx<R>* in, std::int64_t is, Cx<R>* out, R fct, bool forward,
                 Cx<R>* scratch, int threads) const {
    Cx<R>* s = scratch;  // m_ entries, then the inner transform's scratch
    Cx<R>* inner_scratch = scratch + m_;
    const std::int64_t n = n_, m = m_;
    // a_j = x_j c_j (conjugated input for the inverse direction), zero-padded.
#pragma omp parallel for num_threads(threads) if (threads > 1)
    for (std::int64_t j = 0; j < m; ++j) {
      if (j < n) {
        Cx<R> x = in[j * is];
        s[j] = cx_mul(forward ? x : cx_conj(x), chirp_[std::size_t(j)]);
      } else {
        s[j] = {R(0), R(0)};
      }
    }
    inner_->exec(s, 1, s, R(1), true, inner_scratch, threads);
#pragma omp parallel for num_threads(threads) if (threads > 1)
    for (std::int64_t k = 0; k < m; ++k) s[k] = cx_mul(s[k], spectrum_[std::size_t(k)]);
    inner_->exec(s, 1, s, R(1), false, inner_scratch, threads);
#pragma omp parallel for num_threads(threads) if (threads > 1)
    for (std::int64_t k = 0; k < n; ++k) {
      Cx<R> v = cx_mul(s[k], chirp_[std::size_t(k)]);
      out[k] = {fct * v.r, fct * (forward ? v.i : -v.i)};
    }
  }

  // Multiplies the column transforms by w^(j1 k2) (conjugated backwards):
  // per SIMD block, w^(l k2) from the tables times the lane ratios
  // w^(j k2), j < V, precomputed in lanes_.
  struct TwiddlePost {
    const LongFft* f;
    bool forward;
#ifndef POCKETFFT_NO_VECTORS
    void block(std::int64_t l, Cx<pf::vtype_t<R>>* b, std::int64_t n) const {
      const R sign = forward ? R(1) : R(-1);
      for (std::int64_t k = 0; k < n; ++k) {
        const Cx<R> t = f->twiddles_(l * k);
        const auto& lane = f->lanes_[std::size_t(k)];
        const auto li = sign * lane.i;
        const R ti = sign * t.i;
        const auto wr = t.r * lane.r - ti * li, wi = t.r * li + ti * lane.r;
        const auto br = b[k].r, bi = b[k].i;
        b[k].r = br * wr - bi * wi;
        b[k].i = br * wi + bi * wr;
      }
    }
#endif
    void line(std::int64_t l, Cx<R>* b, std::int64_t n) const {
      for (std::int64_t k = 0; k < n; ++k) {
        const Cx<R> t = f->twiddles_(l * k);
        b[k] = cx_mul(b[k], forward ? t : cx_conj(t));
      }
    }
  };

  std::int64_t n_, n1_ = 0, n2_ = 0, m_ = 0;
  std::shared_ptr<const pf::pocketfft_c<R>> rows_, cols_;
  Twiddles<R> twiddles_;
#ifndef POCKETFFT_NO_VECTORS
  std::vector<Cx<pf::vtype_t<R>>> lanes_;  // lanes_[k2].(r, i)[j] = w^(j k2)
#endif
  std::unique_ptr<const LongFft> inner_;
  std::vector<Cx<R>> chirp_, spectrum_;
};

// Real transforms of one long line through complex ones (Note [Long transforms]).
template <class R>
class LongReal {
 public:
  explicit LongReal(std::int64_t n) : n_(n), h_(n / 2) {
    if (n % 2 == 0) {
      if (h_ >= kLongLength<R>) long_ = std::make_unique<const LongFft<R>>(h_);
      else short_ = complex_kernel<R>(h_);
      twiddles_ = Twiddles<R>(n);
    } else {
      long_ = std::make_unique<const LongFft<R>>(n);
    }
  }

  std::int64_t scratch_size() const {
    return (n_ % 2 == 0 ? h_ + 1 : n_) + (long_ ? long_->scratch_size() : 0);
  }

  /// dst[k ds] = fct X_k, k <= n/2, from src[j ss].
  void r2c(const R* src, std::int64_t ss, Cx<R>* dst, std::int64_t ds, R fct, Cx<R>* scratch,
           int threads) const {
    Cx<R>* buf = scratch;  // the complex line
    Cx<R>* more = scratch + (n_ % 2 == 0 ? h_ + 1 : n_);
    const std::int64_t m = h_ + 1;
    if (n_ % 2 == 1) {
      for (std::int64_t j = 0; j < n_; ++j) buf[j] = {src[j * ss], R(0)};
      long_->exec(buf, 1, buf, fct, true, more, threads);
    } else {
      Cx<R>* x = ds == 1 ? dst : buf;
      const Cx<R>* z = reinterpret_cast<const Cx<R>*>(src);
      if (ss != 1) {
        for (std::int64_t j = 0; j < h_; ++j) x[j] = {src[2 * j * ss], src[(2 * j + 1) * ss]};
        z = x;
      }
      transform(z, x, fct, true, more, threads);
      const Cx<R> z0 = x[0];
      x[0] = {z0.r + z0.i, R(0)};
      x[h_] = {z0.r - z0.i, R(0)};
      for (std::int64_t k = 1; 2 * k <= h_; ++k) {
        const Cx<R> a = x[k], b = x[h_ - k];
        const Cx<R> e{(a.r + b.r) / 2, (a.i - b.i) / 2};   // (a + conj b) / 2
        const Cx<R> o{(a.i + b.i) / 2, (b.r - a.r) / 2};   // (a - conj b) / 2i
        const Cx<R> wo = cx_mul(twiddles_(k), o);
        x[k] = {e.r + wo.r, e.i + wo.i};
        x[h_ - k] = {e.r - wo.r, wo.i - e.i};              // cx_conj(e - w o)
      }
      if (x == dst) return;
    }
    for (std::int64_t k = 0; k < m; ++k) dst[k * ds] = buf[k];
  }

  /// dst[j ds] = fct x_j, j < n, from the half spectrum src[k ss].
  void c2r(const Cx<R>* src, std::int64_t ss, R* dst, std::int64_t ds, R fct, Cx<R>* scratch,
           int threads) const {
    Cx<R>* buf = scratch;
    Cx<R>* more = scratch + (n_ % 2 == 0 ? h_ + 1 : n_);
    if (n_ % 2 == 1) {
      buf[0] = {src[0].r, R(0)};
      for (std::int64_t k = 1; 2 * k < n_; ++k) {
        buf[k] = src[k * ss];
        buf[n_ - k] = cx_conj(src[k * ss]);
      }
      long_->exec(buf, 1, buf, fct, false, more, threads);
      for (std::int64_t j = 0; j < n_; ++j) dst[j * ds] = buf[j].r;
      return;
    }
    Cx<R>* z = ds == 1 ? reinterpret_cast<Cx<R>*>(dst) : buf;
    {
      const R a = src[0].r, b = src[h_ * ss].r;
      z[0] = {a + b, a - b};
    }
    for (std::int64_t k = 1; 2 * k <= h_; ++k) {
      const Cx<R> a = src[k * ss], b = src[(h_ - k) * ss];
      const Cx<R> f{a.r + b.r, a.i - b.i};  // a + conj b
      const Cx<R> g{a.r - b.r, a.i + b.i};  // a - conj b
      const Cx<R> ig = cx_mul(cx_conj(twiddles_(k)), Cx<R>{-g.i, g.r});  // i w^-k g
      z[k] = {f.r + ig.r, f.i + ig.i};
      z[h_ - k] = {f.r - ig.r, ig.i - f.i};  // cx_conj(f - i w^-k g)
    }
    transform(z, z, fct, false, more, threads);
    if (ds != 1)
      for (std::int64_t j = 0; j < h_; ++j) {
        dst[2 * j * ds] = z[j].r;
        dst[(2 * j + 1) * ds] = z[j].i;
      }
  }

 private:
  // The complex transform of length h from `in` (contiguous) to `out`.
  void transform(const Cx<R>* in, Cx<R>* out, R fct, bool forward, Cx<R>* scratch,
                 int threads) const {
    if (long_) return long_->exec(in, 1, out, fct, forward, scratch, threads);
    if (in != out) std::copy(in, in + h_, out);
    short_->exec(out, fct, forward);
  }

  std::int64_t n_, h_;
  std::unique_ptr<const LongFft<R>> long_;
  std::shared_ptr<const pf::pocketfft_c<R>> short_;
  Twiddles<R> twiddles_;
};

// ---- passes --------------------------------------------------------------------------------

enum class PassKind : std::uint8_t { c2c, r2c, c2r };
enum class Buffer : std::uint8_t { input, output, temp };

struct Pass {
  PassKind kind = PassKind::c2c;
  bool forward = true;
  std::int64_t n = 1;  // logical length (the real length for r2c/c2r)
  std::int64_t src_stride = 1, dst_stride = 1;
  Lines lines;
  Buffer src = Buffer::input, dst = Buffer::output;
  std::shared_ptr<const void> kernel;  // pocketfft_c<R> or pocketfft_r<R> (short lines)
  std::shared_ptr<const void> long_kernel;  // LongFft<R> or LongReal<R> (long lines)
  std::int64_t scratch = 0;  // complex elements the long kernel needs per call
};

// Unpacks a halfcomplex line of length n (in `h`) into n/2 + 1 complex
// values written by `put(k, re, im)`.
template <class T, class Put>
void unpack_halfcomplex(const T* h, std::int64_t n, Put&& put) {
  put(0, h[0], T{});
  std::int64_t k = 1;
  for (; 2 * k < n; ++k) put(k, h[2 * k - 1], h[2 * k]);
  if (2 * k == n) put(k, h[n - 1], T{});
}

template <class R>
void r2c_lines(const Pass& p, const R* src, Cx<R>* dst, R fct, std::int64_t begin,
               std::int64_t end) {
  const auto& plan = *static_cast<const pf::pocketfft_r<R>*>(p.kernel.get());
  const std::int64_t n = p.n, ss = p.src_stride, ds = p.dst_stride;
  LineCursor cur(p.lines, begin);
  std::int64_t l = begin;
#ifndef POCKETFFT_NO_VECTORS
  constexpr std::int64_t V = kLanes<R>;
  if (end - l >= V) {
    using Vec = pf::vtype_t<R>;
    pf::arr<Vec> block(static_cast<std::size_t>(n));
    std::int64_t so[V], dof[V];
    for (; end - l >= V; l += V) {
      for (std::int64_t j = 0; j < V; ++j, cur.next()) so[j] = cur.src(), dof[j] = cur.dst();
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < V; ++j) block[i][j] = src[so[j] + i * ss];
      plan.exec(block.data(), fct, true);
      unpack_halfcomplex(block.data(), n, [&](std::int64_t k, const Vec& re, const Vec& im) {
        for (std::int64_t j = 0; j < V; ++j) dst[dof[j] + k * ds].Set(re[j], im[j]);
      });
    }
  }
#endif
  if (l == end) return;
  pf::arr<R> line(ds == 1 ? 0 : static_cast<std::size_t>(n));
  for (; l < end; ++l, cur.next()) {
    const R* s = src + cur.src();
    Cx<R>* d = dst + cur.dst();
    if (ds == 1) {
      // The contiguous output line (n/2 + 1 complex >= n reals) holds the
      // halfcomplex result, unpacked in place from the back.
      R* h = reinterpret_cast<R*>(d);
      for (std::int64_t i = 0; i < n; ++i) h[i] = s[i * ss];
      plan.exec(h, fct, true);
      std::int64_t k = n / 2;
      if (2 * k == n) {
        d[k].Set(h[n - 1], R(0));
        --k;
      }
      for (; k >= 1; --k) {
        R re = h[2 * k - 1], im = h[2 * k];
        d[k].Set(re, im);
      }
      h[1] = R(0);
    } else {
      for (std::int64_t i = 0; i < n; ++i) line[i] = s[i * ss];
      plan.exec(line.data(), fct, true);
      unpack_halfcomplex(line.data(), n,
                         [&](std::int64_t k, R re, R im) { d[k * ds].Set(re, im); });
    }
  }
}

template <class R>
void c2r_lines(const Pass& p, const Cx<R>* src, R* dst, R fct, std::int64_t begin,
               std::int64_t end) {
  const auto& plan = *static_cast<const pf::pocketfft_r<R>*>(p.kernel.get());
  const std::int64_t n = p.n, ss = p.src_stride, ds = p.dst_stride;
  // Packs the n/2 + 1 complex inputs of line `s` into halfcomplex order.
  auto pack = [n, ss](const Cx<R>* s, auto&& set) {
    set(0, s[0].r);
    std::int64_t k = 1;
    for (; 2 * k < n; ++k) {
      set(2 * k - 1, s[k * ss].r);
      set(2 * k, s[k * ss].i);
    }
    if (2 * k == n) set(n - 1, s[k * ss].r);
  };
  LineCursor cur(p.lines, begin);
  std::int64_t l = begin;
#ifndef POCKETFFT_NO_VECTORS
  constexpr std::int64_t V = kLanes<R>;
  if (end - l >= V) {
    pf::arr<pf::vtype_t<R>> block(static_cast<std::size_t>(n));
    std::int64_t so[V], dof[V];
    for (; end - l >= V; l += V) {
      for (std::int64_t j = 0; j < V; ++j, cur.next()) so[j] = cur.src(), dof[j] = cur.dst();
      for (std::int64_t j = 0; j < V; ++j)
        pack(src + so[j], [&](std::int64_t i, R v) { block[i][j] = v; });
      plan.exec(block.data(), fct, false);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < V; ++j) dst[dof[j] + i * ds] = block[i][j];
    }
  }
#endif
  if (l == end) return;
  pf::arr<R> line(ds == 1 ? 0 : static_cast<std::size_t>(n));
  for (; l < end; ++l, cur.next()) {
    R* d = dst + cur.dst();
    R* buf = ds == 1 ? d : line.data();
    pack(src + cur.src(), [&](std::int64_t i, R v) { buf[i] = v; });
    plan.exec(buf, fct, false);
    if (ds != 1)
      for (std::int64_t i = 0; i < n; ++i) d[i * ds] = buf[i];
  }
}

// ---- plans -------------------------------------------------------------------------

template <class R>
class PocketPlan final : public Plan {
 public:
  PocketPlan(std::vector<Pass> passes, std::int64_t temp_elems, int threads)
      : passes_(std::move(passes)), temp_elems_(temp_elems), threads_(threads) {
    for (const Pass& p : passes_) scratch_elems_ = std::max(scratch_elems_, p.scratch);
  }

  void execute(const void* in, void* out, double scale) const override {
    pf::arr<Cx<R>> temp(static_cast<std::size_t>(temp_elems_));
    std::unique_ptr<pf::arr<Cx<R>>> scratch = take_scratch();
    auto buffer = [&](Buffer b) -> void* {
      switch (b) {
        case Buffer::input: return const_cast<void*>(in);  // read only
        case Buffer::output: return out;
        case Buffer::temp: return temp.data();
      }
      return nullptr;
    };
    R fct = static_cast<R>(scale);
    for (const Pass& p : passes_) {
      run_pass(p, buffer(p.src), buffer(p.dst), fct, scratch ? scratch->data() : nullptr);
      fct = R(1);
    }
    give_back(std::move(scratch));
  }

 private:
  void run_pass(const Pass& p, void* src, void* dst, R fct, Cx<R>* scratch) const {
    if (p.long_kernel) return run_long(p, src, dst, fct, scratch);
    auto run = [&](std::int64_t begin, std::int64_t end) {
      switch (p.kind) {
        case PassKind::c2c:
          return c2c_lines<R>(*static_cast<const pf::pocketfft_c<R>*>(p.kernel.get()), p.n,
                              p.forward, fct, static_cast<const Cx<R>*>(src), p.src_stride,
                              static_cast<Cx<R>*>(dst), p.dst_stride, p.lines, begin, end);
        case PassKind::r2c:
          return r2c_lines<R>(p, static_cast<const R*>(src), static_cast<Cx<R>*>(dst), fct,
                              begin, end);
        case PassKind::c2r:
          return c2r_lines<R>(p, static_cast<const Cx<R>*>(src), static_cast<R*>(dst), fct,
                              begin, end);
      }
    };
    parallel_lines(p.lines.count, kLanes<R>, p.lines.count * p.n, threads_, run);
  }

  // Long lines one after the other, each transform using the threads.
  void run_long(const Pass& p, void* src, void* dst, R fct, Cx<R>* scratch) const {
    LineCursor cur(p.lines, 0);
    for (std::int64_t l = 0; l < p.lines.count; ++l, cur.next()) {
      switch (p.kind) {
        case PassKind::c2c: {
          const auto& k = *static_cast<const LongFft<R>*>(p.long_kernel.get());
          const Cx<R>* s = static_cast<const Cx<R>*>(src) + cur.src();
          Cx<R>* d = static_cast<Cx<R>*>(dst) + cur.dst();
          if (p.dst_stride == 1) {
            k.exec(s, p.src_stride, d, fct, p.forward, scratch, threads_);
          } else {  // through the end of the scratch buffer
            Cx<R>* line = scratch + k.scratch_size();
            k.exec(s, p.src_stride, line, fct, p.forward, scratch, threads_);
            for (std::int64_t i = 0; i < p.n; ++i) d[i * p.dst_stride] = line[i];
          }
          break;
        }
        case PassKind::r2c:
          static_cast<const LongReal<R>*>(p.long_kernel.get())
              ->r2c(static_cast<const R*>(src) + cur.src(), p.src_stride,
                    static_cast<Cx<R>*>(dst) + cur.dst(), p.dst_stride, fct, scratch, threads_);
          break;
        case PassKind::c2r:
          static_cast<const LongReal<R>*>(p.long_kernel.get())
              ->c2r(static_cast<const Cx<R>*>(src) + cur.src(), p.src_stride,
                    static_cast<R*>(dst) + cur.dst(), p.dst_stride, fct, scratch, threads_);
          break;
      }
    }
  }

  // Scratch buffers are kept by the plan for reuse (large ones would be
  // fresh pages, hence page faults, on every call).
  std::unique_ptr<pf::arr<Cx<R>>> take_scratch() const {
    if (scratch_elems_ == 0) return nullptr;
    {
      std::lock_guard lock(pool_mutex_);
      if (!pool_.empty()) {
        auto b = std::move(pool_.back());
        pool_.pop_back();
        return b;
      }
    }
    return std::make_unique<pf::arr<Cx<R>>>(static_cast<std::size_t>(scratch_elems_));
  }
  void give_back(std::unique_ptr<pf::arr<Cx<R>>> b) const {
    if (!b) return;
    std::lock_guard lock(pool_mutex_);
    if (pool_.size() < 2) pool_.push_back(std::move(b));
  }

  std::vector<Pass> passes_;
  std::int64_t temp_elems_;
  std::int64_t scratch_elems_ = 0;
  int threads_;
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<pf::arr<Cx<R>>>> pool_;
};

// A buffer's layout as seen by the plan builder.
struct Layout {
  Shape shape;
  Strides strides;
};

Lines make_lines(const Layout& src, const Layout& dst, std::size_t axis) {
  struct Dim {
    std::int64_t n, s, d;
  };
  std::vector<Dim> dims;
  for (std::size_t i = 0; i < src.shape.size(); ++i)
    if (i != axis && src.shape[i] > 1) dims.push_back({src.shape[i], src.strides[i], dst.strides[i]});
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) {
    return std::abs(a.d) < std::abs(b.d);
  });
  Lines lines;
  for (const Dim& dim : dims) {
    if (!lines.extent.empty()) {
      std::size_t k = lines.extent.size() - 1;
      if (dim.s == lines.src_stride[k] * lines.extent[k] &&
          dim.d == lines.dst_stride[k] * lines.extent[k]) {
        lines.extent[k] *= dim.n;
        lines.count *= dim.n;
        continue;
      }
    }
    lines.extent.push_back(dim.n);
    lines.src_stride.push_back(dim.s);
    lines.dst_stride.push_back(dim.d);
    lines.count *= dim.n;
  }
  return lines;
}

template <class R>
std::shared_ptr<const Plan> build(const TransformDesc& desc) {
  const Layout input{input_shape(desc), desc.in_strides};
  const Layout output{output_shape(desc), col_major_strides(output_shape(desc))};
  const Layout temp{input.shape, col_major_strides(input.shape)};
  const Layout* layouts[3] = {&input, &output, &temp};
  std::vector<Pass> passes;
  auto add = [&](PassKind kind, bool forward, std::int64_t axis, Buffer src, Buffer dst) {
    const Layout& s = *layouts[static_cast<int>(src)];
    const Layout& d = *layouts[static_cast<int>(dst)];
    std::size_t a = static_cast<std::size_t>(axis);
    Pass p;
    p.kind = kind;
    p.forward = forward;
    p.n = kind == PassKind::c2c ? s.shape[a] : desc.shape[a];
    p.src_stride = s.strides[a];
    p.dst_stride = d.strides[a];
    p.lines = make_lines(s, d, a);
    p.src = src;
    p.dst = dst;
    const bool even = p.n % 2 == 0;
    if (kind == PassKind::c2c && p.n >= kLongLength<R>) {
      auto k = std::make_shared<const LongFft<R>>(p.n);
      p.scratch = k->scratch_size() + (p.dst_stride == 1 ? 0 : p.n);
      p.long_kernel = std::move(k);
    } else if (kind != PassKind::c2c && p.n >= (even ? 2 : 1) * kLongLength<R>) {
      auto k = std::make_shared<const LongReal<R>>(p.n);
      p.scratch = k->scratch_size();
      p.long_kernel = std::move(k);
    } else {
      p.kernel = kernel<R>(kind != PassKind::c2c, p.n);
    }
    passes.push_back(std::move(p));
  };
  // c2c axes in a good order: the one read most contiguously first, the
  // rest by increasing stride of the buffer they work in.
  auto order = [&](DimVec axes, const Layout& first_src, const Layout& rest) {
    if (axes.empty()) return axes;
    auto first = std::min_element(axes.begin(), axes.end(), [&](std::int64_t a, std::int64_t b) {
      return std::abs(first_src.strides[std::size_t(a)]) <
             std::abs(first_src.strides[std::size_t(b)]);
    });
    std::rotate(axes.begin(), first, first + 1);
    std::stable_sort(axes.begin() + 1, axes.end(), [&](std::int64_t a, std::int64_t b) {
      return rest.strides[std::size_t(a)] < rest.strides[std::size_t(b)];
    });
    return axes;
  };
  DimVec others(desc.axes.begin(), desc.axes.end() - 1);
  std::int64_t temp_elems = 0;
  switch (desc.kind) {
    case TransformKind::c2c_forward:
    case TransformKind::c2c_backward: {
      bool fwd = desc.kind == TransformKind::c2c_forward;
      DimVec axes = order(desc.axes, input, output);
      for (std::size_t i = 0; i < axes.size(); ++i)
        add(PassKind::c2c, fwd, axes[i], i == 0 ? Buffer::input : Buffer::output, Buffer::output);
      break;
    }
    case TransformKind::r2c:
      add(PassKind::r2c, true, desc.axes.back(), Buffer::input, Buffer::output);
      for (std::int64_t a : order(others, output, output))
        add(PassKind::c2c, true, a, Buffer::output, Buffer::output);
      break;
    case TransformKind::c2r: {
      DimVec axes = order(others, input, temp);
      for (std::size_t i = 0; i < axes.size(); ++i)
        add(PassKind::c2c, false, axes[i], i == 0 ? Buffer::input : Buffer::temp, Buffer::temp);
      add(PassKind::c2r, false, desc.axes.back(), axes.empty() ? Buffer::input : Buffer::temp,
          Buffer::output);
      if (!axes.empty()) temp_elems = shape_numel(temp.shape);
      break;
    }
  }
  return std::make_shared<const PocketPlan<R>>(std::move(passes), temp_elems, desc.threads);
}

/// The plan of `desc` built with this instruction set.
std::shared_ptr<const Plan> make_plan(const TransformDesc& desc) {
  if (desc.precision == DType::f32) return build<float>(desc);
  return build<double>(desc);
}

}  // namespace tenferro::fft::detail::TF_POCKETFFT_ISA

// The blocked max-plus / min-plus GEMM, written once with GCC vector
// extensions and compiled once per instruction set: each gemm_<isa>.cpp
// defines TROPICAL_ISA_NS (the namespace that keeps its instantiations
// apart from the other sets', so the linker never mixes them),
// TROPICAL_VECTOR_BYTES (16, 32 or 64) and TROPICAL_NR, is compiled with
// that set's flags (-mavx2, -mavx512f ...), and includes this file.
//
// Note [Tropical GEMM]
// The loop nest is the one of a BLIS-style GEMM: C is cut into column
// blocks of NC, the contraction into blocks of KC, the rows into blocks of
// MC. For each (NC, KC) block, B is packed into slivers of NR columns
// (row p of a sliver holds B[p, j0 .. j0+NR) contiguously) and for each MC
// block A is packed into slivers of MR = 2 vectors of rows (row p holds
// A[i0 .. i0+MR, p]). The micro-kernel keeps an MR x NR tile of running
// maxima in 2 * NR vector registers; per p it loads two vectors of A,
// broadcasts each of the NR entries of B, and does one add and one max per
// vector: two vector instructions per MR x NR / L products, where a (+, x)
// GEMM needs one FMA. That makes half the FMA GEMM's rate the limit for the
// floating-point types (both instructions issue on the same ports on
// current x86 cores). The tile starts at the semiring's zero in every KC
// block and is merged into C (max with the previous blocks' result), so
// any layout of C works. Edge slivers are padded with zeros and their
// extra rows and columns are never stored.
// Integer sums are formed in the unsigned type (wrapping, no undefined
// behaviour) and compared as signed.
//
// Note [One instruction set per file]: a file compiled with -mavx512f must
// not instantiate templates that other files instantiate too (std::vector
// and friends): the linker keeps one copy of each inline function, possibly
// the AVX-512 one, for every caller. So this code allocates with malloc and
// uses nothing from the standard library but constants and memcpy.
#include <omp.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

#include "kernel_api.hpp"

namespace tropical::detail::TROPICAL_ISA_NS {
namespace {

constexpr int kVB = TROPICAL_VECTOR_BYTES;
constexpr int kNR = TROPICAL_NR;
constexpr std::int64_t kKC = 256;
constexpr std::int64_t kMCBytes = 96 * 1024;   // packed A block, about half an L2
constexpr std::int64_t kNC = 3072;

template <class T>
struct Vec;
template <>
struct Vec<float> {
  typedef float type __attribute__((vector_size(kVB)));
  typedef std::uint32_t bits __attribute__((vector_size(kVB)));
};
template <>
struct Vec<double> {
  typedef double type __attribute__((vector_size(kVB)));
  typedef std::uint64_t bits __attribute__((vector_size(kVB)));
};
template <>
struct Vec<std::int32_t> {
  typedef std::int32_t type __attribute__((vector_size(kVB)));
  typedef std::uint32_t bits __attribute__((vector_size(kVB)));
};
template <>
struct Vec<std::int64_t> {
  typedef std::int64_t type __attribute__((vector_size(kVB)));
  typedef std::uint64_t bits __attribute__((vector_size(kVB)));
};

template <class T>
constexpr T semiring_zero(bool max) {
  if constexpr (std::is_floating_point_v<T>)
    return max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  else
    return max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
}

template <class T>
inline T scalar_add(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
  } else {
    return x + y;
  }
}

template <class T, bool kMax>
inline T scalar_better(T x, T y) {
  if constexpr (kMax) return x > y ? x : y;
  else return x < y ? x : y;
}

template <class T>
using VecT = typename Vec<T>::type;

template <class T>
inline __attribute__((always_inline)) VecT<T> vadd(VecT<T> x, VecT<T> y) {
  if constexpr (std::is_integral_v<T>) {
    using B = typename Vec<T>::bits;
    return reinterpret_cast<VecT<T>>(reinterpret_cast<B>(x) + reinterpret_cast<B>(y));
  } else {
    return x + y;
  }
}

template <class T, bool kMax>
inline __attribute__((always_inline)) VecT<T> vbetter(VecT<T> x, VecT<T> y) {
  if constexpr (kMax) return x > y ? x : y;
  else return x < y ? x : y;
}

// A broadcast: GCC widens the scalar of a vector-scalar operation, and
// x - 0 is x exactly (also for -0), so this folds to one broadcast.
template <class T>
inline __attribute__((always_inline)) VecT<T> vsplat(T x) {
  return x - VecT<T>{};
}

template <class T>
inline __attribute__((always_inline)) VecT<T> vload(const T* p) {
  VecT<T> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

template <class T>
inline __attribute__((always_inline)) void vstore(T* p, VecT<T> v) {
  std::memcpy(p, &v, sizeof(v));
}

// The MR x NR tile (MR = 2 vectors) of kc packed rows into `tile`
// (column-major, leading dimension MR).
template <class T, bool kMax>
inline __attribute__((always_inline)) void micro_kernel(std::int64_t kc, const T* __restrict ap,
                                                        const T* __restrict bp, T* __restrict tile) {
  constexpr int L = kVB / static_cast<int>(sizeof(T));
  constexpr int MR = 2 * L;
  const VecT<T> zero = vsplat<T>(semiring_zero<T>(kMax));
  VecT<T> c0[kNR], c1[kNR];
#pragma GCC unroll 16
  for (int j = 0; j < kNR; ++j) {
    c0[j] = zero;
    c1[j] = zero;
  }
  for (std::int64_t p = 0; p < kc; ++p) {
    const VecT<T> a0 = vload(ap), a1 = vload(ap + L);
#pragma GCC unroll 16
    for (int j = 0; j < kNR; ++j) {
      const VecT<T> bj = vsplat<T>(bp[j]);
      c0[j] = vbetter<T, kMax>(c0[j], vadd<T>(a0, bj));
      c1[j] = vbetter<T, kMax>(c1[j], vadd<T>(a1, bj));
    }
    ap += MR;
    bp += kNR;
  }
#pragma GCC unroll 16
  for (int j = 0; j < kNR; ++j) {
    vstore(tile + j * MR, c0[j]);
    vstore(tile + j * MR + L, c1[j]);
  }
}

template <class T, bool kMax>
void gemm_impl(const GemmProblem<T>& g) {
  constexpr int L = kVB / static_cast<int>(sizeof(T));
  constexpr std::int64_t MR = 2 * L;
  const std::int64_t m = g.m, n = g.n, k = g.k;
  const T zero = semiring_zero<T>(kMax);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::int64_t b = 0; b < g.batch; ++b)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) g.c[i * g.c_rs + j * g.c_cs + b * g.c_bs] = zero;
    return;
  }
  const std::int64_t kc_max = k < kKC ? k : kKC;
  std::int64_t mc_max = kMCBytes / (kc_max * static_cast<std::int64_t>(sizeof(T)));
  mc_max = mc_max < MR ? MR : mc_max / MR * MR;
  const std::int64_t m_round = (m + MR - 1) / MR * MR;
  if (mc_max > m_round) mc_max = m_round;
  const std::int64_t nc_max = n < kNC ? (n + kNR - 1) / kNR * kNR : kNC;

  const int threads = g.threads < 1 ? 1 : g.threads;
  // Packed B panel, then one packed A block per thread (Note [One instruction set per file]).
  const std::int64_t b_elems = kc_max * nc_max, a_elems = mc_max * kc_max;
  struct Buffer {
    void* p;
    ~Buffer() { std::free(p); }
  } buffer{std::malloc(static_cast<std::size_t>(b_elems + a_elems * threads) * sizeof(T))};
  if (buffer.p == nullptr) throw std::bad_alloc();
  T* const bpack = static_cast<T*>(buffer.p);
  const std::int64_t num_ic = (m + mc_max - 1) / mc_max;
  // Threads share the row blocks of one (NC, KC) block; tiny problems stay serial.
  const bool parallel = threads > 1 && num_ic > 1 && static_cast<double>(m) * static_cast<double>(n) *
                                                           static_cast<double>(k) > 2e6;

  for (std::int64_t bb = 0; bb < g.batch; ++bb) {
    const T* abase = g.a + g.a_batch[bb];
    const T* bbase = g.b + g.b_batch[bb];
    T* cbase = g.c + bb * g.c_bs;
    for (std::int64_t j0 = 0; j0 < n; j0 += nc_max) {
      const std::int64_t nc = n - j0 < nc_max ? n - j0 : nc_max;
      for (std::int64_t p0 = 0; p0 < k; p0 += kc_max) {
        const std::int64_t kc = k - p0 < kc_max ? k - p0 : kc_max;
        const bool first = p0 == 0;
        // Pack B[p0 .. p0+kc, j0 .. j0+nc] into slivers of kNR columns.
        for (std::int64_t js = 0; js < nc; js += kNR) {
          T* dst = bpack + js * kc;
          for (std::int64_t jj = 0; jj < kNR; ++jj) {
            const std::int64_t j = js + jj;
            if (j < nc) {
              const T* col = bbase + g.b_col[j0 + j];
              for (std::int64_t p = 0; p < kc; ++p) dst[p * kNR + jj] = col[g.b_k[p0 + p]];
            } else {
              for (std::int64_t p = 0; p < kc; ++p) dst[p * kNR + jj] = T(0);
            }
          }
        }
#pragma omp parallel for num_threads(threads) schedule(static) if (parallel)
        for (std::int64_t ic = 0; ic < num_ic; ++ic) {
          const std::int64_t i0 = ic * mc_max;
          const std::int64_t mc = m - i0 < mc_max ? m - i0 : mc_max;
          T* apack = bpack + b_elems + a_elems * omp_get_thread_num();
          // Pack A[i0 .. i0+mc, p0 .. p0+kc] into slivers of MR rows.
          for (std::int64_t is = 0; is < mc; is += MR) {
            T* dst = apack + is * kc;
            const std::int64_t rows = mc - is < MR ? mc - is : MR;
            for (std::int64_t p = 0; p < kc; ++p) {
              const T* src = abase + g.a_k[p0 + p];
              T* d = dst + p * MR;
              std::int64_t ii = 0;
              for (; ii < rows; ++ii) d[ii] = src[g.a_row[i0 + is + ii]];
              for (; ii < MR; ++ii) d[ii] = T(0);
            }
          }
          alignas(64) T tile[MR * kNR];
          for (std::int64_t js = 0; js < nc; js += kNR) {
            const std::int64_t cols = nc - js < kNR ? nc - js : kNR;
            for (std::int64_t is = 0; is < mc; is += MR) {
              const std::int64_t rows = mc - is < MR ? mc - is : MR;
              micro_kernel<T, kMax>(kc, apack + is * kc, bpack + js * kc, tile);
              T* cij = cbase + (i0 + is) * g.c_rs + (j0 + js) * g.c_cs;
              for (std::int64_t jj = 0; jj < cols; ++jj) {
                T* cc = cij + jj * g.c_cs;
                const T* t = tile + jj * MR;
                if (first) {
                  for (std::int64_t ii = 0; ii < rows; ++ii) cc[ii * g.c_rs] = t[ii];
                } else {
                  for (std::int64_t ii = 0; ii < rows; ++ii)
                    cc[ii * g.c_rs] = scalar_better<T, kMax>(cc[ii * g.c_rs], t[ii]);
                }
              }
            }
          }
        }
      }
    }
  }
}

template <class T>
void gemm(const GemmProblem<T>& g) {
  if (g.max) gemm_impl<T, true>(g);
  else gemm_impl<T, false>(g);
}

}  // namespace

// Aggregate initialisation: no call to GemmTable's implicit constructor,
// which every file would emit (Note [One instruction set per file]).
GemmTable TROPICAL_TABLE_FN() {
  return GemmTable{TROPICAL_ISA_NAME, &gemm<float>, &gemm<double>, &gemm<std::int32_t>, &gemm<std::int64_t>};
}

}  // namespace tropical::detail::TROPICAL_ISA_NS

namespace tropical::detail {
GemmTable TROPICAL_TABLE_FN() { return TROPICAL_ISA_NS::TROPICAL_TABLE_FN(); }
}  // namespace tropical::detail

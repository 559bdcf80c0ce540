// dot_general on the CPU: executes the metadata-only DotGeneralPlan
// (Note [GEMM mapping] in tenferro/ops/dot_plan.hpp). Small products
// (m n k <= kSmallGemm) and integer dtypes use a strided loop instead of
// BLAS, which needs no copies at all, only regular groups; many small
// independent products run one per thread.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "blas.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "scalar_ops.hpp"
#include "tenferro/ops/dot_plan.hpp"
#include "tenferro/tensor/strided_copy.hpp"
#include "vector_math.hpp"

namespace tenferro::cpu {
namespace {

constexpr std::int64_t kSmallGemm = 4096;
// Note [Free axes as loops] (tenferro/ops/dot_plan.hpp): smaller copies stay.
constexpr std::int64_t kMinLoopCopy = std::int64_t{1} << 16;
constexpr std::int64_t kMaxBlasInt = 2147483647;

// Note [Short contractions]: a GEMM with k <= kShortK is mostly memory
// traffic, and OpenBLAS adds to it: a pass that zeroes C before the kernel
// accumulates into it, and packed copies of A and B. Where A is column-major
// (op N) such a product runs on the register-block kernel of Note [Small
// column-major GEMM] instead, column blocks split over the threads when it
// is large: C written once, A read from cache. Measured (bench_peer
// --mode=einsum, one pinned core, 2-vCPU AMD EPYC, k limit 0 / 8 / 16 / 32 /
// 64, two alternating runs): lm_batch_likelihood_brackets_4_4d/opt_flops
// 53.8 / 46.2 / 46.1 / 44.6 / 51.6 ms, sentence_3_12d/ours 112 / 112 / 102 /
// 108 / 104 ms; 16 was the best overall.
constexpr std::int64_t kShortK = 16;

// Note [Split GEMM]: OpenBLAS's own threads gain little on mid-sized
// products (bin_matmul_256 at two threads: 1.52 ms against 1.90 at one,
// where JAX halves its time). With several threads and at least kSplitWork
// multiply-adds, a product is cut into one slice of C's columns (or rows,
// when there are more) per thread, at least kSplitSlice wide, and each slice
// is one BLAS call, which runs single-threaded inside the parallel region.
// Measured (bench_peer --mode=einsum, two pinned vCPUs, 2-vCPU AMD EPYC,
// split off / on, two alternating runs of all 57 cases): geometric mean of
// the time ratio 1.04 and 1.05; bin_matmul_256 1.20 -> 0.97 ms,
// bin_matmul_1024 unchanged (61 ms).
constexpr double kSplitWork = 2e6;
constexpr std::int64_t kSplitSlice = 64;

// Note [FMA GEMM] (vector_math.hpp): products (or slices of one, Note [Split
// GEMM]) of at most kFmaGemmWork multiply-adds with k <= kFmaGemmK and a
// column-major first operand run on the AVX-512 kernel instead of BLAS.
// Measured (standalone, 32 products per call, one pinned core, 2-vCPU AMD
// EPYC with AVX-512, ms OpenBLAS / ours): 64^3 0.31-0.35 / 0.32-0.34,
// 128^3 3.6-4.2 / 2.9-3.4, 192^3 11.7-12.3 / 10.2-11.5, 256^3 25.1-25.8 /
// 23.6-24.1.
constexpr double kFmaGemmWork = 256.0 * 256.0 * 256.0;
constexpr std::int64_t kFmaGemmK = 256;

// Note [Packed rows]: where x is read transposed (op T: its rows contiguous
// along k), the FMA kernel still runs, on panels of kPackRows rows packed
// column-major into a per-thread buffer (a multiple of its 24-row panels
// for double, 48 for float); y and the panel stay in cache. OpenBLAS took
// these from dgemm_tn, zeroing C first. Measured (perf, bench_peer
// lm_batch_likelihood_brackets_4_4d/opt_size, one pinned core, 2-vCPU AMD
// EPYC): OpenBLAS's kernel, memset and packing were 21 % of the samples,
// the FMA kernel and the packing loop that replace them 17.5 %; the case
// 14.0 -> 13.4 ms (min of two alternating runs). The panel is filled by
// the tiled transposition (Note [Transpose tiles]): an element-by-element
// loop wrote it at a stride of `rows` elements, which at 64 rows (512
// bytes) kept hitting the same cache sets; einsum "ji,jk->ik" of 64 x 64
// matrices 15.5-16.2 -> 12.6-12.9 us a call, 128 x 128 85.5-86.4 -> 82.0-82.5
// (one pinned core, best of 5 loops, alternating builds). Panels of fewer
// than kTiledPackMin elements keep the loop: there the tiled copy's set-up
// cost more than it saved (20 x 20: 2.46-2.55 -> 2.71-2.77 us).
constexpr std::int64_t kPackRows = 96;
constexpr std::int64_t kTiledPackMin = 4096;

// Note [Symmetric products]: a product of a matrix with its own transpose
// (X X^T or X^T X: both operands the same memory, read in opposite
// orientations), of more than kSyrkWork multiply-adds, is symmetric; BLAS
// syrk computes its lower triangle with half the multiply-adds, and the
// upper one is copied from it. The reverse rule of eigh builds V V^T (V
// diag(1) V^T for a sum of eigenvalues, Note [Products with ones]); a Gram
// matrix in an einsum is another. Measured (einsum "ij,kj->ik" of one
// operand against a copy of it, f64, one pinned core, 2-vCPU AMD EPYC, ms):
// n = 64 0.016 / 0.015, 96 0.035 / 0.038, 128 0.069 / 0.081, 256 0.48 /
// 0.61, 512 3.5 / 5.4 ("ji,jk->ik": 512 3.1 / 5.7); vjp of the sum of
// eigenvalues of eigh at 512 (bench_peer_ad --mode=jvp_vjp) 38.2-38.6 ->
// 35.3-36.3 ms with Note [Products with ones]. With two threads OpenBLAS's
// syrk gains less than Note [Split GEMM] does below n = 384 (two pinned
// vCPUs: n = 256 0.35-0.37 / 0.31-0.36, 384 0.78 / 1.11, 512 1.9 / 2.5-2.7),
// so there the limit is kSyrkWorkThreads.
constexpr double kSyrkWork = 80.0 * 80.0 * 80.0;
constexpr double kSyrkWorkThreads = 320.0 * 320.0 * 320.0;

// Copies `t` column-major with its axes in `order` (DotGeneralPlan copy).
// The copy keeps t's axis order; its strides say where each axis went.
Tensor copy_permuted(const Tensor& t, const DimVec& order, Backend& scratch) {
  const Strides dense = col_major_strides(t.permute(order).shape());
  Strides strides(order.size());
  for (std::size_t j = 0; j < order.size(); ++j)
    strides[static_cast<std::size_t>(order[j])] = dense[j];
  Tensor out =
      Tensor(scratch.allocate_storage(static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype())),
             t.dtype(), t.shape(), strides, 0);
  parallel_copy(out, t);
  return out;
}

template <class T>
void small_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t sam,
                std::int64_t sak, const T* b, std::int64_t sbk, std::int64_t sbn, T* c,
                std::int64_t scm, std::int64_t scn) {
  if (sam == 1 && scm == 1) {
    // Register blocks where the CPU has AVX2 (Note [Small column-major GEMM]
    // in vector_math.hpp: the same bits as the loop below).
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>)
      if (gemm_colmajor(m, n, k, a, sak, b, sbk, sbn, c, scn)) return;
    // Column updates C(:, j) += A(:, p) B(p, j): unit-stride inner loop.
    for (std::int64_t j = 0; j < n; ++j) {
      T* cj = c + j * scn;
      for (std::int64_t i = 0; i < m; ++i) cj[i] = T(0);
      for (std::int64_t p = 0; p < k; ++p) {
        const T bpj = b[p * sbk + j * sbn];
        const T* ap = a + p * sak;
        for (std::int64_t i = 0; i < m; ++i) cj[i] = wrap_add(cj[i], wrap_mul(ap[i], bpj));
      }
    }
    return;
  }
  // Dot products along k, a 4 x 4 block of C at a time: sixteen independent
  // sums (each still added in the order of p) instead of one dependent chain.
  constexpr std::int64_t R = 4;
  auto dot = [&](std::int64_t i, std::int64_t j) {
    T acc(0);
    for (std::int64_t p = 0; p < k; ++p) acc = wrap_add(acc, wrap_mul(a[i * sam + p * sak], b[p * sbk + j * sbn]));
    c[i * scm + j * scn] = acc;
  };
  const std::int64_t mb = m - m % R, nb = n - n % R;
  for (std::int64_t j0 = 0; j0 < nb; j0 += R) {
    for (std::int64_t i0 = 0; i0 < mb; i0 += R) {
      T acc[R][R] = {};
      for (std::int64_t p = 0; p < k; ++p) {
        T av[R], bv[R];
        for (std::int64_t u = 0; u < R; ++u) av[u] = a[(i0 + u) * sam + p * sak];
        for (std::int64_t v = 0; v < R; ++v) bv[v] = b[p * sbk + (j0 + v) * sbn];
        for (std::int64_t v = 0; v < R; ++v)
          for (std::int64_t u = 0; u < R; ++u) acc[v][u] = wrap_add(acc[v][u], wrap_mul(av[u], bv[v]));
      }
      for (std::int64_t v = 0; v < R; ++v)
        for (std::int64_t u = 0; u < R; ++u) c[(i0 + u) * scm + (j0 + v) * scn] = acc[v][u];
    }
    for (std::int64_t j = j0; j < j0 + R; ++j)
      for (std::int64_t i = mb; i < m; ++i) dot(i, j);
  }
  for (std::int64_t j = nb; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) dot(i, j);
}

template <class T>
void run_typed(const ops::DotGeneralPlan& p, const Tensor& lhs, const Tensor& rhs, const Tensor& out,
               Backend& scratch) {
  if (out.numel() == 0) return;  // nothing to write (and an empty tensor's data may be null)
  const Tensor L = p.lhs.copy ? copy_permuted(lhs, p.lhs.copy_order, scratch) : lhs;
  const Tensor R = p.rhs.copy ? copy_permuted(rhs, p.rhs.copy_order, scratch) : rhs;
  const Tensor target =
      p.out.copy ? Tensor(scratch.allocate_storage(static_cast<std::size_t>(out.numel()) * sizeof(T)), out.dtype(),
                          out.shape(), p.out.scratch_strides, 0)
                 : out;
  const std::int64_t m = p.m, n = p.n, k = p.k;
  const ops::GemmCall g = p.blas ? p.gemm() : ops::GemmCall{};
  if (p.blas)
    TF_CHECK(g.max_extent() <= kMaxBlasInt, UnimplementedError, "dot_general", "matrix extents (m=", m,
             ", n=", n, ", k=", k, ") exceed the 32-bit BLAS interface");
  const T* A = static_cast<const T*>(L.data_ptr());
  const T* B = static_cast<const T*>(R.data_ptr());
  T* C = static_cast<T*>(target.data_ptr());
  const std::int64_t batches = p.batch_count;
  const std::int64_t work = m * n * std::max<std::int64_t>(k, 1);
  const int nt = max_threads();
  auto one_batch = [&](std::int64_t b) {
    std::int64_t lo = 0, ro = 0, oo = 0;
    p.batch_offsets(b, lo, ro, oo);
    T* c = C + oo;
    if (k == 0) {  // empty operands (their data may be null): the sums are empty
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) c[i * p.out.row_stride + j * p.out.col_stride] = T(0);
      return;
    }
    const T* a = A + lo;
    const T* bb = B + ro;
    if (!p.blas) {
      small_gemm<T>(m, n, k, a, p.lhs.row_stride, p.lhs.col_stride, bb, p.rhs.row_stride, p.rhs.col_stride, c,
                    p.out.row_stride, p.out.col_stride);
      return;
    }
    using blas::blas_int;
    if constexpr (std::is_integral_v<T>) {
      TF_INTERNAL_ASSERT(false, "dot_general: BLAS path for an integer dtype");
    } else {
      const T* x = g.swapped ? bb : a;
      const T* y = g.swapped ? a : bb;
      const double gemm_work = double(g.m) * double(g.n) * double(g.k);
      // y's strides along k and n, for the register-block kernels (which
      // take x column-major: op N).
      const std::int64_t sbk = g.op_y == ops::GemmOp::N ? 1 : g.ldy;
      const std::int64_t sbn = g.op_y == ops::GemmOp::N ? g.ldy : 1;
      if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>)
        if (g.k <= kShortK && g.op_x == ops::GemmOp::N && has_gemm_colmajor()) {
          // Note [Short contractions]: register blocks, no BLAS.
          const std::int64_t cols = (g.n + 3) / 4;  // column blocks of four
          const int threads = omp_in_parallel() || gemm_work < kSplitWork
                                  ? 1
                                  : static_cast<int>(std::min<std::int64_t>(nt, cols));
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
          for (int t = 0; t < threads; ++t) {
            const std::int64_t j0 = std::min(g.n, 4 * (cols * t / threads));
            const std::int64_t j1 = std::min(g.n, 4 * (cols * (t + 1) / threads));
            if (j1 > j0) gemm_colmajor(g.m, j1 - j0, g.k, x, g.ldx, y + j0 * sbn, sbk, sbn, c + j0 * g.ldc, g.ldc);
          }
          return;
        }
      const double syrk_work = nt > 1 && !omp_in_parallel() ? kSyrkWorkThreads : kSyrkWork;
      if (x == y && g.m == g.n && g.ldx == g.ldy && g.op_x != g.op_y && gemm_work > syrk_work) {
        // Note [Symmetric products]: op_x N is X X^T (X is n x k), T is X^T X.
        blas::syrk_lower<T>(static_cast<char>(g.op_x), blas_int(g.n), blas_int(g.k), x, blas_int(g.ldx), c,
                            blas_int(g.ldc));
        constexpr std::int64_t kB = 32;  // the upper triangle by 32 x 32 blocks, each read from cache
        for (std::int64_t j0 = 0; j0 < g.n; j0 += kB)
          for (std::int64_t i0 = 0; i0 <= j0; i0 += kB)
            for (std::int64_t j = j0; j < std::min(g.n, j0 + kB); ++j)
              for (std::int64_t i = i0; i < std::min(j, i0 + kB); ++i) c[i + j * g.ldc] = c[j + i * g.ldc];
        return;
      }
      // One GEMM of C's columns [j0, j1) or rows [i0, i1): the FMA kernel when
      // it runs here and the slice is small enough (Note [FMA GEMM]), else BLAS.
      auto gemm_slice = [&](const T* xs, const T* ys, T* cs, std::int64_t mm, std::int64_t nn) {
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>)
          if (g.k <= kFmaGemmK && double(mm) * double(nn) * double(g.k) <= kFmaGemmWork && has_gemm_fma()) {
            if (g.op_x == ops::GemmOp::N) {
              gemm_fma(mm, nn, g.k, xs, g.ldx, ys, sbk, sbn, cs, g.ldc);
              return;
            }
            // Note [Packed rows].
            thread_local std::vector<T> panel;
            panel.resize(static_cast<std::size_t>(kPackRows * g.k));
            for (std::int64_t i0 = 0; i0 < mm; i0 += kPackRows) {
              const std::int64_t rows = std::min(kPackRows, mm - i0);
              if (rows * g.k >= kTiledPackMin) {
                detail::copy_strided(panel.data(), Strides{1, rows}, xs + i0 * g.ldx,
                                     Strides{g.ldx, 1}, Shape{rows, g.k}, sizeof(T));
              } else {
                for (std::int64_t i = 0; i < rows; ++i) {
                  const T* xr = xs + (i0 + i) * g.ldx;
                  for (std::int64_t q = 0; q < g.k; ++q)
                    panel[static_cast<std::size_t>(i + q * rows)] = xr[q];
                }
              }
              gemm_fma(rows, nn, g.k, panel.data(), rows, ys, sbk, sbn, cs + i0, g.ldc);
            }
            return;
          }
        blas::gemm<T>(static_cast<char>(g.op_x), static_cast<char>(g.op_y), blas_int(mm), blas_int(nn),
                      blas_int(g.k), xs, blas_int(g.ldx), ys, blas_int(g.ldy), cs, blas_int(g.ldc));
      };
      const bool by_cols = g.n >= g.m;
      const std::int64_t len = by_cols ? g.n : g.m;
      const int split = omp_in_parallel() ? 1 : static_cast<int>(std::min<std::int64_t>(nt, len / kSplitSlice));
      if (split > 1 && gemm_work >= kSplitWork) {
        // Note [Split GEMM]: one single-threaded BLAS call per thread, each on a slice of C.
#pragma omp parallel for schedule(static) num_threads(split)
        for (int t = 0; t < split; ++t) {
          const std::int64_t lo = len * t / split, hi = len * (t + 1) / split;
          if (hi <= lo) continue;
          const T* xs = x;
          const T* ys = y;
          T* cs = c;
          if (by_cols) {
            ys += g.op_y == ops::GemmOp::N ? lo * g.ldy : lo;
            cs += lo * g.ldc;
          } else {
            xs += g.op_x == ops::GemmOp::N ? lo : lo * g.ldx;
            cs += lo;
          }
          gemm_slice(xs, ys, cs, by_cols ? g.m : hi - lo, by_cols ? hi - lo : g.n);
        }
        return;
      }
      gemm_slice(x, y, c, g.m, g.n);
    }
  };

  if (batches > 1 && nt > 1 && !omp_in_parallel() && work * batches >= kParallelGrain &&
      (!p.blas || work <= (std::int64_t{256} * 256 * 256))) {
    // Many independent products: one per thread (BLAS runs single-threaded inside).
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t b = 0; b < batches; ++b) one_batch(b);
  } else {
    for (std::int64_t b = 0; b < batches; ++b) one_batch(b);
  }
  if (p.out.copy) parallel_copy(out, target);
}

// Note [Copies by slices]: a product whose plan copies more than
// kSliceCopyBytes (operands and scratch output together) runs as a sequence
// of products on slices of its axes, each copying about kSliceBytes,
// instead of one product on copies of the whole operands. Every slice's
// copies come from the same buffers of the backend's cache, where whole
// copies need buffers as large as the operands: fresh memory on a first
// call, which a VM pays for in page faults (Note [Buffer cache]).
// - Batch axes are sliced first, those of largest stride in the largest
//   copy first, the last one into ranges.
// - Without batch axes to slice, the free axes of the larger copied operand
//   are, in the same order, when its copy is over kSliceFreeCopyBytes. Each
//   slice's product reads all of the other operand again, so a slice copies
//   at least 4 times what that operand has (the extra reads stay under a
//   quarter of the copy's), and the other operand, when it is copied too,
//   is copied once, whole, beforehand. (From 16 MiB and with slices of
//   once the other operand, mera_open_26 along our path took 0.70-0.73 s
//   instead of 0.74, but str_nw_mera_closed_120 along opt_size at two
//   cores 0.61-0.62 instead of 0.53-0.56.)
// An axis is sliced only while each slice still reads runs of at least
// kSliceMinRunBytes of that operand (finer slices reread its cache lines:
// slicing a batch axis of stride 16 took tensornetwork_permutation_light_415
// along opt_flops from 133 to 145 ms).
// Measured (bench_peer --mode=einsum, pinned, 2-vCPU AMD EPYC):
// - gm_queen5_5_3 along our path, whose step from operands of 344 MB and
//   1033 MB to 38 MB copied both whole (1.38 GB), faults 562 000 pages in
//   its first call instead of 899 000 (perf stat). At one core that call
//   took 1.8-2.4 s instead of 4.5-7.9 s, and later calls 1.20-1.28 s; at
//   two cores, 0.67-0.98 s against 1.2-3.2 s.
// - str_nw_mera_closed_120 along opt_flops (copies of 271 and 275 MB
//   without batch axes): the first call at one core 1.43-1.55 s instead of
//   1.72-2.57 s, later calls 1.06-1.12 s instead of 1.16-1.18.
constexpr std::int64_t kSliceCopyBytes = std::int64_t{16} << 20;
constexpr std::int64_t kSliceBytes = std::int64_t{2} << 20;
constexpr std::int64_t kSliceMinRunBytes = 4096;
constexpr std::int64_t kSliceFreeCopyBytes = std::int64_t{64} << 20;

// One sliced axis of the product: its position in lhs, rhs and out (-1 where
// the tensor does not have it) and its extent.
struct SlicedAxis {
  std::int64_t lhs = -1, rhs = -1, out = -1, extent = 1;
};

// Note [Copies by slices]: the axes sliced, outermost first (each in single
// indices but the last, in ranges of `last_len`), and the operand copied
// whole beforehand (0 lhs, 1 rhs, -1 none).
struct Slicing {
  std::vector<SlicedAxis> axes;
  std::int64_t last_len = 1;
  int copy_first = -1;
};

// Slices candidates (each with its stride in the operand that decides, the
// largest first) until at most `limit` of the `units` that they and the
// axes left whole make up remain per slice.
bool slice_axes(std::vector<std::pair<SlicedAxis, std::int64_t>> cands, std::int64_t units,
                std::int64_t limit, std::size_t elem, Slicing& s) {
  std::stable_sort(cands.begin(), cands.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [axis, stride] : cands) {
    if (units <= limit) break;
    if (axis.extent <= 1) continue;
    const std::int64_t rest = units / axis.extent;
    const std::int64_t len =
        std::clamp<std::int64_t>(limit / std::max<std::int64_t>(rest, 1), 1, axis.extent);
    if (stride * len * static_cast<std::int64_t>(elem) < kSliceMinRunBytes) break;
    units = rest;
    s.axes.push_back(axis);
    s.last_len = len;
  }
  return !s.axes.empty();
}

std::optional<Slicing> slicing(const ops::DotGeneralPlan& p, const Tensor& lhs, const Tensor& rhs,
                               const Tensor& out, std::size_t elem) {
  const std::int64_t copied = p.copied_elements() * static_cast<std::int64_t>(elem);
  if (copied <= kSliceCopyBytes) return std::nullopt;
  // The largest copy (the output's scratch counts as a copy of the output).
  int big = 2;
  std::int64_t most = p.out.copy ? out.numel() : 0;
  if (p.lhs.copy && lhs.numel() > most) {
    big = 0;
    most = lhs.numel();
  }
  if (p.rhs.copy && rhs.numel() > most) {
    big = 1;
    most = rhs.numel();
  }
  const Tensor& t = big == 0 ? lhs : big == 1 ? rhs : out;
  auto stride = [&](std::int64_t axis) {
    return std::abs(t.strides()[static_cast<std::size_t>(axis)]);
  };
  Slicing s;
  // Batch axes (not the loop axes of Note [Free axes as loops], which follow them).
  std::vector<std::pair<SlicedAxis, std::int64_t>> cands;
  std::int64_t batches = 1;
  for (std::size_t i = 0; i < p.axes.lhs.batch.size(); ++i) {
    const SlicedAxis a{p.axes.lhs.batch[i], p.axes.rhs.batch[i], p.out_batch[i], p.batch_shape[i]};
    cands.emplace_back(a, stride(big == 0 ? a.lhs : big == 1 ? a.rhs : a.out));
    batches *= a.extent;
  }
  if (batches > 1 &&
      slice_axes(cands, batches, std::max<std::int64_t>(1, kSliceBytes / (copied / batches)), elem,
                 s))
    return s;
  if (big == 2 || most * static_cast<std::int64_t>(elem) <= kSliceFreeCopyBytes)
    return std::nullopt;
  // Free axes of the larger copied operand; every slice reads the other one.
  const DimVec& free = big == 0 ? p.axes.lhs.free : p.axes.rhs.free;
  const DimVec& out_axes = big == 0 ? p.out_m : p.out_n;
  const Tensor& other = big == 0 ? rhs : lhs;
  cands.clear();
  std::int64_t units = 1;
  for (std::size_t i = 0; i < free.size(); ++i) {
    SlicedAxis a{.out = out_axes[i], .extent = t.shape()[static_cast<std::size_t>(free[i])]};
    (big == 0 ? a.lhs : a.rhs) = free[i];
    cands.emplace_back(a, stride(free[i]));
    units *= a.extent;
  }
  if (units <= 1) return std::nullopt;
  const std::int64_t per_unit =
      std::max<std::int64_t>(1, t.numel() * static_cast<std::int64_t>(elem) / units);
  const std::int64_t target =
      std::max(kSliceBytes, 4 * other.numel() * static_cast<std::int64_t>(elem));
  if (!slice_axes(cands, units, std::max<std::int64_t>(1, target / per_unit), elem, s))
    return std::nullopt;
  if (big == 0 ? p.rhs.copy : p.lhs.copy) s.copy_first = big == 0 ? 1 : 0;
  return s;
}

template <class T>
void run_sliced(const DotGeneralAttrs& attrs, const ops::DotGeneralPlan& p, const Slicing& s,
                const ops::DotPlanOptions& options, const Tensor& lhs, const Tensor& rhs,
                const Tensor& out, Backend& scratch) {
  const Tensor lw = s.copy_first == 0 ? copy_permuted(lhs, p.lhs.copy_order, scratch) : lhs;
  const Tensor rw = s.copy_first == 1 ? copy_permuted(rhs, p.rhs.copy_order, scratch) : rhs;
  const std::size_t ns = s.axes.size();
  DimVec index(ns, 0);  // the current start along each sliced axis
  for (;;) {
    Tensor l = lw, r = rw, o = out;
    for (std::size_t j = 0; j < ns; ++j) {
      const SlicedAxis& a = s.axes[j];
      const std::int64_t lo = index[j],
                         hi = lo + (j + 1 == ns ? std::min(s.last_len, a.extent - lo) : 1);
      if (a.lhs >= 0) l = l.slice(a.lhs, lo, hi);
      if (a.rhs >= 0) r = r.slice(a.rhs, lo, hi);
      o = o.slice(a.out, lo, hi);
    }
    run_typed<T>(ops::plan_dot_general(attrs, l.shape(), l.strides(), r.shape(), r.strides(),
                                       o.strides(), options),
                 l, r, o, scratch);
    // Next slice: the last sliced axis moves fastest.
    std::size_t j = ns;
    while (j > 0) {
      --j;
      index[j] += j + 1 == ns ? s.last_len : 1;
      if (index[j] < s.axes[j].extent) break;
      index[j] = 0;
      if (j == 0) return;
    }
  }
}

}  // namespace

void dot_general(const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs, const Tensor& out,
                 Backend& scratch) {
  visit_dtype<kNumericDTypes>(lhs.dtype(), "dot_general", [&]<class T>() {
    const ops::DotPlanOptions options{.blas = !std::is_integral_v<T>,
                                      .min_blas_work = kSmallGemm + 1,
                                      .free_loops = true,
                                      .free_loops_min_copy = kMinLoopCopy};
    const ops::DotGeneralPlan plan = ops::plan_dot_general(
        attrs, lhs.shape(), lhs.strides(), rhs.shape(), rhs.strides(), out.strides(), options);
    if (out.numel() > 0)
      if (const std::optional<Slicing> s = slicing(plan, lhs, rhs, out, sizeof(T))) {
        run_sliced<T>(attrs, plan, *s, options, lhs, rhs, out, scratch);
        return;
      }
    run_typed<T>(plan, lhs, rhs, out, scratch);
  });
}

}  // namespace tenferro::cpu

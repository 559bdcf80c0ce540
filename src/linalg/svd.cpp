// linalg.svd, linalg.svdvals, linalg.svd_truncated, linalg.svd_rank_limit,
// linalg.dual_basis, linalg.pinv, linalg.matrix_rank.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common.hpp"
#include "ops.hpp"
#include "small.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kSvd = "linalg.svd";
constexpr const char* kSvdvals = "linalg.svdvals";
constexpr const char* kSvdTruncated = "linalg.svd_truncated";
constexpr const char* kSvdRankLimit = "linalg.svd_rank_limit";
constexpr const char* kDualBasis = "linalg.dual_basis";
constexpr const char* kPinv = "linalg.pinv";
constexpr const char* kMatrixRank = "linalg.matrix_rank";

// gesvd on a fresh copy of matrix b, for when gesdd did not converge.
template <class T>
int gesvd_fallback(char jobz, lapack_int m, lapack_int n, T* a, const T* base,
                   const MatrixBatch& mb, std::int64_t b, real_t<T>* s, T* u, lapack_int ldu, T* vt,
                   lapack_int ldvt) {
  load_matrix(a, m, base, mb, b);
  const lapack_int lda = std::max<lapack_int>(1, m);
  std::vector<real_t<T>> rwork(static_cast<std::size_t>(5 * std::min(m, n) + 1));
  T query(0);
  int info =
      lapack::gesvd<T>(jobz, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, &query, -1, rwork.data());
  if (info != 0) return info;
  std::vector<T> work(static_cast<std::size_t>(lapack::query_size(query)));
  return lapack::gesvd<T>(jobz, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work.data(),
                          static_cast<lapack_int>(work.size()), rwork.data());
}

// Note [SVD in phases] (use_phased_svd in common.hpp): gesdd on a square
// real matrix is gebrd (A = Q B P^T, B bidiagonal), bdsdc (B = Ub S Vb^T by
// divide and conquer) and two ormbr (U = Q Ub, V^T = Vb^T P^T). Debian's
// OpenBLAS gains nothing from a second thread in any of them at order 256
// (f64, ms at one / two threads: gebrd 3.5 / 4.0, bdsdc 4.5 / 4.6, ormbr
// 1.7 / 1.8 and 1.1 / 1.3), so with two threads and one square real matrix
// of order kPhasedSvdMin and up, linalg.svd runs the phases itself: gebrd on
// the calling thread; bdsdc on one thread while the other forms Q and P^T
// (orgbr); then U = Q Ub and V^T = Vb^T P^T as GEMMs by column halves, one
// per thread. The singular values are gesdd's (the same calls on the same
// data), U and V^T agree with gesdd's to rounding (forming Q and
// multiplying instead of applying its reflectors). gesdd first scales a
// matrix whose largest entry lies outside [sqrt(safe minimum) / eps, its
// inverse]; such a matrix keeps gesdd, as does one where bdsdc fails (then
// gesvd, as after gesdd). The workspaces come from the backend's buffers:
// fresh vectors cost about 1 ms of page faults a call at order 256.
// Measured (two pinned vCPUs of a 2-vCPU AMD EPYC Zen 4 VM, f64, ms): these
// LAPACK calls against dgesdd in a driver, order 128 2.06-2.32 / 1.66-1.75,
// 256 10.6-10.8 / 8.6-8.7, 512 78-82 / 60-62; linalg::svd of one 256 x 256
// matrix, best of 30 calls, one thread 10.4-10.6, two 8.5.
template <class R>
struct PhasedSvd {
  PhasedSvd(std::int64_t order, Backend& be);
  std::int64_t n;
  lapack_int lwork0 = 0, lwork1 = 0;
  Scratch scratch;  // from the backend's buffers (Note [Buffer cache])
  R *a = nullptr, *q = nullptr, *ub = nullptr, *vb = nullptr, *e = nullptr, *tauq = nullptr,
    *taup = nullptr, *work0 = nullptr, *work1 = nullptr;
  lapack_int* iwork = nullptr;
};

template <class R>
PhasedSvd<R>::PhasedSvd(std::int64_t order, Backend& be) : n(order) {
  const lapack_int ln = static_cast<lapack_int>(n);
  // Workspace queries read no arrays; any non-null pointers do.
  R dummy(0), brd(0), orq(0), orp(0);
  lapack::gebrd<R>(ln, ln, &dummy, ln, &dummy, &dummy, &dummy, &dummy, &brd, -1);
  lapack::orgbr<R>('Q', ln, ln, ln, &dummy, ln, &dummy, &orq, -1);
  lapack::orgbr<R>('P', ln, ln, ln, &dummy, ln, &dummy, &orp, -1);
  lwork0 = std::max<lapack_int>(lapack::query_size(brd), 3 * ln * ln + 4 * ln);
  lwork1 = std::max<lapack_int>({lapack::query_size(orq), lapack::query_size(orp), 1});
  for (R** p : {&a, &q, &ub, &vb}) scratch.add(*p, n * n);
  for (R** p : {&e, &tauq, &taup}) scratch.add(*p, n);
  scratch.add(work0, lwork0);
  scratch.add(work1, lwork1);
  scratch.add(iwork, 8 * n);
  scratch.allocate(be);
}

// The SVD of the n x n matrix in ws.a (overwritten) by Note [SVD in
// phases]: s, u and vt (n x n each). Returns bdsdc's info, or -1 when a's
// scale leaves it to gesdd.
template <class R>
int svd_in_phases(PhasedSvd<R>& ws, R* s, R* u, R* vt) {
  const std::int64_t n = ws.n;
  R* a = ws.a;
  const lapack_int ln = static_cast<lapack_int>(n);
  R amax(0);
  for (std::int64_t i = 0; i < n * n; ++i) amax = std::max(amax, std::abs(a[i]));
  const R small = std::sqrt(std::numeric_limits<R>::min()) / std::numeric_limits<R>::epsilon();
  if ((amax > R(0) && amax < small) || amax > R(1) / small) return -1;
  OneLapackThread one(true);
  int info = lapack::gebrd<R>(ln, ln, a, ln, s, ws.e, ws.tauq, ws.taup, ws.work0, ws.lwork0);
  if (info != 0) return info;
  int infos[2] = {0, 0};
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int t = 0; t < 2; ++t) {
    if (t == 0) {
      infos[0] = lapack::bdsdc<R>(ln, s, ws.e, ws.ub, ln, ws.vb, ln, ws.work0, ws.iwork);
    } else {
      std::copy_n(a, n * n, ws.q);
      infos[1] = lapack::orgbr<R>('Q', ln, ln, ln, ws.q, ln, ws.tauq, ws.work1, ws.lwork1);
      if (infos[1] == 0)
        infos[1] = lapack::orgbr<R>('P', ln, ln, ln, a, ln, ws.taup, ws.work1, ws.lwork1);
    }
  }
  if (infos[0] != 0) return infos[0];
  if (infos[1] != 0) return infos[1];
  const lapack_int half = ln / 2;
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int t = 0; t < 2; ++t) {
    const lapack_int c0 = t == 0 ? 0 : half, c = t == 0 ? half : ln - half;
    lapack::gemm<R>('N', 'N', ln, c, ln, R(1), ws.q, ln, ws.ub + c0 * n, ln, R(0), u + c0 * n, ln);
    lapack::gemm<R>('N', 'N', ln, c, ln, R(1), ws.vb, ln, a + c0 * n, ln, R(0), vt + c0 * n, ln);
  }
  return 0;
}

// The SVD of every matrix of `a` (checked: float, finite) into column-major
// outputs: jobz 'N' (s only), 'S' (u [m, k], vh [k, n]) or 'A' (u [m, m],
// vh [n, n]). Small matrices use small::bidiagonal_svd (Note [Small matrices]).
template <class T>
void svd_into(const char* op, const Tensor& a, char jobz, T* u, real_t<T>* s, T* vh, Backend& be) {
  using R = real_t<T>;
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t m = mb.rows, n = mb.cols, k = std::min(m, n), count = mb.count();
  const std::int64_t ku = jobz == 'A' ? m : jobz == 'S' ? k : 0;
  const std::int64_t kv = jobz == 'A' ? n : jobz == 'S' ? k : 0;
  if (k == 0) {
    if (jobz == 'A')
      for (std::int64_t b = 0; b < count; ++b) {
        set_identity(u + b * m * m, m, m);
        set_identity(vh + b * n * n, n, n);
      }
    return;
  }
  const T* base = ptr<T>(a);
  const lapack_int lm = to_lapack_int(op, m), ln = to_lapack_int(op, n);
  const lapack_int ldu = std::max<lapack_int>(1, lm);
  const lapack_int ldvt = std::max<lapack_int>(1, static_cast<lapack_int>(kv));
  BatchStatus status(count);
  const bool small_path = small::use_small_svd(m, n);
  const BatchSplit split = split_batch(count, m, n);
  bool phased = false;
  if constexpr (std::is_floating_point_v<T>)
    phased = jobz != 'N' && !split.parallel && use_phased_svd(m, n);
  const lapack_int mn = static_cast<lapack_int>(k), mx = std::max(lm, ln);
  // Per-thread state; the LAPACK buffers, from the backend's (Note [Buffer
  // cache]), are sized on first use (a small batch needs them only for a
  // matrix whose sweeps did not converge).
  struct State {
    T dummy[1] = {T(0)};
    Scratch scratch;
    T *a = nullptr, *work = nullptr;
    R* rwork = nullptr;
    lapack_int* iwork = nullptr;
    lapack_int lwork = 0;
    std::optional<small::SvdWorkspace<T>> fast;
    std::optional<PhasedSvd<R>> phases;
  };
  auto make_state = [&] {
    State st;
    if (small_path) st.fast.emplace(m, n);
    if constexpr (std::is_floating_point_v<T>)
      if (phased) st.phases.emplace(n, be);
    return st;
  };
  auto lapack_svd = [&](std::int64_t b, State& st, T* ub, R* sb, T* vb) -> int {
    if (st.work == nullptr) {
      T q(0);
      R rq(0);
      lapack_int iq = 0;
      int info =
          lapack::gesdd<T>(jobz, lm, ln, st.dummy, lm, sb, ub, ldu, vb, ldvt, &q, -1, &rq, &iq);
      if (info != 0) return info;
      st.lwork = lapack::query_size(q);
      std::int64_t lrwork = 1;
      if constexpr (is_complex_v<T>)
        lrwork +=
            jobz == 'N' ? 7 * mn : std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
      st.scratch.add(st.a, m * n);
      st.scratch.add(st.work, st.lwork);
      st.scratch.add(st.rwork, lrwork);
      st.scratch.add(st.iwork, 8 * std::int64_t{mn});
      st.scratch.allocate(be);
    }
    load_matrix(st.a, m, base, mb, b);
    int info = lapack::gesdd<T>(jobz, lm, ln, st.a, lm, sb, ub, ldu, vb, ldvt, st.work, st.lwork,
                                st.rwork, st.iwork);
    if (info > 0) info = gesvd_fallback<T>(jobz, lm, ln, st.a, base, mb, b, sb, ub, ldu, vb, ldvt);
    return info;
  };
  for_each_batch(count, split, make_state, [&](std::int64_t b, State& st) {
    T* ub = jobz == 'N' ? st.dummy : u + b * m * ku;
    T* vb = jobz == 'N' ? st.dummy : vh + b * kv * n;
    R* sb = s + b * k;
    if (small_path) {
      load_matrix(st.fast->a.data(), m, base, mb, b);
      if (small::bidiagonal_svd(*st.fast, jobz, ub, sb, vb)) return;
    }
    if constexpr (std::is_floating_point_v<T>)
      if (phased) {
        load_matrix(st.phases->a, m, base, mb, b);
        int info = svd_in_phases<T>(*st.phases, sb, ub, vb);
        if (info > 0)
          info = gesvd_fallback<T>(jobz, lm, ln, st.phases->a, base, mb, b, sb, ub, ldu, vb, ldvt);
        if (info >= 0) return status.set(b, info);
      }
    status.set(b, lapack_svd(b, st, ub, sb, vb));
  });
  throw_if_failed(op, a, "a", status, [](int info) {
    return ::tenferro::detail::str("did not converge (LAPACK gesdd, then gesvd: info ", info, ")");
  });
}

// ---- linalg.svd ----------------------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_svd(const SvdAttrs& attrs, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kSvd, in[0], "a");
  const bool full = attrs.full_matrices;
  D k = min_extent(s.rows, s.cols);
  DType d = in[0].dtype;
  return {{d, with_batch<D>({s.rows, full ? s.rows : k}, s.batch)},
          {real_dtype(d), with_batch<D>({k}, s.batch)},
          {d, with_batch<D>({full ? s.cols : k, s.cols}, s.batch)}};
}

std::vector<Tensor> svd_kernel(const SvdAttrs& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  std::vector<TensorMeta> metas = infer_svd<std::int64_t>(attrs, {{meta_of(a)}});
  check_finite(kSvd, a, "a");
  std::vector<Tensor> out;
  for (const TensorMeta& m : metas) out.push_back(be.empty(m.dtype, m.shape));
  char jobz = attrs.full_matrices ? 'A' : 'S';
  visit_dtype<kFloatDTypes>(a.dtype(), kSvd, [&]<class T>() {
    svd_into<T>(kSvd, a, jobz, ptr<T>(out[0]), ptr<real_t<T>>(out[1]), ptr<T>(out[2]), be);
  });
  return out;
}

// ---- linalg.svdvals ------------------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_svdvals(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kSvdvals, in[0], "a");
  return {{real_dtype(in[0].dtype), with_batch<D>({min_extent(s.rows, s.cols)}, s.batch)}};
}

// ---- linalg.svd_truncated -------------------------------------------------------------

// The rank r is data-dependent: one extent shared by the three outputs.
template <class D>
std::vector<BasicTensorMeta<D>> infer_svd_truncated(const SvdTruncatedOptions& attrs,
                                                    std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kSvdTruncated, in[0], "a");
  check_truncation(attrs);
  DType d = in[0].dtype;
  D r = dynamic_extent<D>("r");
  return {{d, with_batch<D>({s.rows, r}, s.batch)},
          {real_dtype(d), with_batch<D>({r}, s.batch)},
          {d, with_batch<D>({r, s.cols}, s.batch)}};
}

std::vector<Tensor> svd_truncated_kernel(const SvdTruncatedOptions& ta, std::span<const Tensor> in,
                                         Backend& be) {
  const Tensor& a = in[0];
  check_truncation(ta);
  MatrixShape ms = matrix_shape(kSvdTruncated, meta_of(a), "a");
  const std::int64_t m = ms.rows, n = ms.cols, k = std::min(m, n);
  check_finite(kSvdTruncated, a, "a");
  Tensor u = be.empty(a.dtype(), with_batch({m, k}, ms.batch));
  Tensor s = be.empty(real_dtype(a.dtype()), with_batch({k}, ms.batch));
  Tensor vh = be.empty(a.dtype(), with_batch({k, n}, ms.batch));
  return visit_dtype<kFloatDTypes>(a.dtype(), kSvdTruncated, [&]<class T>() {
    using R = real_t<T>;
    svd_into<T>(kSvdTruncated, a, 'S', ptr<T>(u), ptr<R>(s), ptr<T>(vh), be);
    const std::int64_t count = shape_numel(ms.batch);
    // Kept count per matrix (s is descending), then r = the largest.
    std::vector<std::int64_t> kept(static_cast<std::size_t>(count));
    std::int64_t r = 0;
    for (std::int64_t b = 0; b < count; ++b) {
      const R* sb = ptr<R>(s) + b * k;
      std::int64_t c = 0;
      while (c<k&& static_cast<double>(sb[c])> ta.rtol * static_cast<double>(sb[0])) ++c;
      if (ta.max_rank >= 0) c = std::min(c, ta.max_rank);
      kept[static_cast<std::size_t>(b)] = c;
      r = std::max(r, c);
    }
    Tensor u2 = r == k ? u : be.empty(a.dtype(), with_batch({m, r}, ms.batch));
    Tensor s2 = r == k ? s : be.empty(s.dtype(), with_batch({r}, ms.batch));
    Tensor vh2 = r == k ? vh : be.empty(a.dtype(), with_batch({r, n}, ms.batch));
    for (std::int64_t b = 0; b < count; ++b) {
      R* sb2 = ptr<R>(s2) + b * r;
      if (r != k) {
        std::copy_n(ptr<T>(u) + b * m * k, m * r, ptr<T>(u2) + b * m * r);
        std::copy_n(ptr<R>(s) + b * k, r, sb2);
        copy_matrix(ptr<T>(vh2) + b * r * n, r, ptr<T>(vh) + b * k * n, r, n, 1, k);
      }
      std::fill(sb2 + kept[static_cast<std::size_t>(b)], sb2 + r, R(0));
    }
    return std::vector<Tensor>{u2, s2, vh2};
  });
}

// ---- linalg.svd_rank_limit ------------------------------------------------------------
// The first min(max_rank, r) triplets of SVD factors u [m, r], s [r], vh [r, n]
// (Note [Rank limit after the SVD] in traced.cpp: the traced svd_truncated
// with a rank limit is this op on the truncation by rtol alone). The kept
// extent is known at trace time when r is; otherwise it is a fresh symbol.

template <class D>
std::vector<BasicTensorMeta<D>> infer_svd_rank_limit(const RankLimit& attrs, std::span<const BasicTensorMeta<D>> in) {
  TF_CHECK(attrs.max_rank >= -1, ValueError, kSvdRankLimit, "max_rank must be >= 0 (or -1: no limit), got ",
           attrs.max_rank);
  BasicMatrixShape<D> us = matrix_shape(kSvdRankLimit, in[0], "u");
  BasicMatrixShape<D> vs = matrix_shape(kSvdRankLimit, in[2], "vh");
  require_same_dtype(kSvdRankLimit, in[0], "u", in[2], "vh");
  const BasicTensorMeta<D>& s = in[1];
  TF_CHECK(s.dtype == real_dtype(in[0].dtype), DTypeError, kSvdRankLimit, "s must have dtype ",
           real_dtype(in[0].dtype), " (the real dtype of u), got ", s.dtype);
  bool fits = s.shape.size() == 1 + us.batch.size() && !differs(s.shape[0], us.cols) && !differs(vs.rows, us.cols);
  for (std::size_t i = 0; fits && i < us.batch.size(); ++i) fits = !differs(s.shape[i + 1], us.batch[i]);
  TF_CHECK(fits, ShapeError, kSvdRankLimit, "u ", in[0].shape, ", s ", s.shape, " and vh ", in[2].shape,
           " must be [m, r, batch...], [r, batch...] and [r, n, batch...]");
  require_same_batch(kSvdRankLimit, us, in[0], "u", vs, in[2], "vh");
  D r = us.cols;
  if (attrs.max_rank >= 0) {
    if (auto known = constant_extent(us.cols); known && *known != kDynamicDim)
      r = D(std::min(*known, attrs.max_rank));
    else
      r = dynamic_extent<D>("r");
  }
  return {{in[0].dtype, with_batch<D>({us.rows, r}, us.batch)},
          {s.dtype, with_batch<D>({r}, us.batch)},
          {in[2].dtype, with_batch<D>({r, vs.cols}, us.batch)}};
}

std::vector<Tensor> svd_rank_limit_kernel(const RankLimit& attrs, std::span<const Tensor> in, Backend& be) {
  std::vector<TensorMeta> metas{meta_of(in[0]), meta_of(in[1]), meta_of(in[2])};
  const std::int64_t r = infer_svd_rank_limit<std::int64_t>(attrs, metas)[1].shape[0];
  const std::int64_t axes[3] = {1, 0, 0};  // the rank axis of u, s, vh
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < 3; ++i) {
    Tensor kept = in[i].slice(axes[i], 0, r);
    out.push_back(be.empty(kept.dtype(), kept.shape()));
    out.back().copy_from(kept);
  }
  return out;
}

// ---- linalg.dual_basis ----------------------------------------------------------------
// Note [Dual basis]: the SVD rule (ad_rules.cpp) works with the dual bases
// x (x^H x)^-1 of its factors, which keep its derivatives exact off
// orthonormality (Note [SVD derivative]). Its operands are the factors a
// kernel returned, whose columns are orthonormal, so the dual is x itself:
// this op returns a copy of x (the rule's operands are never anything else;
// the op is the family's, for the rules) and carries the derivative of
// x (x^H x)^-1 (dual_basis_jvp). Computed literally, the dual took a Gram
// matrix, an LU and a solve per factor in every SVD derivative program.

template <class D>
std::vector<BasicTensorMeta<D>> infer_dual_basis(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
  matrix_shape(kDualBasis, in[0], "x");
  return {in[0]};
}

std::vector<Tensor> dual_basis_kernel(const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
  matrix_shape(kDualBasis, meta_of(in[0]), "x");
  Tensor out = be.empty(in[0].dtype(), in[0].shape());
  out.copy_from(in[0]);
  return {out};
}

// ---- linalg.pinv and linalg.matrix_rank ------------------------------------------------

// s_i <= max(atol, rtol * s_0) counts as zero; rtol's negative default is eps * max(m, n).
struct RankTol {
  double rtol, atol;
  double threshold(double s0) const { return std::max(atol, rtol * s0); }
};

void check_rank_tolerance(const char* op, const RankTolerance& t) {
  checked_tolerance(op, "rtol", t.rtol, true);
  checked_tolerance(op, "atol", t.atol, false);
}

template <class T>
RankTol rank_tol(const RankTolerance& t, const char* op, std::int64_t m, std::int64_t n) {
  check_rank_tolerance(op, t);
  double rtol = t.rtol;
  if (rtol < 0) rtol = eps_of<T>() * static_cast<double>(std::max(m, n));
  return {rtol, t.atol};
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_pinv(const RankTolerance& attrs, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kPinv, in[0], "a");
  check_rank_tolerance(kPinv, attrs);
  return {{in[0].dtype, with_batch<D>({s.cols, s.rows}, s.batch)}};
}

std::vector<Tensor> pinv_kernel(const RankTolerance& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  MatrixShape ms = matrix_shape(kPinv, meta_of(a), "a");
  const std::int64_t m = ms.rows, n = ms.cols, k = std::min(m, n);
  check_finite(kPinv, a, "a");
  Tensor out = be.empty(a.dtype(), with_batch({n, m}, ms.batch));
  visit_dtype<kFloatDTypes>(a.dtype(), kPinv, [&]<class T>() {
    using R = real_t<T>;
    T* o = ptr<T>(out);
    const std::int64_t count = shape_numel(ms.batch);
    if (k == 0) {
      std::fill(o, o + count * n * m, T(0));
      return;
    }
    std::vector<T> u(static_cast<std::size_t>(count * m * k)),
        vh(static_cast<std::size_t>(count * k * n));
    std::vector<R> s(static_cast<std::size_t>(count * k));
    svd_into<T>(kPinv, a, 'S', u.data(), s.data(), vh.data(), be);
    const lapack_int ln = static_cast<lapack_int>(n), lm = static_cast<lapack_int>(m),
                     lk = static_cast<lapack_int>(k);
    const RankTol tol = rank_tol<T>(attrs, kPinv, m, n);
    for_each_batch(
        count, split_batch(count, m, n), [] { return 0; },
        [&](std::int64_t b, int&) {
          const R* sb = s.data() + b * k;
          T* vb = vh.data() + b * k * n;
          double thr = tol.threshold(static_cast<double>(sb[0]));
          for (std::int64_t i = 0; i < k; ++i) {
            R f = static_cast<double>(sb[i]) > thr ? R(1) / sb[i] : R(0);
            for (std::int64_t j = 0; j < n; ++j) vb[i + j * k] *= f;
          }
          // pinv = Vh^H diag(1/s) U^H, with diag(1/s) folded into Vh's rows.
          lapack::gemm<T>('C', 'C', ln, lm, lk, T(1), vb, lk, u.data() + b * m * k, lm, T(0),
                          o + b * n * m, ln);
        });
  });
  return {out};
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_matrix_rank(const RankTolerance& attrs,
                                                  std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kMatrixRank, in[0], "a");
  check_rank_tolerance(kMatrixRank, attrs);
  return {{DType::i64, s.batch}};
}

std::vector<Tensor> matrix_rank_kernel(const RankTolerance& attrs, std::span<const Tensor> in,
                                       Backend& be) {
  const Tensor& a = in[0];
  MatrixShape ms = matrix_shape(kMatrixRank, meta_of(a), "a");
  const std::int64_t k = std::min(ms.rows, ms.cols), count = shape_numel(ms.batch);
  Tensor s = singular_values(kMatrixRank, a, be);
  Tensor out = be.empty(DType::i64, ms.batch);
  visit_dtype<kFloatDTypes>(a.dtype(), kMatrixRank, [&]<class T>() {
    const real_t<T>* sp = ptr<real_t<T>>(s);
    const RankTol tol = rank_tol<T>(attrs, kMatrixRank, ms.rows, ms.cols);
    for (std::int64_t b = 0; b < count; ++b) {
      const real_t<T>* sb = sp + b * k;
      std::int64_t r = 0;
      if (k > 0) {
        double thr = tol.threshold(static_cast<double>(sb[0]));
        while (r<k&& static_cast<double>(sb[r])> thr) ++r;
      }
      ptr<std::int64_t>(out)[b] = r;
    }
  });
  return {out};
}

}  // namespace

void check_truncation(const SvdTruncatedOptions& o) {
  TF_CHECK(o.max_rank >= -1, ValueError, kSvdTruncated,
           "max_rank must be >= 0 (or -1: no limit), got ", o.max_rank);
  checked_tolerance(kSvdTruncated, "rtol", o.rtol, false);
}

Tensor singular_values(const char* op, const Tensor& a, Backend& be) {
  MatrixShape ms = matrix_shape(op, meta_of(a), "a");
  check_finite(op, a, "a");
  Tensor s = be.empty(real_dtype(a.dtype()), with_batch({std::min(ms.rows, ms.cols)}, ms.batch));
  visit_dtype<kFloatDTypes>(a.dtype(), op, [&]<class T>() {
    svd_into<T>(op, a, 'N', nullptr, ptr<real_t<T>>(s), nullptr, be);
  });
  return s;
}

// ---- declarations (Note [Declaring a linalg op] in ops.hpp) ----------------------------

Declaration declare_svd() {
  FamilyOp op = define_family_op<SvdAttrs>(
      {.name = kSvd, .num_inputs = 1, .num_outputs = 3, .ad = AdKind::nonlinear},
      [](const SvdAttrs& a, auto in) { return infer_svd(a, in); }, svd_rules());
  return {std::move(op), typed_kernel<SvdAttrs>(svd_kernel)};
}

Declaration declare_svdvals() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kSvdvals,
       .num_inputs = 1,
       .num_outputs = 1,
       .ad = AdKind::nonlinear,
       .projection_of = kSvd,  // S of the SVD (Note [Output projections]): one kernel in AD programs
       .projection_outputs = {1}},
      [](const NoFamilyAttrs& a, auto in) { return infer_svdvals(a, in); }, svdvals_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>([](const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
    return std::vector<Tensor>{singular_values(kSvdvals, in[0], be)};
  })};
}

Declaration declare_svd_truncated() {
  FamilyOp op = define_family_op<SvdTruncatedOptions>(
      {.name = kSvdTruncated, .num_inputs = 1, .num_outputs = 3, .ad = AdKind::nonlinear},
      [](const SvdTruncatedOptions& a, auto in) { return infer_svd_truncated(a, in); },
      svd_truncated_rules());
  return {std::move(op), typed_kernel<SvdTruncatedOptions>(svd_truncated_kernel)};
}

Declaration declare_svd_rank_limit() {
  FamilyOp op = define_family_op<RankLimit>(
      {.name = kSvdRankLimit, .num_inputs = 3, .num_outputs = 3, .ad = AdKind::nonlinear},
      [](const RankLimit& a, auto in) { return infer_svd_rank_limit(a, in); }, svd_rank_limit_rules());
  return {std::move(op), typed_kernel<RankLimit>(svd_rank_limit_kernel)};
}

Declaration declare_dual_basis() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kDualBasis, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs& a, auto in) { return infer_dual_basis(a, in); }, dual_basis_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>(dual_basis_kernel)};
}

Declaration declare_pinv() {
  FamilyOp op = define_family_op<RankTolerance>(
      {.name = kPinv, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const RankTolerance& a, auto in) { return infer_pinv(a, in); }, pinv_rules());
  return {std::move(op), typed_kernel<RankTolerance>(pinv_kernel)};
}

Declaration declare_matrix_rank() {
  FamilyOp op = define_family_op<RankTolerance>(
      {.name = kMatrixRank, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::none},
      [](const RankTolerance& a, auto in) { return infer_matrix_rank(a, in); }, matrix_rank_rules());
  return {std::move(op), typed_kernel<RankTolerance>(matrix_rank_kernel)};
}

}  // namespace tenferro::linalg::detail

// linalg.svd, linalg.svdvals, linalg.svd_truncated, linalg.svd_rank_limit,
// linalg.dual_basis, linalg.pinv, linalg.matrix_rank.
#include <algorithm>
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

// The SVD of every matrix of `a` (checked: float, finite) into column-major
// outputs: jobz 'N' (s only), 'S' (u [m, k], vh [k, n]) or 'A' (u [m, m],
// vh [n, n]). Small matrices use small::bidiagonal_svd (Note [Small matrices]).
template <class T>
void svd_into(const char* op, const Tensor& a, char jobz, T* u, real_t<T>* s, T* vh) {
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
  const lapack_int mn = static_cast<lapack_int>(k), mx = std::max(lm, ln);
  // Per-thread state; the LAPACK buffers are sized on first use (a small
  // batch needs them only for a matrix whose sweeps did not converge).
  struct State {
    std::vector<T> a, work, dummy;
    std::vector<R> rwork;
    std::vector<lapack_int> iwork;
    std::optional<small::SvdWorkspace<T>> fast;
  };
  auto make_state = [&] {
    State st;
    st.a.resize(static_cast<std::size_t>(m * n));
    st.dummy.resize(1);
    if (small_path) st.fast.emplace(m, n);
    return st;
  };
  auto lapack_svd = [&](std::int64_t b, State& st, T* ub, R* sb, T* vb) -> int {
    if (st.work.empty()) {
      T q(0);
      R rq(0);
      lapack_int iq = 0;
      int info =
          lapack::gesdd<T>(jobz, lm, ln, st.a.data(), lm, sb, ub, ldu, vb, ldvt, &q, -1, &rq, &iq);
      if (info != 0) return info;
      st.work.resize(static_cast<std::size_t>(lapack::query_size(q)));
      std::size_t lrwork = 1;
      if constexpr (is_complex_v<T>)
        lrwork += jobz == 'N' ? static_cast<std::size_t>(7 * mn)
                              : static_cast<std::size_t>(
                                    std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn));
      st.rwork.resize(lrwork);
      st.iwork.resize(static_cast<std::size_t>(8 * mn));
    }
    load_matrix(st.a.data(), m, base, mb, b);
    int info =
        lapack::gesdd<T>(jobz, lm, ln, st.a.data(), lm, sb, ub, ldu, vb, ldvt, st.work.data(),
                         static_cast<lapack_int>(st.work.size()), st.rwork.data(), st.iwork.data());
    if (info > 0)
      info = gesvd_fallback<T>(jobz, lm, ln, st.a.data(), base, mb, b, sb, ub, ldu, vb, ldvt);
    return info;
  };
  for_each_batch(count, split_batch(count, m, n), make_state, [&](std::int64_t b, State& st) {
    T* ub = jobz == 'N' ? st.dummy.data() : u + b * m * ku;
    T* vb = jobz == 'N' ? st.dummy.data() : vh + b * kv * n;
    R* sb = s + b * k;
    if (small_path) {
      load_matrix(st.fast->a.data(), m, base, mb, b);
      if (small::bidiagonal_svd(*st.fast, jobz, ub, sb, vb)) return;
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
    svd_into<T>(kSvd, a, jobz, ptr<T>(out[0]), ptr<real_t<T>>(out[1]), ptr<T>(out[2]));
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
    svd_into<T>(kSvdTruncated, a, 'S', ptr<T>(u), ptr<R>(s), ptr<T>(vh));
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
    svd_into<T>(kPinv, a, 'S', u.data(), s.data(), vh.data());
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
    svd_into<T>(op, a, 'N', nullptr, ptr<real_t<T>>(s), nullptr);
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

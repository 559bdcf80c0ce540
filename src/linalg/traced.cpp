// The linalg ops on graph values (tenferro/linalg/traced.hpp), called
// through their typed references (Note [Declaring a linalg op] in ops.hpp),
// and linalg.band (the masking op the derivative rules use for triangles
// and diagonals).
#include "tenferro/linalg/traced.hpp"

#include "common.hpp"
#include "ops.hpp"
#include "tenferro/ops/value_ops.hpp"

namespace tenferro::linalg {

using detail::apply;
namespace opref = detail::opref;

HandleSvd<Value> svd(const Value& a, SvdOptions options) {
  auto o = apply(opref::svd, SvdAttrs{.full_matrices = options.full_matrices}, {a});
  return {o[0], o[1], o[2]};
}
Value svdvals(const Value& a) { return apply(opref::svdvals, {}, {a})[0]; }
// Note [Rank limit after the SVD]: on graph values, svd_truncated with a
// rank limit is two ops: the truncation by rtol alone, then
// linalg.svd_rank_limit (the first max_rank triplets). Both give the same
// factors as the one op: the values past a batch member's own count are
// zero in both. The derivative rule of the truncated SVD needs the full thin
// SVD, which the truncation by rtol alone is: its rule reads its own outputs
// and computes no second SVD (the one op's rule has to), and the
// rank limit's derivative is the same prefix of the tangents.
HandleSvd<Value> svd_truncated(const Value& a, SvdTruncatedOptions options) {
  detail::check_truncation(options);
  auto o = apply(opref::svd_truncated, SvdTruncatedOptions{.max_rank = -1, .rtol = options.rtol}, {a});
  if (options.max_rank >= 0) o = apply(opref::svd_rank_limit, RankLimit{.max_rank = options.max_rank}, o);
  return {o[0], o[1], o[2]};
}
HandleQr<Value> qr(const Value& a, QrMode mode) {
  auto o = apply(opref::qr, mode, {a});
  return {o[0], o[1]};
}
HandleLu<Value> lu(const Value& a, LuOptions options) {
  auto o = apply(opref::lu, options, {a});
  return {o[0], o[1], o[2], o[3]};
}
HandleLuFactor<Value> lu_factor(const Value& a) {
  auto o = apply(opref::lu_factor, {}, {a});
  return {o[0], o[1]};
}
// q = H_0 (H_1 (... (H_{k-1} e))), e the first n columns of the identity, one
// rank-1 update q -= (tau_i v_i) (v_i^H q) per reflector.
Value householder_product(const Value& a, const Value& tau) {
  const char* op = "linalg.householder_product";
  TF_CHECK(is_float(a.dtype()), DTypeError, op, "a must be a floating-point matrix, got ",
           a.dtype());
  TF_CHECK(tau.dtype() == a.dtype(), DTypeError, op, "tau must have a's dtype ", a.dtype(),
           ", got ", tau.dtype());
  TF_CHECK(a.ndim() >= 2 && tau.ndim() == a.ndim() - 1, ShapeError, op,
           "a must be [m, n, batch...] and tau [k, batch...], got a ", a.shape(), " and tau ",
           tau.shape());
  for (std::int64_t i = 2; i < a.ndim(); ++i)
    TF_CHECK(!detail::differs(a.shape()[static_cast<std::size_t>(i)],
                              tau.shape()[static_cast<std::size_t>(i - 1)]),
             ShapeError, op, "a ", a.shape(), " and tau ", tau.shape(),
             " must have the same batch extents");
  const Dim &m = a.shape()[0], &n = a.shape()[1];
  const auto mv = m.try_value(), nv = n.try_value(), kv = tau.shape()[0].try_value();
  TF_CHECK(!(mv && nv) || *mv >= *nv, ShapeError, op, "a ", a.shape(),
           " must have at least as many rows as columns");
  TF_CHECK(kv.has_value(), UnimplementedError, op, "the number of reflectors (tau ", tau.shape(),
           ") must be a constant extent");
  TF_CHECK(!nv || *kv <= *nv, ShapeError, op, "tau ", tau.shape(), " has more reflectors than a ",
           a.shape(), " has columns");
  DimVec swap{1, 0}, tdims{1};
  for (std::int64_t i = 2; i < a.ndim(); ++i) {
    swap.push_back(i);
    tdims.push_back(i);
  }
  Value q = band(vops::full(a.shape(), Scalar(1), a.dtype()), 0, 0);
  Value vs = vops::add(band(a, -kNoLimit, -1), q);  // unit diagonal, zeros above
  for (std::int64_t i = *kv - 1; i >= 0; --i) {
    Value v = vops::slice_axis(vs, 1, Dim(i), Dim(i + 1));
    Value tv = vops::mul(
        v, vops::broadcast_in_dim(vops::slice_axis(tau, 0, Dim(i), Dim(i + 1)), v.shape(), tdims));
    Value vh = vops::conj(vops::transpose(v, swap));
    q = vops::sub(q, vops::matmul(tv, vops::matmul(vh, q)));
  }
  return q;
}
Value lu_solve(const Value& lu, const Value& pivots, const Value& b, Transpose trans) {
  return apply(opref::lu_solve, trans, {lu, pivots, b})[0];
}
Value cholesky(const Value& a, TriangleOptions options) { return apply(opref::cholesky, options, {a})[0]; }
HandleEigh<Value> eigh(const Value& a, TriangleOptions options) {
  auto o = apply(opref::eigh, options, {a});
  return {o[0], o[1]};
}
HandleEig<Value> eig(const Value& a) {
  auto o = apply(opref::eig, {}, {a});
  return {o[0], o[1]};
}
Value eigvals(const Value& a) { return apply(opref::eigvals, {}, {a})[0]; }
// Note [Solves that keep the factors] (lu.cpp).
Value solve(const Value& a, const Value& b) {
  auto f = apply(opref::lu_factor, {}, {a});
  return apply(opref::solve_factored, Transpose::none, {a, f[0], f[1], b})[0];
}
Value detail::solve_factored(const Value& a, const Value& lu, const Value& pivots, const Value& b,
                             Transpose trans) {
  return apply(opref::solve_factored, trans, {a, lu, pivots, b})[0];
}
Value triangular_solve(const Value& a, const Value& b, TriangularSolveOptions options) {
  return apply(opref::triangular_solve, options, {a, b})[0];
}
Value inv(const Value& a) { return apply(opref::inv, {}, {a})[0]; }
Value det(const Value& a) { return apply(opref::det, {}, {a})[0]; }
HandleSlogdet<Value> slogdet(const Value& a) {
  auto o = apply(opref::slogdet, {}, {a});
  return {o[0], o[1]};
}
HandleLstsq<Value> lstsq(const Value& a, const Value& b, LstsqOptions options) {
  auto o = apply(opref::lstsq, options, {a, b});
  return {o[0], o[1], o[2], o[3]};
}
Value pinv(const Value& a, RankTolerance tolerance) { return apply(opref::pinv, tolerance, {a})[0]; }
Value matrix_exp(const Value& a) { return apply(opref::matrix_exp, {}, {a})[0]; }
Value matrix_rank(const Value& a, RankTolerance tolerance) {
  return apply(opref::matrix_rank, tolerance, {a})[0];
}
Value vector_norm(const Value& x, double ord) { return apply(opref::vector_norm, VectorNormAttrs{ord}, {x})[0]; }
Value matrix_norm(const Value& a, NormOrder ord) { return apply(opref::matrix_norm, MatrixNormAttrs{std::move(ord)}, {a})[0]; }
Value cond(const Value& a, NormOrder ord) { return apply(opref::cond, CondAttrs{std::move(ord)}, {a})[0]; }
Value band(const Value& a, std::int64_t lo, std::int64_t hi) {
  return apply(opref::band, BandAttrs{lo, hi}, {a})[0];
}

namespace detail {
namespace {

// ---- linalg.band ------------------------------------------------------------------------

constexpr const char* kBand = "linalg.band";

std::vector<Tensor> band_kernel(const BandAttrs& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  const std::int64_t lo = attrs.lo, hi = attrs.hi;
  Tensor out = be.empty(a.dtype(), a.shape());
  MatrixBatch mb = matrix_batch(a);
  visit_dtype<kFloatDTypes>(a.dtype(), kBand, [&]<class T>() {
    const T* src = static_cast<const T*>(a.data_ptr());
    T* dst = ptr<T>(out);
    for (std::int64_t b = 0; b < mb.count(); ++b) {
      const T* s = src + mb.offsets[static_cast<std::size_t>(b)];
      T* d = dst + b * mb.rows * mb.cols;
      // Column j keeps the rows i with lo <= j - i <= hi, the range [j - hi, j - lo]
      // clamped to [0, rows) (compared before subtracting: lo and hi may be far out).
      const std::int64_t rows = mb.rows;
      for (std::int64_t j = 0; j < mb.cols; ++j) {
        const std::int64_t i0 = hi >= j ? 0 : hi <= j - rows ? rows : j - hi;
        const std::int64_t i1 = std::max(i0, lo <= j - rows ? rows : lo > j ? 0 : j - lo + 1);
        T* dj = d + j * mb.rows;
        const T* sj = s + j * mb.cs;
        std::fill(dj, dj + i0, T(0));
        if (mb.rs == 1)
          std::copy(sj + i0, sj + i1, dj + i0);
        else
          for (std::int64_t i = i0; i < i1; ++i) dj[i] = sj[i * mb.rs];
        std::fill(dj + i1, dj + rows, T(0));
      }
    }
  });
  return {out};
}

}  // namespace

Declaration declare_band() {
  FamilyOp op = define_family_op<BandAttrs>(
      {.name = kBand, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::linear},
      []<class D>(const BandAttrs&, std::span<const BasicTensorMeta<D>> in) {
        matrix_shape(kBand, in[0], "a");
        return std::vector<BasicTensorMeta<D>>{in[0]};
      },
      band_rules());
  return {std::move(op), typed_kernel<BandAttrs>(band_kernel)};
}

}  // namespace detail
}  // namespace tenferro::linalg

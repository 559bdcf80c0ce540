#pragma once
/// \file
/// `TensorHandle<Self>`: the user-facing functions shared by `TracedTensor`
/// and `EagerTensor` (arithmetic with broadcasting and promotion,
/// comparisons, where, clamp, elementwise math, reductions, matmul, views).
/// Each is a one-line forward to the graph-level op layer (`vops::`,
/// tenferro/ops/value_ops.hpp), which is the same implementation as the
/// `Tensor` free functions (tenferro/ops/sugar.hpp): the three modes have the
/// same names, dtypes and shapes (docs/ops_surface.md).
///
/// ```cpp
/// auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
/// auto y = (x * x + 1.0).exp().reduce_sum({0});
/// auto z = where(x > 0.0, x, -x);        // free functions as for Tensor, minus the backend
/// auto c = clamp(Scalar(-1.0), x, Scalar(1.0));
/// ```

#include <concepts>
#include <string>
#include <utility>
#include <vector>

#include "tenferro/ops/graph.hpp"

namespace tenferro {

template <class Self>
class TensorHandle {
 public:
  /// The graph value this handle refers to.
  const Value& graph_value() const { return value_; }
  bool defined() const { return value_.defined(); }
  DType dtype() const { return value_.dtype(); }
  /// Extents, symbolic where the program binds them at run time.
  const SymShape& shape() const { return value_.shape(); }
  std::int64_t ndim() const { return value_.ndim(); }

  // ---- elementwise (binary operations broadcast NumPy-style and promote) ----
  Self add(const Self& o) const;
  Self sub(const Self& o) const;
  Self mul(const Self& o) const;
  Self div(const Self& o) const;
  Self pow(const Self& o) const;
  Self maximum(const Self& o) const;
  Self minimum(const Self& o) const;
  /// With a Scalar operand: the Scalar takes this handle's dtype, except that
  /// a float Scalar with an integer or bool handle gives the Scalar's float
  /// dtype and a complex Scalar makes a real handle complex.
  Self add(Scalar s) const;
  Self sub(Scalar s) const;
  Self mul(Scalar s) const;
  Self div(Scalar s) const;
  Self pow(Scalar s) const;
  Self maximum(Scalar s) const;
  Self minimum(Scalar s) const;
  /// Comparisons (bool result; operands broadcast and promote).
  Self compare(const Self& o, ComparisonDirection dir) const;
  Self compare(Scalar s, ComparisonDirection dir) const;
  Self eq(const Self& o) const { return compare(o, ComparisonDirection::EQ); }
  Self ne(const Self& o) const { return compare(o, ComparisonDirection::NE); }
  Self lt(const Self& o) const { return compare(o, ComparisonDirection::LT); }
  Self le(const Self& o) const { return compare(o, ComparisonDirection::LE); }
  Self gt(const Self& o) const { return compare(o, ComparisonDirection::GT); }
  Self ge(const Self& o) const { return compare(o, ComparisonDirection::GE); }
  Self eq(Scalar s) const { return compare(s, ComparisonDirection::EQ); }
  Self ne(Scalar s) const { return compare(s, ComparisonDirection::NE); }
  Self lt(Scalar s) const { return compare(s, ComparisonDirection::LT); }
  Self le(Scalar s) const { return compare(s, ComparisonDirection::LE); }
  Self gt(Scalar s) const { return compare(s, ComparisonDirection::GT); }
  Self ge(Scalar s) const { return compare(s, ComparisonDirection::GE); }
  Self neg() const;
  Self conj() const;
  Self abs() const;
  Self sign() const;
  Self exp() const;
  Self log() const;
  Self sin() const;
  Self cos() const;
  Self tanh() const;
  Self sqrt() const;
  Self rsqrt() const;
  Self expm1() const;
  Self log1p() const;
  Self real() const;
  Self imag() const;
  Self square() const;
  Self is_finite() const;
  /// Rounding (integers unchanged; zero derivative), remainders and binary
  /// exponents, as the Tensor functions of tenferro/ops/sugar.hpp.
  Self floor() const;
  Self ceil() const;
  Self trunc() const;
  Self round() const;
  Self round(std::int64_t decimals) const;
  Self fmod(const Self& o) const;
  Self remainder(const Self& o) const;
  Self ldexp(const Self& o) const;
  Self fmod(Scalar s) const;
  Self remainder(Scalar s) const;
  Self ldexp(Scalar s) const;
  /// (mantissa, i32 exponent) with x = mantissa 2^exponent.
  std::pair<Self, Self> frexp() const;
  /// Special functions (tenferro/ops/sugar.hpp; docs/special_functions.md).
  Self erf() const;
  Self erfc() const;
  Self erfinv() const;
  Self erfcx() const;
  Self lgamma() const;
  Self digamma() const;
  Self i0() const;
  Self i0e() const;
  Self i1() const;
  Self i1e() const;
  Self ndtr() const;
  Self ndtri() const;
  Self log_ndtr() const;
  Self polygamma(std::int64_t n) const;
  Self mvlgamma(std::int64_t p) const;
  Self convert(DType d) const;

  // ---- reductions (negative axes count from the end) ----
  Self reduce_sum(const DimVec& axes) const;
  Self sum(const DimVec& axes) const { return reduce_sum(axes); }
  Self sum() const;
  Self mean(const DimVec& axes) const;
  Self mean() const;
  Self max(const DimVec& axes) const;
  Self max() const;
  Self min(const DimVec& axes) const;
  Self min() const;
  Self prod(const DimVec& axes) const;
  Self prod() const;
  /// Frobenius norm sqrt(sum |x|^2) (real, rank 0; scaled against overflow).
  Self norm() const;
  /// Sum of the diagonal of axes (0, 1).
  Self trace() const;

  // ---- structure ----
  Self matmul(const Self& o) const;
  Self dot_general(const Self& o, const DotGeneralAttrs& dims) const;
  /// out.shape[i] = shape[perm[i]] (a copy; the compiler folds it into consumers).
  Self transpose(const DimVec& perm) const;
  /// Swaps axes 0 and 1, the matrix axes (trailing batch axes stay), as
  /// `Tensor::transpose`.
  Self transpose() const;
  Self reshape(const SymShape& shape) const;
  Self broadcast_to(const SymShape& shape) const;
  Self slice(std::int64_t axis, const Dim& start, const Dim& stop) const;
  Self diagonal(std::int64_t a1 = 0, std::int64_t a2 = 1) const;

  friend Self operator+(const Self& a, const Self& b) { return a.add(b); }
  friend Self operator-(const Self& a, const Self& b) { return a.sub(b); }
  friend Self operator*(const Self& a, const Self& b) { return a.mul(b); }
  friend Self operator/(const Self& a, const Self& b) { return a.div(b); }
  friend Self operator-(const Self& a) { return a.neg(); }
  friend Self operator+(const Self& a, Scalar s) { return a.add(s); }
  friend Self operator+(Scalar s, const Self& a) { return a.add(s); }
  friend Self operator-(const Self& a, Scalar s) { return a.sub(s); }
  friend Self operator-(Scalar s, const Self& a) { return Self::rsub(s, a); }
  friend Self operator*(const Self& a, Scalar s) { return a.mul(s); }
  friend Self operator*(Scalar s, const Self& a) { return a.mul(s); }
  friend Self operator/(const Self& a, Scalar s) { return a.div(s); }
  friend Self operator/(Scalar s, const Self& a) { return Self::rdiv(s, a); }
  /// Elementwise comparisons (bool handles), also against a Scalar.
  friend Self operator==(const Self& a, const Self& b) { return a.eq(b); }
  friend Self operator!=(const Self& a, const Self& b) { return a.ne(b); }
  friend Self operator<(const Self& a, const Self& b) { return a.lt(b); }
  friend Self operator<=(const Self& a, const Self& b) { return a.le(b); }
  friend Self operator>(const Self& a, const Self& b) { return a.gt(b); }
  friend Self operator>=(const Self& a, const Self& b) { return a.ge(b); }
  friend Self operator==(const Self& a, Scalar s) { return a.eq(s); }
  friend Self operator!=(const Self& a, Scalar s) { return a.ne(s); }
  friend Self operator<(const Self& a, Scalar s) { return a.lt(s); }
  friend Self operator<=(const Self& a, Scalar s) { return a.le(s); }
  friend Self operator>(const Self& a, Scalar s) { return a.gt(s); }
  friend Self operator>=(const Self& a, Scalar s) { return a.ge(s); }
  friend Self operator==(Scalar s, const Self& a) { return a.eq(s); }
  friend Self operator!=(Scalar s, const Self& a) { return a.ne(s); }
  friend Self operator<(Scalar s, const Self& a) { return a.gt(s); }
  friend Self operator<=(Scalar s, const Self& a) { return a.ge(s); }
  friend Self operator>(Scalar s, const Self& a) { return a.lt(s); }
  friend Self operator>=(Scalar s, const Self& a) { return a.le(s); }

  /// `s - a` and `s / a`.
  static Self rsub(Scalar s, const Self& a);
  static Self rdiv(Scalar s, const Self& a);
  /// `cond ? a : b` with broadcasting (`cond` bool).
  static Self where(const Self& cond, const Self& a, const Self& b);
  /// clamp(lo, x, hi) (StableHLO order; bounds rank 0 or broadcast to x).
  static Self clamp(const Self& lo, const Self& x, const Self& hi);
  static Self clamp(Scalar lo, const Self& x, Scalar hi);
  /// re + i im.
  static Self complex(const Self& re, const Self& im);

 protected:
  TensorHandle() = default;
  explicit TensorHandle(Value v) : value_(std::move(v)) {}
  Value value_;
};

/// A TracedTensor or EagerTensor.
template <class S>
concept TensorHandleType = std::derived_from<S, TensorHandle<S>>;

// ---- free functions: the names of the Tensor free functions (without a
// backend), so code reads the same in the three modes ------------------------------
#define TF_HANDLE_FREE_BINARY(name)                                              \
  template <TensorHandleType S>                                                  \
  S name(const S& a, const S& b) { return a.name(b); }                           \
  template <TensorHandleType S>                                                  \
  S name(const S& a, Scalar b) { return a.name(b); }
TF_HANDLE_FREE_BINARY(add)
TF_HANDLE_FREE_BINARY(sub)
TF_HANDLE_FREE_BINARY(mul)
TF_HANDLE_FREE_BINARY(div)
TF_HANDLE_FREE_BINARY(pow)
TF_HANDLE_FREE_BINARY(maximum)
TF_HANDLE_FREE_BINARY(minimum)
TF_HANDLE_FREE_BINARY(fmod)
TF_HANDLE_FREE_BINARY(remainder)
TF_HANDLE_FREE_BINARY(ldexp)
TF_HANDLE_FREE_BINARY(eq)
TF_HANDLE_FREE_BINARY(ne)
TF_HANDLE_FREE_BINARY(lt)
TF_HANDLE_FREE_BINARY(le)
TF_HANDLE_FREE_BINARY(gt)
TF_HANDLE_FREE_BINARY(ge)
#undef TF_HANDLE_FREE_BINARY

#define TF_HANDLE_FREE_UNARY(name) \
  template <TensorHandleType S>    \
  S name(const S& a) { return a.name(); }
TF_HANDLE_FREE_UNARY(neg)
TF_HANDLE_FREE_UNARY(square)
TF_HANDLE_FREE_UNARY(abs)
TF_HANDLE_FREE_UNARY(sign)
TF_HANDLE_FREE_UNARY(exp)
TF_HANDLE_FREE_UNARY(log)
TF_HANDLE_FREE_UNARY(sin)
TF_HANDLE_FREE_UNARY(cos)
TF_HANDLE_FREE_UNARY(tanh)
TF_HANDLE_FREE_UNARY(sqrt)
TF_HANDLE_FREE_UNARY(rsqrt)
TF_HANDLE_FREE_UNARY(expm1)
TF_HANDLE_FREE_UNARY(log1p)
TF_HANDLE_FREE_UNARY(conj)
TF_HANDLE_FREE_UNARY(real)
TF_HANDLE_FREE_UNARY(imag)
TF_HANDLE_FREE_UNARY(is_finite)
TF_HANDLE_FREE_UNARY(floor)
TF_HANDLE_FREE_UNARY(ceil)
TF_HANDLE_FREE_UNARY(trunc)
TF_HANDLE_FREE_UNARY(round)
TF_HANDLE_FREE_UNARY(erf)
TF_HANDLE_FREE_UNARY(erfc)
TF_HANDLE_FREE_UNARY(erfinv)
TF_HANDLE_FREE_UNARY(erfcx)
TF_HANDLE_FREE_UNARY(lgamma)
TF_HANDLE_FREE_UNARY(digamma)
TF_HANDLE_FREE_UNARY(i0)
TF_HANDLE_FREE_UNARY(i0e)
TF_HANDLE_FREE_UNARY(i1)
TF_HANDLE_FREE_UNARY(i1e)
TF_HANDLE_FREE_UNARY(ndtr)
TF_HANDLE_FREE_UNARY(ndtri)
TF_HANDLE_FREE_UNARY(log_ndtr)
TF_HANDLE_FREE_UNARY(norm)
TF_HANDLE_FREE_UNARY(trace)
TF_HANDLE_FREE_UNARY(sum)
TF_HANDLE_FREE_UNARY(mean)
TF_HANDLE_FREE_UNARY(max)
TF_HANDLE_FREE_UNARY(min)
TF_HANDLE_FREE_UNARY(prod)
#undef TF_HANDLE_FREE_UNARY

#define TF_HANDLE_FREE_REDUCE(name) \
  template <TensorHandleType S>     \
  S name(const S& a, const DimVec& axes) { return a.name(axes); }
TF_HANDLE_FREE_REDUCE(sum)
TF_HANDLE_FREE_REDUCE(mean)
TF_HANDLE_FREE_REDUCE(max)
TF_HANDLE_FREE_REDUCE(min)
TF_HANDLE_FREE_REDUCE(prod)
#undef TF_HANDLE_FREE_REDUCE

template <TensorHandleType S>
S round(const S& a, std::int64_t decimals) { return a.round(decimals); }
template <TensorHandleType S>
std::pair<S, S> frexp(const S& a) { return a.frexp(); }
template <TensorHandleType S>
S polygamma(std::int64_t n, const S& a) { return a.polygamma(n); }
template <TensorHandleType S>
S mvlgamma(const S& a, std::int64_t p) { return a.mvlgamma(p); }
template <TensorHandleType S>
S sub(Scalar a, const S& b) { return S::rsub(a, b); }
template <TensorHandleType S>
S div(Scalar a, const S& b) { return S::rdiv(a, b); }
template <TensorHandleType S>
S compare(const S& a, const S& b, ComparisonDirection dir) { return a.compare(b, dir); }
template <TensorHandleType S>
S compare(const S& a, Scalar b, ComparisonDirection dir) { return a.compare(b, dir); }
template <TensorHandleType S>
S where(const S& cond, const S& a, const S& b) { return S::where(cond, a, b); }
template <TensorHandleType S>
S clamp(const S& lo, const S& x, const S& hi) { return S::clamp(lo, x, hi); }
template <TensorHandleType S>
S clamp(Scalar lo, const S& x, Scalar hi) { return S::clamp(lo, x, hi); }
template <TensorHandleType S>
S complex(const S& re, const S& im) { return S::complex(re, im); }
template <TensorHandleType S>
S convert(const S& a, DType d) { return a.convert(d); }
template <TensorHandleType S>
S matmul(const S& a, const S& b) { return a.matmul(b); }
template <TensorHandleType S>
S dot_general(const S& a, const S& b, const DotGeneralAttrs& dims) { return a.dot_general(b, dims); }

}  // namespace tenferro

#pragma once
/// \file
/// `TensorHandle<Self>`: the tensor sugar shared by `TracedTensor` and
/// `EagerTensor` (arithmetic with broadcasting and promotion, reductions,
/// matmul, views), implemented once on graph values (runtime/value_ops.hpp).
///
/// ```cpp
/// auto x = TracedTensor::input("x", DType::f64, {Dim("n")});
/// auto y = (x * x + 1.0).exp().reduce_sum({0});
/// ```

#include <string>
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
  Self compare(const Self& o, ComparisonDirection dir) const;
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
  /// Frobenius norm sqrt(sum |x|^2) (real, rank 0).
  Self norm() const;
  /// Sum of the diagonal of axes (0, 1).
  Self trace() const;

  // ---- structure ----
  Self matmul(const Self& o) const;
  Self dot_general(const Self& o, const DotGeneralAttrs& dims) const;
  /// out.shape[i] = shape[perm[i]] (a copy; the compiler folds it into consumers).
  Self transpose(const DimVec& perm) const;
  /// Swaps the last two axes.
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
  friend Self operator+(const Self& a, Scalar s) { return a.add_scalar(s); }
  friend Self operator+(Scalar s, const Self& a) { return a.add_scalar(s); }
  friend Self operator-(const Self& a, Scalar s) { return a.add_scalar(negated(s)); }
  friend Self operator-(Scalar s, const Self& a) { return a.neg().add_scalar(s); }
  friend Self operator*(const Self& a, Scalar s) { return a.mul_scalar(s); }
  friend Self operator*(Scalar s, const Self& a) { return a.mul_scalar(s); }
  friend Self operator/(const Self& a, Scalar s) { return a.div(a.make_scalar(s)); }

  Self add_scalar(Scalar s) const;
  Self mul_scalar(Scalar s) const;
  /// A rank-0 constant that combines with this handle.
  Self make_scalar(Scalar s) const;

 protected:
  TensorHandle() = default;
  explicit TensorHandle(Value v) : value_(std::move(v)) {}
  static Scalar negated(const Scalar& s);
  Value value_;
};

}  // namespace tenferro

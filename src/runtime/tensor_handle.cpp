// TensorHandle<Self>: the sugar shared by TracedTensor and EagerTensor.
#include "tenferro/runtime/tensor_handle.hpp"

#include "tenferro/runtime/eager.hpp"
#include "tenferro/runtime/traced_tensor.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro {

#define TF_HANDLE_BINARY(name, fn) \
  template <class Self>            \
  Self TensorHandle<Self>::name(const Self& o) const { return Self(vops::fn(value_, o.graph_value())); }
TF_HANDLE_BINARY(add, add)
TF_HANDLE_BINARY(sub, sub)
TF_HANDLE_BINARY(mul, mul)
TF_HANDLE_BINARY(div, div)
TF_HANDLE_BINARY(pow, pow)
TF_HANDLE_BINARY(maximum, maximum)
TF_HANDLE_BINARY(minimum, minimum)
TF_HANDLE_BINARY(matmul, matmul)
#undef TF_HANDLE_BINARY

#define TF_HANDLE_UNARY(name, fn) \
  template <class Self>           \
  Self TensorHandle<Self>::name() const { return Self(vops::fn(value_)); }
TF_HANDLE_UNARY(neg, neg)
TF_HANDLE_UNARY(conj, conj)
TF_HANDLE_UNARY(abs, abs)
TF_HANDLE_UNARY(sign, sign)
TF_HANDLE_UNARY(exp, exp)
TF_HANDLE_UNARY(log, log)
TF_HANDLE_UNARY(sin, sin)
TF_HANDLE_UNARY(cos, cos)
TF_HANDLE_UNARY(tanh, tanh)
TF_HANDLE_UNARY(sqrt, sqrt)
TF_HANDLE_UNARY(rsqrt, rsqrt)
TF_HANDLE_UNARY(expm1, expm1)
TF_HANDLE_UNARY(log1p, log1p)
TF_HANDLE_UNARY(real, real)
TF_HANDLE_UNARY(imag, imag)
TF_HANDLE_UNARY(square, square)
TF_HANDLE_UNARY(sum, sum)
TF_HANDLE_UNARY(mean, mean)
TF_HANDLE_UNARY(max, max)
TF_HANDLE_UNARY(min, min)
TF_HANDLE_UNARY(prod, prod)
TF_HANDLE_UNARY(trace, trace)
#undef TF_HANDLE_UNARY

#define TF_HANDLE_AXES(name, fn) \
  template <class Self>          \
  Self TensorHandle<Self>::name(const DimVec& axes) const { return Self(vops::fn(value_, axes)); }
TF_HANDLE_AXES(reduce_sum, sum)
TF_HANDLE_AXES(mean, mean)
TF_HANDLE_AXES(max, max)
TF_HANDLE_AXES(min, min)
TF_HANDLE_AXES(prod, prod)
#undef TF_HANDLE_AXES

template <class Self>
Self TensorHandle<Self>::compare(const Self& o, ComparisonDirection dir) const {
  return Self(vops::compare(value_, o.graph_value(), dir));
}

template <class Self>
Self TensorHandle<Self>::convert(DType d) const {
  return Self(vops::convert(value_, d));
}

template <class Self>
Self TensorHandle<Self>::norm() const {
  // sqrt(sum |x|^2) through real arithmetic so that it differentiates at 0 only where it must.
  Value a = vops::abs(value_);
  return Self(vops::sqrt(vops::sum(vops::square(a))));
}

template <class Self>
Self TensorHandle<Self>::dot_general(const Self& o, const DotGeneralAttrs& dims) const {
  return Self(vops::dot_general(value_, o.graph_value(), dims));
}

template <class Self>
Self TensorHandle<Self>::transpose(const DimVec& perm) const {
  return Self(vops::transpose(value_, perm));
}

template <class Self>
Self TensorHandle<Self>::transpose() const {
  std::int64_t r = ndim();
  TF_CHECK(r >= 2, ShapeError, "transpose", "needs rank >= 2, got shape ", shape());
  DimVec perm;
  for (std::int64_t i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[static_cast<std::size_t>(r - 1)], perm[static_cast<std::size_t>(r - 2)]);
  return Self(vops::transpose(value_, perm));
}

template <class Self>
Self TensorHandle<Self>::reshape(const SymShape& s) const {
  return Self(vops::reshape(value_, s));
}

template <class Self>
Self TensorHandle<Self>::broadcast_to(const SymShape& s) const {
  return Self(vops::broadcast_to(value_, s));
}

template <class Self>
Self TensorHandle<Self>::slice(std::int64_t axis, const Dim& start, const Dim& stop) const {
  return Self(vops::slice_axis(value_, axis, start, stop));
}

template <class Self>
Self TensorHandle<Self>::diagonal(std::int64_t a1, std::int64_t a2) const {
  return Self(vops::diagonal(value_, a1, a2));
}

template <class Self>
Self TensorHandle<Self>::add_scalar(Scalar s) const {
  return Self(vops::add(value_, s));
}

template <class Self>
Self TensorHandle<Self>::mul_scalar(Scalar s) const {
  return Self(vops::mul(value_, s));
}

template <class Self>
Self TensorHandle<Self>::make_scalar(Scalar s) const {
  DType d = s.is_complex() && !is_complex(dtype()) ? complex_dtype(dtype())
            : is_float(s.dtype()) && !is_float(dtype()) ? DType::f64
                                                        : dtype();
  return Self(vops::scalar(s, d));
}

template <class Self>
Scalar TensorHandle<Self>::negated(const Scalar& s) {
  if (s.is_complex()) return Scalar(-s.to<std::complex<double>>());
  if (s.dtype() == DType::i64) return Scalar(-s.to<std::int64_t>());
  return Scalar(-s.to<double>());
}

template class TensorHandle<TracedTensor>;
template class TensorHandle<EagerTensor>;

// ---- TracedTensor -----------------------------------------------------------------

TracedTensor TracedTensor::input(std::string name, DType dtype, SymShape shape) {
  return TracedTensor(graph::input(std::move(name), dtype, std::move(shape)));
}

TracedTensor TracedTensor::constant(const Tensor& value) { return TracedTensor(graph::constant(value)); }

}  // namespace tenferro

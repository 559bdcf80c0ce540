// TensorHandle<Self>: the user-facing functions shared by TracedTensor and
// EagerTensor, each a one-line forward to vops (the op layer on graph values).
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
TF_HANDLE_BINARY(fmod, fmod)
TF_HANDLE_BINARY(remainder, remainder)
TF_HANDLE_BINARY(ldexp, ldexp)
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
TF_HANDLE_UNARY(is_finite, is_finite)
TF_HANDLE_UNARY(floor, floor)
TF_HANDLE_UNARY(ceil, ceil)
TF_HANDLE_UNARY(trunc, trunc)
TF_HANDLE_UNARY(round, round)
TF_HANDLE_UNARY(erf, erf)
TF_HANDLE_UNARY(erfc, erfc)
TF_HANDLE_UNARY(erfinv, erfinv)
TF_HANDLE_UNARY(erfcx, erfcx)
TF_HANDLE_UNARY(lgamma, lgamma)
TF_HANDLE_UNARY(digamma, digamma)
TF_HANDLE_UNARY(i0, i0)
TF_HANDLE_UNARY(i0e, i0e)
TF_HANDLE_UNARY(i1, i1)
TF_HANDLE_UNARY(i1e, i1e)
TF_HANDLE_UNARY(ndtr, ndtr)
TF_HANDLE_UNARY(ndtri, ndtri)
TF_HANDLE_UNARY(log_ndtr, log_ndtr)
TF_HANDLE_UNARY(norm, norm)
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

#define TF_HANDLE_SCALAR(name)                             \
  template <class Self>                                    \
  Self TensorHandle<Self>::name(Scalar s) const { return Self(vops::name(value_, s)); }
TF_HANDLE_SCALAR(add)
TF_HANDLE_SCALAR(sub)
TF_HANDLE_SCALAR(mul)
TF_HANDLE_SCALAR(div)
TF_HANDLE_SCALAR(pow)
TF_HANDLE_SCALAR(maximum)
TF_HANDLE_SCALAR(minimum)
TF_HANDLE_SCALAR(fmod)
TF_HANDLE_SCALAR(remainder)
TF_HANDLE_SCALAR(ldexp)
#undef TF_HANDLE_SCALAR

template <class Self>
Self TensorHandle<Self>::round(std::int64_t decimals) const {
  return Self(vops::round(value_, decimals));
}

template <class Self>
Self TensorHandle<Self>::polygamma(std::int64_t n) const {
  return Self(vops::polygamma(n, value_));
}

template <class Self>
Self TensorHandle<Self>::mvlgamma(std::int64_t p) const {
  return Self(vops::mvlgamma(value_, p));
}

template <class Self>
std::pair<Self, Self> TensorHandle<Self>::frexp() const {
  auto [m, k] = vops::frexp(value_);
  return {Self(m), Self(k)};
}

template <class Self>
Self TensorHandle<Self>::compare(const Self& o, ComparisonDirection dir) const {
  return Self(vops::compare(value_, o.graph_value(), dir));
}

template <class Self>
Self TensorHandle<Self>::compare(Scalar s, ComparisonDirection dir) const {
  return Self(vops::compare(value_, s, dir));
}

template <class Self>
Self TensorHandle<Self>::convert(DType d) const {
  return Self(vops::convert(value_, d));
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
  std::swap(perm[0], perm[1]);
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
Self TensorHandle<Self>::rsub(Scalar s, const Self& a) {
  return Self(vops::sub(s, a.graph_value()));
}

template <class Self>
Self TensorHandle<Self>::rdiv(Scalar s, const Self& a) {
  return Self(vops::div(s, a.graph_value()));
}

template <class Self>
Self TensorHandle<Self>::where(const Self& cond, const Self& a, const Self& b) {
  return Self(vops::where(cond.graph_value(), a.graph_value(), b.graph_value()));
}

template <class Self>
Self TensorHandle<Self>::clamp(const Self& lo, const Self& x, const Self& hi) {
  return Self(vops::clamp(lo.graph_value(), x.graph_value(), hi.graph_value()));
}

template <class Self>
Self TensorHandle<Self>::clamp(Scalar lo, const Self& x, Scalar hi) {
  return Self(vops::clamp(lo, x.graph_value(), hi));
}

template <class Self>
Self TensorHandle<Self>::complex(const Self& re, const Self& im) {
  return Self(vops::complex(re.graph_value(), im.graph_value()));
}

template class TensorHandle<TracedTensor>;
template class TensorHandle<EagerTensor>;

// ---- TracedTensor -----------------------------------------------------------------

TracedTensor TracedTensor::input(std::string name, DType dtype, SymShape shape) {
  return TracedTensor(graph::input(std::move(name), dtype, std::move(shape)));
}

TracedTensor TracedTensor::constant(const Tensor& value) { return TracedTensor(graph::constant(value)); }

}  // namespace tenferro

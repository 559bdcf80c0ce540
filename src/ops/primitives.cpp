// Eager execution of primitives: validate, infer, allocate, run.
#include "tenferro/ops/primitives.hpp"

#include "tenferro/ops/kernels.hpp"
#include "tenferro/ops/views.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace tenferro {

Tensor Backend::from_host(const Tensor& host) {
  TF_CHECK(host.device().is_cpu(), DeviceError, "from_host", "tensor is on ", host.device(), ", not the host");
  TF_CHECK(device().is_cpu(), UnimplementedError, "from_host", "backend '", name(),
           "' cannot receive host constants");
  return host;
}

Backend::Backend() : kernels_(std::make_shared<KernelRegistry>()) {}
Backend::Backend(SharingKernelsOf wrapper) : kernels_(wrapper.wrapped.kernels_) {}
Backend::~Backend() = default;

void Backend::execute(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs, const Tensor& output) {
  kernels_->run(kind, device().kind, attrs, inputs, output, *this);
}

Tensor Backend::empty(DType dtype, const Shape& shape) {
  shape_numel(shape, "empty");  // before the strides, whose products could overflow
  return empty_strided(dtype, shape, col_major_strides(shape));
}

Tensor Backend::empty_strided(DType dtype, const Shape& shape, const Strides& strides) {
  std::int64_t n = shape_numel(shape, "empty");
  TF_CHECK(strides.size() == shape.size(), ValueError, "empty_strided", "shape ", shape,
           " and strides ", strides, " differ in rank");
  // The strides must be a permutation of a dense column-major layout.
  SmallVec<std::int64_t> order(shape.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return strides[static_cast<std::size_t>(a)] < strides[static_cast<std::size_t>(b)];
  });
  std::int64_t expected = 1;
  for (std::int64_t a : order) {
    std::size_t i = static_cast<std::size_t>(a);
    TF_CHECK(shape[i] <= 1 || strides[i] == expected, ValueError, "empty_strided", "strides ",
             strides, " are not a dense layout of shape ", shape);
    expected *= std::max<std::int64_t>(shape[i], 1);
  }
  std::size_t bytes = 0;
  TF_CHECK(!__builtin_mul_overflow(static_cast<std::size_t>(n), dtype_size(dtype), &bytes),
           ValueError, "empty", "shape ", shape, " of ", dtype, " overflows the address space");
  return Tensor(allocate_storage(bytes), dtype, shape, strides, 0);
}

namespace ops {

Tensor broadcast_in_dim_view(const Tensor& x, const BroadcastInDimAttrs& a) {
  Strides st(a.shape.size(), 0);
  for (std::size_t i = 0; i < a.broadcast_dimensions.size(); ++i) {
    std::size_t d = static_cast<std::size_t>(a.broadcast_dimensions[i]);
    if (x.shape()[i] == a.shape[d]) st[d] = x.strides()[i];
  }
  return Tensor(x.storage(), x.dtype(), a.shape, std::move(st), x.offset());
}

Tensor slice_view(const Tensor& x, const SliceAttrs& a) {
  // Axis by axis through Tensor::slice, the one place a strided range's
  // extent and stride are computed.
  Tensor t = x;
  for (std::size_t i = 0; i < x.shape().size(); ++i)
    t = t.slice(static_cast<std::int64_t>(i), a.start_indices[i], a.limit_indices[i], a.strides[i]);
  return t;
}

std::optional<Tensor> reshape_view(const Tensor& x, const Shape& shape) {
  auto st = detail::reshape_view_strides(x.shape(), x.strides(), shape);
  if (!st) return std::nullopt;
  return Tensor(x.storage(), x.dtype(), shape, std::move(*st), x.offset());
}

// Views that stand for a primitive's result in eager mode (Note [Eager views]).
std::optional<Tensor> eager_view(OpKind kind, const Attrs& attrs, const Tensor& x,
                                 const TensorMeta& out) {
  switch (kind) {
    case OpKind::broadcast_in_dim:
      return broadcast_in_dim_view(x, std::get<BroadcastInDimAttrs>(attrs));
    case OpKind::reshape:
      return reshape_view(x, out.shape);
    case OpKind::slice:
      return slice_view(x, std::get<SliceAttrs>(attrs));
    case OpKind::reverse:
      return x.flip(std::get<AxesAttrs>(attrs).dimensions);
    case OpKind::convert:
      if (std::get<ConvertAttrs>(attrs).dtype == x.dtype()) return x;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Strides preferred_strides(OpKind kind, const Attrs& attrs, const Shape& out_shape) {
  if (kind != OpKind::dot_general) return col_major_strides(out_shape);
  // Batch axes (the leading ones) slowest, the free axes column-major within.
  std::size_t nb = std::get<DotGeneralAttrs>(attrs).lhs_batching_dimensions.size();
  Strides st(out_shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = nb; i < out_shape.size(); ++i) {
    st[i] = acc;
    acc *= std::max<std::int64_t>(out_shape[i], 1);
  }
  for (std::size_t i = 0; i < nb; ++i) {
    st[i] = acc;
    acc *= std::max<std::int64_t>(out_shape[i], 1);
  }
  return st;
}

Tensor call(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs, Backend& backend) {
  const char* op = op_name(kind);
  std::array<TensorMeta, 4> small;
  std::vector<TensorMeta> large;
  std::span<TensorMeta> metas;
  if (inputs.size() <= small.size()) {
    metas = std::span<TensorMeta>(small.data(), inputs.size());
  } else {
    large.resize(inputs.size());
    metas = large;
  }
  Device dev = backend.device();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    TF_CHECK(t.defined(), ValueError, op, "operand ", i, " is an undefined tensor");
    TF_CHECK(t.device() == dev, DeviceError, op, "operand ", i, " is on ", t.device(),
             " but backend '", backend.name(), "' runs on ", dev,
             "; transfer it explicitly");
    metas[i].dtype = t.dtype();
    metas[i].shape = t.shape();
  }
  TensorMeta out = infer(kind, attrs, metas);
  if (!inputs.empty()) {
    if (auto v = eager_view(kind, attrs, inputs[0], out)) return *std::move(v);
  }
  Tensor result = backend.empty_strided(out.dtype, out.shape, preferred_strides(kind, attrs, out.shape));
  if (result.numel() > 0) backend.execute(kind, attrs, inputs, result);
  return result;
}

namespace {
Tensor call1(OpKind k, const Tensor& a, Backend& b, const Attrs& attrs = NoAttrs{}) {
  const Tensor in[] = {a};
  return call(k, attrs, in, b);
}
Tensor call2(OpKind k, const Tensor& a, const Tensor& c, Backend& b,
             const Attrs& attrs = NoAttrs{}) {
  const Tensor in[] = {a, c};
  return call(k, attrs, in, b);
}
Tensor call3(OpKind k, const Tensor& a, const Tensor& c, const Tensor& d, Backend& b,
             const Attrs& attrs = NoAttrs{}) {
  const Tensor in[] = {a, c, d};
  return call(k, attrs, in, b);
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, Backend& be) { return call2(OpKind::add, a, b, be); }
Tensor subtract(const Tensor& a, const Tensor& b, Backend& be) {
  return call2(OpKind::subtract, a, b, be);
}
Tensor multiply(const Tensor& a, const Tensor& b, Backend& be) {
  return call2(OpKind::multiply, a, b, be);
}
Tensor divide(const Tensor& a, const Tensor& b, Backend& be) {
  return call2(OpKind::divide, a, b, be);
}
Tensor maximum(const Tensor& a, const Tensor& b, Backend& be) {
  return call2(OpKind::maximum, a, b, be);
}
Tensor minimum(const Tensor& a, const Tensor& b, Backend& be) {
  return call2(OpKind::minimum, a, b, be);
}
Tensor power(const Tensor& a, const Tensor& b, Backend& be) {
  return call2(OpKind::power, a, b, be);
}
Tensor complex(const Tensor& re, const Tensor& im, Backend& be) {
  return call2(OpKind::complex, re, im, be);
}
Tensor compare(const Tensor& a, const Tensor& b, ComparisonDirection dir, Backend& be) {
  return call2(OpKind::compare, a, b, be, CompareAttrs{dir});
}
Tensor negate(const Tensor& a, Backend& be) { return call1(OpKind::negate, a, be); }
Tensor conj(const Tensor& a, Backend& be) { return call1(OpKind::conj, a, be); }
Tensor abs(const Tensor& a, Backend& be) { return call1(OpKind::abs, a, be); }
Tensor sign(const Tensor& a, Backend& be) { return call1(OpKind::sign, a, be); }
Tensor exp(const Tensor& a, Backend& be) { return call1(OpKind::exp, a, be); }
Tensor log(const Tensor& a, Backend& be) { return call1(OpKind::log, a, be); }
Tensor sin(const Tensor& a, Backend& be) { return call1(OpKind::sin, a, be); }
Tensor cos(const Tensor& a, Backend& be) { return call1(OpKind::cos, a, be); }
Tensor tanh(const Tensor& a, Backend& be) { return call1(OpKind::tanh, a, be); }
Tensor sqrt(const Tensor& a, Backend& be) { return call1(OpKind::sqrt, a, be); }
Tensor rsqrt(const Tensor& a, Backend& be) { return call1(OpKind::rsqrt, a, be); }
Tensor expm1(const Tensor& a, Backend& be) { return call1(OpKind::expm1, a, be); }
Tensor log1p(const Tensor& a, Backend& be) { return call1(OpKind::log1p, a, be); }
Tensor real(const Tensor& a, Backend& be) { return call1(OpKind::real, a, be); }
Tensor imag(const Tensor& a, Backend& be) { return call1(OpKind::imag, a, be); }
Tensor is_finite(const Tensor& a, Backend& be) { return call1(OpKind::is_finite, a, be); }
Tensor floor(const Tensor& a, Backend& be) { return call1(OpKind::floor, a, be); }
Tensor ceil(const Tensor& a, Backend& be) { return call1(OpKind::ceil, a, be); }
Tensor trunc(const Tensor& a, Backend& be) { return call1(OpKind::trunc, a, be); }
Tensor round_nearest_even(const Tensor& a, Backend& be) { return call1(OpKind::round_nearest_even, a, be); }
Tensor fmod(const Tensor& x, const Tensor& y, Backend& be) { return call2(OpKind::fmod, x, y, be); }
Tensor remainder(const Tensor& x, const Tensor& y, Backend& be) { return call2(OpKind::remainder, x, y, be); }
Tensor ldexp(const Tensor& x, const Tensor& e, Backend& be) { return call2(OpKind::ldexp, x, e, be); }
Tensor frexp_exponent(const Tensor& a, Backend& be) { return call1(OpKind::frexp_exponent, a, be); }
Tensor erf(const Tensor& a, Backend& be) { return call1(OpKind::erf, a, be); }
Tensor erfc(const Tensor& a, Backend& be) { return call1(OpKind::erfc, a, be); }
Tensor erfinv(const Tensor& a, Backend& be) { return call1(OpKind::erfinv, a, be); }
Tensor erfcx(const Tensor& a, Backend& be) { return call1(OpKind::erfcx, a, be); }
Tensor lgamma(const Tensor& a, Backend& be) { return call1(OpKind::lgamma, a, be); }
Tensor digamma(const Tensor& a, Backend& be) { return call1(OpKind::digamma, a, be); }
Tensor i0(const Tensor& a, Backend& be) { return call1(OpKind::i0, a, be); }
Tensor i0e(const Tensor& a, Backend& be) { return call1(OpKind::i0e, a, be); }
Tensor i1(const Tensor& a, Backend& be) { return call1(OpKind::i1, a, be); }
Tensor i1e(const Tensor& a, Backend& be) { return call1(OpKind::i1e, a, be); }
Tensor ndtr(const Tensor& a, Backend& be) { return call1(OpKind::ndtr, a, be); }
Tensor ndtri(const Tensor& a, Backend& be) { return call1(OpKind::ndtri, a, be); }
Tensor log_ndtr(const Tensor& a, Backend& be) { return call1(OpKind::log_ndtr, a, be); }
Tensor polygamma(std::int64_t n, const Tensor& a, Backend& be) {
  return call1(OpKind::polygamma, a, be, PolygammaAttrs{n});
}
Tensor convert(const Tensor& a, DType dtype, Backend& be) {
  return call1(OpKind::convert, a, be, ConvertAttrs{dtype});
}
Tensor select(const Tensor& p, const Tensor& t, const Tensor& f, Backend& be) {
  return call3(OpKind::select, p, t, f, be);
}
Tensor clamp(const Tensor& lo, const Tensor& x, const Tensor& hi, Backend& be) {
  return call3(OpKind::clamp, lo, x, hi, be);
}
Tensor dot_general(const Tensor& l, const Tensor& r, const DotGeneralAttrs& d, Backend& be) {
  return call2(OpKind::dot_general, l, r, be, d);
}
Tensor reduce_sum(const Tensor& a, const DimVec& dims, Backend& be) {
  return call1(OpKind::reduce_sum, a, be, AxesAttrs{dims});
}
Tensor reduce_prod(const Tensor& a, const DimVec& dims, Backend& be) {
  return call1(OpKind::reduce_prod, a, be, AxesAttrs{dims});
}
Tensor reduce_max(const Tensor& a, const DimVec& dims, Backend& be) {
  return call1(OpKind::reduce_max, a, be, AxesAttrs{dims});
}
Tensor reduce_min(const Tensor& a, const DimVec& dims, Backend& be) {
  return call1(OpKind::reduce_min, a, be, AxesAttrs{dims});
}
Tensor transpose(const Tensor& a, const DimVec& perm, Backend& be) {
  return call1(OpKind::transpose, a, be, PermutationAttrs{perm});
}
Tensor reshape(const Tensor& a, const Shape& shape, Backend& be) {
  return call1(OpKind::reshape, a, be, ReshapeAttrs{shape});
}
Tensor broadcast_in_dim(const Tensor& a, const Shape& shape, const DimVec& dims, Backend& be) {
  return call1(OpKind::broadcast_in_dim, a, be, BroadcastInDimAttrs{shape, dims});
}
Tensor gather(const Tensor& a, const Tensor& idx, const GatherAttrs& attrs, Backend& be) {
  return call2(OpKind::gather, a, idx, be, attrs);
}
Tensor scatter(const Tensor& a, const Tensor& idx, const Tensor& upd, const ScatterAttrs& attrs,
               Backend& be) {
  return call3(OpKind::scatter, a, idx, upd, be, attrs);
}
Tensor slice(const Tensor& a, const DimVec& start, const DimVec& limit, const DimVec& strides,
             Backend& be) {
  return call1(OpKind::slice, a, be, SliceAttrs{start, limit, strides});
}
Tensor dynamic_slice(const Tensor& a, const Tensor& starts, const Shape& sizes, Backend& be) {
  return call2(OpKind::dynamic_slice, a, starts, be, DynamicSliceAttrs{sizes});
}
Tensor dynamic_update_slice(const Tensor& a, const Tensor& upd, const Tensor& starts,
                            Backend& be) {
  return call3(OpKind::dynamic_update_slice, a, upd, starts, be);
}
Tensor pad(const Tensor& a, const Tensor& value, const PadAttrs& attrs, Backend& be) {
  return call2(OpKind::pad, a, value, be, attrs);
}
Tensor concatenate(std::span<const Tensor> operands, std::int64_t dimension, Backend& be) {
  return call(OpKind::concatenate, ConcatenateAttrs{dimension}, operands, be);
}
Tensor reverse(const Tensor& a, const DimVec& dims, Backend& be) {
  return call1(OpKind::reverse, a, be, AxesAttrs{dims});
}

}  // namespace ops
}  // namespace tenferro

// The `fft.fft` family op: attributes, inference, the CPU kernel, and the
// adjoint (transpose rule).
//
// Note [FFT adjoints]
// Write F_s for the unnormalised forward DFT along the axes (kernel
// exp(-2 pi i jk/n)), B_s for the unnormalised backward one (exp(+...)), N for
// the product of the lengths, and c(norm) for the scale of a forward
// transform (backward: 1, ortho: 1/sqrt(N), forward: 1/N); an inverse
// transform with norm p has scale c(swap(p)), where swap exchanges backward
// and forward. F_s^H = B_s.
// - FFT(p) = c(p) F_s, so FFT(p)^H = c(p) B_s = IFFT(swap(p)); likewise
//   IFFT(p)^H = FFT(swap(p)). These are complex-linear: <F x, y> = <x, F^H y>.
// - RFFT(p): R^n -> C^m (m = n/2 + 1 along the halved axis) keeps the rows
//   k < m of c(p) F_s. It is only real-linear; its transpose for the real
//   inner product Re<a, b> is x = Re(A^H y) = c(p) Re(sum_{k<m} y_k e^{+2 pi i jk/n}).
//   IRFFT computes sum_k Z_k e^{+...} for the Hermitian extension Z of its
//   input z (Z_{n-k} = conj z_k), which counts each interior entry twice and
//   entries 0 and n/2 (n even) once, using only their real parts. Hence
//   RFFT(p)^T y = IRFFT(swap(p))(w . y) with w_0 = 1, w_k = 1/2 for
//   0 < k < n/2, w_{n/2} = 1 for even n. (The real parts taken by IRFFT at
//   0 and n/2 are exactly the Re of the transpose.)
// - IRFFT(p): C^m -> R^n is real-linear with
//   (B z)_j = c(swap p) [Re z_0 + 2 sum_{0<k<n/2} Re(z_k e^{+...}) + Re z_{n/2} (-1)^j],
//   so its transpose is RFFT(swap(p)) followed by the weights v_0 = 1,
//   v_k = 2 inside, v_{n/2} = 1 (n even): IRFFT(p)^T r = v . RFFT(swap(p))(r).
// - Several axes: RFFTN = (c2c on the other axes) after (r2c on the last),
//   whose transpose is r2c^T after c2c^H; the weights act on the halved
//   axis only and commute with the c2c factors, so the same two formulas hold
//   with N the product of all lengths.
// These are PyTorch's backward formulas for its fft ops (grad = adjoint of
// the cotangent), which tests/fft checks against reference values.
#include <cmath>
#include <sstream>

#include "provider.hpp"
#include "tenferro/cpu/cpu_backend.hpp"
#include "tenferro/fft/family.hpp"
#include "tenferro/ops/primitives.hpp"
#include "tenferro/ops/sugar.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro::fft {
namespace {

constexpr const char* kOp = "fft.fft";

std::string describe(const TransformAttrs& a) {
  std::ostringstream os;
  os << "fft_type=" << fft_type_name(a.type) << " axes=" << a.axes << " fft_length=" << a.lengths
     << " norm=" << norm_name(a.norm);
  return os.str();
}

bool is_real_kind(FftType t) { return t == FftType::RFFT || t == FftType::IRFFT; }

// Scale of the transform `a` (Note [FFT adjoints]).
double scale_of(const TransformAttrs& a) {
  double n = 1;
  for (std::int64_t len : a.lengths) n *= static_cast<double>(len);
  bool inverse = a.type == FftType::IFFT || a.type == FftType::IRFFT;
  switch (a.norm) {
    case Norm::backward: return inverse ? 1.0 / n : 1.0;
    case Norm::ortho: return 1.0 / std::sqrt(n);
    case Norm::forward: return inverse ? 1.0 : 1.0 / n;
  }
  return 1.0;
}

std::vector<TensorMeta> infer_op(const FamilyAttrs& attrs, std::span<const TensorMeta> in) {
  return {infer_transform(transform_attrs(attrs), in[0])};
}

std::vector<Tensor> cpu_kernel(const FamilyAttrs& attrs, std::span<const Tensor> in,
                               Backend& backend) {
  const TransformAttrs a = transform_attrs(attrs);
  const Tensor& x = in[0];
  const TensorMeta out_meta = infer_transform(a, {x.dtype(), x.shape()});
  detail::Provider* provider = detail::current_provider();
  TF_CHECK(provider != nullptr, UnimplementedError, kOp, detail::kNoProviderMessage);
  Tensor out = backend.empty(out_meta.dtype, out_meta.shape);
  if (out.numel() == 0 || x.numel() == 0) return {out};

  detail::TransformDesc desc;
  switch (a.type) {
    case FftType::FFT: desc.kind = detail::TransformKind::c2c_forward; break;
    case FftType::IFFT: desc.kind = detail::TransformKind::c2c_backward; break;
    case FftType::RFFT: desc.kind = detail::TransformKind::r2c; break;
    case FftType::IRFFT: desc.kind = detail::TransformKind::c2r; break;
  }
  desc.precision = real_dtype(x.dtype());
  desc.shape = a.type == FftType::IRFFT ? out.shape() : x.shape();
  desc.in_strides = x.strides();
  desc.axes = a.axes;
  desc.threads = get_num_threads();
  desc.effort = plan_effort();
  provider->plan(desc)->execute(x.data_ptr(), out.data_ptr(), scale_of(a));
  return {out};
}

// Half-spectrum weights along the halved axis of `a`, shaped to broadcast
// against a tensor of rank `rank` (Note [FFT adjoints]): `interior` for
// 0 < k < n/2, 1 for k = 0 and k = n/2.
Tensor half_spectrum_weights(const TransformAttrs& a, std::int64_t rank, DType dtype,
                             double interior) {
  std::int64_t n = a.lengths.back(), m = n / 2 + 1;
  Shape shape(static_cast<std::size_t>(rank), 1);
  shape[static_cast<std::size_t>(a.axes.back())] = m;
  Tensor w = Tensor::empty(shape, dtype);
  visit_dtype<kFloatDTypes>(dtype, kOp, [&]<class T>() {
    auto v = w.host_data<T>();
    for (std::int64_t k = 0; k < m; ++k)
      v[static_cast<std::size_t>(k)] = T(k == 0 || 2 * k == n ? 1.0 : interior);
  });
  return w;
}

}  // namespace

const char* fft_type_name(FftType type) {
  switch (type) {
    case FftType::FFT: return "FFT";
    case FftType::IFFT: return "IFFT";
    case FftType::RFFT: return "RFFT";
    case FftType::IRFFT: return "IRFFT";
  }
  return "?";
}

FamilyAttrs to_family_attrs(const TransformAttrs& a) {
  return FamilyAttrs{{"fft_type", std::string(fft_type_name(a.type))},
                     {"axes", a.axes},
                     {"fft_length", a.lengths},
                     {"norm", std::string(norm_name(a.norm))}};
}

TransformAttrs transform_attrs(const FamilyAttrs& attrs) {
  TransformAttrs a;
  const std::string& type = attrs.get<std::string>("fft_type");
  if (type == "FFT") a.type = FftType::FFT;
  else if (type == "IFFT") a.type = FftType::IFFT;
  else if (type == "RFFT") a.type = FftType::RFFT;
  else if (type == "IRFFT") a.type = FftType::IRFFT;
  else TF_THROW(ValueError, kOp, "unknown fft_type '", type, "' (expected FFT, IFFT, RFFT or IRFFT)");
  a.axes = attrs.get<DimVec>("axes");
  a.lengths = attrs.get<DimVec>("fft_length");
  const std::string& norm = attrs.get_or<std::string>("norm", "backward");
  if (norm == "backward") a.norm = Norm::backward;
  else if (norm == "ortho") a.norm = Norm::ortho;
  else if (norm == "forward") a.norm = Norm::forward;
  else TF_THROW(ValueError, kOp, "unknown norm '", norm, "' (expected backward, ortho or forward)");
  return a;
}

namespace {

// Extent checks that symbolic extents pass until they are bound.
bool differs(std::int64_t extent, std::int64_t expected) { return extent != expected; }
bool differs(const Dim& extent, std::int64_t expected) { return known_different(extent, expected); }

// Inference over concrete (D = int64) or symbolic (D = Dim) extents.
template <class D>
BasicTensorMeta<D> infer_meta(const TransformAttrs& a, const BasicTensorMeta<D>& x) {
  const std::int64_t rank = static_cast<std::int64_t>(x.shape.size());
  const bool real_in = a.type == FftType::RFFT;
  TF_CHECK(real_in ? kRealFloatDTypes.contains(x.dtype) : kComplexDTypes.contains(x.dtype),
           DTypeError, kOp, fft_type_name(a.type), " takes ", real_in ? "real (f32, f64)" : "complex (c64, c128)",
           " input, got ", x);
  TF_CHECK(!a.axes.empty(), ValueError, kOp, "needs at least one axis (", describe(a), ")");
  TF_CHECK(a.lengths.size() == a.axes.size(), ValueError, kOp,
           "needs one fft_length per axis (", describe(a), ")");
  ExtentList<D> out = x.shape;
  for (std::size_t i = 0; i < a.axes.size(); ++i) {
    const std::int64_t ax = a.axes[i], n = a.lengths[i];
    TF_CHECK(ax >= 0 && ax < rank, IndexError, kOp, "axis ", ax, " is out of range for input ", x,
             " (", describe(a), ")");
    for (std::size_t j = 0; j < i; ++j)
      TF_CHECK(a.axes[j] != ax, ValueError, kOp, "axis ", ax, " is repeated (", describe(a), ")");
    const bool halved = is_real_kind(a.type) && i + 1 == a.axes.size();
    TF_CHECK(n >= (halved ? 1 : 0), ValueError, kOp, "transform length ", n, " along axis ", ax,
             " must be ", halved ? ">= 1" : ">= 0", " (", describe(a), ")");
    const D& extent = x.shape[static_cast<std::size_t>(ax)];
    const std::int64_t expected = halved && a.type == FftType::IRFFT ? n / 2 + 1 : n;
    TF_CHECK(!differs(extent, expected), ShapeError, kOp, "input ", x, " has extent ", extent,
             " along axis ", ax, ", expected ", expected, " (", describe(a), ")");
    if (halved) out[static_cast<std::size_t>(ax)] = D(a.type == FftType::RFFT ? n / 2 + 1 : n);
  }
  DType dt = a.type == FftType::RFFT ? complex_dtype(x.dtype)
             : a.type == FftType::IRFFT ? real_dtype(x.dtype)
                                        : x.dtype;
  return {dt, out};
}

std::vector<SymMeta> sym_infer_op(const FamilyAttrs& attrs, std::span<const SymMeta> in) {
  return {infer_meta(transform_attrs(attrs), in[0])};
}

// ---- AD rules (Note [FFT adjoints]) ----------------------------------------------------

Value apply_transform(const Value& x, const TransformAttrs& a) {
  return graph::apply_family(family().ops.front(), to_family_attrs(a), {x}).front();
}

// Every kind is linear over the reals: the tangent of the output is the
// transform of the input's tangent.
std::vector<Value> jvp_op(const FamilyAttrs& attrs, std::span<const Value>, std::span<const Value>,
                          std::span<const Value> tangents) {
  if (!tangents[0].defined()) return {Value{}};
  return {apply_transform(tangents[0], transform_attrs(attrs))};
}

// The transpose for Re<u, v>, on graph values: the adjoint transform, with
// the half-spectrum weights of the real kinds as constants.
std::vector<Value> transpose_op(const FamilyAttrs& attrs, std::span<const Value>,
                                std::span<const bool> linear, std::span<const Value> cotangents) {
  const Value& ct = cotangents[0];
  if (!linear[0] || !ct.defined()) return {Value{}};
  const TransformAttrs a = transform_attrs(attrs);
  const TransformAttrs t = adjoint_attrs(a);
  switch (a.type) {
    case FftType::FFT:
    case FftType::IFFT: return {apply_transform(ct, t)};
    case FftType::RFFT: {
      Value w = graph::constant(half_spectrum_weights(a, ct.ndim(), real_dtype(ct.dtype()), 0.5));
      return {apply_transform(vops::mul(ct, w), t)};
    }
    case FftType::IRFFT: {
      Value r = apply_transform(ct, t);
      Value w = graph::constant(half_spectrum_weights(a, r.ndim(), real_dtype(r.dtype()), 2.0));
      return {vops::mul(r, w)};
    }
  }
  return {Value{}};
}

}  // namespace

TensorMeta infer_transform(const TransformAttrs& a, const TensorMeta& x) { return infer_meta(a, x); }

const OpFamily& family() {
  static const OpFamily f{"fft",
                          {FamilyOp{.name = kOp,
                                    .num_inputs = 1,
                                    .num_outputs = 1,
                                    .infer = infer_op,
                                    .sym_infer = sym_infer_op,
                                    .cpu_kernel = cpu_kernel,
                                    .cuda_kernel = {},
                                    .jvp = jvp_op,
                                    .transpose = transpose_op}}};
  return f;
}

Tensor transform(const Tensor& x, const TransformAttrs& attrs, Backend& backend) {
  return call_family(family().ops.front(), to_family_attrs(attrs), {{x}}, backend).front();
}

TransformAttrs adjoint_attrs(const TransformAttrs& a) {
  TransformAttrs t = a;
  switch (a.type) {
    case FftType::FFT: t.type = FftType::IFFT; break;
    case FftType::IFFT: t.type = FftType::FFT; break;
    case FftType::RFFT: t.type = FftType::IRFFT; break;
    case FftType::IRFFT: t.type = FftType::RFFT; break;
  }
  t.norm = swap_norm(a.norm);
  return t;
}

Tensor transform_adjoint(const Tensor& y, const TransformAttrs& a, Backend& backend) {
  // Check y against the transform's output before building weights.
  TF_CHECK(y.defined(), ValueError, kOp, "adjoint of an undefined tensor");
  const TransformAttrs t = adjoint_attrs(a);
  switch (a.type) {
    case FftType::FFT:
    case FftType::IFFT: return transform(y, t, backend);
    case FftType::RFFT: {
      infer_transform(t, {y.dtype(), y.shape()});
      Tensor w = half_spectrum_weights(a, y.ndim(), y.dtype(), 0.5);
      return transform(mul(y, w, backend), t, backend);
    }
    case FftType::IRFFT: {
      Tensor r = transform(y, t, backend);
      return mul(r, half_spectrum_weights(a, r.ndim(), r.dtype(), 2.0), backend);
    }
  }
  return {};
}

}  // namespace tenferro::fft

// The `fft.fft` family op: typed attributes, one inference for concrete and
// symbolic extents, the CPU kernel (and the cuFFT one when built with CUDA),
// and the adjoint (transpose rule).
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
#include <omp.h>

#include <cmath>
#include <ostream>

#include "provider.hpp"
#include "tenferro/fft/family.hpp"
#include "tenferro/ops/kernels.hpp"
#if TENFERRO_FFT_WITH_CUDA
#include "tenferro/cuda/functions.hpp"
#endif
#include "tenferro/ops/primitives.hpp"
#include "tenferro/ops/sugar.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro::fft {
namespace {

constexpr const char* kOp = "fft.fft";

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

std::vector<Tensor> cpu_kernel(const TransformAttrs& a, std::span<const Tensor> in, Backend& backend) {
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
  desc.threads = get_num_threads();  // the process-wide setting (tenferro/ops/backend.hpp)
  desc.effort = plan_effort();
  provider->plan(desc)->execute(x.data_ptr(), out.data_ptr(), scale_of(a));
  return {out};
}

#if TENFERRO_FFT_WITH_CUDA
// cuFFT (tenferro/cuda/functions.hpp); declines a backend on a CUDA device
// that is not a CudaBackend.
std::optional<std::vector<Tensor>> cuda_kernel(const TransformAttrs& a, std::span<const Tensor> in,
                                               Backend& backend) {
  auto* gpu = dynamic_cast<CudaBackend*>(&backend);
  if (gpu == nullptr) return std::nullopt;
  cuda::FftKind kind = cuda::FftKind::FFT;
  switch (a.type) {
    case FftType::FFT: kind = cuda::FftKind::FFT; break;
    case FftType::IFFT: kind = cuda::FftKind::IFFT; break;
    case FftType::RFFT: kind = cuda::FftKind::RFFT; break;
    case FftType::IRFFT: kind = cuda::FftKind::IRFFT; break;
  }
  return std::vector<Tensor>{cuda::fft(in[0], kind, a.axes, a.lengths, scale_of(a), *gpu)};
}
#endif

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

std::ostream& operator<<(std::ostream& os, const TransformAttrs& a) {
  return os << "fft_type=" << fft_type_name(a.type) << " axes=" << a.axes << " fft_length=" << a.lengths
            << " norm=" << norm_name(a.norm);
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
  TF_CHECK(!a.axes.empty(), ValueError, kOp, "needs at least one axis (", a, ")");
  TF_CHECK(a.lengths.size() == a.axes.size(), ValueError, kOp,
           "needs one fft_length per axis (", a, ")");
  ExtentList<D> out = x.shape;
  for (std::size_t i = 0; i < a.axes.size(); ++i) {
    const std::int64_t ax = a.axes[i], n = a.lengths[i];
    TF_CHECK(ax >= 0 && ax < rank, IndexError, kOp, "axis ", ax, " is out of range for input ", x,
             " (", a, ")");
    for (std::size_t j = 0; j < i; ++j)
      TF_CHECK(a.axes[j] != ax, ValueError, kOp, "axis ", ax, " is repeated (", a, ")");
    const bool halved = is_real_kind(a.type) && i + 1 == a.axes.size();
    TF_CHECK(n >= (halved ? 1 : 0), ValueError, kOp, "transform length ", n, " along axis ", ax,
             " must be ", halved ? ">= 1" : ">= 0", " (", a, ")");
    const D& extent = x.shape[static_cast<std::size_t>(ax)];
    const std::int64_t expected = halved && a.type == FftType::IRFFT ? n / 2 + 1 : n;
    TF_CHECK(!differs(extent, expected), ShapeError, kOp, "input ", x, " has extent ", extent,
             " along axis ", ax, ", expected ", expected, " (", a, ")");
    if (halved) out[static_cast<std::size_t>(ax)] = D(a.type == FftType::RFFT ? n / 2 + 1 : n);
  }
  DType dt = a.type == FftType::RFFT ? complex_dtype(x.dtype)
             : a.type == FftType::IRFFT ? real_dtype(x.dtype)
                                        : x.dtype;
  return {dt, out};
}

// The op's one inference rule, for D = std::int64_t and D = Dim.
struct InferTransform {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const TransformAttrs& a, std::span<const BasicTensorMeta<D>> in) const {
    return {infer_meta(a, in[0])};
  }
};

// ---- AD rules (Note [FFT adjoints]) ----------------------------------------------------

Value apply_transform(const Value& x, const TransformAttrs& a) {
  return graph::apply_family(family().ops.front(), FamilyAttrs::of(a), {x}).front();
}

// Every kind is linear over the reals: the tangent of the output is the
// transform of the input's tangent.
std::vector<Value> jvp_op(const TransformAttrs& a, std::span<const Value>, std::span<const Value>,
                          std::span<const Value> tangents) {
  if (!tangents[0].defined()) return {Value{}};
  return {apply_transform(tangents[0], a)};
}

// The transpose for Re<u, v>, on graph values: the adjoint transform, with
// the half-spectrum weights of the real kinds as constants.
std::vector<Value> transpose_op(const TransformAttrs& a, std::span<const Value>,
                                std::span<const bool> linear, std::span<const Value> cotangents) {
  const Value& ct = cotangents[0];
  if (!linear[0] || !ct.defined()) return {Value{}};
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

namespace {

// The family's default kernels: the provider on the CPU, and cuFFT when
// tenferro is built with CUDA.
void register_fft_kernels(const OpFamily& f, KernelRegistry& registry) {
  const FamilyOp& op = f.op(kOp);
  registry.add(op, DeviceKind::cpu, "fft", typed_kernel<TransformAttrs>(cpu_kernel));
#if TENFERRO_FFT_WITH_CUDA
  registry.add(op, DeviceKind::cuda, "cufft", typed_kernel<TransformAttrs>(cuda_kernel));
#endif
}

}  // namespace

const OpFamily& family() {
  static const OpFamily f{"fft",
                          {define_family_op<TransformAttrs>(
                              {.name = kOp, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::linear},
                              InferTransform{}, {.jvp = jvp_op, .transpose = transpose_op})},
                          register_fft_kernels};
  return f;
}

Tensor transform(const Tensor& x, const TransformAttrs& attrs, Backend& backend) {
  return call_family(family().ops.front(), FamilyAttrs::of(attrs), {{x}}, backend).front();
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

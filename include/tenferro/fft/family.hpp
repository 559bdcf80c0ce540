#pragma once
/// \file
/// The FFT operation family: one op, `fft.fft`, with StableHLO's fft types
/// over any set of axes, and its adjoint (the transpose rule that reverse-mode
/// AD needs).
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;
/// Tensor x = Tensor::uniform({8, 3}, DType::f64, 7);
/// fft::TransformAttrs a{.type = fft::FftType::RFFT, .axes = {0}, .lengths = {8}};
/// Tensor X = fft::transform(x, a, cpu);                  // c128 [5, 3]
/// // The same through the family, as a runtime or an extension would call it:
/// std::vector<Tensor> out = call_family(fft::family().op("fft.fft"), FamilyAttrs::of(a),
///                                       {{x}}, cpu);
/// Tensor g = fft::transform_adjoint(X, a, cpu);           // f64 [8, 3]
/// ```
///
/// Attributes of `fft.fft`: the typed struct `TransformAttrs`
/// (`FamilyAttrs::of(attrs)`), printed as
/// `fft_type=RFFT axes=[0] fft_length=[8] norm=backward`:
/// - `type`: FFT, IFFT (complex to complex), RFFT (real to complex), IRFFT
///   (complex to real);
/// - `axes`: distinct axes in [0, rank); for RFFT/IRFFT the last one is
///   the halved axis;
/// - `lengths`: the logical transform length along each axis (FFT, IFFT,
///   RFFT: the input extents; IRFFT: the output extents, while the input
///   has length/2 + 1 entries along the last axis);
/// - `norm`: backward, ortho or forward (tenferro/fft/transforms.hpp).
///
/// Kernels: the family registers the CPU kernel (provider "fft", which runs
/// the current FFT provider of tenferro/fft/provider.hpp) and, when tenferro
/// is built with CUDA, cuFFT (provider "cufft") into a backend's
/// `KernelRegistry` on first use.
///
/// The op does not crop, pad or promote: the functions of transforms.hpp do
/// that with primitives around it. Every kind is linear over the reals (FFT
/// and IFFT over the complex numbers too), so the op's `FamilyOp::jvp` is
/// the op itself applied to the tangent, and its `FamilyOp::transpose` is
/// `transform_adjoint` written on graph values (the half-spectrum weights
/// enter as constants), so both run traced and eager and are themselves
/// differentiable (docs/fft.md, "Automatic differentiation").

#include <iosfwd>
#include <vector>

#include "tenferro/fft/transforms.hpp"
#include "tenferro/ops/family.hpp"

namespace tenferro::fft {

/// StableHLO's fft_type.
enum class FftType : std::uint8_t { FFT, IFFT, RFFT, IRFFT };

/// "FFT", "IFFT", "RFFT" or "IRFFT".
const char* fft_type_name(FftType type);

/// Typed attributes of `fft.fft`.
struct TransformAttrs {
  FftType type = FftType::FFT;
  DimVec axes{};
  DimVec lengths{};
  Norm norm = Norm::backward;
  bool operator==(const TransformAttrs&) const = default;
};
/// "fft_type=FFT axes=[0, 1] fft_length=[4, 6] norm=backward" (program text, errors).
std::ostream& operator<<(std::ostream& os, const TransformAttrs& attrs);

/// The FFT family ("fft", one op "fft.fft": inference, AD rules, kernels).
/// A runtime that should run FFTs in traced programs is given this family
/// when it is built.
const OpFamily& family();

/// Output metadata of `fft.fft` for an operand (checks dtypes, axes, lengths).
TensorMeta infer_transform(const TransformAttrs& attrs, const TensorMeta& input);

/// Runs `fft.fft` eagerly through `call_family`.
Tensor transform(const Tensor& x, const TransformAttrs& attrs, Backend& backend);

/// Attributes of the transform that the adjoint applies: FFT <-> IFFT,
/// RFFT -> IRFFT, IRFFT -> RFFT, with `backward` and `forward` swapped
/// (`ortho` stays), same axes and lengths.
TransformAttrs adjoint_attrs(const TransformAttrs& attrs);

/// The adjoint of the transform `attrs` applied to `y` (shaped like the
/// transform's output); the result is shaped like its input.
/// - FFT, IFFT (complex-linear): the conjugate transpose, so
///   <F x, y> = <x, F^H y> with <a, b> = sum conj(a) b.
/// - RFFT (real to complex) and IRFFT (complex to real), linear over the
///   reals: the transpose for the real inner product Re<a, b>, which
///   weights the half spectrum (Note [FFT adjoints] in src/fft/family.cpp).
/// This is the VJP with PyTorch's convention for complex cotangents.
Tensor transform_adjoint(const Tensor& y, const TransformAttrs& attrs, Backend& backend);

}  // namespace tenferro::fft

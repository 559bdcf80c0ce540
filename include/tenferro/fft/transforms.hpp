#pragma once
/// \file
/// Discrete Fourier transforms with NumPy's semantics (`numpy.fft`), on
/// column-major tensors with leading transform axes and trailing batch axes.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/fft.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// Tensor x = Tensor::uniform({64, 10}, DType::f64, 1);   // 10 signals of length 64
/// Tensor X = fft::rfft(x, cpu);                           // c128 [33, 10], along axis 0
/// Tensor y = fft::irfft(X, cpu, {.n = 64});               // f64 [64, 10], equals x
/// Tensor Z = fft::fft(x, cpu, {.n = 128, .axis = 0, .norm = fft::Norm::ortho});  // zero-padded
/// Tensor F = fft::fft2(Tensor::ones({4, 4, 3}, DType::c64), cpu);  // axes {0, 1}, batch axis 2
/// ```
///
/// Conventions (the differences from NumPy are about axes only):
/// - The forward transform is X[k] = sum_j x[j] exp(-2 pi i j k / n); the
///   inverse uses exp(+2 pi i j k / n). `norm` places the 1/n: `backward`
///   (default) scales the inverse by 1/n, `ortho` both by 1/sqrt(n),
///   `forward` the forward one by 1/n. For several axes, n is the product
///   of their lengths.
/// - Default axes are the *leading* ones, where the batch convention
///   [m, n, batch...] puts the data: `axis = 0` for the 1-D transforms,
///   `{0, 1}` for the 2-D ones, every axis (or the first `s.size()` axes
///   when only `s` is given) for the n-D ones. Negative axes count from the
///   end.
/// - `n` (1-D) and `s` (n-D) give the transform lengths: the input is
///   cropped or zero-padded along the axis first (for `irfft`/`hfft` the
///   input's half spectrum is cropped or padded to n/2 + 1 entries; the
///   default output length is 2 (m - 1) for an input of m entries).
/// - Real transforms (`rfftn`, `irfftn`, `rfft2`, `irfft2`) halve the *last*
///   axis of `axes`, as NumPy does.
/// - dtypes: complex transforms take c64/c128 and promote f32/f64 input to
///   c64/c128; `rfft`/`ihfft` take f32/f64 only; `irfft` takes complex input
///   (real input is promoted) and returns f32/f64. Integer and bool inputs
///   throw `DTypeError`: convert them first.
/// - Strided inputs (permuted, sliced, reversed, broadcast) are read where
///   they lie, without a layout copy (promotion and zero-padding make one);
///   the result is a new column-major tensor.
/// - Transform lengths are >= 1, except that a complex transform along an
///   axis of extent 0 returns an empty tensor. Bad axes throw `IndexError`,
///   bad lengths `ValueError`, bad dtypes `DTypeError`; nothing is written.
/// - Without an FFT provider in the build, every transform throws
///   `UnimplementedError` (see tenferro/fft/provider.hpp).
///
/// The transforms lower to one family op, `fft.fft` (tenferro/fft/family.hpp),
/// plus `slice`/`pad` (lengths), `convert` (promotion) and `conj` (hfft).

#include <cstdint>
#include <optional>

#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::fft {

/// Where the 1/n normalisation goes (NumPy's `norm`).
enum class Norm : std::uint8_t {
  backward,  ///< forward unscaled, inverse scaled by 1/n (the default)
  ortho,     ///< both scaled by 1/sqrt(n): the transforms are unitary
  forward,   ///< forward scaled by 1/n, inverse unscaled
};

/// "backward", "ortho" or "forward".
const char* norm_name(Norm norm);
/// `backward` <-> `forward`, `ortho` unchanged: the norm of an adjoint
/// transform, and of the inner irfft/rfft of hfft/ihfft.
Norm swap_norm(Norm norm);

/// Options of the 1-D transforms.
///
/// ```cpp
/// fft::fft(x, cpu, {.n = 64, .axis = 1, .norm = fft::Norm::ortho});
/// ```
struct Options {
  /// Transform length (the output length for irfft/hfft); default: from the input.
  std::optional<std::int64_t> n = std::nullopt;
  /// The transformed axis (negative counts from the end).
  std::int64_t axis = 0;
  Norm norm = Norm::backward;
};

/// Options of the 2-D and n-D transforms.
///
/// ```cpp
/// fft::rfftn(x, cpu, {.s = Shape{32, 16}, .axes = DimVec{2, 0}});  // halves axis 0
/// ```
struct NdOptions {
  /// Transform lengths, one per axis of `axes` (output lengths for irfftn).
  std::optional<Shape> s = std::nullopt;
  /// The transformed axes, distinct; default described in the file comment.
  std::optional<DimVec> axes = std::nullopt;
  Norm norm = Norm::backward;
};

// ---- 1-D ------------------------------------------------------------------------

/// Complex forward transform along one axis. `fft::fft(x, cpu, {.axis = 1})`
Tensor fft(const Tensor& x, Backend& backend, const Options& options = {});
/// Complex inverse transform along one axis: `ifft(fft(x)) == x`.
Tensor ifft(const Tensor& x, Backend& backend, const Options& options = {});
/// Forward transform of real input: the n/2 + 1 non-negative frequencies.
/// `fft::rfft(x, cpu)` on f64 [8] gives c128 [5].
Tensor rfft(const Tensor& x, Backend& backend, const Options& options = {});
/// Inverse of `rfft`: a real signal of length `n` (default 2 (m - 1)) from
/// m half-spectrum entries. Pass `n` for odd lengths:
/// `fft::irfft(fft::rfft(x, cpu), cpu, {.n = 7})` for x of length 7. The
/// imaginary parts of entry 0 (and of entry n/2 for even n) are ignored.
Tensor irfft(const Tensor& x, Backend& backend, const Options& options = {});
/// Transform of a Hermitian-symmetric signal given by its first half: a
/// real spectrum of length `n` (default 2 (m - 1)); `hfft(x) = irfft(conj(x))`
/// with the normalisation of a forward transform.
Tensor hfft(const Tensor& x, Backend& backend, const Options& options = {});
/// Inverse of `hfft`: `ihfft(x) = conj(rfft(x))` with the normalisation of
/// an inverse transform. Real input only.
Tensor ihfft(const Tensor& x, Backend& backend, const Options& options = {});

// ---- 2-D (default axes {0, 1}) ------------------------------------------------------

/// `fft::fft2(x, cpu)` transforms axes 0 and 1 of an [m, n, batch...] tensor.
Tensor fft2(const Tensor& x, Backend& backend, const NdOptions& options = {});
Tensor ifft2(const Tensor& x, Backend& backend, const NdOptions& options = {});
/// Real 2-D transform; halves the last axis of `axes` (axis 1 by default).
Tensor rfft2(const Tensor& x, Backend& backend, const NdOptions& options = {});
/// Inverse of `rfft2`; `s` gives the output lengths.
Tensor irfft2(const Tensor& x, Backend& backend, const NdOptions& options = {});

// ---- n-D (default: all axes) ------------------------------------------------------------

/// `fft::fftn(x, cpu, {.axes = DimVec{0, 2}})`
Tensor fftn(const Tensor& x, Backend& backend, const NdOptions& options = {});
Tensor ifftn(const Tensor& x, Backend& backend, const NdOptions& options = {});
/// Real n-D transform: real-to-complex along the last axis of `axes`, then
/// complex transforms along the others.
Tensor rfftn(const Tensor& x, Backend& backend, const NdOptions& options = {});
/// Inverse of `rfftn`: complex inverse transforms along all but the last
/// axis of `axes`, then complex-to-real along it. `s` gives the output
/// lengths (default: the input extents, and 2 (m - 1) for the last axis).
Tensor irfftn(const Tensor& x, Backend& backend, const NdOptions& options = {});

// ---- helpers (no FFT provider needed) ----------------------------------------------------

/// Sample frequencies of an n-point transform with sample spacing `d`:
/// [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n), a new host
/// tensor of dtype f32 or f64. `fft::fftfreq(4)` is [0, 0.25, -0.5, -0.25].
Tensor fftfreq(std::int64_t n, double d = 1.0, DType dtype = DType::f64);
/// The n/2 + 1 non-negative frequencies of `rfft`: [0, 1, ..., n/2] / (d n).
Tensor rfftfreq(std::int64_t n, double d = 1.0, DType dtype = DType::f64);
/// Moves the zero frequency to the centre: rolls each axis of `axes`
/// (default: all) by floor(n/2). Any dtype; always returns new memory.
/// `fft::fftshift(fft::fftfreq(5), cpu)` is [-0.4, -0.2, 0, 0.2, 0.4].
Tensor fftshift(const Tensor& x, Backend& backend, const std::optional<DimVec>& axes = std::nullopt);
/// Inverse of `fftshift` (rolls by -floor(n/2)); differs from it for odd n.
Tensor ifftshift(const Tensor& x, Backend& backend,
                 const std::optional<DimVec>& axes = std::nullopt);

}  // namespace tenferro::fft

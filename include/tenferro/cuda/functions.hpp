#pragma once
/// \file
/// cuSOLVER and cuFFT implementations of the linalg and fft family ops, as
/// plain functions on device tensors. The families register them as their
/// CUDA kernels (provider "cusolver" for the linalg ops, "cufft" for
/// fft.fft; tenferro/ops/kernels.hpp);
/// this module knows no family.
///
/// ```cpp
/// using namespace tenferro;
/// CudaBackend gpu;
/// Tensor a = cuda::to_device(Tensor::normal({8, 8, 16}, DType::f64, 3), gpu);  // 16 matrices
/// cuda::SvdResult usv = cuda::svd(a, /*full_matrices=*/false, gpu);
/// Tensor x = cuda::to_device(Tensor::normal({64, 8}, DType::c128, 4), gpu);
/// Tensor y = cuda::fft(x, cuda::FftKind::FFT, {0}, {64}, 1.0, gpu);   // along axis 0
/// ```
/// Conventions are those of the CPU kernels (tenferro/linalg/family.hpp,
/// Note [Linalg conventions], and tenferro/fft/family.hpp): matrices are
/// axes (0, 1) of [m, n, batch...] operands of any strides, outputs are
/// fresh column-major device tensors, NaN/Inf in what the solver would read
/// is a ValueError, and a failed factorization (singular, not positive
/// definite, no convergence) a `LinalgError` naming the batch element. No
/// output is returned when an error is thrown. These calls synchronize the
/// stream once to read cuSOLVER's status flags.
///
/// Solvers: `svd`/`svdvals` use Jacobi SVD (gesvdj; gesvdjBatched for batches
/// of matrices up to 32 x 32), `eigh` syevd (syevjBatched up to 32 x 32),
/// `qr` geqrf + orgqr/ungqr, `lu`/`lu_factor`/`solve` getrf (+ getrs),
/// `cholesky` potrf. Singular vectors and eigenvectors are defined up to a
/// sign or phase, and may differ from the CPU's by one (Note [Linalg gauges]).

#include <string_view>

#include "tenferro/cuda/cuda_backend.hpp"
#include "tenferro/ops/attrs.hpp"

namespace tenferro::cuda {

struct SvdResult {
  Tensor u, s, vh;  ///< a = u diag(s) vh; s real, descending
};
struct QrResult {
  Tensor q, r;  ///< q is [0, 0, batch...] in mode "r"
};
struct LuResult {
  Tensor perm, l, u, p;  ///< (p a)[i, :] = a[perm[i], :]; p is [0, 0, batch...] unless requested
};
struct LuFactorResult {
  Tensor lu, pivots;  ///< LAPACK's packed factors, 0-based i64 row interchanges
};
struct EighResult {
  Tensor eigenvalues, eigenvectors;  ///< ascending real eigenvalues
};

SvdResult svd(const Tensor& a, bool full_matrices, CudaBackend& backend);
Tensor svdvals(const Tensor& a, CudaBackend& backend);
/// `mode`: "reduced", "complete" or "r".
QrResult qr(const Tensor& a, std::string_view mode, CudaBackend& backend);
LuResult lu(const Tensor& a, bool permutation_matrix, CudaBackend& backend);
LuFactorResult lu_factor(const Tensor& a, CudaBackend& backend);
Tensor cholesky(const Tensor& a, bool lower, CudaBackend& backend);
EighResult eigh(const Tensor& a, bool lower, CudaBackend& backend);
/// x with a x = b; b is [n, r, batch...] or, for an unbatched a, [n].
Tensor solve(const Tensor& a, const Tensor& b, CudaBackend& backend);

/// The transforms of `fft.fft` (StableHLO's fft_type).
enum class FftKind : std::uint8_t { FFT, IFFT, RFFT, IRFFT };
/// The DFT of `x` over `axes` with the transform lengths `lengths` (for
/// IRFFT the output extents), unnormalised (kernel exp(-2 pi i jk/n) for FFT
/// and RFFT, exp(+...) for IFFT and IRFFT), multiplied by `scale`. For RFFT
/// and IRFFT the last axis is the halved one. Plans are cached per backend.
Tensor fft(const Tensor& x, FftKind kind, const DimVec& axes, const DimVec& lengths, double scale,
           CudaBackend& backend);

}  // namespace tenferro::cuda

#pragma once
/// \file
/// The `linalg` operation family: one `FamilyOp` per operation, each
/// declared once with typed attributes (tenferro/linalg/attrs.hpp), one
/// shape/dtype inference for concrete and symbolic extents, its derivative
/// rules and a CPU kernel (LAPACK, and built-in kernels for matrices up to
/// 32 x 32). The eager functions of
/// tenferro/linalg/{decompositions,solvers,functions}.hpp call these ops
/// through `call_family`; a traced runtime is given `family()` explicitly.
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;
/// const OpFamily& la = linalg::family();
/// Tensor a = Tensor::normal({4, 3, 8}, DType::f64, 1);     // 8 matrices of 4 x 3
/// std::vector<Tensor> usv = call_family(la.op("linalg.svd"),
///                                       FamilyAttrs::of(linalg::SvdAttrs{}), {{a}}, cpu);
/// // usv[0]: [4, 3, 8]  usv[1]: f64 [3, 8]  usv[2]: [3, 3, 8]
/// ```
///
/// Conventions shared by every op (Note [Linalg conventions]):
/// - Matrices are axes (0, 1); trailing axes are batch axes, which must agree
///   exactly between operands (no broadcasting). Operands may have any
///   strides; outputs are fresh column-major tensors.
/// - dtypes f32, f64, c64, c128; operands of one op share their dtype.
///   Singular values, eigenvalues of `eigh`, norms, `logabsdet` are real of
///   the same precision; `eig` is complex; indices (pivots, ranks) are i64.
/// - `k` below is min(m, n). An output that the attributes did not ask for
///   (Q in QR mode "r", P in `lu` without `permutation_matrix`) has zero
///   rows and columns: [0, 0, batch...] (Note [Unrequested outputs]).
/// - NaN/Inf in an operand that the kernel would read is rejected with a
///   ValueError naming the batch element before any factorisation starts.
///   Factorisation failures throw `LinalgError` (tenferro/tensor/error.hpp).
///
// clang-format off
/// | op | inputs | outputs | attributes (default) |
/// |---|---|---|---|
/// | linalg.svd | a [m,n] | U [m,k\|m], S [k], Vh [k\|n,n] | SvdAttrs: full_matrices (false), degenerate (reconstruct) |
/// | linalg.svdvals | a [m,n] | S [k] | |
/// | linalg.svd_truncated | a [m,n] | U [m,r], S [r], Vh [r,n]; r dynamic | SvdTruncatedOptions: max_rank (-1: none), rtol (0) |
/// | linalg.svd_rank_limit | U [m,r], S [r], Vh [r,n] | their first min(max_rank, r) triplets; dynamic unless r is constant | RankLimit: max_rank (-1: all) |
/// | linalg.dual_basis | x [m,k] with orthonormal columns (an SVD factor) | x (= x (x^H x)^-1), with the derivative of x (x^H x)^-1 | |
/// | linalg.qr | a [m,n] | Q [m,k\|m], R [k\|m,n] | QrMode (reduced; complete, r) |
/// | linalg.lu | a [m,n] | perm i64 [m], L [m,k], U [k,n], P [m,m] | LuOptions: permutation_matrix (true) |
/// | linalg.lu_factor | a [m,n] | LU [m,n], pivots i64 [k] | |
/// | linalg.lu_solve | LU [n,n], pivots [n], b [n,r] or [n] | x like b | Transpose (none; transpose, adjoint) |
/// | linalg.cholesky | a [n,n] | L (or U) [n,n] | TriangleOptions: lower (true) |
/// | linalg.eigh | a [n,n] | w real [n] ascending, V [n,n] | TriangleOptions: lower (true) |
/// | linalg.eig | a [n,n] | w complex [n], V complex [n,n] | |
/// | linalg.eigvals | a [n,n] | w complex [n] | |
/// | linalg.solve | a [n,n], b [n,r] or [n] | x like b | |
/// | linalg.solve_factored | a [n,n], LU [n,n], pivots i64 [n], b [n,r] or [n] | x = op(a)^-1 b like b, from (LU, pivots) = lu_factor(a) | Transpose (none; transpose, adjoint) |
/// | linalg.triangular_solve | a [n,n], b [n,r] (left) or [r,n] | x like b | TriangularSolveOptions: lower (true), left (true), unit_diagonal (false) |
/// | linalg.inv | a [n,n] | inverse [n,n] | |
/// | linalg.det | a [n,n] | det [] | |
/// | linalg.slogdet | a [n,n] | sign [], logabsdet real [] | |
/// | linalg.lstsq | a [m,n], b [m,r] or [m] | x [n,r], residuals [r] or [0], rank i64 [], S [k] | LstsqOptions: rcond (-1: eps max(m,n)) |
/// | linalg.pinv | a [m,n] | pinv [n,m] | RankTolerance: rtol (-1: eps max(m,n)), atol (0) |
/// | linalg.matrix_exp | a [n,n] | exp(a) [n,n] | |
/// | linalg.matrix_exp_frechet | a [n,n], e [n,n] | d exp(a)[e] [n,n] | |
/// | linalg.matrix_rank | a [m,n] | rank i64 [] | RankTolerance: rtol (-1: eps max(m,n)), atol (0) |
/// | linalg.vector_norm | x [n, batch...] (rank >= 1) | real [batch...] | VectorNormAttrs: ord (2.0; any p, +-inf, 0) |
/// | linalg.matrix_norm | a [m,n] | real [] | MatrixNormAttrs: ord ("fro"; "nuc", 1, -1, 2, -2, inf, -inf) |
/// | linalg.cond | a [m,n] (square unless ord is 2/-2) | real [] | CondAttrs: ord (2; as matrix_norm) |
/// | linalg.band | a [m,n] | a with entries off lo <= j - i <= hi zeroed | BandAttrs: lo, hi (-kNoLimit, kNoLimit) |
// clang-format on
///
/// Shapes in the table omit the trailing batch axes, which every output
/// carries after its own axes.

#include "tenferro/linalg/attrs.hpp"
#include "tenferro/ops/family.hpp"

namespace tenferro::linalg {

/// The family (built once, on first use; nothing registers itself).
const OpFamily& family();

}  // namespace tenferro::linalg

#pragma once
// The derivative rules of the linalg ops (ad_rules.cpp), one bundle per op,
// given to the op's declaration (Note [Declaring a linalg op] in ops.hpp).
// Private to src/linalg.
#include "tenferro/linalg/attrs.hpp"
#include "tenferro/ops/family.hpp"

namespace tenferro::linalg::detail {

FamilyRules<SvdAttrs> svd_rules();
FamilyRules<NoFamilyAttrs> svdvals_rules();
FamilyRules<SvdTruncatedOptions> svd_truncated_rules();
FamilyRules<RankTolerance> pinv_rules();
FamilyRules<QrMode> qr_rules();
FamilyRules<LuOptions> lu_rules();
FamilyRules<Transpose> lu_solve_rules();
FamilyRules<NoFamilyAttrs> solve_rules();
FamilyRules<NoFamilyAttrs> inv_rules();
FamilyRules<NoFamilyAttrs> det_rules();
FamilyRules<NoFamilyAttrs> slogdet_rules();
FamilyRules<TriangleOptions> cholesky_rules();
FamilyRules<TriangularSolveOptions> triangular_solve_rules();
FamilyRules<TriangleOptions> eigh_rules();
FamilyRules<NoFamilyAttrs> eig_rules();
FamilyRules<NoFamilyAttrs> eigvals_rules();
FamilyRules<NoFamilyAttrs> matrix_exp_rules();
FamilyRules<NoFamilyAttrs> matrix_exp_frechet_rules();
FamilyRules<VectorNormAttrs> vector_norm_rules();
FamilyRules<MatrixNormAttrs> matrix_norm_rules();
FamilyRules<BandAttrs> band_rules();

}  // namespace tenferro::linalg::detail

#pragma once
// The ops of the linalg family, grouped by source file, and the kernels one
// group borrows from another. Private to src/linalg.
#include <string>
#include <utility>
#include <vector>

#include "tenferro/ops/family.hpp"

namespace tenferro::linalg::detail {

std::vector<FamilyOp> svd_ops();  // svd.cpp: svd, svdvals, svd_truncated, pinv, matrix_rank
std::vector<FamilyOp> qr_ops();   // qr.cpp: qr
std::vector<FamilyOp> lu_ops();   // lu.cpp: lu, lu_factor, lu_solve, solve, inv, det, slogdet
std::vector<FamilyOp> triangular_ops();  // triangular.cpp: cholesky, triangular_solve
std::vector<FamilyOp> eig_ops();         // eig.cpp: eigh, eig, eigvals
std::vector<FamilyOp> lstsq_ops();       // lstsq.cpp: lstsq
std::vector<FamilyOp> matrix_exp_ops();  // matrix_exp.cpp: matrix_exp
std::vector<FamilyOp> norm_ops();        // norm.cpp: vector_norm, matrix_norm, cond

/// The CPU kernels of the linalg ops by op name, collected while the family
/// is built and registered by its `register_kernels` (family.cpp).
std::vector<std::pair<std::string, FamilyOp::KernelFn>>& cpu_kernels();

FamilyOp band_op();                      // traced.cpp: band (masking, used by the AD rules)
/// Symbolic shape rules for traced programs (traced.cpp).
void attach_sym_infer(OpFamily& family);
/// d exp(a)[e] (ad_rules.cpp), the op matrix_exp's derivative rule uses.
FamilyOp matrix_exp_frechet_op();
/// JVP and transpose rules (ad_rules.cpp).
void attach_ad_rules(OpFamily& family);

/// Singular values [k, batch...] of a checked float operand (svd.cpp).
Tensor singular_values(const char* op, const Tensor& a, Backend& backend);
/// Inverse of each square matrix of a checked float operand (lu.cpp). With
/// `singular` null a singular matrix throws LinalgError; otherwise
/// (*singular)[b] is set to 1 for it and its inverse is left unspecified.
Tensor inverse(const char* op, const Tensor& a, Backend& backend, std::vector<char>* singular);

}  // namespace tenferro::linalg::detail

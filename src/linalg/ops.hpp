#pragma once
// The ops of the linalg family, one row each: the name after "linalg." and
// the attribute type (tenferro/linalg/attrs.hpp). Private to src/linalg.
//
// Note [Declaring a linalg op]: a row here is the whole registration. For a
// row X(name, A):
// - `Declaration declare_name()` (defined next to the op's kernel) declares
//   the op once: define_family_op<A>(spec, infer, rules), where `infer` is
//   one generic inference over BasicTensorMeta<D> (concrete and symbolic
//   extents) and `rules` = `name_rules()`, its JVP/transpose rules (defined
//   in ad_rules.cpp; an op without derivatives returns `{}` there, so a
//   forgotten rule is a link error, not a silently absent one), and returns
//   it with its CPU kernel (typed_kernel<A>), which the family registers in
//   each backend's kernel registry (provider "lapack");
// - `opref::name` is the typed reference through which the eager API
//   (api.cpp), the graph-value API (traced.cpp) and the derivative rules
//   call the op: `call(opref::svd, SvdAttrs{...}, {a}, backend)`,
//   `apply(opref::svd, SvdAttrs{...}, {a})`; a wrong attribute type does
//   not compile.
// family() (family.cpp) builds the family from the rows in this order and
// checks each declaration against its row and its `ad` kind. The cuSOLVER
// kernels of the ops CUDA has (cuda_kernels.cpp, built with the cuda
// module) are registered for DeviceKind::cuda by the same family.
#include <cstddef>
#include <initializer_list>
#include <vector>

#include "tenferro/linalg/family.hpp"
#include "tenferro/ops/graph.hpp"
#include "tenferro/ops/kernels.hpp"

// clang-format off
#define TENFERRO_LINALG_OPS(X)                  \
  X(svd,                SvdAttrs)               \
  X(svdvals,            NoFamilyAttrs)          \
  X(svd_truncated,      SvdTruncatedOptions)    \
  X(svd_rank_limit,     RankLimit)              \
  X(dual_basis,         NoFamilyAttrs)          \
  X(pinv,               RankTolerance)          \
  X(matrix_rank,        RankTolerance)          \
  X(qr,                 QrMode)                 \
  X(lu,                 LuOptions)              \
  X(lu_factor,          NoFamilyAttrs)          \
  X(lu_solve,           Transpose)              \
  X(solve,              NoFamilyAttrs)          \
  X(solve_factored,     Transpose)              \
  X(inv,                NoFamilyAttrs)          \
  X(det,                NoFamilyAttrs)          \
  X(slogdet,            NoFamilyAttrs)          \
  X(cholesky,           TriangleOptions)        \
  X(triangular_solve,   TriangularSolveOptions) \
  X(eigh,               TriangleOptions)        \
  X(eig,                NoFamilyAttrs)          \
  X(eigvals,            NoFamilyAttrs)          \
  X(lstsq,              LstsqOptions)           \
  X(matrix_exp,         NoFamilyAttrs)          \
  X(matrix_exp_frechet, NoFamilyAttrs)          \
  X(vector_norm,        VectorNormAttrs)        \
  X(matrix_norm,        MatrixNormAttrs)        \
  X(cond,               CondAttrs)              \
  X(band,               BandAttrs)
// clang-format on

namespace tenferro::linalg::detail {

/// Position of each op in family().ops.
enum class OpIndex : std::size_t {
#define TENFERRO_LINALG_INDEX(name, A) name,
  TENFERRO_LINALG_OPS(TENFERRO_LINALG_INDEX)
#undef TENFERRO_LINALG_INDEX
};

/// A typed reference to a linalg op: its position in family().ops and its
/// attribute type.
template <class A>
struct OpRef {
  OpIndex index;
  const FamilyOp& get() const { return family().ops[static_cast<std::size_t>(index)]; }
};

namespace opref {
#define TENFERRO_LINALG_REF(name, A) inline constexpr OpRef<A> name{OpIndex::name};
TENFERRO_LINALG_OPS(TENFERRO_LINALG_REF)
#undef TENFERRO_LINALG_REF
}  // namespace opref

/// An op as its row declares it, with its CPU kernel.
struct Declaration {
  FamilyOp op;
  FamilyKernel cpu_kernel;
};

// One declaration and one rule bundle per op (Note [Declaring a linalg op]).
#define TENFERRO_LINALG_DECLARE(name, A) \
  Declaration declare_##name();          \
  FamilyRules<A> name##_rules();
TENFERRO_LINALG_OPS(TENFERRO_LINALG_DECLARE)
#undef TENFERRO_LINALG_DECLARE

/// Runs op `op` eagerly on `backend`.
template <class A>
std::vector<Tensor> call(OpRef<A> op, A attrs, std::initializer_list<Tensor> inputs, Backend& backend) {
  return call_family(op.get(), FamilyAttrs::of(std::move(attrs)),
                     std::span<const Tensor>(inputs.begin(), inputs.size()), backend);
}

/// Records op `op` on graph values (evaluated at once when they are eager).
template <class A>
std::vector<Value> apply(OpRef<A> op, A attrs, std::vector<Value> inputs) {
  return graph::apply_family(op.get(), FamilyAttrs::of(std::move(attrs)), std::move(inputs));
}

/// Registers the cuSOLVER kernels of the family's ops that CUDA has
/// (cuda_kernels.cpp; a no-op without the cuda module).
void register_cuda_kernels(const OpFamily& family, KernelRegistry& registry);

/// ValueError (naming linalg.svd_truncated) unless max_rank >= -1 and rtol
/// is a tolerance >= 0 (svd.cpp).
void check_truncation(const SvdTruncatedOptions& o);
/// x = op(a)^-1 b on graph values from (lu, pivots) = lu_factor(a): the op
/// linalg.solve_factored (Note [Solves that keep the factors] in lu.cpp).
Value solve_factored(const Value& a, const Value& lu, const Value& pivots, const Value& b, Transpose trans);
/// Singular values [k, batch...] of a checked float operand (svd.cpp).
Tensor singular_values(const char* op, const Tensor& a, Backend& backend);
/// Inverse of each square matrix of a checked float operand (lu.cpp). With
/// `singular` null a singular matrix throws LinalgError; otherwise
/// (*singular)[b] is set to 1 for it and its inverse is left unspecified.
Tensor inverse(const char* op, const Tensor& a, Backend& backend, std::vector<char>* singular);

}  // namespace tenferro::linalg::detail

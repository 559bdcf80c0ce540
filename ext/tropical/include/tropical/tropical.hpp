#pragma once
/// \file
/// Tropical (max-plus and min-plus) contractions for tenferro: an operation
/// family that lives outside the library, built against the installed
/// package and its public headers only.
///
/// In the max-plus semiring "addition" is max and "multiplication" is +, so
/// the tropical matrix product is C[i, j] = max_k (A[i, k] + B[k, j]); in
/// min-plus it is the min. Everything einsum does (labels, batch axes,
/// repeated labels, n-ary networks along a path from tenferro's
/// contraction-order optimiser) carries over with (+, x) replaced by
/// (max, +) or (min, +).
///
/// ```cpp
/// #include <tropical/tropical.hpp>
/// #include <tenferro/cpu.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// Tensor a = Tensor::from_vec_col_major<double>({2, 2}, {0, 1, 2, 3});   // [[0, 2], [1, 3]]
/// Tensor c = tropical::einsum(tropical::Semiring::max_plus, "ij,jk->ik", {a, a}, cpu);
/// // c[0, 0] = max(0 + 0, 2 + 1) = 3
///
/// // Traced: compile once, run for any n; grad through the contraction.
/// auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim("n")});
/// auto y = tropical::einsum(tropical::Semiring::min_plus, "ij,jk,kl->il", {x, x, x});
/// auto g = grad(y.sum(), x);
/// auto rt = Runtime::builder().register_engine(cpu_engine(cpu))
///               .register_family(tropical::family()).build();
/// Program p = GraphCompiler().compile({y, g});
/// ```
///
/// Family "tropical" (Note [Tropical family] in src/family.cpp):
/// - `tropical.dot_general(a, b)`: the tropical `dot_general` with the
///   library's dimension numbers (output axes batch..., lhs free..., rhs
///   free...). dtypes f32, f64, i32, i64 (both operands alike).
/// - `tropical.winner_tangent(t, a, b, c)` and
///   `tropical.winner_cotangent(ct, a, b, c)`: the derivative of the
///   contraction with respect to one operand and its transpose (AD only).
///
/// Derivatives (Note [Tropical derivative]): each output entry is one
/// winning sum a[.., k] + b[k, ..]; its derivative with respect to the
/// operands is the indicator of the winning term. Ties: the derivative is
/// split evenly among the tied winning terms, as tenferro's own `maximum`
/// and `reduce_max` do, so one rule holds in a whole network. An output
/// that is +-inf (no finite term) has derivative zero.
///
/// Integer dtypes compute in wrapping two's-complement arithmetic: sums
/// must stay inside the type's range. An empty contraction (a contracted
/// extent 0) gives the semiring's zero: -inf (max-plus) or +inf (min-plus)
/// for floats, the lowest or highest value for integers. NaN inputs give
/// unspecified results.

#include <cstdint>
#include <iosfwd>
#include <string_view>
#include <vector>

#include <tenferro/einsum/path.hpp>
#include <tenferro/einsum/spec.hpp>
#include <tenferro/einsum/traced.hpp>
#include <tenferro/ops/attrs.hpp>
#include <tenferro/ops/backend.hpp>
#include <tenferro/ops/family.hpp>
#include <tenferro/runtime/eager.hpp>
#include <tenferro/runtime/traced_tensor.hpp>
#include <tenferro/tensor/tensor.hpp>

namespace tropical {

/// Which tropical semiring: (max, +) or (min, +).
enum class Semiring : std::uint8_t { max_plus, min_plus };

/// "max_plus" or "min_plus".
const char* semiring_name(Semiring s);

/// Typed attributes of `tropical.dot_general`: the semiring and the
/// dimension numbers (tenferro::DotGeneralAttrs, the same as the library's
/// `dot_general`). Printed as `semiring=max_plus lhs_batch=[] ...`.
struct DotAttrs {
  Semiring semiring = Semiring::max_plus;
  tenferro::DotGeneralAttrs dims{};
  bool operator==(const DotAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const DotAttrs& a);

/// Which operand a derivative op is about.
enum class Side : std::uint8_t { lhs, rhs };

/// Typed attributes of `tropical.winner_tangent` / `tropical.winner_cotangent`.
struct WinnerAttrs {
  DotAttrs dot{};
  Side side = Side::lhs;
  bool operator==(const WinnerAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const WinnerAttrs& a);

/// The family (ops, shape rules, AD rules, CPU kernels). A `Runtime` that
/// runs traced tropical programs is built with
/// `Runtime::builder().register_family(tropical::family())`; eager calls
/// register its kernels on the backend on first use.
const tenferro::OpFamily& family();

/// Output metadata of `tropical.dot_general` (checks dtypes and dimension
/// numbers; errors name "tropical.dot_general").
tenferro::TensorMeta infer_dot(const DotAttrs& attrs, const tenferro::TensorMeta& lhs,
                               const tenferro::TensorMeta& rhs);

// ---- the binary contraction ----------------------------------------------------------
/// Eager tropical dot_general on a backend.
///
/// ```cpp
/// tropical::DotAttrs mm{.semiring = tropical::Semiring::min_plus,
///                       .dims = {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}};
/// Tensor c = tropical::dot_general(a, b, mm, cpu);   // c[i, j] = min_k a[i, k] + b[k, j]
/// ```
tenferro::Tensor dot_general(const tenferro::Tensor& a, const tenferro::Tensor& b, const DotAttrs& attrs,
                             tenferro::Backend& backend);
/// The same on graph values (traced, or eager handles).
tenferro::Value dot_general(const tenferro::Value& a, const tenferro::Value& b, const DotAttrs& attrs);
tenferro::TracedTensor dot_general(const tenferro::TracedTensor& a, const tenferro::TracedTensor& b,
                                   const DotAttrs& attrs);
tenferro::EagerTensor dot_general(const tenferro::EagerTensor& a, const tenferro::EagerTensor& b,
                                  const DotAttrs& attrs);

/// Tropical matrix product of [m, k] and [k, n] (trailing axes: none).
tenferro::Tensor matmul(Semiring s, const tenferro::Tensor& a, const tenferro::Tensor& b, tenferro::Backend& backend);

// ---- einsum --------------------------------------------------------------------------
/// Tropical einsum: the notation of tenferro's einsum (Note [Einsum
/// notation] in tenferro/einsum/spec.hpp), the contraction order of its
/// path optimiser (`options`), and tenferro's einsum plan, run with max (or
/// min) in place of the sum and + in place of the product: a label missing
/// from the output is maximised (minimised) over, a repeated label takes
/// the diagonal, a label in several operands and the output is a batch
/// axis. Operands are promoted to one dtype (f32, f64, i32, i64; bool and
/// complex are DTypeErrors).
tenferro::Tensor einsum(Semiring s, std::string_view subscripts, const std::vector<tenferro::Tensor>& operands,
                        tenferro::Backend& backend, const tenferro::PathOptions& options = {});
/// Integer-label or pre-parsed form (`tenferro::einsum_spec`, `parse_einsum`).
tenferro::Tensor einsum(Semiring s, const tenferro::EinsumSpec& spec, const std::vector<tenferro::Tensor>& operands,
                        tenferro::Backend& backend, const tenferro::PathOptions& options = {});

/// On graph values: symbolic extents follow Note [Einsum symbolic extents]
/// (tenferro/einsum/traced.hpp); the program is planned once, at trace time.
tenferro::Value einsum_value(Semiring s, const tenferro::EinsumSpec& spec, const std::vector<tenferro::Value>& operands,
                             const tenferro::PathOptions& options = {}, const tenferro::SymbolicExtents& extents = {});

/// Traced and eager-handle forms (differentiable: `grad`, `backward`).
tenferro::TracedTensor einsum(Semiring s, std::string_view subscripts,
                              const std::vector<tenferro::TracedTensor>& operands,
                              const tenferro::PathOptions& options = {}, const tenferro::SymbolicExtents& extents = {});
tenferro::TracedTensor einsum(Semiring s, const tenferro::EinsumSpec& spec,
                              const std::vector<tenferro::TracedTensor>& operands,
                              const tenferro::PathOptions& options = {}, const tenferro::SymbolicExtents& extents = {});
tenferro::EagerTensor einsum(Semiring s, std::string_view subscripts, const std::vector<tenferro::EagerTensor>& operands,
                             const tenferro::PathOptions& options = {}, const tenferro::SymbolicExtents& extents = {});
tenferro::EagerTensor einsum(Semiring s, const tenferro::EinsumSpec& spec,
                             const std::vector<tenferro::EagerTensor>& operands,
                             const tenferro::PathOptions& options = {}, const tenferro::SymbolicExtents& extents = {});

// ---- kernels (exposed for the benchmark and tests) -----------------------------------
/// Which vectorised variant of the CPU kernel this machine runs ("avx512",
/// "avx2" or "baseline"), chosen once at run time from the CPU's features.
const char* cpu_kernel_isa();
/// Forces a variant (for tests and benchmarks): "avx512", "avx2",
/// "baseline", or "auto" (the CPU's best). ValueError for a name this
/// build lacks or this CPU cannot run.
void set_cpu_kernel_isa(std::string_view isa);
/// The reference: a plain triple loop over the dot_general index space (no
/// blocking, no vectors), for tests and the benchmark.
tenferro::Tensor dot_general_naive(const tenferro::Tensor& a, const tenferro::Tensor& b, const DotAttrs& attrs);

}  // namespace tropical

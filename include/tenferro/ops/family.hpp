#pragma once
/// \file
/// Operation families: how a module (linalg, fft) or an outside library adds
/// ops beyond the primitive table, with the same pieces a primitive has:
/// shape/dtype inference and per-device kernels (AD rules join through the
/// autodiff layer).
///
/// ```cpp
/// using namespace tenferro;
/// // A family op "demo.twice": out = 2 * x, same shape and dtype.
/// FamilyOp twice{
///     .name = "demo.twice", .num_inputs = 1, .num_outputs = 1,
///     .infer = [](const FamilyAttrs&, std::span<const TensorMeta> in) {
///       return std::vector<TensorMeta>{in[0]};
///     },
///     .cpu_kernel = [](const FamilyAttrs&, std::span<const Tensor> in, Backend& b) {
///       return std::vector<Tensor>{add(in[0], in[0], b)};
///     }};
/// OpFamily demo{"demo", {twice}};
/// std::vector<Tensor> out = call_family(demo.op("demo.twice"), {}, {{x}}, backend);
/// ```
/// Families are plain values: nothing registers itself at static
/// initialisation. A runtime that should run a family's ops in traced
/// programs is given the family explicitly when it is built.

#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/ops/value.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

/// An output extent that is only known when the op runs (e.g. the rank of
/// a truncated SVD).
inline constexpr std::int64_t kDynamicDim = -1;

/// One attribute value of a family op.
using AttrValue = std::variant<bool, std::int64_t, double, std::string, DimVec, DType>;

/// Named attributes of a family op (small, ordered by insertion).
class FamilyAttrs {
 public:
  FamilyAttrs() = default;
  FamilyAttrs(std::initializer_list<std::pair<std::string, AttrValue>> items);

  FamilyAttrs& set(std::string key, AttrValue value);
  bool has(std::string_view key) const;
  /// The value of `key` as `T`; ValueError when absent or of another type.
  template <class T>
  const T& get(std::string_view key) const {
    const AttrValue& v = find(key);
    const T* p = std::get_if<T>(&v);
    if (p == nullptr) throw_type_mismatch(key);
    return *p;
  }
  template <class T>
  T get_or(std::string_view key, T fallback) const {
    return has(key) ? get<T>(key) : fallback;
  }
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  bool operator==(const FamilyAttrs&) const = default;

 private:
  const AttrValue& find(std::string_view key) const;
  [[noreturn]] void throw_type_mismatch(std::string_view key) const;
  std::vector<std::pair<std::string, AttrValue>> items_;
};

std::ostream& operator<<(std::ostream& os, const FamilyAttrs& attrs);

/// One op of a family.
struct FamilyOp {
  /// Output metadata; dims that depend on data are kDynamicDim. Throws the
  /// usual tenferro::Error subclasses for bad operands.
  using InferFn =
      std::function<std::vector<TensorMeta>(const FamilyAttrs&, std::span<const TensorMeta>)>;
  /// Output metadata over symbolic extents (traced programs). Optional: when
  /// empty, traced programs use `infer` if every operand extent is constant
  /// and otherwise give each output extent a fresh symbol bound at run time.
  using SymInferFn =
      std::function<std::vector<SymMeta>(const FamilyAttrs&, std::span<const SymMeta>)>;
  /// Computes the outputs on `backend` (operands already checked by infer).
  using KernelFn =
      std::function<std::vector<Tensor>(const FamilyAttrs&, std::span<const Tensor>, Backend&)>;

  std::string name;      ///< "family.op", e.g. "linalg.svd"
  int num_inputs = 1;    ///< -1 for variadic
  int num_outputs = 1;
  /// Forward-mode rule (tenferro::ad): output tangents from input tangents,
  /// written with graph operations (runtime/value_ops.hpp) so that it runs
  /// traced and eager alike and is itself differentiable. An undefined
  /// `Value` is a zero tangent, in and out.
  using JvpFn = std::function<std::vector<Value>(const FamilyAttrs&, std::span<const Value> inputs,
                                                 std::span<const Value> outputs,
                                                 std::span<const Value> tangents)>;
  /// Transpose rule of a linear op: cotangents of the inputs marked linear
  /// from the output cotangents (undefined Value = zero), as the adjoint for
  /// the real inner product Re<u, v> (see tenferro/ad.hpp).
  using TransposeFn = std::function<std::vector<Value>(
      const FamilyAttrs&, std::span<const Value> inputs, std::span<const bool> linear,
      std::span<const Value> cotangents)>;

  InferFn infer{};
  SymInferFn sym_infer{};  ///< optional, see SymInferFn
  KernelFn cpu_kernel{};   ///< empty when the family has no CPU kernel
  KernelFn cuda_kernel{};  ///< empty when the family has no CUDA kernel
  JvpFn jvp{};             ///< empty: not differentiable
  TransposeFn transpose{}; ///< linear ops only
};

/// A named collection of family ops.
struct OpFamily {
  std::string name;
  std::vector<FamilyOp> ops;
  /// The op called `name`; ValueError naming the family when absent.
  const FamilyOp& op(std::string_view name) const;
};

/// Runs a family op eagerly: checks that operands are defined and on the
/// backend's device, runs `infer`, then the kernel for the backend's device
/// (the family's, else `backend.family_kernel(op.name)`; UnimplementedError
/// when neither exists), and checks the kernel's outputs against the
/// inferred metadata.
std::vector<Tensor> call_family(const FamilyOp& op, const FamilyAttrs& attrs,
                                std::span<const Tensor> inputs, Backend& backend);

}  // namespace tenferro

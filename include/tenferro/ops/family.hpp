#pragma once
/// \file
/// Operation families: how a module (linalg, fft) or an outside library adds
/// ops beyond the primitive table, with the same pieces a primitive has:
/// shape/dtype inference, AD rules, and per-device kernels (which live in
/// the backend's `KernelRegistry`, tenferro/ops/kernels.hpp).
///
/// ```cpp
/// using namespace tenferro;
/// // A family op "demo.twice": out = 2 * x, same shape and dtype.
/// struct SameMeta {
///   template <class D>
///   std::vector<BasicTensorMeta<D>> operator()(const NoFamilyAttrs&,
///                                              std::span<const BasicTensorMeta<D>> in) const {
///     return {in[0]};
///   }
/// };
/// const OpFamily& demo() {
///   static const OpFamily family{
///       "demo", {define_family_op<NoFamilyAttrs>({.name = "demo.twice"}, SameMeta{})},
///       [](const OpFamily& f, KernelRegistry& r) {          // the family's default kernels
///         r.add(f.op("demo.twice"), DeviceKind::cpu, "demo",
///               [](const FamilyAttrs&, std::span<const Tensor> in, Backend& b) {
///                 return std::vector<Tensor>{add(in[0], in[0], b)};
///               });
///       }};
///   return family;
/// }
/// std::vector<Tensor> out = call_family(demo().op("demo.twice"), {}, {{x}}, backend);
/// ```
/// Families are plain values: nothing registers itself at static
/// initialisation. Building an `OpFamily` checks its ops (Note [Family
/// validation]); its kernels are registered into a backend's registry on
/// first use (`call_family`) or when a runtime is built with the family.

#include <functional>
#include <ostream>
#include <memory>
#include <typeinfo>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/ops/value.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

class KernelRegistry;
struct OpFamily;

/// An output extent that is only known when the op runs (e.g. the rank of
/// a truncated SVD).
inline constexpr std::int64_t kDynamicDim = -1;

namespace detail {
// Type erasure of a family op's typed attribute struct (FamilyAttrs::of).
struct TypedAttrsBase {
  virtual ~TypedAttrsBase() = default;
  virtual const std::type_info& type() const = 0;
  virtual bool equals(const TypedAttrsBase& other) const = 0;
  virtual void print(std::ostream& os) const = 0;
};
template <class A>
struct TypedAttrs final : TypedAttrsBase {
  explicit TypedAttrs(A a) : value(std::move(a)) {}
  const std::type_info& type() const override { return typeid(A); }
  bool equals(const TypedAttrsBase& o) const override {
    return o.type() == typeid(A) && static_cast<const TypedAttrs&>(o).value == value;
  }
  void print(std::ostream& os) const override { os << value; }
  A value;
};
[[noreturn]] void throw_attrs_type_mismatch(const std::type_info& want, const std::type_info& have);
}  // namespace detail

/// The attributes of a family op: one typed struct per op (Note [Typed
/// family attributes]), held type-erased so that graph nodes and program
/// instructions can carry any op's attributes.
///
/// ```cpp
/// struct ScaleAttrs {
///   double factor = 1;
///   bool operator==(const ScaleAttrs&) const = default;
///   friend std::ostream& operator<<(std::ostream& os, const ScaleAttrs& a) {
///     return os << "factor=" << a.factor;
///   }
/// };
/// FamilyAttrs attrs = FamilyAttrs::of(ScaleAttrs{2.0});
/// double f = attrs.as<ScaleAttrs>().factor;   // 2.0
/// ```
/// The struct must be copyable, equality-comparable and printable (the
/// printed form appears in program text and keys common-subexpression
/// elimination). Empty attributes (`FamilyAttrs{}`) read as a
/// default-constructed struct.
class FamilyAttrs {
 public:
  FamilyAttrs() = default;

  /// Typed attributes.
  template <class A>
  static FamilyAttrs of(A attrs) {
    FamilyAttrs out;
    out.typed_ = std::make_shared<const detail::TypedAttrs<A>>(std::move(attrs));
    return out;
  }
  /// The typed struct; InternalError when these attributes hold another
  /// type. Empty attributes give a default-constructed `A`.
  template <class A>
  const A& as() const {
    if (!typed_) {
      if constexpr (std::is_default_constructible_v<A>) {
        static const A fallback{};
        return fallback;
      } else {
        detail::throw_attrs_type_mismatch(typeid(A), typeid(void));
      }
    }
    if (typed_->type() != typeid(A)) detail::throw_attrs_type_mismatch(typeid(A), typed_->type());
    return static_cast<const detail::TypedAttrs<A>&>(*typed_).value;
  }
  /// Whether these attributes hold a typed struct.
  bool is_typed() const { return typed_ != nullptr; }

  bool operator==(const FamilyAttrs& o) const;

 private:
  friend std::ostream& operator<<(std::ostream& os, const FamilyAttrs& attrs);
  std::shared_ptr<const detail::TypedAttrsBase> typed_;
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
  /// A kernel that always accepts: computes the outputs on `backend`
  /// (operands already checked by infer). Kernels are registered in a
  /// `KernelRegistry` (tenferro/ops/kernels.hpp), not stored on the op.
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
  JvpFn jvp{};             ///< empty: not differentiable
  TransposeFn transpose{}; ///< linear ops only
  /// The op written in primitives and other family ops (graph values), for
  /// lowerings that have no kernel for the op itself (StableHLO, WebGPU).
  /// Empty when the op has no such form.
  using LowerFn = std::function<std::vector<Value>(const FamilyAttrs&, std::span<const Value> inputs)>;
  LowerFn lower{};
  /// Differentiability, checked against the rules when the family is built.
  AdKind ad = AdKind::none;
  /// Note [Output projections]: when this op's outputs are outputs of
  /// another op of the family on the same operands, whatever that op's
  /// attributes (`linalg.svdvals` is `linalg.svd`'s S), `projection_of`
  /// names that op and `projection_outputs[k]` is its output for output k.
  /// A compiled program that computes both (the values, and the full
  /// decomposition inside their derivative rule) then runs one kernel: CSE
  /// moves the other op up to this one and reads the outputs from it.
  std::string projection_of{};
  std::vector<int> projection_outputs{};
  /// Note [Operands without tangents]: operands whose tangents the rules
  /// never read, because the op's value is a function of its other operands
  /// (`linalg.solve_factored` takes the LU factors of its operand a, which
  /// it uses to compute a^-1 b and its derivative; the derivative goes
  /// through a). Forward mode then computes no tangent for a value that only
  /// such operands use: eager JVPs skip that work, which compiled programs
  /// drop as dead code anyway.
  std::vector<int> nondiff_inputs{};
  /// The family this op belongs to (set by `OpFamily`; null for an op
  /// outside any family), whose kernels `call_family` registers on first use.
  const OpFamily* family = nullptr;
};

/// An output extent that depends on data: `kDynamicDim` in concrete
/// inference, a fresh symbol (bound when the op runs) in symbolic inference.
template <class D>
D dynamic_extent(std::string_view prefix) {
  if constexpr (std::is_same_v<D, Dim>) return Dim::fresh(prefix);
  else return kDynamicDim;
}

/// What declares a family op besides its rules.
struct FamilyOpSpec {
  std::string name;      ///< "family.op"
  int num_inputs = 1;    ///< -1 for variadic
  int num_outputs = 1;
  AdKind ad = AdKind::none;  ///< none, nonlinear (needs jvp), linear (jvp and transpose)
  std::string projection_of{};         ///< see FamilyOp::projection_of
  std::vector<int> projection_outputs{};
  std::vector<int> nondiff_inputs{};   ///< see FamilyOp::nondiff_inputs
};

/// The rules of a family op over its typed attribute struct `A`.
template <class A>
struct FamilyRules {
  std::function<std::vector<Value>(const A&, std::span<const Value> inputs, std::span<const Value> outputs,
                                   std::span<const Value> tangents)>
      jvp{};
  std::function<std::vector<Value>(const A&, std::span<const Value> inputs, std::span<const bool> linear,
                                   std::span<const Value> cotangents)>
      transpose{};
  std::function<std::vector<Value>(const A&, std::span<const Value> inputs)> lower{};
};

/// Declares a family op once (Note [Typed family attributes]): `infer` is
/// one generic callable serving concrete and symbolic extents,
/// `infer(const A&, std::span<const BasicTensorMeta<D>>) ->
/// std::vector<BasicTensorMeta<D>>` for `D = std::int64_t` and `D = Dim`
/// (use `dynamic_extent<D>` for data-dependent extents, and make checks
/// that symbolic extents cannot decide yet pass). The rules receive the
/// attributes already typed.
///
/// ```cpp
/// struct ScaleAttrs { double factor = 1; ... };   // see FamilyAttrs
/// struct ScaleInfer {
///   template <class D>
///   std::vector<BasicTensorMeta<D>> operator()(const ScaleAttrs&,
///                                              std::span<const BasicTensorMeta<D>> in) const {
///     return {in[0]};
///   }
/// };
/// FamilyOp scale = define_family_op<ScaleAttrs>(
///     {.name = "demo.scale", .ad = AdKind::linear}, ScaleInfer{},
///     {.jvp = [](const ScaleAttrs& a, auto, auto, std::span<const Value> t) {
///        return std::vector<Value>{vops::mul(t[0], a.factor)}; },
///      .transpose = [](const ScaleAttrs& a, auto, auto, std::span<const Value> ct) {
///        return std::vector<Value>{vops::mul(ct[0], a.factor)}; }});
/// ```
template <class A, class Infer>
FamilyOp define_family_op(FamilyOpSpec spec, Infer infer, FamilyRules<A> rules = {}) {
  FamilyOp op;
  op.name = std::move(spec.name);
  op.num_inputs = spec.num_inputs;
  op.num_outputs = spec.num_outputs;
  op.ad = spec.ad;
  op.projection_of = std::move(spec.projection_of);
  op.projection_outputs = std::move(spec.projection_outputs);
  op.nondiff_inputs = std::move(spec.nondiff_inputs);
  op.infer = [infer](const FamilyAttrs& a, std::span<const TensorMeta> in) {
    return infer(a.as<A>(), in);
  };
  op.sym_infer = [infer](const FamilyAttrs& a, std::span<const SymMeta> in) {
    return infer(a.as<A>(), in);
  };
  if (rules.jvp)
    op.jvp = [f = std::move(rules.jvp)](const FamilyAttrs& a, std::span<const Value> in,
                                         std::span<const Value> out, std::span<const Value> t) {
      return f(a.as<A>(), in, out, t);
    };
  if (rules.transpose)
    op.transpose = [f = std::move(rules.transpose)](const FamilyAttrs& a, std::span<const Value> in,
                                                     std::span<const bool> lin, std::span<const Value> ct) {
      return f(a.as<A>(), in, lin, ct);
    };
  if (rules.lower)
    op.lower = [f = std::move(rules.lower)](const FamilyAttrs& a, std::span<const Value> in) {
      return f(a.as<A>(), in);
    };
  return op;
}

/// A family op's typed kernel: `kernel(const A&, std::span<const Tensor>,
/// Backend&)` returning `std::vector<Tensor>` (always accepts) or
/// `std::optional<std::vector<Tensor>>` (nullopt declines), as a callable
/// over `FamilyAttrs` for `KernelRegistry::add`.
template <class A, class Kernel>
auto typed_kernel(Kernel kernel) {
  return [kernel](const FamilyAttrs& a, std::span<const Tensor> in, Backend& b) {
    return kernel(a.as<A>(), in, b);
  };
}

/// Attributes of ops that take none.
struct NoFamilyAttrs {
  bool operator==(const NoFamilyAttrs&) const = default;
  friend std::ostream& operator<<(std::ostream& os, const NoFamilyAttrs&) { return os; }
};

/// A named collection of family ops.
///
/// Note [Family validation]
/// Constructing a family checks every op: a name that is unique and starts
/// with "<family>.", an `infer`, and rules that match `ad` (`none`: no jvp
/// or transpose; `nonlinear`: a jvp, and a transpose only when the op is
/// linear in some operands, as solve is in b; `linear`: a jvp and a
/// transpose). A missing or misspelt piece is a ValueError naming the
/// family and the op at registration, not a silently absent rule. `add`
/// checks the op it adds likewise. Each op's `family` points at the family
/// that holds it (copies and moves re-point their ops).
struct OpFamily {
  /// `register_kernels(family, registry)` adds the family's default kernels
  /// (for its ops `family.op(...)`) to `registry`; run once per registry by
  /// `KernelRegistry::register_family`.
  using RegisterKernelsFn = std::function<void(const OpFamily&, KernelRegistry&)>;

  std::string name;
  std::vector<FamilyOp> ops;
  RegisterKernelsFn register_kernels{};

  OpFamily() = default;
  /// Validates `ops` (Note [Family validation]); ValueError when invalid.
  OpFamily(std::string name, std::vector<FamilyOp> ops, RegisterKernelsFn register_kernels = {});
  OpFamily(const OpFamily& other);
  OpFamily(OpFamily&& other) noexcept;
  OpFamily& operator=(const OpFamily& other);
  OpFamily& operator=(OpFamily&& other) noexcept;

  /// Validates `op` against the family and appends it.
  FamilyOp& add(FamilyOp op);
  /// The op called `name`; ValueError naming the family when absent.
  const FamilyOp& op(std::string_view name) const;

 private:
  void adopt_ops();
};

/// Checks one op of family `family_name` (Note [Family validation]).
void validate_family_op(std::string_view family_name, const FamilyOp& op);

/// Runs a family op eagerly: checks that operands are defined and on the
/// backend's device, runs `infer`, then the first kernel provider for the
/// backend's device that accepts (`backend.kernels()`, registering the op's
/// family on first use; UnimplementedError naming op and device when none
/// accepts), and checks the kernel's outputs against the inferred metadata.
std::vector<Tensor> call_family(const FamilyOp& op, const FamilyAttrs& attrs,
                                std::span<const Tensor> inputs, Backend& backend);

}  // namespace tenferro

#pragma once
/// \file
/// `OpKind` and the per-primitive descriptor, generated from ops.def.
///
/// ```cpp
/// using namespace tenferro;
/// const OpInfo& info = op_info(OpKind::dot_general);
/// // info.name == "dot_general", info.stablehlo_name == "stablehlo.dot_general"
/// std::optional<OpKind> k = op_from_name("add");   // OpKind::add
/// ```

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string_view>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/tensor/dtype.hpp"

namespace tenferro {

/// The primitives, one enumerator per row of ops.def.
enum class OpKind : std::uint8_t {
#define TF_OP(name, hlo, category, dtypes, arity, attrs, ad) name,
#include "tenferro/ops/ops.def"
#undef TF_OP
};

inline constexpr int kNumOps = 0
#define TF_OP(name, hlo, category, dtypes, arity, attrs, ad) +1
#include "tenferro/ops/ops.def"
#undef TF_OP
    ;

/// How shape inference and kernels treat an op.
enum class OpCategory : std::uint8_t {
  unary,        ///< one operand, same shape out
  binary,       ///< two operands of one shape, same shape out
  ternary,      ///< select / clamp (scalars allowed where StableHLO allows)
  reduction,    ///< reduce over an axis set
  structural,   ///< moves or selects elements
  contraction,  ///< dot_general
};

/// Differentiability of a primitive (see ops.def).
enum class AdKind : std::uint8_t { linear, nonlinear, none };

struct OpInfo {
  OpKind kind;
  const char* name;
  const char* stablehlo_name;
  OpCategory category;
  DTypeSet dtypes;  ///< accepted dtypes of the first operand
  int arity;        ///< operand count, -1 for variadic
  AdKind ad;
};

/// Descriptor of a primitive (a table lookup).
const OpInfo& op_info(OpKind kind);
/// The op's public (and IR) name, e.g. "broadcast_in_dim".
inline const char* op_name(OpKind kind) { return op_info(kind).name; }
/// Looks an op up by its public name.
std::optional<OpKind> op_from_name(std::string_view name);
std::ostream& operator<<(std::ostream& os, OpKind kind);

/// Which alternative of `Attrs` an op takes.
std::size_t attrs_index(OpKind kind);

}  // namespace tenferro

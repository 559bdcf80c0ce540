// The op table (generated from ops.def) and attribute printing.
#include "tenferro/ops/op.hpp"

#include <ostream>
#include <type_traits>

namespace tenferro {
namespace {

constexpr OpInfo kOpTable[] = {
#define TF_OP(name, hlo, category, dtypes, arity, attrs, ad) \
  {OpKind::name, #name, hlo, OpCategory::category, dtypes, arity, AdKind::ad},
#include "tenferro/ops/ops.def"
#undef TF_OP
};

template <class A, std::size_t I = 0>
constexpr std::size_t variant_index() {
  if constexpr (std::is_same_v<std::variant_alternative_t<I, Attrs>, A>) return I;
  else return variant_index<A, I + 1>();
}

constexpr std::size_t kAttrsIndex[] = {
#define TF_OP(name, hlo, category, dtypes, arity, attrs, ad) variant_index<attrs>(),
#include "tenferro/ops/ops.def"
#undef TF_OP
};

}  // namespace

const OpInfo& op_info(OpKind kind) { return kOpTable[static_cast<int>(kind)]; }

std::size_t attrs_index(OpKind kind) { return kAttrsIndex[static_cast<int>(kind)]; }

std::optional<OpKind> op_from_name(std::string_view name) {
  for (const OpInfo& info : kOpTable)
    if (name == info.name) return info.kind;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, OpKind kind) { return os << op_name(kind); }

}  // namespace tenferro

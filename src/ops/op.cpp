// The op table (generated from ops.def) and attribute printing.
#include "tenferro/ops/op.hpp"

#include <ostream>
#include <string>
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

const char* comparison_name(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::EQ: return "EQ";
    case ComparisonDirection::NE: return "NE";
    case ComparisonDirection::LT: return "LT";
    case ComparisonDirection::LE: return "LE";
    case ComparisonDirection::GT: return "GT";
    case ComparisonDirection::GE: return "GE";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const Attrs& attrs) {
  struct Printer {
    std::ostream& os;
    void operator()(const NoAttrs&) const {}
    void operator()(const AxesAttrs& a) const { os << "dimensions=" << a.dimensions; }
    void operator()(const PermutationAttrs& a) const { os << "permutation=" << a.permutation; }
    void operator()(const ReshapeAttrs& a) const { os << "shape=" << a.shape; }
    void operator()(const BroadcastInDimAttrs& a) const {
      os << "shape=" << a.shape << " broadcast_dimensions=" << a.broadcast_dimensions;
    }
    void operator()(const SliceAttrs& a) const {
      os << "start=" << a.start_indices << " limit=" << a.limit_indices
         << " strides=" << a.strides;
    }
    void operator()(const DynamicSliceAttrs& a) const { os << "slice_sizes=" << a.slice_sizes; }
    void operator()(const PadAttrs& a) const {
      os << "low=" << a.edge_padding_low << " high=" << a.edge_padding_high
         << " interior=" << a.interior_padding;
    }
    void operator()(const ConcatenateAttrs& a) const { os << "dimension=" << a.dimension; }
    void operator()(const CompareAttrs& a) const {
      os << "direction=" << comparison_name(a.direction);
    }
    void operator()(const ConvertAttrs& a) const { os << "dtype=" << a.dtype; }
    void operator()(const DotGeneralAttrs& a) const {
      os << "lhs_batch=" << a.lhs_batching_dimensions << " rhs_batch=" << a.rhs_batching_dimensions
         << " lhs_contract=" << a.lhs_contracting_dimensions
         << " rhs_contract=" << a.rhs_contracting_dimensions;
    }
    void operator()(const GatherAttrs& a) const {
      os << "offset_dims=" << a.offset_dims << " collapsed_slice_dims=" << a.collapsed_slice_dims
         << " start_index_map=" << a.start_index_map
         << " index_vector_dim=" << a.index_vector_dim << " slice_sizes=" << a.slice_sizes;
    }
    void operator()(const ScatterAttrs& a) const {
      os << "update_window_dims=" << a.update_window_dims
         << " inserted_window_dims=" << a.inserted_window_dims
         << " scatter_dims_to_operand_dims=" << a.scatter_dims_to_operand_dims
         << " index_vector_dim=" << a.index_vector_dim
         << " mode=" << (a.mode == ScatterMode::add ? "add" : "replace");
    }
  };
  std::visit(Printer{os}, attrs);
  return os;
}

}  // namespace tenferro

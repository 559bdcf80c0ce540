// Attribute printing and the concrete <-> symbolic conversions.
#include <ostream>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro {

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

namespace {

struct Printer {
  std::ostream& os;
  void operator()(const NoAttrs&) const {}
  void operator()(const AxesAttrs& a) const {
    os << "dimensions=" << a.dimensions;
    if (a.nonempty) os << ", nonempty";
  }
  void operator()(const PermutationAttrs& a) const { os << "permutation=" << a.permutation; }
  template <class D>
  void operator()(const BasicReshapeAttrs<D>& a) const {
    os << "shape=" << a.shape;
  }
  template <class D>
  void operator()(const BasicBroadcastInDimAttrs<D>& a) const {
    os << "shape=" << a.shape << " broadcast_dimensions=" << a.broadcast_dimensions;
  }
  template <class D>
  void operator()(const BasicSliceAttrs<D>& a) const {
    os << "start=" << a.start_indices << " limit=" << a.limit_indices << " strides=" << a.strides;
  }
  template <class D>
  void operator()(const BasicDynamicSliceAttrs<D>& a) const {
    os << "slice_sizes=" << a.slice_sizes;
  }
  template <class D>
  void operator()(const BasicPadAttrs<D>& a) const {
    os << "low=" << a.edge_padding_low << " high=" << a.edge_padding_high
       << " interior=" << a.interior_padding;
  }
  void operator()(const ConcatenateAttrs& a) const { os << "dimension=" << a.dimension; }
  void operator()(const CompareAttrs& a) const { os << "direction=" << comparison_name(a.direction); }
  void operator()(const ConvertAttrs& a) const { os << "dtype=" << a.dtype; }
  void operator()(const PolygammaAttrs& a) const { os << "n=" << a.n; }
  void operator()(const DotGeneralAttrs& a) const {
    os << "lhs_batch=" << a.lhs_batching_dimensions << " rhs_batch=" << a.rhs_batching_dimensions
       << " lhs_contract=" << a.lhs_contracting_dimensions
       << " rhs_contract=" << a.rhs_contracting_dimensions;
  }
  template <class D>
  void operator()(const BasicGatherAttrs<D>& a) const {
    os << "offset_dims=" << a.offset_dims << " collapsed_slice_dims=" << a.collapsed_slice_dims
       << " start_index_map=" << a.start_index_map << " index_vector_dim=" << a.index_vector_dim
       << " slice_sizes=" << a.slice_sizes;
  }
  void operator()(const ScatterAttrs& a) const {
    os << "update_window_dims=" << a.update_window_dims
       << " inserted_window_dims=" << a.inserted_window_dims
       << " scatter_dims_to_operand_dims=" << a.scatter_dims_to_operand_dims
       << " index_vector_dim=" << a.index_vector_dim
       << " mode=" << (a.mode == ScatterMode::add ? "add" : "replace");
  }
};

// Rebuilds the attributes with every extent mapped through `f` (From -> To).
template <class To, class From, class F>
struct Converter {
  F f;
  ExtentList<To> list(const ExtentList<From>& l) const {
    ExtentList<To> out;
    for (const auto& x : l) out.push_back(f(x));
    return out;
  }
  template <class A>
  A operator()(const A& a) const {  // attributes without extents
    return a;
  }
  BasicReshapeAttrs<To> operator()(const BasicReshapeAttrs<From>& a) const { return {list(a.shape)}; }
  BasicBroadcastInDimAttrs<To> operator()(const BasicBroadcastInDimAttrs<From>& a) const {
    return {list(a.shape), a.broadcast_dimensions};
  }
  BasicSliceAttrs<To> operator()(const BasicSliceAttrs<From>& a) const {
    return {list(a.start_indices), list(a.limit_indices), a.strides};
  }
  BasicDynamicSliceAttrs<To> operator()(const BasicDynamicSliceAttrs<From>& a) const {
    return {list(a.slice_sizes)};
  }
  BasicPadAttrs<To> operator()(const BasicPadAttrs<From>& a) const {
    return {list(a.edge_padding_low), list(a.edge_padding_high), a.interior_padding};
  }
  BasicGatherAttrs<To> operator()(const BasicGatherAttrs<From>& a) const {
    return {a.offset_dims, a.collapsed_slice_dims, a.start_index_map, a.index_vector_dim,
            list(a.slice_sizes)};
  }
};

template <class To, class From, class F>
BasicAttrs<To> convert(const BasicAttrs<From>& attrs, F f) {
  Converter<To, From, F> c{f};
  return std::visit([&](const auto& a) -> BasicAttrs<To> { return c(a); }, attrs);
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Attrs& attrs) {
  std::visit(Printer{os}, attrs);
  return os;
}

std::ostream& operator<<(std::ostream& os, const SymAttrs& attrs) {
  std::visit(Printer{os}, attrs);
  return os;
}

SymAttrs to_symbolic(const Attrs& attrs) {
  return convert<Dim, std::int64_t>(attrs, [](std::int64_t v) { return Dim(v); });
}

Attrs evaluate_attrs(const SymAttrs& attrs, const DimBindings& env) {
  return convert<std::int64_t, Dim>(attrs, [&](const Dim& d) { return d.evaluate(env); });
}

bool attrs_bound(const SymAttrs& attrs, const DimBindings& env) {
  bool bound = true;
  convert<std::int64_t, Dim>(attrs, [&](const Dim& d) {
    for (const std::string& v : d.symbols()) bound = bound && env.count(v) > 0;
    return std::int64_t{0};
  });
  return bound;
}

SymAttrs rename_symbols(const SymAttrs& attrs, const std::map<std::string, std::string, std::less<>>& renames) {
  return convert<Dim, Dim>(attrs, [&](const Dim& d) { return d.renamed(renames); });
}

std::optional<Attrs> try_constant_attrs(const SymAttrs& attrs) {
  bool constant = true;
  Attrs out = convert<std::int64_t, Dim>(attrs, [&](const Dim& d) {
    auto v = d.try_value();
    constant = constant && v.has_value();
    return v.value_or(0);
  });
  if (!constant) return std::nullopt;
  return out;
}

}  // namespace tenferro

// Einsum on graph values: the plan of plan.hpp run through an emitter that
// builds graph primitives (Note [Einsum symbolic extents] in
// tenferro/einsum/traced.hpp).
#include "tenferro/einsum/traced.hpp"

#include <algorithm>
#include <span>

#include "tenferro/runtime/value_ops.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro {

namespace {

std::int64_t planning_extent(const Dim& d, const SymbolicExtents& ext) {
  if (auto v = d.try_value()) return *v;
  DimBindings env;
  for (const std::string& s : d.symbols()) {
    auto it = ext.hints.find(s);
    env[s] = it != ext.hints.end() ? it->second : ext.default_extent;
  }
  return std::max<std::int64_t>(2, d.evaluate(env));
}

std::vector<SymShape> shapes_of(const std::vector<Value>& operands) {
  std::vector<SymShape> s;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    TF_CHECK(operands[k].defined(), ValueError, "einsum", "operand ", k, " is an undefined tensor");
    s.push_back(operands[k].shape());
  }
  return s;
}

std::vector<std::int64_t> ranks_of(const std::vector<Value>& operands) {
  std::vector<std::int64_t> r;
  for (const SymShape& s : shapes_of(operands)) r.push_back(static_cast<std::int64_t>(s.size()));
  return r;
}

template <class H>
std::vector<Value> values_of(const std::vector<H>& operands) {
  std::vector<Value> v;
  v.reserve(operands.size());
  for (const H& h : operands) v.push_back(h.graph_value());
  return v;
}

}  // namespace

EinsumLabelExtents einsum_label_extents(const EinsumSpec& spec, const std::vector<SymShape>& shapes,
                                        const SymbolicExtents& ext) {
  TF_CHECK(shapes.size() == spec.inputs.size(), ValueError, "einsum", "subscripts \"", einsum_echo(spec.text), "\" name ",
           spec.inputs.size(), " operands but ", shapes.size(), " were given");
  const std::size_t nl = static_cast<std::size_t>(spec.num_labels());
  std::vector<Dim> constant(nl), symbolic(nl);
  std::vector<char> has_constant(nl, 0), has_symbolic(nl, 0);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    TF_CHECK(shapes[k].size() == spec.inputs[k].size(), ValueError, "einsum", "operand ", k, " has shape ",
             shapes[k], " (rank ", shapes[k].size(), ") but its subscripts in \"", einsum_echo(spec.text), "\" name ",
             spec.inputs[k].size(), " axes");
    for (std::size_t i = 0; i < shapes[k].size(); ++i) {
      const std::size_t l = static_cast<std::size_t>(spec.inputs[k][i]);
      const Dim& d = shapes[k][i];
      if (auto v = d.try_value()) {
        if (*v != 1 && !has_constant[l]) {
          constant[l] = d;
          has_constant[l] = 1;
        }
      } else if (!has_symbolic[l]) {
        symbolic[l] = d;
        has_symbolic[l] = 1;
      }
    }
  }
  EinsumLabelExtents out;
  out.dims.resize(nl, Dim(1));
  std::vector<std::int64_t> plan_size(nl, 1);
  for (std::size_t l = 0; l < nl; ++l) {
    if (has_constant[l]) {
      out.dims[l] = constant[l];
    } else if (has_symbolic[l]) {
      out.dims[l] = symbolic[l];
    }
    plan_size[l] = planning_extent(out.dims[l], ext);
  }
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    Shape s;
    for (std::size_t i = 0; i < shapes[k].size(); ++i) {
      auto v = shapes[k][i].try_value();
      s.push_back(v ? *v : plan_size[static_cast<std::size_t>(spec.inputs[k][i])]);
    }
    out.planning_shapes.push_back(std::move(s));
  }
  return out;
}

SymShape EinsumValueEmitter::shape_of(const EinsumInstr& in) const {
  SymShape s;
  s.reserve(in.shape_labels.size());
  for (auto l : in.shape_labels) s.push_back(label_dims[static_cast<std::size_t>(l)]);
  return s;
}

Value EinsumValueEmitter::convert(const Value& a, DType d) { return vops::convert(a, d); }
Value EinsumValueEmitter::reshape(const Value& a, const SymShape& s) { return vops::reshape(a, s); }

// The diagonal of axes (i, j) as a new last axis: a gather for constant
// extents; for a symbolic extent n, the kept axes are moved first and the
// [R, n*n] matrix is padded to [R, n*(n+1)] columns: viewed as
// [R, n+1, n], row 0 of the middle axis holds the diagonal (column-major
// position k + n*k = (n+1)*k).
Value EinsumValueEmitter::diagonal(const Value& a, std::int64_t i, std::int64_t j) {
  const SymShape& s = a.shape();
  const Dim& n = s[static_cast<std::size_t>(i)];
  if (n.is_constant() && n == s[static_cast<std::size_t>(j)]) return vops::diagonal(a, i, j);
  DimVec perm;
  SymShape rest;
  Dim r(1);
  for (std::int64_t d = 0; d < a.ndim(); ++d) {
    if (d == i || d == j) continue;
    perm.push_back(d);
    rest.push_back(s[static_cast<std::size_t>(d)]);
    r = r * s[static_cast<std::size_t>(d)];
  }
  perm.push_back(i);
  perm.push_back(j);
  Value t = vops::reshape(vops::transpose(a, perm), {r, n * n});
  t = vops::pad(t, vops::scalar(Scalar(0.0), a.dtype()), {Dim(0), Dim(0)}, {Dim(0), n}, {0, 0});
  t = vops::reshape(t, {r, n + 1, n});
  t = vops::slice_axis(t, 1, Dim(0), Dim(1));
  rest.push_back(n);
  return vops::reshape(t, rest);
}
Value EinsumValueEmitter::reduce_sum(const Value& a, const DimVec& axes) { return vops::sum(a, axes); }
Value EinsumValueEmitter::slice(const Value& a, const SymShape& starts, const SymShape& limits,
                                const DimVec& strides) {
  return vops::slice(a, starts, limits, strides);
}
Value EinsumValueEmitter::dot_general(const Value& a, const Value& b, const DotGeneralAttrs& dims) {
  return vops::dot_general(a, b, dims);
}
Value EinsumValueEmitter::broadcast_in_dim(const Value& a, const SymShape& s, const DimVec& dims) {
  return vops::broadcast_in_dim(a, s, dims);
}
Value EinsumValueEmitter::multiply(const Value& a, const Value& b) { return vops::mul(a, b); }
Value EinsumValueEmitter::add(const Value& a, const Value& b) { return vops::add(a, b); }

// A transpose of a transpose is one transpose of the source (none when
// the two cancel, e.g. a batched dot_general's result named in memory order
// and then put in output order): the plan's permute_views are free views
// in eager mode and must not become chains of copies here.
Value EinsumValueEmitter::permute_view(const Value& a, const DimVec& perm) { return transpose(a, perm); }
Value EinsumValueEmitter::transpose(const Value& a, const DimVec& perm) {
  const Node* n = a.node.get();
  if (n != nullptr && n->kind == NodeKind::primitive && n->op == OpKind::transpose && n->inputs.size() == 1 &&
      !n->values.size()) {
    const auto& inner = std::get<PermutationAttrs>(n->attrs).permutation;
    DimVec composed;
    for (auto p : perm) composed.push_back(inner[static_cast<std::size_t>(p)]);
    return vops::transpose(n->inputs[0], composed);
  }
  return vops::transpose(a, perm);
}

std::vector<Shape> einsum_planning_shapes(const EinsumSpec& spec, const std::vector<SymShape>& shapes,
                                          const SymbolicExtents& extents) {
  return einsum_label_extents(spec, shapes, extents).planning_shapes;
}

Value einsum_value(const EinsumSpec& spec, const std::vector<Value>& operands, const PathOptions& options,
                   const SymbolicExtents& extents, EinsumCache* cache) {
  const std::vector<SymShape> shapes = shapes_of(operands);
  const EinsumLabelExtents ext = einsum_label_extents(spec, shapes, extents);
  std::vector<DType> dtypes;
  for (const Value& v : operands) dtypes.push_back(v.dtype());
  std::shared_ptr<const EinsumPlan> plan =
      cache != nullptr ? cache->plan(spec, ext.planning_shapes, dtypes, options)
                       : std::make_shared<const EinsumPlan>(EinsumPlan::build(
                             spec, ext.planning_shapes, dtypes, einsum_path(spec, ext.planning_shapes, options)));
  for (auto l : plan->sliced_labels()) {
    const Dim& d = ext.dims[static_cast<std::size_t>(l)];
    TF_CHECK(d.is_constant(), ValueError, "einsum", "the memory limit slices label '", spec.label_text(l),
             "' of \"", einsum_echo(spec.text), "\", whose extent ", d,
             " is symbolic; only labels of constant extent can be sliced in a traced einsum");
  }
  EinsumValueEmitter emit{ext.dims};
  return run_plan(*plan, std::span<const Value>(operands), emit);
}

Value einsum_value(std::string_view subscripts, const std::vector<Value>& operands, const PathOptions& options,
                   const SymbolicExtents& extents, EinsumCache* cache) {
  return einsum_value(parse_einsum(subscripts, ranks_of(operands)), operands, options, extents, cache);
}

namespace {

// The result declares its input operands (TracedTensor::declared_inputs):
// an einsum with an empty operand is zeros and reads none of them, yet the
// program compiled from it takes what was traced.
TracedTensor traced_result(Value v, const std::vector<TracedTensor>& operands) {
  std::vector<Value> declared;
  for (const TracedTensor& t : operands) {
    const Value& o = t.graph_value();
    if (o.defined() && o.node->kind == NodeKind::input && !o.node->name.empty()) declared.push_back(o);
    declared.insert(declared.end(), t.declared_inputs().begin(), t.declared_inputs().end());
  }
  return TracedTensor(std::move(v), std::move(declared));
}

}  // namespace

TracedTensor einsum(std::string_view subscripts, const std::vector<TracedTensor>& operands,
                    const PathOptions& options, const SymbolicExtents& extents, EinsumCache* cache) {
  return traced_result(einsum_value(subscripts, values_of(operands), options, extents, cache), operands);
}

TracedTensor einsum(const std::vector<std::vector<std::int64_t>>& inputs, const std::vector<std::int64_t>& output,
                    const std::vector<TracedTensor>& operands, const PathOptions& options,
                    const SymbolicExtents& extents, EinsumCache* cache) {
  return traced_result(einsum_value(einsum_spec(inputs, output), values_of(operands), options, extents, cache),
                       operands);
}

TracedTensor einsum(const EinsumSpec& spec, const std::vector<TracedTensor>& operands, const PathOptions& options,
                    const SymbolicExtents& extents, EinsumCache* cache) {
  return traced_result(einsum_value(spec, values_of(operands), options, extents, cache), operands);
}

EagerTensor einsum(std::string_view subscripts, const std::vector<EagerTensor>& operands,
                   const PathOptions& options, const SymbolicExtents& extents, EinsumCache* cache) {
  return EagerTensor(einsum_value(subscripts, values_of(operands), options, extents, cache));
}

EagerTensor einsum(const std::vector<std::vector<std::int64_t>>& inputs, const std::vector<std::int64_t>& output,
                   const std::vector<EagerTensor>& operands, const PathOptions& options,
                   const SymbolicExtents& extents, EinsumCache* cache) {
  return EagerTensor(einsum_value(einsum_spec(inputs, output), values_of(operands), options, extents, cache));
}

EagerTensor einsum(const EinsumSpec& spec, const std::vector<EagerTensor>& operands, const PathOptions& options,
                   const SymbolicExtents& extents, EinsumCache* cache) {
  return EagerTensor(einsum_value(spec, values_of(operands), options, extents, cache));
}

}  // namespace tenferro

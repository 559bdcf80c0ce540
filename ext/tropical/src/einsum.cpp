// Tropical einsum: tenferro's einsum plan (tenferro/einsum/plan.hpp), run
// through emitters that replace the (+, x) members by (max, +) or (min, +).
// The plan's structural steps (diagonals, broadcasts, permutations,
// reshapes) mean the same in any semiring; its algebraic steps map as
//   dot_general -> tropical.dot_general
//   reduce_sum  -> reduce_max / reduce_min (a label summed away)
//   multiply    -> add                     (a product that sums nothing)
//   add         -> maximum / minimum       (the sum of sliced parts)
#include <span>

#include <tenferro/einsum/plan.hpp>
#include <tenferro/ops/primitives.hpp>
#include <tenferro/ops/value_ops.hpp>
#include <tenferro/tensor/error.hpp>

#include "internal.hpp"

namespace tropical {

using tenferro::DimVec;
using tenferro::DotGeneralAttrs;
using tenferro::Tensor;
using tenferro::Value;

namespace {

constexpr const char* kEinsum = "tropical.einsum";

bool is_max(Semiring s) { return s == Semiring::max_plus; }

void check_dtypes(const tenferro::EinsumSpec& spec, const std::vector<tenferro::DType>& dtypes) {
  for (std::size_t k = 0; k < dtypes.size(); ++k)
    TF_CHECK(detail::kTropicalDTypes.contains(dtypes[k]), DTypeError, kEinsum, "operand ", k, " of \"",
             spec.text, "\" has dtype ", dtypes[k], "; tropical contractions take f32, f64, i32 or i64");
}

// Eager tensors on a backend (views where the plan allows them).
struct TensorEmitter : tenferro::EagerEmitter {
  Semiring semiring;
  Tensor reduce_sum(const Tensor& a, const DimVec& axes) {
    return is_max(semiring) ? tenferro::ops::reduce_max(a, axes, backend) : tenferro::ops::reduce_min(a, axes, backend);
  }
  Tensor dot_general(const Tensor& a, const Tensor& b, const DotGeneralAttrs& dims) {
    return tropical::dot_general(a, b, DotAttrs{semiring, dims}, backend);
  }
  Tensor multiply(const Tensor& a, const Tensor& b) { return tenferro::ops::add(a, b, backend); }
  Tensor add(const Tensor& a, const Tensor& b) {
    return is_max(semiring) ? tenferro::ops::maximum(a, b, backend) : tenferro::ops::minimum(a, b, backend);
  }
};

// Graph values (traced programs and eager handles).
struct ValueEmitter : tenferro::EinsumValueEmitter {
  Semiring semiring;
  Value reduce_sum(const Value& a, const DimVec& axes) {
    return is_max(semiring) ? tenferro::vops::reduce_max(a, axes) : tenferro::vops::reduce_min(a, axes);
  }
  Value dot_general(const Value& a, const Value& b, const DotGeneralAttrs& dims) {
    return tropical::dot_general(a, b, DotAttrs{semiring, dims});
  }
  Value multiply(const Value& a, const Value& b) { return tenferro::vops::add(a, b); }
  Value add(const Value& a, const Value& b) {
    return is_max(semiring) ? tenferro::vops::maximum(a, b) : tenferro::vops::minimum(a, b);
  }
};

template <class H>
std::vector<Value> values_of(const std::vector<H>& hs) {
  std::vector<Value> v;
  for (const H& h : hs) v.push_back(h.graph_value());
  return v;
}

template <class H>
std::vector<std::int64_t> ranks_of(const std::vector<H>& hs) {
  std::vector<std::int64_t> r;
  for (std::size_t k = 0; k < hs.size(); ++k) {
    TF_CHECK(hs[k].defined(), ValueError, kEinsum, "operand ", k, " is an undefined tensor");
    r.push_back(hs[k].ndim());
  }
  return r;
}

}  // namespace

Tensor einsum(Semiring s, const tenferro::EinsumSpec& spec, const std::vector<Tensor>& operands,
              tenferro::Backend& backend, const tenferro::PathOptions& options) {
  std::vector<tenferro::Shape> shapes;
  std::vector<tenferro::DType> dtypes;
  ranks_of(operands);
  for (const Tensor& t : operands) {
    shapes.push_back(t.shape());
    dtypes.push_back(t.dtype());
  }
  check_dtypes(spec, dtypes);
  const tenferro::EinsumPlan plan =
      tenferro::EinsumPlan::build(spec, shapes, dtypes, tenferro::einsum_path(spec, shapes, options));
  TensorEmitter emit{{backend}, s};
  return tenferro::run_plan(plan, std::span<const Tensor>(operands), emit);
}

Tensor einsum(Semiring s, std::string_view subscripts, const std::vector<Tensor>& operands,
              tenferro::Backend& backend, const tenferro::PathOptions& options) {
  return einsum(s, tenferro::parse_einsum(subscripts, ranks_of(operands)), operands, backend, options);
}

Value einsum_value(Semiring s, const tenferro::EinsumSpec& spec, const std::vector<Value>& operands,
                   const tenferro::PathOptions& options, const tenferro::SymbolicExtents& extents) {
  std::vector<tenferro::SymShape> shapes;
  std::vector<tenferro::DType> dtypes;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    TF_CHECK(operands[k].defined(), ValueError, kEinsum, "operand ", k, " is an undefined tensor");
    shapes.push_back(operands[k].shape());
    dtypes.push_back(operands[k].dtype());
  }
  check_dtypes(spec, dtypes);
  const tenferro::EinsumLabelExtents ext = tenferro::einsum_label_extents(spec, shapes, extents);
  const tenferro::ContractionPath path = tenferro::einsum_path(spec, ext.planning_shapes, options);
  for (auto l : path.sliced_labels)
    TF_CHECK(ext.dims[static_cast<std::size_t>(l)].is_constant(), ValueError, kEinsum,
             "the memory limit slices label '", spec.label_text(l), "' of \"", spec.text,
             "\", whose extent is symbolic; only labels of constant extent can be sliced");
  const tenferro::EinsumPlan plan = tenferro::EinsumPlan::build(spec, ext.planning_shapes, dtypes, path);
  ValueEmitter emit{{ext.dims}, s};
  return tenferro::run_plan(plan, std::span<const Value>(operands), emit);
}

tenferro::TracedTensor einsum(Semiring s, const tenferro::EinsumSpec& spec,
                              const std::vector<tenferro::TracedTensor>& operands,
                              const tenferro::PathOptions& options, const tenferro::SymbolicExtents& extents) {
  return tenferro::TracedTensor(einsum_value(s, spec, values_of(operands), options, extents));
}

tenferro::TracedTensor einsum(Semiring s, std::string_view subscripts,
                              const std::vector<tenferro::TracedTensor>& operands,
                              const tenferro::PathOptions& options, const tenferro::SymbolicExtents& extents) {
  return einsum(s, tenferro::parse_einsum(subscripts, ranks_of(operands)), operands, options, extents);
}

tenferro::EagerTensor einsum(Semiring s, const tenferro::EinsumSpec& spec,
                             const std::vector<tenferro::EagerTensor>& operands, const tenferro::PathOptions& options,
                             const tenferro::SymbolicExtents& extents) {
  return tenferro::EagerTensor(einsum_value(s, spec, values_of(operands), options, extents));
}

tenferro::EagerTensor einsum(Semiring s, std::string_view subscripts,
                             const std::vector<tenferro::EagerTensor>& operands, const tenferro::PathOptions& options,
                             const tenferro::SymbolicExtents& extents) {
  return einsum(s, tenferro::parse_einsum(subscripts, ranks_of(operands)), operands, options, extents);
}

}  // namespace tropical

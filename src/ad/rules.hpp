#pragma once
// The per-primitive derivative rules (rules.cpp) used by the transforms.
#include <span>
#include <vector>

#include "tenferro/ops/graph.hpp"

namespace tenferro::ad::detail {

/// Tangent of output `out` of primitive node `n` for input tangents `t`
/// (undefined = zero); undefined result = zero tangent.
Value jvp_rule(const Node& n, const Value& out, std::span<const Value> t);
/// Cotangents of the operands marked linear, for output cotangent `ct`.
std::vector<Value> transpose_rule(const Node& n, const Value& ct, std::span<const bool> linear);
/// Whether jvp_rule differentiates the primitive; false for the piecewise
/// constant ones (sign, compare, is_finite), whose tangent is zero.
bool has_jvp(OpKind kind);
/// Whether transpose_rule transposes the primitive, i.e. whether it can
/// appear in a linear (tangent) graph.
bool has_transpose(OpKind kind);

}  // namespace tenferro::ad::detail

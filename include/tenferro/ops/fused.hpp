#pragma once
/// \file
/// `FusedElementwise`: a chain of elementwise primitives that a backend
/// evaluates in one pass over the data (made by the compiler's fusion pass).
///
/// ```cpp
/// // out = exp(in0) * in1 + in2
/// FusedElementwise k;
/// k.steps.push_back({OpKind::exp, NoAttrs{}, {-1}, DType::f64});
/// k.steps.push_back({OpKind::multiply, NoAttrs{}, {0, -2}, DType::f64});
/// k.steps.push_back({OpKind::add, NoAttrs{}, {1, -3}, DType::f64});
/// backend.execute_fused(k, {{a, b, c}}, out);
/// ```
/// Every kernel input has the output's shape or is rank 0 (broadcast
/// scalar). Each step computes exactly what the unfused primitive would, in
/// the same order, so results are bit-for-bit those of the unfused program.

#include <iosfwd>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/op.hpp"

namespace tenferro {

struct FusedElementwise {
  struct Step {
    OpKind op = OpKind::add;  ///< an elementwise primitive (unary, binary, ternary category)
    Attrs attrs;              ///< its (extent-free) attributes
    std::vector<int> args;    ///< >= 0: an earlier step; < 0: kernel input (-1 - k)
    DType dtype = DType::f64; ///< the step's result dtype
  };
  std::vector<Step> steps;    ///< in evaluation order; the last one is the output
  int num_inputs = 0;
};

std::ostream& operator<<(std::ostream& os, const FusedElementwise& k);

/// True for primitives the fusion pass may put into a FusedElementwise.
bool is_fusable(OpKind kind);

}  // namespace tenferro

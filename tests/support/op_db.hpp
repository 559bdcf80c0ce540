#pragma once
// The op database: sample inputs for every primitive of ops.def, shared by
// the generic checks (kernels vs the naive reference, inference vs
// execution, threads, and later traced vs eager and CPU vs CUDA).
//
// For each op the samples cover every dtype in `op_info(kind).dtypes`,
// shapes of rank 0, with a zero extent, with extent-1 axes and of rank 4,
// operands in random memory layouts (permuted, strided, reversed, offset),
// and the edge values where the op's definition has corners (NaN and
// infinities, integer overflow and division by zero, negative integer
// exponents, duplicate and out-of-range scatter indices, clamped gather and
// dynamic_slice starts, negative padding). Samples are deterministic.
#include <iosfwd>
#include <string>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::testing {

/// One call of a primitive: what `ops::call(kind, attrs, inputs, backend)` takes.
struct OpSample {
  OpKind kind;
  Attrs attrs;
  std::vector<Tensor> inputs;
  /// What the sample exercises ("random", "NaN edge", "BLAS path"), for messages.
  std::string note;
};

/// Prints the op, its attributes, each input's dtype, shape and strides, and the note.
std::ostream& operator<<(std::ostream& os, const OpSample& s);

/// The samples of one primitive (never empty for a row of ops.def).
std::vector<OpSample> op_samples(OpKind kind);

/// Samples large enough that the CPU kernels take their multi-threaded paths
/// (elementwise maps, reductions split over kept and over reduced axes,
/// transpose and other parallel copies, batched dot_general on the small
/// loop and on BLAS).
std::vector<OpSample> parallel_op_samples();

/// dot_general samples whose operand layouts and extents steer the CPU
/// kernel onto each of its paths: transpose flags, non-mergeable axis
/// groups (operand copies), k = 0, m or n = 1, both sides of the small-GEMM
/// threshold, stride-0 (broadcast) batch axes. Also part of
/// `op_samples(OpKind::dot_general)`.
std::vector<OpSample> dot_general_layout_samples();

}  // namespace tenferro::testing

#pragma once
/// \file
/// `GraphCompiler`: turns traced outputs into a `Program` and optimises it.
///
/// ```cpp
/// GraphCompiler compiler;                      // all passes on
/// Program p = compiler.compile({y1, y2});      // shared work is computed once
/// GraphCompiler plain({.fusion = false});      // e.g. to measure fusion
/// ```
/// The passes are also available one by one (namespace `passes`), each a
/// function Program -> Program, so a test can show a program before and
/// after one pass. They never reassociate floating-point arithmetic:
/// results are bit-for-bit those of the unoptimised program, with two
/// exceptions. Transpose folding lets a `dot_general` read an operand in its
/// own layout instead of a transposed copy, and the GEMM mapping then may
/// sum the contracting terms in another order (Note [GEMM mapping] in
/// tenferro/ops/dot_plan.hpp), so a contraction can differ in its last bits
/// (within the usual error bound of a sum). Broadcast-dot folding likewise
/// turns a `dot_general` with a broadcast scalar operand (the ones of a sum's
/// cotangent) into a sum of the other operand. Turn `transpose_folding` and
/// `broadcast_dot_folding` off for results bit-for-bit those of the traced
/// program. (Found by the random-program tests, tests/fuzz.) Unit-product
/// folding (x * ones is x) is exact; but where it or CSE leaves a large
/// `dot_general` of a matrix with its own transpose, the CPU runs that on
/// syrk (Note [Symmetric products] in src/cpu/dot_general.cpp), whose sum
/// may differ in its last bits from the GEMM of two separate operands.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tenferro/runtime/program.hpp"
#include "tenferro/runtime/traced_tensor.hpp"

namespace tenferro {

/// Threads: traced graphs are immutable, so `compile` and `lower` may run
/// on several threads at once, on the same outputs too; a `Program` is a
/// value that many threads may run (`Runtime::run_compiled`).
struct CompileOptions {
  bool constant_folding = true;    ///< hoist constant-only instructions (computed once per runtime)
  bool transpose_folding = true;   ///< fold transposes into dot_general operands (may reorder a contraction's sum)
  bool dot_dimension_sorting = true;
  bool cse = true;                 ///< common-subexpression elimination
  bool dce = true;                 ///< dead-code elimination
  bool fusion = true;              ///< fuse chains of elementwise ops
  bool buffer_reuse = true;        ///< liveness: release early, write in place
  /// dot_general with a broadcast scalar operand becomes a sum (may reorder the sum)
  bool broadcast_dot_folding = true;
  /// multiply(x, ones) becomes x (real and integer dtypes; exact)
  bool unit_product_folding = true;
};

class GraphCompiler {
 public:
  GraphCompiler() = default;
  explicit GraphCompiler(CompileOptions options) : options_(options) {}

  Program compile(const TracedTensor& output) const;
  Program compile(const std::vector<TracedTensor>& outputs) const;
  /// The program exactly as traced (no pass), for inspection and tests.
  static Program lower(const std::vector<TracedTensor>& outputs);

 private:
  CompileOptions options_;
};

namespace passes {
Program dead_code_elimination(Program p);
Program common_subexpression_elimination(Program p);
Program constant_folding(Program p);
Program fold_transposes(Program p);
Program fold_broadcast_dots(Program p);
Program fold_unit_products(Program p);
Program sort_dot_dimensions(Program p);
Program fuse_elementwise(Program p);
Program assign_buffers(Program p);
}  // namespace passes

/// The largest number of bytes that `p`'s values occupy at once when it
/// runs, as its buffer liveness (`passes::assign_buffers`) describes it:
/// inputs, constants and hoisted results all the time; every other
/// instruction result from the instruction that writes it (no new buffer
/// when written in place) until its last read, or to the end for program
/// outputs. Values whose extents are symbolic make it nullopt. An upper
/// bound where a kernel returns a view of its operand instead of a new
/// buffer. Used to compare programs, e.g. a gradient with and without
/// `checkpoint`.
///
/// ```cpp
/// Program p = GraphCompiler().compile(grad(loss, x));
/// std::int64_t bytes = peak_live_bytes(p).value();
/// ```
std::optional<std::int64_t> peak_live_bytes(const Program& p);

}  // namespace tenferro

#pragma once
/// \file
/// `Program`: a compiled traced computation, a linear list of instructions
/// over numbered slots, independent of the symbolic extents it was traced
/// with. Printable as text (one line per instruction) and Graphviz DOT.
///
/// ```cpp
/// Program p = GraphCompiler().compile(y);
/// std::cout << p.to_text();
/// // program(x: f64[n, 3]) -> (%2)
/// //   %0 = input "x" : f64[n, 3]
/// //   %1 = multiply(%0, %0) : f64[n, 3]
/// //   %2 = reduce_sum(%1) {dimensions=[0]} : f64[3]
/// ```

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/family.hpp"
#include "tenferro/ops/fused.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

struct Instruction {
  enum class Kind : std::uint8_t { primitive, family, fused };
  Kind kind = Kind::primitive;
  OpKind op = OpKind::add;           ///< primitive
  SymAttrs attrs;                    ///< primitive
  const FamilyOp* family = nullptr;  ///< family op
  FamilyAttrs family_attrs;          ///< family op
  FusedElementwise fused;            ///< fused elementwise chain
  std::vector<int> inputs;           ///< slots read
  std::vector<int> outputs;          ///< slots written
  /// Slots whose last use is this instruction (set by buffer assignment).
  std::vector<int> release;
  /// Operand position whose buffer output 0 may reuse (-1: none; buffer assignment).
  int inplace = -1;
  /// Computed once per runtime and cached: depends only on constants (constant folding).
  bool hoisted = false;

  /// "multiply", "linalg.svd", "fused{...}".
  std::string name() const;
};

struct ProgramInput {
  std::string name;
  int slot = 0;
  SymMeta meta;
};

class Program {
 public:
  /// In the order a depth-first walk of the outputs, as given to compile,
  /// first meets them, then declared inputs no output reads: the order
  /// run_compiled binds a positional list in.
  std::vector<ProgramInput> inputs;
  std::vector<std::pair<int, Tensor>> constants;  ///< slot, value
  std::vector<Instruction> code;
  std::vector<int> outputs;                       ///< slots returned, in order
  std::vector<SymMeta> slot_meta;                 ///< metadata of every slot

  int num_slots() const { return static_cast<int>(slot_meta.size()); }
  /// Readable text, one instruction per line with dtype and symbolic shape.
  std::string to_text() const;
  /// The program as a Graphviz DOT digraph.
  std::string to_dot() const;

  /// The identity of this compiled program. Copies share it; the compiler
  /// gives every program it produces (and every pass its result) a fresh one.
  /// A `Runtime` keys its caches for the program (hoisted results, uploaded
  /// constants, run plans) by it and drops them once no program holding the
  /// identity is alive. Edit `code` by hand only on a program you then give a
  /// fresh identity (`renew_identity()`), or cached plans describe old code.
  ///
  /// ```cpp
  /// Program q = p;            // q.id() == p.id(): runs of q reuse p's cached plans
  /// q.code.pop_back();        // hand edit ...
  /// q.renew_identity();       // ... so q.id() != p.id()
  /// ```
  struct Identity {
    std::uint64_t id = 0;  ///< unique in the process, never reused
  };
  std::shared_ptr<const Identity> identity = fresh_identity();

  /// The identity's number.
  std::uint64_t id() const { return identity->id; }
  /// Gives this program a new identity (caches of the old one no longer apply).
  void renew_identity() { identity = fresh_identity(); }
  /// A new, never used identity.
  static std::shared_ptr<const Identity> fresh_identity();
};

}  // namespace tenferro

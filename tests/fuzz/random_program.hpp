#pragma once
// Random traced programs for differential testing of the compiler, the
// runtime and the AD transforms (issue 20).
//
// A generator draws a program over the primitives of ops.def: one to three
// inputs whose extents are constants or shared symbols ("n", "m"), then a
// chain of ops on values already made (elementwise, reductions, views,
// reshapes, broadcasts, pads, concatenations, dynamic slices, gathers,
// scatters, contractions and traced einsums, conversions and constants; and
// family ops: FFTs, solve/cholesky/inv/det of well-conditioned matrices, a
// truncated SVD whose rank is a data-dependent extent), and one or two of the
// values as outputs.
// Every decision comes from a `Choices`: a seeded PRNG for the suite's
// fixed batches, the fuzzer's bytes for libFuzzer runs.
//
// `check_program` binds the symbols twice (extents 0 to 5), feeds random
// inputs in random memory layouts, and runs the program compiled with every
// pass on and with every pass off: both must agree bit for bit (the passes
// never reassociate, tenferro/runtime/compiler.hpp), and both must match the
// naive reference interpreter (support/reference.hpp) run instruction by
// instruction over the unoptimised program. `check_derivatives` builds the
// JVP and the VJP of a differentiable program, checks them with the same
// machinery, then checks <u, J t> = <J^T u, t> and J t against central
// finite differences.
//
//   Choices choices(seed);
//   RandomProgram p = generate_program(choices, ProgramKind::floating);
//   std::string failure = check_program(p, runtime, choices);   // "" when it holds
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tenferro/cpu/cpu_backend.hpp"
#include "tenferro/ops/graph.hpp"
#include "tenferro/runtime.hpp"

namespace tenferro::testing {

/// The generator's decisions: the fuzzer's bytes first, one per decision,
/// then a PRNG seeded from them (so every byte string is a valid program).
class Choices {
 public:
  explicit Choices(std::uint64_t seed) : rng_(seed) {}
  Choices(const std::uint8_t* data, std::size_t size);
  /// Uniform in [0, n), n >= 1.
  std::int64_t below(std::int64_t n);
  /// True with probability percent / 100.
  bool chance(int percent) { return below(100) < percent; }
  /// A seed for random tensor values.
  std::uint64_t seed() { return rng_(); }

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t pos_ = 0;
  std::mt19937_64 rng_;
};

enum class ProgramKind {
  floating,        ///< f32, f64, c64 or c128; every float op
  integer,         ///< i32 or i64; exact arithmetic (wrapping), exact comparison
  differentiable,  ///< f64; smooth ops only, for check_derivatives
};

struct RandomProgram {
  ProgramKind kind = ProgramKind::floating;
  DType dtype = DType::f64;              ///< dtype of the inputs
  std::vector<Value> inputs;             ///< graph inputs "x0", "x1", ...
  std::vector<std::string> symbols;      ///< symbols the inputs' extents use
  std::vector<Value> outputs;
  std::vector<std::string> log;          ///< one line per generated op
  /// The inputs, the generated ops and the outputs, for failure messages.
  std::string describe() const;
};

/// The runtime the checks run programs on: the CPU engine with the families
/// random programs use (linalg, fft).
Runtime random_program_runtime(CpuBackend& backend);

/// A random program of at most `max_ops` generated steps (a step may emit a
/// few primitives, e.g. exp(tanh(a))).
RandomProgram generate_program(Choices& choices, ProgramKind kind, int max_ops = 10);

/// Counts of what the checks ran (reported by the suite).
struct CheckStats {
  long programs = 0;
  long runs = 0;          ///< program executions (compiled with and without passes)
  long instructions = 0;  ///< instructions of the unoptimised programs checked
  long derivative_checks = 0;
  long family_instructions = 0;    ///< of them, family ops (FFT, linalg)
  long gather_scatter = 0;         ///< of them, gathers and scatters
  long data_dependent = 0;         ///< programs with a data-dependent extent
};

/// Runs `p` as described above; returns "" when every check holds, else
/// a message with the program, the bindings and the first difference.
/// `tamper`, when given, edits the program compiled with every pass before
/// it runs (the suite's negative controls show that a wrong instruction is
/// caught).
std::string check_program(const RandomProgram& p, const Runtime& runtime, Choices& choices,
                          CheckStats* stats = nullptr, const std::function<void(Program&)>& tamper = {});

/// For a `ProgramKind::differentiable` program: the JVP/VJP program checked
/// like any program, the dot-product test and finite differences.
std::string check_derivatives(const RandomProgram& p, const Runtime& runtime, Choices& choices,
                              CheckStats* stats = nullptr);

}  // namespace tenferro::testing

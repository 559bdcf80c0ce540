// libFuzzer entry of the random-program checks (tests/fuzz/random_program.hpp):
// the first byte picks the kind of program (float, integer, differentiable),
// the others drive the generator's decisions. Any failed check aborts with
// the program, its bindings and the first difference.
#include <cstdio>
#include <cstdlib>

#include "fuzz/random_program.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/runtime.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Inside the function: a using-directive at file scope would make gtest's
  // `testing` ambiguous in the files a unity build compiles after this one.
  using namespace tenferro;
  using namespace tenferro::testing;
  if (size == 0) return 0;
  static CpuBackend backend;
  static Runtime runtime = random_program_runtime(backend);
  const ProgramKind kinds[] = {ProgramKind::floating, ProgramKind::integer, ProgramKind::differentiable};
  ProgramKind kind = kinds[data[0] % 3];
  Choices choices(data + 1, size - 1);
  std::string failure;
  try {
    RandomProgram p = generate_program(choices, kind, 16);
    failure = kind == ProgramKind::differentiable ? check_derivatives(p, runtime, choices)
                                                  : check_program(p, runtime, choices);
  } catch (const std::exception& e) {
    failure = std::string("threw: ") + e.what();
  }
  if (!failure.empty()) {
    std::fprintf(stderr, "random program check failed: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}

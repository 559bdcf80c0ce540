#pragma once
// The lowering as PjrtRuntime uses it: the module text and the metadata of
// the results, for inputs already bound (bind_program_inputs).
#include <string>
#include <vector>

#include "tenferro/runtime/program.hpp"

namespace tenferro::xla::detail {

struct LoweredProgram {
  std::string text;
  std::vector<TensorMeta> outputs;
};

/// `op` heads the error messages ("to_stablehlo", "PjrtRuntime::run_compiled").
LoweredProgram lower_program(const Program& program, const std::vector<Tensor>& inputs, const char* op);

}  // namespace tenferro::xla::detail

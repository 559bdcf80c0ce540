#pragma once
/// \file
/// The runtime module: traced tensors, the graph compiler, programs and the
/// runtime that runs them, and eager tensors.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/runtime.hpp>
/// using namespace tenferro;
/// auto x = TracedTensor::from_vec_col_major({3}, std::vector<double>{1.0, 2.0, 3.0});
/// auto y = (x * x).reduce_sum({0});
/// GraphCompiler compiler;
/// auto program = compiler.compile(y);
/// CpuBackend backend;
/// auto runtime = Runtime::builder().register_engine(cpu_engine(backend)).build();
/// auto outputs = runtime.run_compiled(program, {});   // outputs[0] is 14
/// ```

#include "tenferro/ops/dim.hpp"
#include "tenferro/ops/graph.hpp"
#include "tenferro/runtime/compiler.hpp"
#include "tenferro/runtime/eager.hpp"
#include "tenferro/runtime/program.hpp"
#include "tenferro/runtime/runtime.hpp"
#include "tenferro/runtime/tensor_handle.hpp"
#include "tenferro/runtime/traced_tensor.hpp"
#include "tenferro/runtime/value_ops.hpp"

#pragma once
/// \file
/// tenferro::xla: StableHLO lowering of compiled programs and their
/// execution through a PJRT plugin loaded at run time (docs/xla.md).
/// Built when the plugin's header is installed (`scripts/setup_pjrt.sh`;
/// CMake option TENFERRO_WITH_XLA=AUTO|ON|OFF, target `tenferro::xla`).
///
/// ```cpp
/// #include <tenferro/xla.hpp>
/// using namespace tenferro;
/// auto x = TracedTensor::input("x", DType::f64, {Dim(4), Dim(3)});
/// Program p = GraphCompiler().compile(exp(x).sum());
/// std::string mlir = xla::to_stablehlo(p, {{"x", Tensor::ones({4, 3})}});
/// auto pjrt = xla::PjrtRuntime::from_env();
/// Tensor s = pjrt.run_compiled(p, {{"x", Tensor::ones({4, 3})}})[0];  // 12 e
/// ```

#include "tenferro/xla/pjrt.hpp"
#include "tenferro/xla/stablehlo.hpp"

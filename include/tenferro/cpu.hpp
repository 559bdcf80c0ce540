#pragma once
/// \file
/// The CPU backend (and, for convenience, the ops it runs).
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/tensor.hpp>
/// tenferro::CpuBackend backend;
/// auto a = tenferro::TypedTensor<double>::eye(2);
/// auto p = tenferro::matmul(a, a, backend);
/// ```

#include "tenferro/cpu/cpu_backend.hpp"
#include "tenferro/ops.hpp"

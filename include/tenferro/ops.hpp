#pragma once
/// \file
/// The ops module: the primitive vocabulary (ops.def), shape inference,
/// the `Backend` interface, eager primitives (`tenferro::ops::…`) and the
/// user-facing sugar (`tenferro::add`, `matmul`, `sum`, …).
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/ops.hpp>
/// tenferro::CpuBackend cpu;
/// auto a = tenferro::Tensor::ones({2, 2});
/// auto b = tenferro::matmul(a, a, cpu);   // all 2
/// ```

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/family.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/ops/kernels.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/ops/primitives.hpp"
#include "tenferro/ops/sugar.hpp"
#include "tenferro/ops/views.hpp"

#pragma once
/// \file
/// The einsum family: notation (spec.hpp), contraction order (path.hpp),
/// primitive programs and their cache (plan.hpp), eager evaluation (einsum.hpp),
/// traced and eager-handle einsum lowered to graph primitives (traced.hpp).
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/einsum.hpp>
/// tenferro::CpuBackend cpu;
/// tenferro::Tensor c = tenferro::einsum("ij,jk->ik", {a, b}, cpu);
/// tenferro::TracedTensor z = tenferro::einsum("ij,jk->ik", {x, y});  // traced x, y
/// ```

#include "tenferro/einsum/einsum.hpp"
#include "tenferro/einsum/path.hpp"
#include "tenferro/einsum/plan.hpp"
#include "tenferro/einsum/spec.hpp"
#include "tenferro/einsum/traced.hpp"

#pragma once
/// \file
/// The linear algebra module `tenferro::linalg`: decompositions, solvers and
/// matrix functions on batches of matrices [m, n, batch...], for f32, f64,
/// c64 and c128, as an operation family (`linalg::family()`) run on a backend.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/linalg.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {3, 0, 0, 1});
/// auto [u, s, vh] = linalg::svd(a, cpu);   // s = {3, 1}
/// auto x = linalg::solve(a, TypedTensor<double>::ones({2, 1}), cpu);
/// ```
/// Link `tenferro::linalg` (and `tenferro::cpu` for `CpuBackend`).

#include "tenferro/linalg/decompositions.hpp"
#include "tenferro/linalg/family.hpp"
#include "tenferro/linalg/functions.hpp"
#include "tenferro/linalg/solvers.hpp"
#include "tenferro/linalg/traced.hpp"

#pragma once
/// \file
/// The distributed module (built when MPI is found): sliced einsum and its
/// VJP over the ranks of an MPI job (dist/einsum.hpp, docs/distributed.md).
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/dist.hpp>
/// tenferro::dist::Session session(argc, argv);
/// tenferro::CpuBackend cpu;
/// tenferro::Tensor r = tenferro::dist::einsum("ab,bc,ca->", {a, b, c}, cpu, session,
///                                             {.memory_limit_bytes = 1 << 20});
/// ```

#include "tenferro/dist/einsum.hpp"

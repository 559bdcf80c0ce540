#pragma once
// The Runtime most runtime tests use: the CPU engine, no families.
//   CpuBackend cpu;
//   Runtime rt = tenferro::testing::cpu_runtime(cpu);
#include "tenferro/cpu.hpp"
#include "tenferro/runtime.hpp"

namespace tenferro::testing {

inline Runtime cpu_runtime(CpuBackend& backend) {
  return Runtime::builder().register_engine(cpu_engine(backend)).build();
}

}  // namespace tenferro::testing

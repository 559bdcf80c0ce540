// The tropical GEMM for baseline (no extra flags (x86-64 baseline: SSE2); see CMakeLists.txt).
// kernels.cpp calls it only when the CPU supports the set (Note [Tropical GEMM]).
#define TROPICAL_ISA_NS baseline
#define TROPICAL_ISA_NAME "baseline"
#define TROPICAL_VECTOR_BYTES 16
#define TROPICAL_NR 6
#define TROPICAL_TABLE_FN gemm_table_baseline
#include "gemm_kernel.hpp"

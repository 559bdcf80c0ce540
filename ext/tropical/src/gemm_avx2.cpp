// The tropical GEMM for avx2 (-mavx2 -mfma; see CMakeLists.txt).
// kernels.cpp calls it only when the CPU supports the set (Note [Tropical GEMM]).
#define TROPICAL_ISA_NS avx2
#define TROPICAL_ISA_NAME "avx2"
#define TROPICAL_VECTOR_BYTES 32
#define TROPICAL_NR 6
#define TROPICAL_TABLE_FN gemm_table_avx2
#include "gemm_kernel.hpp"

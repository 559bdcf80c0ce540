// The tropical GEMM for avx512 (-mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma; see CMakeLists.txt).
// kernels.cpp calls it only when the CPU supports the set (Note [Tropical GEMM]).
#define TROPICAL_ISA_NS avx512
#define TROPICAL_ISA_NAME "avx512"
#define TROPICAL_VECTOR_BYTES 64
#define TROPICAL_NR 12
#define TROPICAL_TABLE_FN gemm_table_avx512
#include "gemm_kernel.hpp"

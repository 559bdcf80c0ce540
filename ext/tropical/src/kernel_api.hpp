#pragma once
// The interface between the dispatcher (kernels.cpp) and the vectorised
// max-plus / min-plus GEMM, compiled once per instruction set
// (gemm_baseline.cpp, gemm_avx2.cpp, gemm_avx512.cpp; Note [Tropical GEMM]
// in gemm_kernel.hpp).
#include <cstdint>

namespace tropical::detail {

// C[i, j, b] = max (or min) over p of A[i, p, b] + B[p, j, b], for
// i < m, j < n, p < k, b < batch. Operands are addressed through offset
// tables (any strides, any number of axes per group): element A[i, p, b]
// is a[a_row[i] + a_k[p] + a_batch[b]], B[p, j, b] is
// b[b_k[p] + b_col[j] + b_batch[b]]; C[i, j, b] is
// c[i * c_rs + j * c_cs + b * c_bs]. With k == 0 every C entry is the
// semiring's zero.
template <class T>
struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  const T* a = nullptr;
  const std::int64_t *a_row = nullptr, *a_k = nullptr, *a_batch = nullptr;
  const T* b = nullptr;
  const std::int64_t *b_k = nullptr, *b_col = nullptr, *b_batch = nullptr;
  T* c = nullptr;
  std::int64_t c_rs = 1, c_cs = 1, c_bs = 1;
  bool max = true;   // max-plus; false: min-plus
  int threads = 1;   // OpenMP threads the kernel may use
};

// One kernel per dtype, for one instruction set.
struct GemmTable {
  const char* isa = "";
  void (*f32)(const GemmProblem<float>&) = nullptr;
  void (*f64)(const GemmProblem<double>&) = nullptr;
  void (*i32)(const GemmProblem<std::int32_t>&) = nullptr;
  void (*i64)(const GemmProblem<std::int64_t>&) = nullptr;
};

GemmTable gemm_table_baseline();
#if TROPICAL_HAVE_AVX2
GemmTable gemm_table_avx2();
#endif
#if TROPICAL_HAVE_AVX512
GemmTable gemm_table_avx512();
#endif

}  // namespace tropical::detail

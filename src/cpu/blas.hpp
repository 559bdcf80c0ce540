#pragma once
// Fortran BLAS prototypes (LP64 integers), declared here so that no vendor
// header is needed; any BLAS chosen by CMake's FindBLAS provides them.
// Character arguments carry the hidden length argument of the gfortran ABI.
#include <complex>
#include <cstddef>

namespace tenferro::cpu::blas {

using blas_int = int;

extern "C" {
void sgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
            const blas_int* k, const float* alpha, const float* a, const blas_int* lda,
            const float* b, const blas_int* ldb, const float* beta, float* c,
            const blas_int* ldc, std::size_t, std::size_t);
void dgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
            const blas_int* k, const double* alpha, const double* a, const blas_int* lda,
            const double* b, const blas_int* ldb, const double* beta, double* c,
            const blas_int* ldc, std::size_t, std::size_t);
void cgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
            const blas_int* k, const std::complex<float>* alpha, const std::complex<float>* a,
            const blas_int* lda, const std::complex<float>* b, const blas_int* ldb,
            const std::complex<float>* beta, std::complex<float>* c, const blas_int* ldc,
            std::size_t, std::size_t);
void zgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
            const blas_int* k, const std::complex<double>* alpha, const std::complex<double>* a,
            const blas_int* lda, const std::complex<double>* b, const blas_int* ldb,
            const std::complex<double>* beta, std::complex<double>* c, const blas_int* ldc,
            std::size_t, std::size_t);
void ssyrk_(const char* uplo, const char* trans, const blas_int* n, const blas_int* k, const float* alpha,
            const float* a, const blas_int* lda, const float* beta, float* c, const blas_int* ldc, std::size_t,
            std::size_t);
void dsyrk_(const char* uplo, const char* trans, const blas_int* n, const blas_int* k, const double* alpha,
            const double* a, const blas_int* lda, const double* beta, double* c, const blas_int* ldc, std::size_t,
            std::size_t);
void csyrk_(const char* uplo, const char* trans, const blas_int* n, const blas_int* k,
            const std::complex<float>* alpha, const std::complex<float>* a, const blas_int* lda,
            const std::complex<float>* beta, std::complex<float>* c, const blas_int* ldc, std::size_t, std::size_t);
void zsyrk_(const char* uplo, const char* trans, const blas_int* n, const blas_int* k,
            const std::complex<double>* alpha, const std::complex<double>* a, const blas_int* lda,
            const std::complex<double>* beta, std::complex<double>* c, const blas_int* ldc, std::size_t,
            std::size_t);
// OpenBLAS's thread control and build description (tenferro::blas_info);
// weak so that other BLAS libraries link too.
void openblas_set_num_threads(int) __attribute__((weak));
char* openblas_get_config() __attribute__((weak));
char* openblas_get_corename() __attribute__((weak));
}

/// C = op(A) op(B) with op = 'N' or 'T' (beta = 0).
template <class T>
void gemm(char ta, char tb, blas_int m, blas_int n, blas_int k, const T* a, blas_int lda,
          const T* b, blas_int ldb, T* c, blas_int ldc) {
  const T one(1), zero(0);
  if constexpr (std::is_same_v<T, float>)
    sgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
  else if constexpr (std::is_same_v<T, double>)
    dgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    cgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
  else
    zgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
}

/// The lower triangle of C = op(A) op(A)^T (no conjugation), op = 'N' (A is
/// n x k) or 'T' (A is k x n); beta = 0, the strict upper triangle untouched.
template <class T>
void syrk_lower(char trans, blas_int n, blas_int k, const T* a, blas_int lda, T* c, blas_int ldc) {
  const T one(1), zero(0);
  const char uplo = 'L';
  if constexpr (std::is_same_v<T, float>)
    ssyrk_(&uplo, &trans, &n, &k, &one, a, &lda, &zero, c, &ldc, 1, 1);
  else if constexpr (std::is_same_v<T, double>)
    dsyrk_(&uplo, &trans, &n, &k, &one, a, &lda, &zero, c, &ldc, 1, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    csyrk_(&uplo, &trans, &n, &k, &one, a, &lda, &zero, c, &ldc, 1, 1);
  else
    zsyrk_(&uplo, &trans, &n, &k, &one, a, &lda, &zero, c, &ldc, 1, 1);
}

}  // namespace tenferro::cpu::blas

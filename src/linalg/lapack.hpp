#pragma once
// Fortran LAPACK/BLAS prototypes (LP64 integers) used by the linalg kernels,
// declared here so that no vendor header is needed (any LAPACK chosen by
// CMake's FindLAPACK provides them), and one typed wrapper per routine that
// hides the s/d/c/z prefix and the real/complex signature differences.
// Character arguments carry the hidden length argument of the gfortran ABI.
// Private to src/linalg.
#include <cmath>
#include <complex>
#include <cstddef>
#include <type_traits>

#include "tenferro/tensor/dtype.hpp"

namespace tenferro::linalg::detail::lapack {

using lapack_int = int;
using c32 = std::complex<float>;
using c64 = std::complex<double>;
using I = lapack_int;

extern "C" {
// ---- SVD ---------------------------------------------------------------------
void sgesdd_(const char*, const I*, const I*, float*, const I*, float*, float*, const I*, float*,
             const I*, float*, const I*, I*, I*, std::size_t);
void dgesdd_(const char*, const I*, const I*, double*, const I*, double*, double*, const I*,
             double*, const I*, double*, const I*, I*, I*, std::size_t);
void cgesdd_(const char*, const I*, const I*, c32*, const I*, float*, c32*, const I*, c32*,
             const I*, c32*, const I*, float*, I*, I*, std::size_t);
void zgesdd_(const char*, const I*, const I*, c64*, const I*, double*, c64*, const I*, c64*,
             const I*, c64*, const I*, double*, I*, I*, std::size_t);
void sgesvd_(const char*, const char*, const I*, const I*, float*, const I*, float*, float*,
             const I*, float*, const I*, float*, const I*, I*, std::size_t, std::size_t);
void dgesvd_(const char*, const char*, const I*, const I*, double*, const I*, double*, double*,
             const I*, double*, const I*, double*, const I*, I*, std::size_t, std::size_t);
void cgesvd_(const char*, const char*, const I*, const I*, c32*, const I*, float*, c32*, const I*,
             c32*, const I*, c32*, const I*, float*, I*, std::size_t, std::size_t);
void zgesvd_(const char*, const char*, const I*, const I*, c64*, const I*, double*, c64*, const I*,
             c64*, const I*, c64*, const I*, double*, I*, std::size_t, std::size_t);
// ---- QR ----------------------------------------------------------------------
void sgeqrf_(const I*, const I*, float*, const I*, float*, float*, const I*, I*);
void dgeqrf_(const I*, const I*, double*, const I*, double*, double*, const I*, I*);
void cgeqrf_(const I*, const I*, c32*, const I*, c32*, c32*, const I*, I*);
void zgeqrf_(const I*, const I*, c64*, const I*, c64*, c64*, const I*, I*);
void sorgqr_(const I*, const I*, const I*, float*, const I*, const float*, float*, const I*, I*);
void dorgqr_(const I*, const I*, const I*, double*, const I*, const double*, double*, const I*, I*);
void cungqr_(const I*, const I*, const I*, c32*, const I*, const c32*, c32*, const I*, I*);
void zungqr_(const I*, const I*, const I*, c64*, const I*, const c64*, c64*, const I*, I*);
// ---- LU ----------------------------------------------------------------------
void sgetrf_(const I*, const I*, float*, const I*, I*, I*);
void dgetrf_(const I*, const I*, double*, const I*, I*, I*);
void cgetrf_(const I*, const I*, c32*, const I*, I*, I*);
void zgetrf_(const I*, const I*, c64*, const I*, I*, I*);
void sgetrs_(const char*, const I*, const I*, const float*, const I*, const I*, float*, const I*,
             I*, std::size_t);
void dgetrs_(const char*, const I*, const I*, const double*, const I*, const I*, double*, const I*,
             I*, std::size_t);
void cgetrs_(const char*, const I*, const I*, const c32*, const I*, const I*, c32*, const I*, I*,
             std::size_t);
void zgetrs_(const char*, const I*, const I*, const c64*, const I*, const I*, c64*, const I*, I*,
             std::size_t);
void sgetri_(const I*, float*, const I*, const I*, float*, const I*, I*);
void dgetri_(const I*, double*, const I*, const I*, double*, const I*, I*);
void cgetri_(const I*, c32*, const I*, const I*, c32*, const I*, I*);
void zgetri_(const I*, c64*, const I*, const I*, c64*, const I*, I*);
void strtri_(const char*, const char*, const I*, float*, const I*, I*, std::size_t, std::size_t);
void dtrtri_(const char*, const char*, const I*, double*, const I*, I*, std::size_t, std::size_t);
void ctrtri_(const char*, const char*, const I*, c32*, const I*, I*, std::size_t, std::size_t);
void ztrtri_(const char*, const char*, const I*, c64*, const I*, I*, std::size_t, std::size_t);
void strmm_(const char*, const char*, const char*, const char*, const I*, const I*, const float*,
            const float*, const I*, float*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
void dtrmm_(const char*, const char*, const char*, const char*, const I*, const I*, const double*,
            const double*, const I*, double*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
void ctrmm_(const char*, const char*, const char*, const char*, const I*, const I*, const c32*,
            const c32*, const I*, c32*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
void ztrmm_(const char*, const char*, const char*, const char*, const I*, const I*, const c64*,
            const c64*, const I*, c64*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
// ---- Cholesky ------------------------------------------------------------------
void spotrf_(const char*, const I*, float*, const I*, I*, std::size_t);
void dpotrf_(const char*, const I*, double*, const I*, I*, std::size_t);
void cpotrf_(const char*, const I*, c32*, const I*, I*, std::size_t);
void zpotrf_(const char*, const I*, c64*, const I*, I*, std::size_t);
// ---- symmetric / Hermitian eigenproblem -------------------------------------------
void ssyevd_(const char*, const char*, const I*, float*, const I*, float*, float*, const I*, I*,
             const I*, I*, std::size_t, std::size_t);
void dsyevd_(const char*, const char*, const I*, double*, const I*, double*, double*, const I*, I*,
             const I*, I*, std::size_t, std::size_t);
void cheevd_(const char*, const char*, const I*, c32*, const I*, float*, c32*, const I*, float*,
             const I*, I*, const I*, I*, std::size_t, std::size_t);
void zheevd_(const char*, const char*, const I*, c64*, const I*, double*, c64*, const I*, double*,
             const I*, I*, const I*, I*, std::size_t, std::size_t);
// The phases of syevd/heevd, run one by one by linalg.eigh (Note [Eigh in phases]).
void ssytrd_(const char*, const I*, float*, const I*, float*, float*, float*, float*, const I*, I*,
             std::size_t);
void dsytrd_(const char*, const I*, double*, const I*, double*, double*, double*, double*, const I*,
             I*, std::size_t);
void chetrd_(const char*, const I*, c32*, const I*, float*, float*, c32*, c32*, const I*, I*,
             std::size_t);
void zhetrd_(const char*, const I*, c64*, const I*, double*, double*, c64*, c64*, const I*, I*,
             std::size_t);
void sgebrd_(const I*, const I*, float*, const I*, float*, float*, float*, float*, float*, const I*,
             I*);
void dgebrd_(const I*, const I*, double*, const I*, double*, double*, double*, double*, double*,
             const I*, I*);
void sbdsdc_(const char*, const char*, const I*, float*, float*, float*, const I*, float*, const I*,
             float*, I*, float*, I*, I*, std::size_t, std::size_t);
void dbdsdc_(const char*, const char*, const I*, double*, double*, double*, const I*, double*,
             const I*, double*, I*, double*, I*, I*, std::size_t, std::size_t);
void sorgbr_(const char*, const I*, const I*, const I*, float*, const I*, const float*, float*,
             const I*, I*, std::size_t);
void dorgbr_(const char*, const I*, const I*, const I*, double*, const I*, const double*, double*,
             const I*, I*, std::size_t);
void sstedc_(const char*, const I*, float*, float*, float*, const I*, float*, const I*, I*,
             const I*, I*, std::size_t);
void dstedc_(const char*, const I*, double*, double*, double*, const I*, double*, const I*, I*,
             const I*, I*, std::size_t);
void slaed2_(I*, const I*, const I*, float*, float*, const I*, I*, float*, float*, float*, float*,
             float*, I*, I*, I*, I*, I*);
void dlaed2_(I*, const I*, const I*, double*, double*, const I*, I*, double*, double*, double*,
             double*, double*, I*, I*, I*, I*, I*);
void slaed4_(const I*, const I*, const float*, const float*, float*, const float*, float*, I*);
void dlaed4_(const I*, const I*, const double*, const double*, double*, const double*, double*, I*);
void slamrg_(const I*, const I*, const float*, const I*, const I*, I*);
void dlamrg_(const I*, const I*, const double*, const I*, const I*, I*);
void sormtr_(const char*, const char*, const char*, const I*, const I*, const float*, const I*,
             const float*, float*, const I*, float*, const I*, I*, std::size_t, std::size_t,
             std::size_t);
void dormtr_(const char*, const char*, const char*, const I*, const I*, const double*, const I*,
             const double*, double*, const I*, double*, const I*, I*, std::size_t, std::size_t,
             std::size_t);
void cunmtr_(const char*, const char*, const char*, const I*, const I*, const c32*, const I*,
             const c32*, c32*, const I*, c32*, const I*, I*, std::size_t, std::size_t, std::size_t);
void zunmtr_(const char*, const char*, const char*, const I*, const I*, const c64*, const I*,
             const c64*, c64*, const I*, c64*, const I*, I*, std::size_t, std::size_t, std::size_t);
// ---- general eigenproblem ------------------------------------------------------------
void sgeev_(const char*, const char*, const I*, float*, const I*, float*, float*, float*, const I*,
            float*, const I*, float*, const I*, I*, std::size_t, std::size_t);
void dgeev_(const char*, const char*, const I*, double*, const I*, double*, double*, double*,
            const I*, double*, const I*, double*, const I*, I*, std::size_t, std::size_t);
void cgeev_(const char*, const char*, const I*, c32*, const I*, c32*, c32*, const I*, c32*,
            const I*, c32*, const I*, float*, I*, std::size_t, std::size_t);
void zgeev_(const char*, const char*, const I*, c64*, const I*, c64*, c64*, const I*, c64*,
            const I*, c64*, const I*, double*, I*, std::size_t, std::size_t);
// ---- least squares ---------------------------------------------------------------------
void sgelsd_(const I*, const I*, const I*, float*, const I*, float*, const I*, float*, const float*,
             I*, float*, const I*, I*, I*);
void dgelsd_(const I*, const I*, const I*, double*, const I*, double*, const I*, double*,
             const double*, I*, double*, const I*, I*, I*);
void cgelsd_(const I*, const I*, const I*, c32*, const I*, c32*, const I*, float*, const float*, I*,
             c32*, const I*, float*, I*, I*);
void zgelsd_(const I*, const I*, const I*, c64*, const I*, c64*, const I*, double*, const double*,
             I*, c64*, const I*, double*, I*, I*);
// ---- BLAS ------------------------------------------------------------------------------
void strsm_(const char*, const char*, const char*, const char*, const I*, const I*, const float*,
            const float*, const I*, float*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
void dtrsm_(const char*, const char*, const char*, const char*, const I*, const I*, const double*,
            const double*, const I*, double*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
void ctrsm_(const char*, const char*, const char*, const char*, const I*, const I*, const c32*,
            const c32*, const I*, c32*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
void ztrsm_(const char*, const char*, const char*, const char*, const I*, const I*, const c64*,
            const c64*, const I*, c64*, const I*, std::size_t, std::size_t, std::size_t,
            std::size_t);
void sgemm_(const char*, const char*, const I*, const I*, const I*, const float*, const float*,
            const I*, const float*, const I*, const float*, float*, const I*, std::size_t,
            std::size_t);
void dgemm_(const char*, const char*, const I*, const I*, const I*, const double*, const double*,
            const I*, const double*, const I*, const double*, double*, const I*, std::size_t,
            std::size_t);
void cgemm_(const char*, const char*, const I*, const I*, const I*, const c32*, const c32*,
            const I*, const c32*, const I*, const c32*, c32*, const I*, std::size_t, std::size_t);
void zgemm_(const char*, const char*, const I*, const I*, const I*, const c64*, const c64*,
            const I*, const c64*, const I*, const c64*, c64*, const I*, std::size_t, std::size_t);
}

template <class T>
inline constexpr bool kIsF32 = std::is_same_v<T, float>;
template <class T>
inline constexpr bool kIsF64 = std::is_same_v<T, double>;
template <class T>
inline constexpr bool kIsC64 = std::is_same_v<T, c32>;

/// The workspace size LAPACK reports in work[0] of a size query, rounded up
/// (single precision can round a large size down).
template <class T>
I query_size(T w) {
  double v = static_cast<double>(std::real(w));
  return static_cast<I>(std::ceil(v * (1.0 + 1e-6))) + 1;
}

// Every wrapper returns LAPACK's info. `rwork` is ignored for real types.

template <class T>
I gesdd(char jobz, I m, I n, T* a, I lda, real_t<T>* s, T* u, I ldu, T* vt, I ldvt, T* work,
        I lwork, real_t<T>* rwork, I* iwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  else if constexpr (kIsF64<T>)
    dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
  else if constexpr (kIsC64<T>)
    cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, &info, 1);
  else
    zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, &info, 1);
  return info;
}

template <class T>
I gesvd(char jobu, char jobvt, I m, I n, T* a, I lda, real_t<T>* s, T* u, I ldu, T* vt, I ldvt,
        T* work, I lwork, real_t<T>* rwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, &info, 1, 1);
  else if constexpr (kIsF64<T>)
    dgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, &info, 1, 1);
  else if constexpr (kIsC64<T>)
    cgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, &info, 1,
            1);
  else
    zgesvd_(&jobu, &jobvt, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, &info, 1,
            1);
  return info;
}

template <class T>
I geqrf(I m, I n, T* a, I lda, T* tau, T* work, I lwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  else if constexpr (kIsF64<T>)
    dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  else if constexpr (kIsC64<T>)
    cgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  else
    zgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
  return info;
}

/// orgqr for real types, ungqr for complex ones.
template <class T>
I ungqr(I m, I n, I k, T* a, I lda, const T* tau, T* work, I lwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  else if constexpr (kIsF64<T>)
    dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  else if constexpr (kIsC64<T>)
    cungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  else
    zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
  return info;
}

template <class T>
I getrf(I m, I n, T* a, I lda, I* ipiv) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sgetrf_(&m, &n, a, &lda, ipiv, &info);
  else if constexpr (kIsF64<T>)
    dgetrf_(&m, &n, a, &lda, ipiv, &info);
  else if constexpr (kIsC64<T>)
    cgetrf_(&m, &n, a, &lda, ipiv, &info);
  else
    zgetrf_(&m, &n, a, &lda, ipiv, &info);
  return info;
}

template <class T>
I getrs(char trans, I n, I nrhs, const T* a, I lda, const I* ipiv, T* b, I ldb) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  else if constexpr (kIsF64<T>)
    dgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  else if constexpr (kIsC64<T>)
    cgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  else
    zgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}

template <class T>
I getri(I n, T* a, I lda, const I* ipiv, T* work, I lwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sgetri_(&n, a, &lda, ipiv, work, &lwork, &info);
  else if constexpr (kIsF64<T>)
    dgetri_(&n, a, &lda, ipiv, work, &lwork, &info);
  else if constexpr (kIsC64<T>)
    cgetri_(&n, a, &lda, ipiv, work, &lwork, &info);
  else
    zgetri_(&n, a, &lda, ipiv, work, &lwork, &info);
  return info;
}

/// The inverse of a triangular matrix in place (diag 'U': unit diagonal,
/// not read).
template <class T>
I trtri(char uplo, char diag, I n, T* a, I lda) {
  I info = 0;
  if constexpr (kIsF32<T>)
    strtri_(&uplo, &diag, &n, a, &lda, &info, 1, 1);
  else if constexpr (kIsF64<T>)
    dtrtri_(&uplo, &diag, &n, a, &lda, &info, 1, 1);
  else if constexpr (kIsC64<T>)
    ctrtri_(&uplo, &diag, &n, a, &lda, &info, 1, 1);
  else
    ztrtri_(&uplo, &diag, &n, a, &lda, &info, 1, 1);
  return info;
}

/// B := alpha op(A) B (side 'L') or alpha B op(A) (side 'R'), A triangular.
template <class T>
void trmm(char side, char uplo, char transa, char diag, I m, I n, T alpha, const T* a, I lda, T* b,
          I ldb) {
  if constexpr (kIsF32<T>)
    strmm_(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
  else if constexpr (kIsF64<T>)
    dtrmm_(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
  else if constexpr (kIsC64<T>)
    ctrmm_(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
  else
    ztrmm_(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
}

template <class T>
I potrf(char uplo, I n, T* a, I lda) {
  I info = 0;
  if constexpr (kIsF32<T>)
    spotrf_(&uplo, &n, a, &lda, &info, 1);
  else if constexpr (kIsF64<T>)
    dpotrf_(&uplo, &n, a, &lda, &info, 1);
  else if constexpr (kIsC64<T>)
    cpotrf_(&uplo, &n, a, &lda, &info, 1);
  else
    zpotrf_(&uplo, &n, a, &lda, &info, 1);
  return info;
}

/// syevd for real types, heevd for complex ones.
template <class T>
I heevd(char jobz, char uplo, I n, T* a, I lda, real_t<T>* w, T* work, I lwork, real_t<T>* rwork,
        I lrwork, I* iwork, I liwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  else if constexpr (kIsF64<T>)
    dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  else if constexpr (kIsC64<T>)
    cheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1,
            1);
  else
    zheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1,
            1);
  return info;
}

/// sytrd for real types, hetrd for complex ones: A = Q T Q^H with T real
/// tridiagonal (diagonal d, off-diagonal e); Q's reflectors stay in a, with tau.
template <class T>
I hetrd(char uplo, I n, T* a, I lda, real_t<T>* d, real_t<T>* e, T* tau, T* work, I lwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    ssytrd_(&uplo, &n, a, &lda, d, e, tau, work, &lwork, &info, 1);
  else if constexpr (kIsF64<T>)
    dsytrd_(&uplo, &n, a, &lda, d, e, tau, work, &lwork, &info, 1);
  else if constexpr (kIsC64<T>)
    chetrd_(&uplo, &n, a, &lda, d, e, tau, work, &lwork, &info, 1);
  else
    zhetrd_(&uplo, &n, a, &lda, d, e, tau, work, &lwork, &info, 1);
  return info;
}

/// gebrd for real types: A = Q B P^T with B upper bidiagonal (m >= n;
/// diagonal d, superdiagonal e), the reflectors in a, tauq and taup.
template <class R>
I gebrd(I m, I n, R* a, I lda, R* d, R* e, R* tauq, R* taup, R* work, I lwork) {
  static_assert(std::is_floating_point_v<R>);
  I info = 0;
  if constexpr (std::is_same_v<R, float>)
    sgebrd_(&m, &n, a, &lda, d, e, tauq, taup, work, &lwork, &info);
  else
    dgebrd_(&m, &n, a, &lda, d, e, tauq, taup, work, &lwork, &info);
  return info;
}

/// bdsdc with uplo 'U', compq 'I': the SVD of an upper bidiagonal n x n
/// matrix, singular values into d (descending), vectors into u and vt;
/// work 3 n^2 + 4 n, iwork 8 n.
template <class R>
I bdsdc(I n, R* d, R* e, R* u, I ldu, R* vt, I ldvt, R* work, I* iwork) {
  static_assert(std::is_floating_point_v<R>);
  I info = 0;
  const char uplo = 'U', compq = 'I';
  if constexpr (std::is_same_v<R, float>)
    sbdsdc_(&uplo, &compq, &n, d, e, u, &ldu, vt, &ldvt, nullptr, nullptr, work, iwork, &info, 1,
            1);
  else
    dbdsdc_(&uplo, &compq, &n, d, e, u, &ldu, vt, &ldvt, nullptr, nullptr, work, iwork, &info, 1,
            1);
  return info;
}

/// orgbr for real types: Q ('Q') or P^T ('P') of gebrd, formed in place.
template <class R>
I orgbr(char vect, I m, I n, I k, R* a, I lda, const R* tau, R* work, I lwork) {
  static_assert(std::is_floating_point_v<R>);
  I info = 0;
  if constexpr (std::is_same_v<R, float>)
    sorgbr_(&vect, &m, &n, &k, a, &lda, tau, work, &lwork, &info, 1);
  else
    dorgbr_(&vect, &m, &n, &k, a, &lda, tau, work, &lwork, &info, 1);
  return info;
}

/// stedc with compz 'I': eigenvalues (into d, ascending) and eigenvectors
/// (z) of the real symmetric tridiagonal matrix (d, e). Workspace: lwork
/// 1 + 4n + n^2, liwork 3 + 5n.
template <class R>
I stedc(I n, R* d, R* e, R* z, I ldz, R* work, I lwork, I* iwork, I liwork) {
  static_assert(std::is_floating_point_v<R>);
  I info = 0;
  const char compz = 'I';
  if constexpr (std::is_same_v<R, float>)
    sstedc_(&compz, &n, d, e, z, &ldz, work, &lwork, iwork, &liwork, &info, 1);
  else
    dstedc_(&compz, &n, d, e, z, &ldz, work, &lwork, iwork, &liwork, &info, 1);
  return info;
}

/// laed2: the deflation step of merging two solved halves (cut after n1) of
/// a divide-and-conquer tridiagonal eigenproblem; k gets the number of
/// eigenvalues left to the secular equation (LAPACK's dlaed2 documents the
/// arrays; dlaed1 shows how they chain into dlaed3).
template <class R>
I laed2(I& k, I n, I n1, R* d, R* q, I ldq, I* indxq, R& rho, R* z, R* dlamda, R* w, R* q2, I* indx,
        I* indxc, I* indxp, I* coltyp) {
  static_assert(std::is_floating_point_v<R>);
  I info = 0;
  if constexpr (std::is_same_v<R, float>)
    slaed2_(&k, &n, &n1, d, q, &ldq, indxq, &rho, z, dlamda, w, q2, indx, indxc, indxp, coltyp,
            &info);
  else
    dlaed2_(&k, &n, &n1, d, q, &ldq, indxq, &rho, z, dlamda, w, q2, indx, indxc, indxp, coltyp,
            &info);
  return info;
}

/// laed4: root i (1-based) of the secular equation 1 + rho sum z_j^2 / (d_j - x)
/// = 0 into lambda, with delta_j = d_j - lambda.
template <class R>
I laed4(I n, I i, const R* d, const R* z, R* delta, R rho, R& lambda) {
  static_assert(std::is_floating_point_v<R>);
  I info = 0;
  if constexpr (std::is_same_v<R, float>)
    slaed4_(&n, &i, d, z, delta, &rho, &lambda, &info);
  else
    dlaed4_(&n, &i, d, z, delta, &rho, &lambda, &info);
  return info;
}

/// lamrg: the permutation (1-based) that merges the two sorted runs a[0, n1)
/// (stride s1) and a[n1, n1 + n2) (stride s2) into ascending order.
template <class R>
void lamrg(I n1, I n2, const R* a, I s1, I s2, I* index) {
  static_assert(std::is_floating_point_v<R>);
  if constexpr (std::is_same_v<R, float>)
    slamrg_(&n1, &n2, a, &s1, &s2, index);
  else
    dlamrg_(&n1, &n2, a, &s1, &s2, index);
}

/// ormtr for real types, unmtr for complex ones: c := Q c (side 'L', trans 'N')
/// with the Q of hetrd.
template <class T>
I unmtr(char uplo, I m, I n, const T* a, I lda, const T* tau, T* c, I ldc, T* work, I lwork) {
  I info = 0;
  const char side = 'L', trans = 'N';
  if constexpr (kIsF32<T>)
    sormtr_(&side, &uplo, &trans, &m, &n, a, &lda, tau, c, &ldc, work, &lwork, &info, 1, 1, 1);
  else if constexpr (kIsF64<T>)
    dormtr_(&side, &uplo, &trans, &m, &n, a, &lda, tau, c, &ldc, work, &lwork, &info, 1, 1, 1);
  else if constexpr (kIsC64<T>)
    cunmtr_(&side, &uplo, &trans, &m, &n, a, &lda, tau, c, &ldc, work, &lwork, &info, 1, 1, 1);
  else
    zunmtr_(&side, &uplo, &trans, &m, &n, a, &lda, tau, c, &ldc, work, &lwork, &info, 1, 1, 1);
  return info;
}

/// Real geev: eigenvalues as (wr, wi) pairs.
template <class T>
I geev_real(char jobvr, I n, T* a, I lda, T* wr, T* wi, T* vr, I ldvr, T* work, I lwork) {
  static_assert(std::is_floating_point_v<T>);
  I info = 0;
  const char jobvl = 'N';
  const I ldvl = 1;
  T* vl = nullptr;
  if constexpr (kIsF32<T>)
    sgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, &info, 1, 1);
  else
    dgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, &info, 1, 1);
  return info;
}

/// Complex geev.
template <class T>
I geev_complex(char jobvr, I n, T* a, I lda, T* w, T* vr, I ldvr, T* work, I lwork,
               real_t<T>* rwork) {
  static_assert(is_complex_v<T>);
  I info = 0;
  const char jobvl = 'N';
  const I ldvl = 1;
  T* vl = nullptr;
  if constexpr (kIsC64<T>)
    cgeev_(&jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork, rwork, &info, 1, 1);
  else
    zgeev_(&jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork, rwork, &info, 1, 1);
  return info;
}

template <class T>
I gelsd(I m, I n, I nrhs, T* a, I lda, T* b, I ldb, real_t<T>* s, real_t<T> rcond, I* rank, T* work,
        I lwork, real_t<T>* rwork, I* iwork) {
  I info = 0;
  if constexpr (kIsF32<T>)
    sgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);
  else if constexpr (kIsF64<T>)
    dgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);
  else if constexpr (kIsC64<T>)
    cgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, iwork, &info);
  else
    zgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, iwork, &info);
  return info;
}

/// B := alpha op(A)^{-1} B (side 'L') or alpha B op(A)^{-1} (side 'R').
template <class T>
void trsm(char side, char uplo, char transa, char diag, I m, I n, const T* a, I lda, T* b, I ldb) {
  const T one(1);
  if constexpr (kIsF32<T>)
    strsm_(&side, &uplo, &transa, &diag, &m, &n, &one, a, &lda, b, &ldb, 1, 1, 1, 1);
  else if constexpr (kIsF64<T>)
    dtrsm_(&side, &uplo, &transa, &diag, &m, &n, &one, a, &lda, b, &ldb, 1, 1, 1, 1);
  else if constexpr (kIsC64<T>)
    ctrsm_(&side, &uplo, &transa, &diag, &m, &n, &one, a, &lda, b, &ldb, 1, 1, 1, 1);
  else
    ztrsm_(&side, &uplo, &transa, &diag, &m, &n, &one, a, &lda, b, &ldb, 1, 1, 1, 1);
}

/// C := alpha op(A) op(B) + beta C with op 'N', 'T' or 'C'.
template <class T>
void gemm(char ta, char tb, I m, I n, I k, T alpha, const T* a, I lda, const T* b, I ldb, T beta,
          T* c, I ldc) {
  if constexpr (kIsF32<T>)
    sgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  else if constexpr (kIsF64<T>)
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  else if constexpr (kIsC64<T>)
    cgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
  else
    zgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

}  // namespace tenferro::linalg::detail::lapack

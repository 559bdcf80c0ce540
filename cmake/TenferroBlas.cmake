# BLAS/LAPACK through CMake's FindBLAS/FindLAPACK (BLA_VENDOR selects the
# vendor: OpenBLAS by default; BLIS, Intel10_64lp, ... work the same way).
# On Debian the OpenMP build of OpenBLAS is preferred when it is installed, so
# that BLAS and tenferro's kernels share one OpenMP thread pool.
if(TENFERRO_BLA_VENDOR STREQUAL "OpenBLAS")
  set(_tf_openblas_omp "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp")
  if(EXISTS "${_tf_openblas_omp}/libopenblas.so")
    list(PREPEND CMAKE_LIBRARY_PATH "${_tf_openblas_omp}")
  endif()
endif()
set(BLA_VENDOR ${TENFERRO_BLA_VENDOR})
find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
set(TENFERRO_BLAS_LIBRARIES ${BLAS_LIBRARIES})
set(TENFERRO_LAPACK_LIBRARIES ${LAPACK_LIBRARIES})
message(STATUS "tenferro: BLAS ${TENFERRO_BLAS_LIBRARIES}; LAPACK ${TENFERRO_LAPACK_LIBRARIES}")

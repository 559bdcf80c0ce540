#pragma once
/// \file
/// `LinalgError`: a factorization or solve failed on one matrix of a batch.
///
/// ```cpp
/// try {
///   auto x = tenferro::linalg::solve(a, b, cpu);   // a: [3, 3, 4], matrix 2 singular
/// } catch (const tenferro::LinalgError& e) {
///   // e.what(): "linalg.solve: matrix [2] of the batch (operand a, f64 [3, 3, 4]) is
///   //            singular: U[1, 1] of its LU factorisation is exactly zero
///   //            (LAPACK getrf info 2)"
///   std::int64_t which = e.batch_index();   // 2
///   int info = e.info();                    // 2
/// }
/// ```
/// Thrown for singular matrices (`solve`, `inv`, `lu_solve`, `triangular_solve`),
/// matrices that are not positive definite (`cholesky`) and LAPACK
/// non-convergence (`svd`, `eigh`, `eig`, `lstsq`). No output is returned
/// when it is thrown, and the operands are unchanged.

#include <cstdint>
#include <string>

#include "tenferro/tensor/error.hpp"

namespace tenferro {

class LinalgError : public Error {
 public:
  LinalgError(const std::string& message, std::int64_t batch_index, int info)
      : Error(ErrorCode::BackendFailure, message), batch_index_(batch_index), info_(info) {}
  /// Column-major linear index of the failing matrix over the batch axes
  /// (0 for an unbatched operand).
  std::int64_t batch_index() const noexcept { return batch_index_; }
  /// The LAPACK `info` code (> 0) of the failure (the same code for the
  /// built-in small-matrix kernels, e.g. the index + 1 of a zero pivot).
  int info() const noexcept { return info_; }

 private:
  std::int64_t batch_index_;
  int info_;
};

}  // namespace tenferro

#pragma once
// Helpers for the linalg tests: a plain complex<double> matrix type with
// reference loops (products, norms), test matrices with prescribed singular
// values, and conversion to and from batched tensors of any float dtype.
// Everything here is computed independently of the library under test.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "support/test_support.hpp"
#include "tenferro/linalg.hpp"

namespace tenferro::linalg_testing {

using cd = std::complex<double>;

/// A dense column-major matrix of complex<double>.
struct Mat {
  std::int64_t rows = 0, cols = 0;
  std::vector<cd> v;
  Mat() = default;
  Mat(std::int64_t r, std::int64_t c) : rows(r), cols(c), v(static_cast<std::size_t>(r * c)) {}
  cd& operator()(std::int64_t i, std::int64_t j) {
    return v[static_cast<std::size_t>(i + j * rows)];
  }
  cd operator()(std::int64_t i, std::int64_t j) const {
    return v[static_cast<std::size_t>(i + j * rows)];
  }
};

Mat eye(std::int64_t rows, std::int64_t cols);
Mat matmul(const Mat& a, const Mat& b);
Mat adjoint(const Mat& a);
Mat transpose(const Mat& a);
Mat minus(const Mat& a, const Mat& b);
/// Columns [c0, c1) of a.
Mat columns(const Mat& a, std::int64_t c0, std::int64_t c1);
/// Frobenius norm.
double fro(const Mat& a);
/// ||a^H a - I||_F (orthonormal columns when small).
double orthonormality_error(const Mat& a);
/// rows x cols matrix with diag(d) in its top-left corner.
Mat diag(const std::vector<double>& d, std::int64_t rows, std::int64_t cols);

/// Uniform entries in [-1, 1) (complex: both parts).
Mat random_mat(std::int64_t rows, std::int64_t cols, bool complex, std::uint64_t seed);
/// A random unitary (orthogonal when !complex) n x n matrix.
Mat random_unitary(std::int64_t n, bool complex, std::uint64_t seed);
/// U diag(s) V^H with random unitary U, V (s padded with zeros to min(m, n)).
Mat with_singular_values(std::int64_t rows, std::int64_t cols, const std::vector<double>& s,
                         bool complex, std::uint64_t seed);
/// Singular values spread geometrically from 1 down to 1 / cond.
std::vector<double> geometric_values(std::int64_t k, double cond);
/// A matrix built from its SVD: a = u diag(s) v^H (u, v random unitary).
struct BuiltSvd {
  Mat a, u, v;
  std::vector<double> s;
};
BuiltSvd build_svd(std::int64_t rows, std::int64_t cols, const std::vector<double>& s, bool complex,
                   std::uint64_t seed);
/// v diag(1 / s_i for s_i > 0) u^H.
Mat pinv_of(const BuiltSvd& f);

/// Reference Gaussian elimination with partial pivoting in complex<double>.
Mat solve_ref(const Mat& a, const Mat& b);
cd det_ref(const Mat& a);

/// A random Hermitian positive definite n x n matrix (eigenvalues in [1, 3]).
Mat random_hpd(std::int64_t n, bool complex, std::uint64_t seed);

/// The kinds of test matrices the decomposition tests sweep.
enum class Kind { random, ill_conditioned, rank_deficient };
const char* kind_name(Kind k);
Mat make_matrix(Kind kind, std::int64_t rows, std::int64_t cols, bool complex, std::uint64_t seed);

/// [rows, cols, batch...] tensor of `dtype` holding `mats` (column-major
/// order over the batch axes).
Tensor to_tensor(const std::vector<Mat>& mats, const Shape& batch, DType dtype);
/// A rank-1 tensor [n] from a column.
Tensor to_vector_tensor(const Mat& column, DType dtype);
/// Matrix b of a [rows, cols, batch...] tensor (a vector [n] is n x 1).
Mat matrix_of(const Tensor& t, std::int64_t b);
/// Entries [0, k) of column b of a [k, batch...] tensor.
std::vector<cd> vector_of(const Tensor& t, std::int64_t b);
/// Entry b of a [batch...] tensor.
cd scalar_of(const Tensor& t, std::int64_t b);
/// Number of matrices of a [m, n, batch...] tensor.
std::int64_t batch_count(const Tensor& t, int leading = 2);

/// eps of the dtype's real part.
inline double eps(DType d) { return testing::dtype_eps(d); }

/// Values before a failing call, to check that it changed nothing.
std::vector<cd> snapshot(const Tensor& t);

/// The four float dtypes, for loops.
inline const std::vector<DType>& float_dtypes() { return testing::float_dtypes(); }

/// Batch shapes the sweeps use.
inline std::vector<Shape> batch_shapes() { return {Shape{}, Shape{3}, Shape{2, 2}}; }

}  // namespace tenferro::linalg_testing

#include "linalg_test_util.hpp"

#include <cmath>

namespace tenferro::linalg_testing {

Mat eye(std::int64_t rows, std::int64_t cols) {
  Mat m(rows, cols);
  for (std::int64_t i = 0; i < std::min(rows, cols); ++i) m(i, i) = 1;
  return m;
}

Mat matmul(const Mat& a, const Mat& b) {
  EXPECT_EQ(a.cols, b.rows) << "matmul: inner extents differ";
  Mat c(a.rows, b.cols);
  for (std::int64_t j = 0; j < b.cols; ++j)
    for (std::int64_t k = 0; k < a.cols; ++k) {
      const cd bkj = b(k, j);
      for (std::int64_t i = 0; i < a.rows; ++i) c(i, j) += a(i, k) * bkj;
    }
  return c;
}

Mat adjoint(const Mat& a) {
  Mat t(a.cols, a.rows);
  for (std::int64_t j = 0; j < a.cols; ++j)
    for (std::int64_t i = 0; i < a.rows; ++i) t(j, i) = std::conj(a(i, j));
  return t;
}

Mat transpose(const Mat& a) {
  Mat t(a.cols, a.rows);
  for (std::int64_t j = 0; j < a.cols; ++j)
    for (std::int64_t i = 0; i < a.rows; ++i) t(j, i) = a(i, j);
  return t;
}

Mat minus(const Mat& a, const Mat& b) {
  EXPECT_TRUE(a.rows == b.rows && a.cols == b.cols) << "minus: shapes differ";
  Mat c = a;
  for (std::size_t i = 0; i < c.v.size(); ++i) c.v[i] -= b.v[i];
  return c;
}

Mat columns(const Mat& a, std::int64_t c0, std::int64_t c1) {
  Mat c(a.rows, c1 - c0);
  for (std::int64_t j = c0; j < c1; ++j)
    for (std::int64_t i = 0; i < a.rows; ++i) c(i, j - c0) = a(i, j);
  return c;
}

double fro(const Mat& a) {
  double s = 0;
  for (const cd& x : a.v) s += std::norm(x);
  return std::sqrt(s);
}

double orthonormality_error(const Mat& a) {
  return fro(minus(matmul(adjoint(a), a), eye(a.cols, a.cols)));
}

Mat diag(const std::vector<double>& d, std::int64_t rows, std::int64_t cols) {
  Mat m(rows, cols);
  for (std::size_t i = 0; i < d.size() && static_cast<std::int64_t>(i) < std::min(rows, cols); ++i)
    m(static_cast<std::int64_t>(i), static_cast<std::int64_t>(i)) = d[i];
  return m;
}

Mat random_mat(std::int64_t rows, std::int64_t cols, bool complex, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Mat m(rows, cols);
  for (cd& x : m.v) x = complex ? cd(u(rng), u(rng)) : cd(u(rng), 0.0);
  return m;
}

Mat random_unitary(std::int64_t n, bool complex, std::uint64_t seed) {
  // Modified Gram-Schmidt (twice) on a random matrix.
  Mat q = random_mat(n, n, complex, seed);
  for (std::int64_t j = 0; j < n; ++j)
    for (int pass = 0; pass < 2; ++pass) {
      for (std::int64_t k = 0; k < j; ++k) {
        cd d = 0;
        for (std::int64_t i = 0; i < n; ++i) d += std::conj(q(i, k)) * q(i, j);
        for (std::int64_t i = 0; i < n; ++i) q(i, j) -= d * q(i, k);
      }
      double nrm = 0;
      for (std::int64_t i = 0; i < n; ++i) nrm += std::norm(q(i, j));
      nrm = std::sqrt(nrm);
      for (std::int64_t i = 0; i < n; ++i) q(i, j) /= nrm;
    }
  return q;
}

Mat with_singular_values(std::int64_t rows, std::int64_t cols, const std::vector<double>& s,
                         bool complex, std::uint64_t seed) {
  Mat u = random_unitary(rows, complex, seed);
  Mat v = random_unitary(cols, complex, seed + 7919);
  return matmul(matmul(u, diag(s, rows, cols)), adjoint(v));
}

std::vector<double> geometric_values(std::int64_t k, double cond) {
  std::vector<double> s(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < k; ++i)
    s[static_cast<std::size_t>(i)] = k == 1 ? 1.0 : std::pow(cond, -double(i) / double(k - 1));
  return s;
}

BuiltSvd build_svd(std::int64_t rows, std::int64_t cols, const std::vector<double>& s, bool complex,
                   std::uint64_t seed) {
  BuiltSvd f;
  f.u = random_unitary(rows, complex, seed);
  f.v = random_unitary(cols, complex, seed + 7919);
  f.s = s;
  f.a = matmul(matmul(f.u, diag(s, rows, cols)), adjoint(f.v));
  return f;
}

Mat pinv_of(const BuiltSvd& f) {
  std::vector<double> inv;
  for (double x : f.s) inv.push_back(x > 0 ? 1 / x : 0);
  return matmul(matmul(f.v, diag(inv, f.v.cols, f.u.cols)), adjoint(f.u));
}

namespace {
// Row-reduces [a | b] in place (partial pivoting); returns the determinant of a.
cd eliminate(Mat& a, Mat& b) {
  const std::int64_t n = a.rows;
  cd det = 1;
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t p = j;
    for (std::int64_t i = j + 1; i < n; ++i)
      if (std::abs(a(i, j)) > std::abs(a(p, j))) p = i;
    if (a(p, j) == cd(0)) return 0;
    if (p != j) {
      det = -det;
      for (std::int64_t c = 0; c < n; ++c) std::swap(a(j, c), a(p, c));
      for (std::int64_t c = 0; c < b.cols; ++c) std::swap(b(j, c), b(p, c));
    }
    det *= a(j, j);
    for (std::int64_t i = j + 1; i < n; ++i) {
      const cd f = a(i, j) / a(j, j);
      for (std::int64_t c = j; c < n; ++c) a(i, c) -= f * a(j, c);
      for (std::int64_t c = 0; c < b.cols; ++c) b(i, c) -= f * b(j, c);
    }
  }
  return det;
}
}  // namespace

Mat solve_ref(const Mat& a_in, const Mat& b_in) {
  Mat a = a_in, b = b_in;
  eliminate(a, b);
  const std::int64_t n = a.rows;
  for (std::int64_t c = 0; c < b.cols; ++c)
    for (std::int64_t i = n - 1; i >= 0; --i) {
      cd x = b(i, c);
      for (std::int64_t j = i + 1; j < n; ++j) x -= a(i, j) * b(j, c);
      b(i, c) = x / a(i, i);
    }
  return b;
}

cd det_ref(const Mat& a_in) {
  Mat a = a_in, b(a_in.rows, 0);
  return eliminate(a, b);
}

Mat random_hpd(std::int64_t n, bool complex, std::uint64_t seed) {
  Mat q = random_unitary(n, complex, seed);
  std::vector<double> w(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<double> u(1.0, 3.0);
  for (double& x : w) x = u(rng);
  Mat h = matmul(matmul(q, diag(w, n, n)), adjoint(q));
  // Exactly Hermitian.
  for (std::int64_t j = 0; j < n; ++j) {
    h(j, j) = h(j, j).real();
    for (std::int64_t i = j + 1; i < n; ++i) h(j, i) = std::conj(h(i, j));
  }
  return h;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::random:
      return "random";
    case Kind::ill_conditioned:
      return "cond 1e10";
    case Kind::rank_deficient:
      return "rank-deficient";
  }
  return "?";
}

Mat make_matrix(Kind kind, std::int64_t rows, std::int64_t cols, bool complex, std::uint64_t seed) {
  const std::int64_t k = std::min(rows, cols);
  switch (kind) {
    case Kind::random:
      return random_mat(rows, cols, complex, seed);
    case Kind::ill_conditioned:
      return with_singular_values(rows, cols, geometric_values(k, 1e10), complex, seed);
    case Kind::rank_deficient: {
      std::vector<double> s = geometric_values(k, 10.0);
      for (std::int64_t i = k / 2; i < k; ++i) s[static_cast<std::size_t>(i)] = 0.0;
      if (k == 1) s[0] = 0.0;
      return with_singular_values(rows, cols, s, complex, seed);
    }
  }
  return {};
}

Tensor to_tensor(const std::vector<Mat>& mats, const Shape& batch, DType dtype) {
  EXPECT_FALSE(mats.empty());
  const std::int64_t m = mats[0].rows, n = mats[0].cols;
  Shape shape{m, n};
  for (auto e : batch) shape.push_back(e);
  Tensor t = Tensor::empty(shape, dtype);
  visit_dtype<kFloatDTypes>(dtype, "to_tensor", [&]<class T>() {
    T* p = t.data<T>();
    for (std::size_t b = 0; b < mats.size(); ++b)
      for (std::int64_t i = 0; i < m * n; ++i) {
        const cd x = mats[b].v[static_cast<std::size_t>(i)];
        if constexpr (is_complex_v<T>)
          p[b * m * n + i] = T(static_cast<real_t<T>>(x.real()), static_cast<real_t<T>>(x.imag()));
        else
          p[b * m * n + i] = static_cast<T>(x.real());
      }
  });
  return t;
}

Tensor to_vector_tensor(const Mat& column, DType dtype) {
  return to_tensor({column}, {}, dtype).reshape({column.rows});
}

std::int64_t batch_count(const Tensor& t, int leading) {
  std::int64_t c = 1;
  for (std::int64_t d = leading; d < t.ndim(); ++d) c *= t.shape()[static_cast<std::size_t>(d)];
  return c;
}

namespace {
// Multi-index of batch element b over the axes from `first` on.
DimVec batch_index(const Tensor& t, std::int64_t first, std::int64_t b) {
  DimVec idx;
  for (std::int64_t d = first; d < t.ndim(); ++d) {
    idx.push_back(b % t.shape()[static_cast<std::size_t>(d)]);
    b /= t.shape()[static_cast<std::size_t>(d)];
  }
  return idx;
}
}  // namespace

Mat matrix_of(const Tensor& t, std::int64_t b) {
  if (t.ndim() == 1) {
    Mat m(t.shape()[0], 1);
    for (std::int64_t i = 0; i < m.rows; ++i) m(i, 0) = testing::value_at(t, {i});
    return m;
  }
  Mat m(t.shape()[0], t.shape()[1]);
  DimVec rest = batch_index(t, 2, b);
  for (std::int64_t j = 0; j < m.cols; ++j)
    for (std::int64_t i = 0; i < m.rows; ++i) {
      DimVec idx{i, j};
      for (auto r : rest) idx.push_back(r);
      m(i, j) = testing::value_at(t, idx);
    }
  return m;
}

std::vector<cd> vector_of(const Tensor& t, std::int64_t b) {
  std::vector<cd> out;
  DimVec rest = batch_index(t, 1, b);
  for (std::int64_t i = 0; i < t.shape()[0]; ++i) {
    DimVec idx{i};
    for (auto r : rest) idx.push_back(r);
    out.push_back(testing::value_at(t, idx));
  }
  return out;
}

cd scalar_of(const Tensor& t, std::int64_t b) { return testing::value_at(t, batch_index(t, 0, b)); }

std::vector<cd> snapshot(const Tensor& t) {
  std::vector<cd> out;
  for (const DimVec& idx : testing::all_indices(t.shape()))
    out.push_back(testing::value_at(t, idx));
  return out;
}

}  // namespace tenferro::linalg_testing

// CPU kernels of the sparse family (Note [Sparse family] in family.cpp).
//
// Note [Sparse CPU kernels]
// The dense operand [k, J...] is seen as a matrix [k, N] (N = the product
// of its trailing extents). Column-major storage puts the N entries of one
// row N cache lines apart, so the kernels first copy dense operands to
// row-major [k][N] (a blocked transpose, O(k N), cheap next to the
// O(nnz N) product at any useful density): then each nonzero reads one
// contiguous row and the inner loop over N vectorises.
// - coo_matmul: the nonzeros are counting-sorted by row (stable, O(nnz + m):
//   duplicates add up in their given order, whatever the thread count),
//   then each output row is one accumulation over its nonzeros,
//   acc[:] += values[q] * dense[cols[q]][:], in a buffer of N entries,
//   written to the column-major output at the end of the row. Threads split
//   the rows (no races, no atomics). The row loop is compiled for several
//   instruction sets (row_product). With N = 1 (a vector) the transpose of
//   the dense operand is skipped.
// - sddmm: out[p] = dot(a[rows[p]][:], b[cols[p]][:]) after copying a and b
//   to row-major, visiting the nonzeros row by row (the same counting
//   sort); threads split the rows; the dot product is multi-versioned too.
// Thread count: tenferro::get_num_threads(), the library's one setting.
// Indices are checked before anything is written (IndexError naming the
// op, the position and the index).
#include <omp.h>

#include <algorithm>
#include <complex>
#include <type_traits>
#include <vector>

#include <tenferro/cpu/cpu_backend.hpp>
#include <tenferro/tensor/error.hpp>

#include "internal.hpp"

namespace sparse::detail {

using tenferro::Tensor;

namespace {

// src is column-major [rows, n]; dst row-major [rows][n] (or the reverse
// when called with the extents swapped: dst[i * n + j] = src[i + rows * j]).
template <class T>
void transpose_copy(const T* src, std::int64_t rows, std::int64_t n, T* dst, int threads) {
  constexpr std::int64_t kTile = 32;
  const std::int64_t row_tiles = (rows + kTile - 1) / kTile;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && rows * n > 32768)
  for (std::int64_t t = 0; t < row_tiles; ++t) {
    const std::int64_t i0 = t * kTile, i1 = std::min(rows, i0 + kTile);
    for (std::int64_t j0 = 0; j0 < n; j0 += kTile) {
      const std::int64_t j1 = std::min(n, j0 + kTile);
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) dst[i * n + j] = src[i + rows * j];
    }
  }
}

template <class I>
void check_indices(const char* op, const char* what, const I* idx, std::int64_t nnz, std::int64_t bound,
                   const char* bound_name) {
  for (std::int64_t p = 0; p < nnz; ++p) {
    const auto x = static_cast<std::int64_t>(idx[p]);
    TF_CHECK(x >= 0 && x < bound, IndexError, op, what, " index ", x, " at position ", p,
             " is out of range [0, ", bound, ") (", bound_name, " = ", bound, ")");
  }
}

std::int64_t trailing(const Tensor& t) {
  std::int64_t n = 1;
  for (std::size_t i = 1; i < t.shape().size(); ++i) n *= t.shape()[i];
  return n;
}

int thread_count() { return std::max(1, tenferro::get_num_threads()); }

// acc[:n] += sum over q in [q0, q1) of val[q] * b[col[q] * n : +n] (one row of
// the product).
template <class T>
inline void row_product_body(T* acc, const T* b, std::int64_t n, const T* val, const std::int64_t* col,
                             std::int64_t q0, std::int64_t q1) {
  for (std::int64_t q = q0; q < q1; ++q) {
    const T vq = val[q];
    const T* src = b + col[q] * n;
    for (std::int64_t j = 0; j < n; ++j) acc[j] += vq * src[j];
  }
}
// The real cases are compiled for AVX-512 and AVX2 as well and chosen when
// the program starts (GCC function multi-versioning, target_clones); the
// build machine's own CPU plays no part.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SPARSE_TARGET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SPARSE_TARGET_CLONES
#endif
SPARSE_TARGET_CLONES void row_product(double* acc, const double* b, std::int64_t n, const double* val,
                                      const std::int64_t* col, std::int64_t q0, std::int64_t q1) {
  row_product_body(acc, b, n, val, col, q0, q1);
}
SPARSE_TARGET_CLONES void row_product(float* acc, const float* b, std::int64_t n, const float* val,
                                      const std::int64_t* col, std::int64_t q0, std::int64_t q1) {
  row_product_body(acc, b, n, val, col, q0, q1);
}
template <class T>
void row_product(T* acc, const T* b, std::int64_t n, const T* val, const std::int64_t* col, std::int64_t q0,
                 std::int64_t q1) {
  row_product_body(acc, b, n, val, col, q0, q1);
}

// sum_j x[j] * y[j]; the real cases are vectorised (an OpenMP simd
// reduction, which may reorder the sum) and multi-versioned like row_product.
template <class T>
inline T dot_body(const T* x, const T* y, std::int64_t n) {
  T s(0);
  if constexpr (std::is_floating_point_v<T>) {
#pragma omp simd reduction(+ : s)
    for (std::int64_t j = 0; j < n; ++j) s += x[j] * y[j];
  } else {
    for (std::int64_t j = 0; j < n; ++j) s += x[j] * y[j];
  }
  return s;
}
SPARSE_TARGET_CLONES double dot_row(const double* x, const double* y, std::int64_t n) { return dot_body(x, y, n); }
SPARSE_TARGET_CLONES float dot_row(const float* x, const float* y, std::int64_t n) { return dot_body(x, y, n); }
template <class T>
T dot_row(const T* x, const T* y, std::int64_t n) {
  return dot_body(x, y, n);
}

// The positions p sorted by rows[p], stably (counting sort, O(nnz + m)):
// row i's positions are order[start[i] .. start[i + 1]).
struct RowOrder {
  std::vector<std::int64_t> start, order;
};
template <class I>
RowOrder row_order(const I* r, std::int64_t nnz, std::int64_t m) {
  RowOrder ro;
  ro.start.assign(static_cast<std::size_t>(m + 1), 0);
  for (std::int64_t p = 0; p < nnz; ++p) ++ro.start[static_cast<std::size_t>(r[p]) + 1];
  for (std::int64_t i = 0; i < m; ++i) ro.start[static_cast<std::size_t>(i + 1)] += ro.start[static_cast<std::size_t>(i)];
  ro.order.resize(static_cast<std::size_t>(nnz));
  std::vector<std::int64_t> next(ro.start.begin(), ro.start.end() - 1);
  for (std::int64_t p = 0; p < nnz; ++p) ro.order[static_cast<std::size_t>(next[static_cast<std::size_t>(r[p])]++)] = p;
  return ro;
}

template <class T, class I>
void coo_typed(const Tensor& values, const Tensor& rows, const Tensor& cols, const Tensor& dense, std::int64_t m,
               const Tensor& out) {
  const std::int64_t nnz = values.numel(), k = dense.shape()[0], n = trailing(dense);
  const T* v = values.data<T>();
  const I* r = rows.data<I>();
  const I* c = cols.data<I>();
  check_indices(kCooOp, "row", r, nnz, m, "m, the rows of the sparse matrix");
  check_indices(kCooOp, "column", c, nnz, k, "k, the first extent of the dense operand");
  T* o = out.data<T>();
  if (m * n == 0) return;
  const RowOrder ro = row_order(r, nnz, m);
  const std::vector<std::int64_t>& start = ro.start;
  std::vector<std::int64_t> scol(static_cast<std::size_t>(nnz));
  std::vector<T> sval(static_cast<std::size_t>(nnz));
  for (std::int64_t q = 0; q < nnz; ++q) {
    const std::int64_t p = ro.order[static_cast<std::size_t>(q)];
    scol[static_cast<std::size_t>(q)] = static_cast<std::int64_t>(c[p]);
    sval[static_cast<std::size_t>(q)] = v[p];
  }
  const int threads = thread_count();
  std::vector<T> dt;
  const T* b = dense.data<T>();
  if (n > 1) {
    dt.resize(static_cast<std::size_t>(k * n));
    transpose_copy(b, k, n, dt.data(), threads);
    b = dt.data();
  }
  const bool parallel = threads > 1 && nnz * n > 32768;
#pragma omp parallel num_threads(threads) if (parallel)
  {
    std::vector<T> acc(static_cast<std::size_t>(n));
    T* a = acc.data();
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
      std::fill(a, a + n, T(0));
      row_product(a, b, n, sval.data(), scol.data(), start[static_cast<std::size_t>(i)],
                  start[static_cast<std::size_t>(i + 1)]);
      for (std::int64_t j = 0; j < n; ++j) o[i + m * j] = a[j];
    }
  }
}

template <class T, class I>
void sddmm_typed(const Tensor& a, const Tensor& b, const Tensor& rows, const Tensor& cols, const Tensor& out) {
  const std::int64_t nnz = rows.numel(), m = a.shape()[0], k = b.shape()[0], n = trailing(a);
  const I* r = rows.data<I>();
  const I* c = cols.data<I>();
  check_indices(kSddmmOp, "row", r, nnz, m, "m, the first extent of a");
  check_indices(kSddmmOp, "column", c, nnz, k, "k, the first extent of b");
  T* o = out.data<T>();
  const int threads = thread_count();
  std::vector<T> at, bt;
  const T* ap = a.data<T>();
  const T* bp = b.data<T>();
  if (n > 1) {
    at.resize(static_cast<std::size_t>(m * n));
    bt.resize(static_cast<std::size_t>(k * n));
    transpose_copy(ap, m, n, at.data(), threads);
    transpose_copy(bp, k, n, bt.data(), threads);
    ap = at.data();
    bp = bt.data();
  }
  // Rows in order: a row of a stays in cache across its nonzeros.
  const RowOrder ro = row_order(r, nnz, m);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && nnz * n > 32768)
  for (std::int64_t i = 0; i < m; ++i) {
    const T* x = ap + i * n;
    for (std::int64_t q = ro.start[static_cast<std::size_t>(i)]; q < ro.start[static_cast<std::size_t>(i + 1)]; ++q) {
      const std::int64_t p = ro.order[static_cast<std::size_t>(q)];
      o[p] = dot_row(x, bp + static_cast<std::int64_t>(c[p]) * n, n);
    }
  }
}

template <class F>
void visit_index(tenferro::DType d, const char* op, F&& f) {
  tenferro::visit_dtype<tenferro::kIntegerDTypes>(d, op, std::forward<F>(f));
}

}  // namespace

Tensor run_coo_matmul(const Tensor& values, const Tensor& rows, const Tensor& cols, const Tensor& dense,
                      std::int64_t m, tenferro::Backend& backend) {
  tenferro::Shape shape = dense.shape();
  shape[0] = m;
  Tensor out = backend.empty(values.dtype(), shape);
  const Tensor v = values.contiguous(), r = rows.contiguous(), c = cols.contiguous(), d = dense.contiguous();
  tenferro::visit_dtype<kValueDTypes>(values.dtype(), kCooOp, [&]<class T>() {
    visit_index(rows.dtype(), kCooOp, [&]<class I>() { coo_typed<T, I>(v, r, c, d, m, out); });
  });
  return out;
}

Tensor run_sddmm(const Tensor& a, const Tensor& b, const Tensor& rows, const Tensor& cols,
                 tenferro::Backend& backend) {
  Tensor out = backend.empty(a.dtype(), {rows.numel()});
  const Tensor ac = a.contiguous(), bc = b.contiguous(), r = rows.contiguous(), c = cols.contiguous();
  tenferro::visit_dtype<kValueDTypes>(a.dtype(), kSddmmOp, [&]<class T>() {
    visit_index(rows.dtype(), kSddmmOp, [&]<class I>() { sddmm_typed<T, I>(ac, bc, r, c, out); });
  });
  return out;
}

}  // namespace sparse::detail

// linalg.cholesky (potrf) and linalg.triangular_solve (trsm); matrices of order up to
// small::kSmallFactorMax use the plain loops of small.hpp, real triangular solves up
// to small::kVectorTrsmMax its vector kernel (Note [Vector trsm]).
#include <algorithm>

#include "common.hpp"
#include "ops.hpp"
#include "small.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kCholesky = "linalg.cholesky";
constexpr const char* kTriangularSolve = "linalg.triangular_solve";

// ---- linalg.cholesky -----------------------------------------------------------------

template <class T>
void cholesky_into(const Tensor& a, bool lower, T* out) {
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t n = mb.rows, count = mb.count();
  const lapack_int ln = to_lapack_int(kCholesky, n), ld = std::max<lapack_int>(ln, 1);
  const T* base = ptr<T>(a);
  const bool small_path = small::use_small_factor(n, n);  // Note [Small matrices] in small.hpp
  BatchStatus status(count);
  for_each_batch(
      count, split_batch(count, n, n), [] { return 0; },
      [&](std::int64_t b, int&) {
        T* ob = out + b * n * n;
        load_matrix(ob, n, base, mb, b);
        if (n == 0) return;
        status.set(b, small_path ? small::potrf<T>(lower ? 'L' : 'U', n, ob, n)
                                 : lapack::potrf<T>(lower ? 'L' : 'U', ln, ob, ld));
        // The triangle potrf did not write is zero in the result.
        for (std::int64_t j = 0; j < n; ++j) {
          T* col = ob + j * n;
          if (lower)
            std::fill(col, col + j, T(0));
          else
            std::fill(col + j + 1, col + n, T(0));
        }
      });
  throw_if_failed(kCholesky, a, "a", status, [](int info) {
    return ::tenferro::detail::str("is not positive definite: its leading minor of order ", info,
                                   " is not (LAPACK potrf info ", info, ")");
  });
}

std::vector<Tensor> cholesky_kernel(const TriangleOptions& attrs, std::span<const Tensor> in,
                                    Backend& be) {
  const Tensor& a = in[0];
  const bool lower = attrs.lower;
  check_finite(kCholesky, a, "a", lower ? Region::lower : Region::upper);
  Tensor out = be.empty(a.dtype(), a.shape());
  visit_dtype<kFloatDTypes>(a.dtype(), kCholesky,
                            [&]<class T>() { cholesky_into<T>(a, lower, ptr<T>(out)); });
  return {out};
}

// ---- linalg.triangular_solve ----------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_triangular_solve(const TriangularSolveOptions& t,
                                                       std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> as = matrix_shape(kTriangularSolve, in[0], "a");
  require_square(kTriangularSolve, in[0], "a");
  if (t.left) {
    rhs_shape(kTriangularSolve, in[0], as, in[1], "a", "b", as.rows);
  } else {
    // x a = b: b is [r, n, batch...] (or a row vector [n]).
    const BasicTensorMeta<D>& b = in[1];
    require_same_dtype(kTriangularSolve, in[0], "a", b, "b");
    if (b.shape.size() == 1) {
      rhs_shape(kTriangularSolve, in[0], as, b, "a", "b", as.rows);
    } else {
      BasicMatrixShape<D> bs = matrix_shape(kTriangularSolve, b, "b");
      TF_CHECK(!differs(bs.cols, as.rows), ShapeError, kTriangularSolve, "operand b ", b.shape,
               " must have ", as.rows, " columns to solve x a = b with a ", in[0].shape);
      require_same_batch(kTriangularSolve, as, in[0], "a", bs, b, "b");
    }
  }
  return {in[1]};
}

template <class T>
Tensor triangular_solve_typed(const Tensor& a, const Tensor& b_in, const TriangularSolveOptions& t,
                              Backend& be) {
  const Region region = t.lower ? Region::lower : Region::upper;
  check_finite(kTriangularSolve, a, "a", region);
  check_finite(kTriangularSolve, b_in, "b");
  const MatrixBatch ab = matrix_batch(a);
  const std::int64_t n = ab.rows, count = ab.count();
  const T* abase = ptr<T>(a);
  if (!t.unit_diagonal) {
    BatchStatus status(count);
    for (std::int64_t b = 0; b < count; ++b)
      for (std::int64_t i = 0; i < n; ++i)
        if (abase[ab.offsets[static_cast<std::size_t>(b)] + i * (ab.rs + ab.cs)] == T(0)) {
          status.set(b, static_cast<int>(i + 1));
          break;
        }
    throw_if_failed(kTriangularSolve, a, "a", status, [](int info) {
      return ::tenferro::detail::str("is singular: its diagonal entry [", info - 1, ", ", info - 1,
                                     "] is exactly zero");
    });
  }
  // A vector b is a column (left) or a row (right).
  const bool vector = b_in.ndim() == 1;
  const Tensor bm = vector ? b_in.expand_dims(t.left ? 1 : 0) : b_in;
  const MatrixBatch rb = matrix_batch(bm);
  Tensor x = be.empty(b_in.dtype(), bm.shape());
  // trsm does not overwrite a: a column-major a is read in place, a
  // row-major one as its transpose with the other triangle
  // (Note [Transposed operands] in lu.cpp); other layouts are copied.
  const InPlaceLayout layout = in_place_layout(ab);
  const bool in_place = layout.ok;
  const char uplo = (t.lower != (in_place && layout.transposed)) ? 'L' : 'U';
  const char transa = in_place && layout.transposed ? 'T' : 'N';
  const lapack_int lda =
      static_cast<lapack_int>(in_place ? layout.ld : std::max<std::int64_t>(n, 1));
  const lapack_int lm = to_lapack_int(kTriangularSolve, rb.rows);
  const lapack_int ln = to_lapack_int(kTriangularSolve, rb.cols);
  const T* bbase = ptr<T>(bm);
  const BatchSplit split = split_batch(count, n, n + std::max(rb.rows, rb.cols));
  // Note [Small matrices] and Note [Vector trsm] in small.hpp: the plain
  // loops run on one thread, as BLAS does for such matrices unless its
  // arithmetic (with a long b) has it threaded.
  const bool small_path = small::use_small_trsm<T>(t.left ? 'L' : 'R', rb.rows, rb.cols) &&
                          (n <= small::kSmallFactorMax || split.parallel ||
                           split.one_lapack_thread || get_num_threads() <= 1);
  for_each_batch(
      count, split, [&] { return std::vector<T>(in_place ? 0 : static_cast<std::size_t>(n * n)); },
      [&](std::int64_t b, std::vector<T>& acopy) {
        const T* ap = abase + ab.offsets[static_cast<std::size_t>(b)];
        if (!in_place) {
          load_matrix(acopy.data(), n, abase, ab, b);
          ap = acopy.data();
        }
        T* xb = ptr<T>(x) + b * rb.rows * rb.cols;
        load_matrix(xb, rb.rows, bbase, rb, b);
        if (lm == 0 || ln == 0) return;
        if (small_path)
          small::trsm<T>(t.left ? 'L' : 'R', uplo, transa, t.unit_diagonal ? 'U' : 'N', lm, ln, ap, lda, xb, lm);
        else
          lapack::trsm<T>(t.left ? 'L' : 'R', uplo, transa, t.unit_diagonal ? 'U' : 'N', lm, ln, ap, lda, xb,
                          std::max<lapack_int>(lm, 1));
      });
  return vector ? x.reshape(b_in.shape()) : x;
}

std::vector<Tensor> triangular_solve_kernel(const TriangularSolveOptions& t, std::span<const Tensor> in,
                                            Backend& be) {
  return visit_dtype<kFloatDTypes>(in[0].dtype(), kTriangularSolve, [&]<class T>() {
    return std::vector<Tensor>{triangular_solve_typed<T>(in[0], in[1], t, be)};
  });
}

}  // namespace

// ---- declarations (Note [Declaring a linalg op] in ops.hpp) ----------------------------

Declaration declare_cholesky() {
  FamilyOp op = define_family_op<TriangleOptions>(
      {.name = kCholesky, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const TriangleOptions&, auto in) { return infer_square(kCholesky, in); }, cholesky_rules());
  return {std::move(op), typed_kernel<TriangleOptions>(cholesky_kernel)};
}

Declaration declare_triangular_solve() {
  FamilyOp op = define_family_op<TriangularSolveOptions>(
      {.name = kTriangularSolve, .num_inputs = 2, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const TriangularSolveOptions& a, auto in) { return infer_triangular_solve(a, in); },
      triangular_solve_rules());
  return {std::move(op), typed_kernel<TriangularSolveOptions>(triangular_solve_kernel)};
}

}  // namespace tenferro::linalg::detail

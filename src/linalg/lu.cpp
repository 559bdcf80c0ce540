// The LU-based ops: linalg.lu, lu_factor, lu_solve, solve, solve_factored, inv, det,
// slogdet.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common.hpp"
#include "ops.hpp"
#include "small.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kLu = "linalg.lu";
constexpr const char* kLuFactor = "linalg.lu_factor";
constexpr const char* kLuSolve = "linalg.lu_solve";
constexpr const char* kSolve = "linalg.solve";
constexpr const char* kSolveFactored = "linalg.solve_factored";
constexpr const char* kInv = "linalg.inv";
constexpr const char* kDet = "linalg.det";
constexpr const char* kSlogdet = "linalg.slogdet";

std::string singular_text(int info) {
  return ::tenferro::detail::str("is singular: U[", info - 1, ", ", info - 1,
                                 "] of its LU factorisation is exactly zero (LAPACK getrf info ",
                                 info, ")");
}

// Loads matrix b of a square operand for getrf. A row-major matrix is
// copied as stored, i.e. as its transpose (Note [Transposed operands]);
// returns whether it did so.
// Note [Transposed operands]: the buffer of a row-major matrix is its
// transpose in column-major order. Ops whose result follows from the LU
// factors of A^T as easily as from those of A (solve: getrs with TRANS='T';
// det, slogdet: det A^T = det A) factor that buffer after a plain copy
// instead of a transposing one.
template <class T>
bool load_square(T* dst, const T* base, const MatrixBatch& mb, const InPlaceLayout& layout,
                 std::int64_t b) {
  const T* src = base + mb.offsets[static_cast<std::size_t>(b)];
  if (layout.ok && layout.transposed) {
    copy_matrix(dst, mb.rows, src, mb.rows, mb.cols, 1, layout.ld);
    return true;
  }
  copy_matrix(dst, mb.rows, src, mb.rows, mb.cols, mb.rs, mb.cs);
  return false;
}

// ---- linalg.lu, linalg.lu_factor -------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_lu(const LuOptions& attrs, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kLu, in[0], "a");
  const bool want_p = attrs.permutation_matrix;
  const D k = min_extent(s.rows, s.cols);
  const D p = want_p ? s.rows : D(0);
  DType d = in[0].dtype;
  return {{DType::i64, with_batch<D>({s.rows}, s.batch)},
          {d, with_batch<D>({s.rows, k}, s.batch)},
          {d, with_batch<D>({k, s.cols}, s.batch)},
          {d, with_batch<D>({p, p}, s.batch)}};
}

template <class T>
void lu_into(const Tensor& a, std::int64_t* perm, T* l, T* u, T* p) {
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t m = mb.rows, n = mb.cols, k = std::min(m, n);
  const T* base = ptr<T>(a);
  const lapack_int lm = to_lapack_int(kLu, m), ln = to_lapack_int(kLu, n);
  for_each_batch(
      mb.count(), split_batch(mb.count(), m, n, kThreadedGetrfWork),
      [&] { return std::vector<lapack_int>(static_cast<std::size_t>(k)); },
      [&](std::int64_t b, std::vector<lapack_int>& ipiv) {
        T* lb = l + b * m * k;
        T* ub = u + b * k * n;
        // Factor in whichever output has the shape of a (L if tall, U if wide).
        T* f = m >= n ? lb : ub;
        load_matrix(f, m, base, mb, b);
        if (k > 0) getrf_auto<T>(lm, ln, f, lm, ipiv.data());  // singular U is not an error here
        if (f == lb) {
          for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < k; ++i) ub[i + j * k] = i <= j ? f[i + j * m] : T(0);
          for (std::int64_t j = 0; j < k; ++j)
            for (std::int64_t i = 0; i <= j && i < m; ++i) lb[i + j * m] = i == j ? T(1) : T(0);
        } else {
          for (std::int64_t j = 0; j < k; ++j)
            for (std::int64_t i = 0; i < m; ++i)
              lb[i + j * m] = i > j ? f[i + j * m] : i == j ? T(1) : T(0);
          for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = j + 1; i < m; ++i) ub[i + j * m] = T(0);
        }
        std::int64_t* pb = perm + b * m;
        std::iota(pb, pb + m, std::int64_t{0});
        for (std::int64_t i = 0; i < k; ++i)
          std::swap(pb[i], pb[ipiv[static_cast<std::size_t>(i)] - 1]);
        if (p != nullptr) {
          T* P = p + b * m * m;
          std::fill(P, P + m * m, T(0));
          for (std::int64_t i = 0; i < m; ++i) P[i + pb[i] * m] = T(1);
        }
      });
}

std::vector<Tensor> lu_kernel(const LuOptions& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  std::vector<TensorMeta> metas = infer_lu<std::int64_t>(attrs, {{meta_of(a)}});
  check_finite(kLu, a, "a");
  std::vector<Tensor> out;
  for (const TensorMeta& m : metas) out.push_back(be.empty(m.dtype, m.shape));
  const bool want_p = attrs.permutation_matrix;
  visit_dtype<kFloatDTypes>(a.dtype(), kLu, [&]<class T>() {
    lu_into<T>(a, ptr<std::int64_t>(out[0]), ptr<T>(out[1]), ptr<T>(out[2]),
               want_p ? ptr<T>(out[3]) : nullptr);
  });
  return out;
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_lu_factor(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kLuFactor, in[0], "a");
  return {in[0], {DType::i64, with_batch<D>({min_extent(s.rows, s.cols)}, s.batch)}};
}

std::vector<Tensor> lu_factor_kernel(const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  check_finite(kLuFactor, a, "a");
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t m = mb.rows, n = mb.cols, k = std::min(m, n);
  Tensor lu = be.empty(a.dtype(), a.shape());
  Tensor piv =
      be.empty(DType::i64, infer_lu_factor<std::int64_t>({}, {{meta_of(a)}})[1].shape);
  visit_dtype<kFloatDTypes>(a.dtype(), kLuFactor, [&]<class T>() {
    const lapack_int lm = to_lapack_int(kLuFactor, m), ln = to_lapack_int(kLuFactor, n);
    const T* base = ptr<T>(a);
    for_each_batch(
        mb.count(), split_batch(mb.count(), m, n, kThreadedGetrfWork),
        [&] { return std::vector<lapack_int>(static_cast<std::size_t>(k)); },
        [&](std::int64_t b, std::vector<lapack_int>& ipiv) {
          T* f = ptr<T>(lu) + b * m * n;
          load_matrix(f, m, base, mb, b);
          if (k > 0) getrf_auto<T>(lm, ln, f, lm, ipiv.data());
          std::int64_t* pb = ptr<std::int64_t>(piv) + b * k;
          for (std::int64_t i = 0; i < k; ++i) pb[i] = ipiv[static_cast<std::size_t>(i)] - 1;
        });
  });
  return {lu, piv};
}

// Per-thread factor space of the LU kernels (a matrix of lu_count entries
// and n pivots), from the backend's buffers: zero-filled std::vectors cost a
// 512 KiB memset per call at order 256, a tenth of det's time on two threads
// (perf of bench_peer --mode=linalg --filter=det/256).
template <class T>
struct FactorSpace {
  FactorSpace(std::int64_t lu_count, std::int64_t n, Backend& be) {
    scratch.add(lu, lu_count);
    scratch.add(ipiv, n);
    scratch.allocate(be);
  }
  Scratch scratch;
  T* lu = nullptr;
  lapack_int* ipiv = nullptr;
};

// ---- linalg.lu_solve, linalg.solve --------------------------------------------------------

// LAPACK's TRANS character.
char trans_char(const char* op, Transpose t) {
  switch (t) {
    case Transpose::none:
      return 'N';
    case Transpose::transpose:
      return 'T';
    case Transpose::adjoint:
      return 'C';
  }
  TF_THROW(ValueError, op, "trans must be none, transpose or adjoint, got ", static_cast<int>(t));
}

// The checks of lu_solve's operands (lu [n, n], pivots i64 [n], b), for op `op`.
template <class D>
void check_lu_solve(const char* op, const Transpose& attrs, const BasicTensorMeta<D>& lu,
                    const BasicTensorMeta<D>& piv, const BasicTensorMeta<D>& b) {
  BasicMatrixShape<D> ls = matrix_shape(op, lu, "lu");
  require_square(op, lu, "lu");
  TF_CHECK(piv.dtype == DType::i64, DTypeError, op, "pivots must be i64, got ", piv.dtype);
  const ExtentList<D> want = with_batch<D>({ls.rows}, ls.batch);
  bool same = piv.shape.size() == want.size();
  for (std::size_t i = 0; same && i < want.size(); ++i) same = !differs(piv.shape[i], want[i]);
  TF_CHECK(same, ShapeError, op, "pivots ", piv.shape, " must have shape ", want, " to match lu ", lu.shape);
  rhs_shape(op, lu, ls, b, "lu", "b", ls.rows);
  trans_char(op, attrs);
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_lu_solve(const Transpose& attrs, std::span<const BasicTensorMeta<D>> in) {
  check_lu_solve(kLuSolve, attrs, in[0], in[1], in[2]);
  return {in[2]};
}

// Throws LinalgError for the first matrix whose packed U has an exactly
// zero diagonal entry (getrs would divide by it).
template <class T>
void check_u_diagonal(const char* op, const Tensor& lu, const char* name, const MatrixBatch& mb,
                      const char* what) {
  const T* base = ptr<T>(lu);
  BatchStatus status(mb.count());
  for (std::int64_t b = 0; b < mb.count(); ++b) {
    const T* p = base + mb.offsets[static_cast<std::size_t>(b)];
    for (std::int64_t i = 0; i < std::min(mb.rows, mb.cols); ++i)
      if (p[i * (mb.rs + mb.cs)] == T(0)) {
        status.set(b, static_cast<int>(i + 1));
        break;
      }
  }
  throw_if_failed(op, lu, name, status, [&](int info) {
    return ::tenferro::detail::str("is singular: ", what, "[", info - 1, ", ", info - 1,
                                   "] is exactly zero");
  });
}

template <class T>
Tensor lu_solve_typed(const char* op, const Tensor& lu, const char* lu_name, const Tensor& piv,
                      const Tensor& b_in, char trans, Backend& be) {
  const bool vector = b_in.ndim() == 1;
  const Tensor bm = vector ? b_in.expand_dims(1) : b_in;
  const MatrixBatch lb = matrix_batch(lu), rb = matrix_batch(bm);
  const std::int64_t n = lb.rows, nrhs = rb.cols, count = lb.count();
  // Pivot values: LAPACK reads them unchecked.
  const Tensor pm = piv.expand_dims(1);
  const MatrixBatch pb = matrix_batch(pm);
  const std::int64_t* pbase = ptr<std::int64_t>(pm);
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t v = pbase[pb.offsets[static_cast<std::size_t>(b)] + i * pb.rs];
      TF_CHECK(v >= i && v < n, ValueError, op, "pivots[", i, "] = ", v, " of ",
               matrix_position(lu, lu_name, b), " must lie in [", i, ", ", n,
               ") (0-based row interchanges as returned by lu_factor)");
    }
  check_finite(op, lu, lu_name);
  check_finite(op, b_in, "b");
  check_u_diagonal<T>(op, lu, lu_name, lb, "U");
  Tensor x = be.empty(b_in.dtype(), bm.shape());
  const InPlaceLayout layout = in_place_layout(lb);
  const bool direct = layout.ok && !layout.transposed;
  const lapack_int ln = to_lapack_int(op, n), lr = to_lapack_int(op, nrhs);
  const T* lbase = ptr<T>(lu);
  const T* bbase = ptr<T>(bm);
  for_each_batch(
      count, split_batch(count, n, n + nrhs),
      [&] { return FactorSpace<T>(direct ? 0 : n * n, n, be); },
      [&](std::int64_t b, FactorSpace<T>& st) {
        const T* f = lbase + lb.offsets[static_cast<std::size_t>(b)];
        lapack_int ld = static_cast<lapack_int>(direct ? layout.ld : std::max<std::int64_t>(n, 1));
        if (!direct) {
          load_matrix(st.lu, n, lbase, lb, b);
          f = st.lu;
        }
        for (std::int64_t i = 0; i < n; ++i)
          st.ipiv[i] = static_cast<lapack_int>(
              pbase[pb.offsets[static_cast<std::size_t>(b)] + i * pb.rs] + 1);
        T* xb = ptr<T>(x) + b * n * nrhs;
        load_matrix(xb, n, bbase, rb, b);
        if (n > 0 && nrhs > 0)
          getrs_auto<T>(trans, ln, lr, f, ld, st.ipiv, xb, std::max<lapack_int>(ln, 1));
      });
  return vector ? x.reshape(b_in.shape()) : x;
}

std::vector<Tensor> lu_solve_kernel(const Transpose& attrs, std::span<const Tensor> in,
                                    Backend& be) {
  char trans = trans_char(kLuSolve, attrs);
  return visit_dtype<kFloatDTypes>(in[0].dtype(), kLuSolve, [&]<class T>() {
    return std::vector<Tensor>{lu_solve_typed<T>(kLuSolve, in[0], "lu", in[1], in[2], trans, be)};
  });
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_solve(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> as = matrix_shape(kSolve, in[0], "a");
  require_square(kSolve, in[0], "a");
  rhs_shape(kSolve, in[0], as, in[1], "a", "b", as.rows);
  return {in[1]};
}

template <class T>
Tensor solve_typed(const Tensor& a, const Tensor& b_in, Backend& be) {
  check_finite(kSolve, a, "a");
  check_finite(kSolve, b_in, "b");
  const bool vector = b_in.ndim() == 1;
  const Tensor bm = vector ? b_in.expand_dims(1) : b_in;
  const MatrixBatch ab = matrix_batch(a), rb = matrix_batch(bm);
  const std::int64_t n = ab.rows, nrhs = rb.cols, count = ab.count();
  Tensor x = be.empty(b_in.dtype(), bm.shape());
  const InPlaceLayout layout = in_place_layout(ab);
  const lapack_int ln = to_lapack_int(kSolve, n), lr = to_lapack_int(kSolve, nrhs);
  const lapack_int ld = std::max<lapack_int>(ln, 1);
  const T* abase = ptr<T>(a);
  const T* bbase = ptr<T>(bm);
  BatchStatus status(count);
  for_each_batch(
      count, split_batch(count, n, n + nrhs), [&] { return FactorSpace<T>(n * n, n, be); },
      [&](std::int64_t b, FactorSpace<T>& st) {
        const bool transposed = load_square(st.lu, abase, ab, layout, b);
        T* xb = ptr<T>(x) + b * n * nrhs;
        load_matrix(xb, n, bbase, rb, b);
        if (n == 0) return;
        int info = getrf_auto<T>(ln, ln, st.lu, ld, st.ipiv);
        if (info != 0) return status.set(b, info);
        if (nrhs > 0) getrs_auto<T>(transposed ? 'T' : 'N', ln, lr, st.lu, ld, st.ipiv, xb, ld);
      });
  throw_if_failed(kSolve, a, "a", status, singular_text);
  return vector ? x.reshape(b_in.shape()) : x;
}

// ---- linalg.inv ------------------------------------------------------------------------------

// ---- linalg.solve_factored -------------------------------------------------------------
// Note [Solves that keep the factors]: x = op(a)^-1 b from (lu, pivots) =
// lu_factor(a), operands without tangents (Note [Operands without tangents]
// in tenferro/ops/family.hpp): the op's value and derivative are those of a
// solve with op(a), and the derivative's solves (dx = op(a)^-1 (db - op(da) x),
// the transpose op(a)^-H ct) reuse the factors. On graph values solve(a, b)
// is lu_factor then this op (traced.cpp), so a program with a derivative of
// the solve factors a once; the single op linalg.solve, which does not keep
// its factors, factors a again inside its rule. A singular a is reported
// here (lu_factor does not refuse one), as "a is singular".

template <class D>
std::vector<BasicTensorMeta<D>> infer_solve_factored(const Transpose& attrs,
                                                     std::span<const BasicTensorMeta<D>> in) {
  matrix_shape(kSolveFactored, in[0], "a");
  require_square(kSolveFactored, in[0], "a");
  require_same_dtype(kSolveFactored, in[0], "a", in[1], "lu");
  bool same = in[1].shape.size() == in[0].shape.size();
  for (std::size_t i = 0; same && i < in[0].shape.size(); ++i) same = !differs(in[1].shape[i], in[0].shape[i]);
  TF_CHECK(same, ShapeError, kSolveFactored, "lu ", in[1].shape, " must have the shape of a ", in[0].shape,
           " (the factors lu_factor(a) returns)");
  check_lu_solve(kSolveFactored, attrs, in[1], in[2], in[3]);
  return {in[3]};
}

std::vector<Tensor> solve_factored_kernel(const Transpose& attrs, std::span<const Tensor> in, Backend& be) {
  std::vector<TensorMeta> metas{meta_of(in[0]), meta_of(in[1]), meta_of(in[2]), meta_of(in[3])};
  infer_solve_factored<std::int64_t>(attrs, metas);
  const char trans = trans_char(kSolveFactored, attrs);
  return visit_dtype<kFloatDTypes>(in[0].dtype(), kSolveFactored, [&]<class T>() {
    return std::vector<Tensor>{lu_solve_typed<T>(kSolveFactored, in[1], "a", in[2], in[3], trans, be)};
  });
}

// Note [Triangular inverse by halves]: inv of a triangular matrix T of
// order n > kTrtriLeaf, for U = [U11 U12; 0 U22] (L alike):
//   U11 := inv(U11); U22 := inv(U22) (the same recursion);
//   U12 := -U12 U22 (trmm from the right); U12 := U11 U12 (from the left),
// so that U12 = -inv(U11) U12 inv(U22). Nearly all the work is in BLAS's
// trmm, which runs near GEMM speed, where OpenBLAS 0.3.21's trtri does not
// (its trsm kernel, Note [Recursive LU]). For the factors of a getrf that
// succeeded: no zero on a non-unit diagonal. inv/256x256 f64, one pinned
// core of a 2-vCPU AMD EPYC: the two triangular inverses of its factors
// (U non-unit, L unit) take 1060-1085 us by trtri, 380-400 by halves (leaves
// of 32; 16 and 64 measured alike, 128 slower).
constexpr lapack_int kTrtriLeaf = 32;

template <class T>
void trtri_by_halves(char uplo, char diag, lapack_int n, T* a, lapack_int lda) {
  const auto solve = [&](auto& self, lapack_int m, T* t) -> void {
    if (m <= kTrtriLeaf) {
      lapack::trtri<T>(uplo, diag, m, t, lda);  // no zero pivot: getrf succeeded
      return;
    }
    const lapack_int m1 = m / 2, m2 = m - m1;
    T* t22 = t + m1 + static_cast<std::int64_t>(m1) * lda;
    self(self, m1, t);
    self(self, m2, t22);
    if (uplo == 'U') {
      T* t12 = t + static_cast<std::int64_t>(m1) * lda;  // m1 x m2
      lapack::trmm<T>('R', 'U', 'N', diag, m1, m2, T(-1), t22, lda, t12, lda);
      lapack::trmm<T>('L', 'U', 'N', diag, m1, m2, T(1), t, lda, t12, lda);
    } else {
      T* t21 = t + m1;  // m2 x m1
      lapack::trmm<T>('R', 'L', 'N', diag, m2, m1, T(-1), t, lda, t21, lda);
      lapack::trmm<T>('L', 'L', 'N', diag, m2, m1, T(1), t22, lda, t21, lda);
    }
  };
  solve(solve, n, a);
}

template <class T>
void inverse_into(const char* op, const Tensor& a, T* out, std::vector<char>* singular,
                  Backend& be) {
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t n = mb.rows, count = mb.count();
  const lapack_int ln = to_lapack_int(op, n), ld = std::max<lapack_int>(ln, 1);
  const T* base = ptr<T>(a);
  const bool small_path = small::use_small_factor(n, n);
  // Note [Inverse on threads]: getri's column sweep runs on one thread.
  // One matrix of order 128 and up is inverted as inv(U) inv(L) P instead:
  // getrf on the calling thread's threads (the recursive LU splits its
  // updates across them, Note [Recursive LU]; LAPACK's getrf runs on
  // OpenBLAS's), the two triangular inverses (Note [Triangular inverse by
  // halves]) side by side, their product (trmm) by column halves, then
  // getri's column interchanges. Each parallel step is one region with BLAS
  // on one thread inside, so only getrf's own steps depend on OpenBLAS's
  // threading, whose speed on 2-vCPU VMs changes with the machine's state.
  // inv/256x256, 2 threads, 2-vCPU AMD EPYC, bench_peer --mode=linalg:
  // getri 3.2 ms; getrs against the identity on OpenBLAS's threads (the
  // way before) 1.31-1.33 ms; this way, with LAPACK's trtri, 1.19-1.21 ms.
  // With the inverses by halves this way also wins on one thread (the
  // machine in a slow spell, old and new alternating, ms): one thread getri
  // 1.60-1.69, this way 1.22-1.35; two threads 1.25-1.39 -> 0.82-1.11.
  const bool by_triangles = !small_path && count == 1 && n >= 128;
  const int tri_threads = omp_in_parallel() ? 1 : std::min(2, get_num_threads());
  BatchSplit split = split_batch(count, n, n);
  if (by_triangles) split.one_lapack_thread = false;
  struct State {
    FactorSpace<T> factor;
    std::vector<T> work;  // getri's
  };
  BatchStatus status(count);
  for_each_batch(
      count, split,
      [&] {
        return State{FactorSpace<T>(small_path || by_triangles ? n * n : 0, n, be), {}};
      },
      [&](std::int64_t b, State& st) {
        T* lu = st.factor.lu;
        lapack_int* ipiv = st.factor.ipiv;
        T* ob = out + b * n * n;
        if (n == 0) return;
        if (small_path) {
          // Factor a copy, then solve against the identity in the output.
          load_matrix(lu, n, base, mb, b);
          int info = small::getrf(n, n, lu, n, ipiv);
          if (info != 0) return status.set(b, info);
          set_identity(ob, n, n);
          small::getrs('N', n, n, lu, n, ipiv, ob, n);
          return;
        }
        if (by_triangles) {
          load_matrix(lu, n, base, mb, b);
          int info = getrf_auto<T>(ln, ln, lu, ld, ipiv);
          if (info != 0) return status.set(b, info);
          // inv(a) = inv(U) inv(L) P: the two triangular inverses side by
          // side (U's in lu, L's in ob), then the product by column halves.
          OneLapackThread one(true);
          std::copy_n(lu, n * n, ob);
#pragma omp parallel for num_threads(tri_threads) schedule(static, 1)
          for (int t = 0; t < 2; ++t) {
            if (t == 0)
              trtri_by_halves<T>('U', 'N', ln, lu, ld);
            else
              trtri_by_halves<T>('L', 'U', ln, ob, ld);
          }
          for (std::int64_t j = 0; j < n; ++j) {  // inv(L): unit lower triangular
            std::fill_n(ob + j * n, j, T(0));
            ob[j + j * n] = T(1);
          }
          const std::int64_t half = n / 2;
#pragma omp parallel for num_threads(tri_threads) schedule(static, 1)
          for (int t = 0; t < 2; ++t)
            lapack::trmm<T>('L', 'U', 'N', 'N', ln,
                            static_cast<lapack_int>(t == 0 ? half : n - half), T(1), lu, ld,
                            ob + (t == 0 ? 0 : half) * n, ld);
          for (std::int64_t j = n - 2; j >= 0; --j)  // times P: getri's column interchanges
            if (ipiv[j] - 1 != j)
              std::swap_ranges(ob + j * n, ob + (j + 1) * n, ob + (ipiv[j] - 1) * n);
          return;
        }
        load_matrix(ob, n, base, mb, b);
        int info = getrf_auto<T>(ln, ln, ob, ld, ipiv);
        if (info != 0) return status.set(b, info);
        if (st.work.empty()) {
          T q(0);
          lapack::getri<T>(ln, ob, ld, ipiv, &q, -1);
          st.work.resize(static_cast<std::size_t>(lapack::query_size(q)));
        }
        info = lapack::getri<T>(ln, ob, ld, ipiv, st.work.data(),
                                static_cast<lapack_int>(st.work.size()));
        status.set(b, info);
      });
  if (singular != nullptr) {
    singular->assign(static_cast<std::size_t>(count), 0);
    for (std::int64_t b = 0; b < count; ++b) {
      check_lapack_args(op, "getrf/getri", status.info(b));
      (*singular)[static_cast<std::size_t>(b)] = status.info(b) > 0;
    }
    return;
  }
  throw_if_failed(op, a, "a", status, singular_text);
}

// ---- linalg.det, linalg.slogdet
// ------------------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_det(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kDet, in[0], "a");
  require_square(kDet, in[0], "a");
  return {{in[0].dtype, s.batch}};
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_slogdet(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kSlogdet, in[0], "a");
  require_square(kSlogdet, in[0], "a");
  return {{in[0].dtype, s.batch}, {real_dtype(in[0].dtype), s.batch}};
}

// Factors each matrix (a copy, transposed if that is cheaper: det A^T =
// det A) and calls reduce(b, lu, ipiv) with its LU factors (column-major n x n).
template <class T, class Reduce>
void for_each_lu(const char* op, const Tensor& a, Backend& be, Reduce&& reduce) {
  check_finite(op, a, "a");
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t n = mb.rows, count = mb.count();
  const lapack_int ln = to_lapack_int(op, n), ld = std::max<lapack_int>(ln, 1);
  const InPlaceLayout layout = in_place_layout(mb);
  const T* base = ptr<T>(a);
  for_each_batch(
      count, split_batch(count, n, n, kThreadedGetrfWork),
      [&] { return FactorSpace<T>(n * n, n, be); },
      [&](std::int64_t b, FactorSpace<T>& st) {
        load_square(st.lu, base, mb, layout, b);
        if (n > 0) getrf_auto<T>(ln, ln, st.lu, ld, st.ipiv);
        reduce(b, st.lu, st.ipiv);
      });
}

std::vector<Tensor> det_kernel(const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  MatrixShape s = matrix_shape(kDet, meta_of(a), "a");
  const std::int64_t n = s.rows;
  Tensor out = be.empty(a.dtype(), s.batch);
  visit_dtype<kFloatDTypes>(a.dtype(), kDet, [&]<class T>() {
    T* o = ptr<T>(out);
    // det = (-1)^(number of interchanges) * prod diag(U).
    for_each_lu<T>(kDet, a, be, [&](std::int64_t b, const T* lu, const lapack_int* ipiv) {
      T d(1);
      for (std::int64_t i = 0; i < n; ++i) {
        d *= lu[i + i * n];
        if (ipiv[i] != i + 1) d = -d;
      }
      o[b] = d;
    });
  });
  return {out};
}

std::vector<Tensor> slogdet_kernel(const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  MatrixShape s = matrix_shape(kSlogdet, meta_of(a), "a");
  const std::int64_t n = s.rows;
  Tensor sign = be.empty(a.dtype(), s.batch);
  Tensor logabs = be.empty(real_dtype(a.dtype()), s.batch);
  visit_dtype<kFloatDTypes>(a.dtype(), kSlogdet, [&]<class T>() {
    using R = real_t<T>;
    T* so = ptr<T>(sign);
    R* lo = ptr<R>(logabs);
    for_each_lu<T>(kSlogdet, a, be, [&](std::int64_t b, const T* lu, const lapack_int* ipiv) {
      T sg(1);
      R la(0);
      for (std::int64_t i = 0; i < n; ++i) {
        const T d = lu[i + i * n];
        const R ad = std::abs(d);
        if (ad == R(0)) {
          sg = T(0);
          la = -std::numeric_limits<R>::infinity();
          break;
        }
        sg *= d / ad;
        la += std::log(ad);
        if (ipiv[i] != i + 1) sg = -sg;
      }
      if constexpr (is_complex_v<T>)
        if (sg != T(0)) sg /= std::abs(sg);  // undo the rounding drift of the product
      so[b] = sg;
      lo[b] = la;
    });
  });
  return {sign, logabs};
}

}  // namespace

Tensor inverse(const char* op, const Tensor& a, Backend& be, std::vector<char>* singular) {
  check_finite(op, a, "a");
  Tensor out = be.empty(a.dtype(), a.shape());
  visit_dtype<kFloatDTypes>(a.dtype(), op,
                            [&]<class T>() { inverse_into<T>(op, a, ptr<T>(out), singular, be); });
  return out;
}

// ---- declarations (Note [Declaring a linalg op] in ops.hpp) ----------------------------

Declaration declare_lu() {
  FamilyOp op = define_family_op<LuOptions>({.name = kLu, .num_inputs = 1, .num_outputs = 4, .ad = AdKind::nonlinear},
                                            [](const LuOptions& a, auto in) { return infer_lu(a, in); }, lu_rules());
  return {std::move(op), typed_kernel<LuOptions>(lu_kernel)};
}

Declaration declare_lu_factor() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kLuFactor, .num_inputs = 1, .num_outputs = 2, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs& a, auto in) { return infer_lu_factor(a, in); }, lu_factor_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>(lu_factor_kernel)};
}

Declaration declare_lu_solve() {
  FamilyOp op = define_family_op<Transpose>(
      {.name = kLuSolve, .num_inputs = 3, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const Transpose& a, auto in) { return infer_lu_solve(a, in); }, lu_solve_rules());
  return {std::move(op), typed_kernel<Transpose>(lu_solve_kernel)};
}

Declaration declare_solve() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kSolve, .num_inputs = 2, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs& a, auto in) { return infer_solve(a, in); }, solve_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>([](const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
    return visit_dtype<kFloatDTypes>(in[0].dtype(), kSolve, [&]<class T>() {
      return std::vector<Tensor>{solve_typed<T>(in[0], in[1], be)};
    });
  })};
}

Declaration declare_solve_factored() {
  FamilyOp op = define_family_op<Transpose>(
      {.name = kSolveFactored, .num_inputs = 4, .num_outputs = 1, .ad = AdKind::nonlinear, .nondiff_inputs = {1, 2}},
      [](const Transpose& a, auto in) { return infer_solve_factored(a, in); }, solve_factored_rules());
  return {std::move(op), typed_kernel<Transpose>(solve_factored_kernel)};
}

Declaration declare_inv() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kInv, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs&, auto in) { return infer_square(kInv, in); }, inv_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>([](const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
    return std::vector<Tensor>{inverse(kInv, in[0], be, nullptr)};
  })};
}

Declaration declare_det() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kDet, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs& a, auto in) { return infer_det(a, in); }, det_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>(det_kernel)};
}

Declaration declare_slogdet() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kSlogdet, .num_inputs = 1, .num_outputs = 2, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs& a, auto in) { return infer_slogdet(a, in); }, slogdet_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>(slogdet_kernel)};
}

}  // namespace tenferro::linalg::detail

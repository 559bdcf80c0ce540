// linalg.lstsq: minimum-norm least squares through the SVD (gelsd).
#include <algorithm>

#include "common.hpp"
#include "ops.hpp"
#include "small.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kLstsq = "linalg.lstsq";

// Residuals exist only when m > n: over symbols, decided when the op runs
// unless both extents are constant.
template <class D>
std::vector<BasicTensorMeta<D>> infer_lstsq(const LstsqOptions& attrs, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> as = matrix_shape(kLstsq, in[0], "a");
  RhsShape<D> rs = rhs_shape(kLstsq, in[0], as, in[1], "a", "b", as.rows);
  checked_tolerance(kLstsq, "rcond", attrs.rcond, true);
  const DType d = in[0].dtype, r = real_dtype(d);
  const D m = as.rows, n = as.cols, nrhs = rs.shape.cols;
  const auto mc = constant_extent(m), nc = constant_extent(n);
  const D nres = mc && nc ? (*mc > *nc ? nrhs : D(0)) : dynamic_extent<D>("res");
  ExtentList<D> x = rs.is_vector ? ExtentList<D>{n} : with_batch<D>({n, nrhs}, as.batch);
  ExtentList<D> res = rs.is_vector ? ExtentList<D>{nres} : with_batch<D>({nres}, as.batch);
  return {{d, x}, {r, res}, {DType::i64, as.batch}, {r, with_batch<D>({min_extent(m, n)}, as.batch)}};
}

template <class T>
std::vector<Tensor> lstsq_typed(const Tensor& a, const Tensor& b_in, double rcond_attr,
                                const std::vector<TensorMeta>& metas, Backend& be) {
  using R = real_t<T>;
  check_finite(kLstsq, a, "a");
  check_finite(kLstsq, b_in, "b");
  const Tensor bm = b_in.ndim() == 1 ? b_in.expand_dims(1) : b_in;
  const MatrixBatch ab = matrix_batch(a), rb = matrix_batch(bm);
  const std::int64_t m = ab.rows, n = ab.cols, k = std::min(m, n), nrhs = rb.cols;
  const std::int64_t count = ab.count(), ldb = std::max<std::int64_t>({m, n, 1});
  const bool residuals = m > n;
  std::vector<Tensor> out;
  for (const TensorMeta& mt : metas) out.push_back(be.empty(mt.dtype, mt.shape));
  T* x = ptr<T>(out[0]);
  R* res = ptr<R>(out[1]);
  std::int64_t* rank = ptr<std::int64_t>(out[2]);
  R* sv = ptr<R>(out[3]);
  const R rcond = rcond_attr < 0 ? static_cast<R>(eps_of<T>() * static_cast<double>(std::max(m, n)))
                                 : static_cast<R>(rcond_attr);
  const lapack_int lm = to_lapack_int(kLstsq, m), ln = to_lapack_int(kLstsq, n),
                   lr = to_lapack_int(kLstsq, nrhs), lb = to_lapack_int(kLstsq, ldb);
  const T* abase = ptr<T>(a);
  const T* bbase = ptr<T>(bm);
  struct State {
    std::vector<T> a, b, work;
    std::vector<R> rwork;
    std::vector<lapack_int> iwork;
  };
  BatchStatus status(count);
  for_each_batch(
      count, split_batch(count, m, n, kThreadedGelsdWork),
      [&] {
        State st;
        st.a.resize(static_cast<std::size_t>(std::max<std::int64_t>(m * n, 1)));
        st.b.resize(static_cast<std::size_t>(std::max<std::int64_t>(ldb * nrhs, 1)));
        return st;
      },
      [&](std::int64_t b, State& st) {
        load_matrix(st.a.data(), m, abase, ab, b);
        // b goes into the first m rows of an ldb x nrhs block; rows m..ldb-1
        // are zero (they are x's rows when m < n, and gelsd returns early
        // for an empty a).
        std::fill(st.b.begin(), st.b.end(), T(0));
        load_matrix(st.b.data(), ldb, bbase, rb, b);
        R* sb = sv + b * k;
        lapack_int r = 0;
        if (k > 0) {
          if (st.work.empty()) {
            T q(0);
            R rq(0);
            lapack_int iq = 0;
            int info = lapack::gelsd<T>(lm, ln, lr, st.a.data(), lm, st.b.data(), lb, sb, rcond, &r,
                                        &q, -1, &rq, &iq);
            if (info != 0) return status.set(b, info);
            st.work.resize(static_cast<std::size_t>(lapack::query_size(q)));
            st.rwork.resize(static_cast<std::size_t>(is_complex_v<T> ? lapack::query_size(rq) : 1));
            st.iwork.resize(static_cast<std::size_t>(std::max(iq, 1)));
          }
          int info = lapack::gelsd<T>(lm, ln, lr, st.a.data(), lm, st.b.data(), lb, sb, rcond, &r,
                                      st.work.data(), static_cast<lapack_int>(st.work.size()),
                                      st.rwork.data(), st.iwork.data());
          if (info != 0) return status.set(b, info);
        }
        rank[b] = r;
        T* xb = x + b * n * nrhs;
        copy_matrix(xb, n, st.b.data(), n, nrhs, 1, ldb);
        if (!residuals) return;
        R* rsb = res + b * nrhs;
        if (r == n) {
          // Full column rank: rows n..m-1 of gelsd's b hold the residual vector.
          for (std::int64_t j = 0; j < nrhs; ++j) {
            R acc(0);
            for (std::int64_t i = n; i < m; ++i)
              acc += small::abs2(st.b[static_cast<std::size_t>(i + j * ldb)]);
            rsb[j] = acc;
          }
          return;
        }
        // Rank-deficient: ||b - a x||^2 from the operands.
        const T* ap = abase + ab.offsets[static_cast<std::size_t>(b)];
        const T* bp = bbase + rb.offsets[static_cast<std::size_t>(b)];
        for (std::int64_t j = 0; j < nrhs; ++j) {
          R acc(0);
          for (std::int64_t i = 0; i < m; ++i) {
            T ri = bp[i * rb.rs + j * rb.cs];
            for (std::int64_t c = 0; c < n; ++c) ri -= ap[i * ab.rs + c * ab.cs] * xb[c + j * n];
            acc += small::abs2(ri);
          }
          rsb[j] = acc;
        }
      });
  throw_if_failed(kLstsq, a, "a", status, [](int info) {
    return ::tenferro::detail::str("did not converge (LAPACK gelsd info ", info, ")");
  });
  return out;
}

std::vector<Tensor> lstsq_kernel(const LstsqOptions& attrs, std::span<const Tensor> in,
                                 Backend& be) {
  std::vector<TensorMeta> metas = infer_lstsq<std::int64_t>(attrs, {{meta_of(in[0]), meta_of(in[1])}});
  const double rcond = attrs.rcond;
  return visit_dtype<kFloatDTypes>(in[0].dtype(), kLstsq, [&]<class T>() {
    return lstsq_typed<T>(in[0], in[1], rcond, metas, be);
  });
}

}  // namespace

Declaration declare_lstsq() {
  FamilyOp op = define_family_op<LstsqOptions>(
      {.name = kLstsq, .num_inputs = 2, .num_outputs = 4, .ad = AdKind::nonlinear},
      [](const LstsqOptions& a, auto in) { return infer_lstsq(a, in); }, lstsq_rules());
  return {std::move(op), typed_kernel<LstsqOptions>(lstsq_kernel)};
}

}  // namespace tenferro::linalg::detail

// linalg.qr: Householder QR (geqrf + orgqr/ungqr).
#include <algorithm>
#include <string>

#include "common.hpp"
#include "ops.hpp"
#include "small.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kQr = "linalg.qr";

using Mode = QrMode;

QrMode checked_mode(QrMode mode) {
  TF_CHECK(mode == QrMode::reduced || mode == QrMode::complete || mode == QrMode::r, ValueError, kQr,
           "mode must be reduced, complete or r, got ", static_cast<int>(mode));
  return mode;
}

// Columns of Q and rows of R for a mode.
template <class D>
struct QrExtents {
  D kq, kr;
};
template <class D>
QrExtents<D> qr_extents(Mode mode, const D& m, const D& n) {
  const D k = min_extent(m, n);
  switch (mode) {
    case Mode::reduced:
      return {k, k};
    case Mode::complete:
      return {m, m};
    case Mode::r:
      return {0, k};
  }
  return {k, k};
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_qr(const QrMode& attrs, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kQr, in[0], "a");
  Mode mode = checked_mode(attrs);
  QrExtents<D> e = qr_extents(mode, s.rows, s.cols);
  DType d = in[0].dtype;
  ExtentList<D> q =
      mode == Mode::r ? with_batch<D>({D(0), D(0)}, s.batch) : with_batch<D>({s.rows, e.kq}, s.batch);
  return {{d, q}, {d, with_batch<D>({e.kr, s.cols}, s.batch)}};
}

template <class T>
void qr_into(const Tensor& a, Mode mode, T* q, T* r) {
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t m = mb.rows, n = mb.cols, k = std::min(m, n), count = mb.count();
  const QrExtents e = qr_extents(mode, m, n);
  if (k == 0) {
    for (std::int64_t b = 0; b < count; ++b) {
      if (mode == Mode::complete) set_identity(q + b * m * m, m, m);
      std::fill(r + b * e.kr * n, r + (b + 1) * e.kr * n, T(0));
    }
    return;
  }
  const T* base = ptr<T>(a);
  const lapack_int lm = to_lapack_int(kQr, m), ln = to_lapack_int(kQr, n);
  const bool small_path = small::use_small_factor(m, n);
  struct State {
    std::vector<T> a, tau, work;
  };
  auto make_state = [&] {
    State st;
    st.tau.resize(static_cast<std::size_t>(k));
    if (mode == Mode::r) st.a.resize(static_cast<std::size_t>(m * n));
    return st;
  };
  BatchStatus status(count);
  for_each_batch(count, split_batch(count, m, n), make_state, [&](std::int64_t b, State& st) {
    T* qb = q + b * m * e.kq;
    T* rb = r + b * e.kr * n;
    // The factorisation runs in the output that has room for the m x n matrix.
    T* f = mode == Mode::r ? st.a.data() : m >= n ? qb : rb;
    load_matrix(f, m, base, mb, b);
    if (small_path) {
      small::geqrf(m, n, f, m, st.tau.data());
    } else {
      if (st.work.empty()) {
        T w1(0), w2(0);
        int i1 = lapack::geqrf<T>(lm, ln, f, lm, st.tau.data(), &w1, -1);
        int i2 = mode == Mode::r
                     ? 0
                     : lapack::ungqr<T>(lm, static_cast<lapack_int>(m >= n ? e.kq : m),
                                        static_cast<lapack_int>(k), f, lm, st.tau.data(), &w2, -1);
        if (i1 != 0 || i2 != 0) return status.set(b, std::min(i1, i2));
        st.work.resize(static_cast<std::size_t>(
            std::max(lapack::query_size(w1), mode == Mode::r ? 1 : lapack::query_size(w2))));
      }
      int info = lapack::geqrf<T>(lm, ln, f, lm, st.tau.data(), st.work.data(),
                                  static_cast<lapack_int>(st.work.size()));
      if (info != 0) return status.set(b, info);
    }
    // R: the upper trapezoid of the first kr rows.
    if (f != rb) {
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < e.kr; ++i)
          rb[i + j * e.kr] = i <= j && i < m ? f[i + j * m] : T(0);
    }
    if (mode == Mode::r) return;
    std::int64_t qcols = e.kq;
    if (f == rb) {
      // Wide: the reflectors live in R's first m columns; Q is m x m.
      std::copy_n(rb, m * m, qb);
      qcols = m;
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = j + 1; i < m; ++i) rb[i + j * m] = T(0);
    }
    if (small_path) {
      small::ungqr(m, qcols, k, qb, m, st.tau.data());
    } else {
      int info =
          lapack::ungqr<T>(lm, static_cast<lapack_int>(qcols), static_cast<lapack_int>(k), qb, lm,
                           st.tau.data(), st.work.data(), static_cast<lapack_int>(st.work.size()));
      if (info != 0) status.set(b, info);
    }
  });
  throw_if_failed(kQr, a, "a", status, [](int info) {
    return ::tenferro::detail::str("could not be factorised (LAPACK info ", info, ")");
  });
}

std::vector<Tensor> qr_kernel(const QrMode& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  std::vector<TensorMeta> metas = infer_qr<std::int64_t>(attrs, {{meta_of(a)}});
  check_finite(kQr, a, "a");
  Tensor q = be.empty(metas[0].dtype, metas[0].shape);
  Tensor r = be.empty(metas[1].dtype, metas[1].shape);
  Mode mode = attrs;
  visit_dtype<kFloatDTypes>(a.dtype(), kQr,
                            [&]<class T>() { qr_into<T>(a, mode, ptr<T>(q), ptr<T>(r)); });
  return {q, r};
}

}  // namespace

Declaration declare_qr() {
  FamilyOp op = define_family_op<QrMode>({.name = kQr, .num_inputs = 1, .num_outputs = 2, .ad = AdKind::nonlinear},
                                         [](const QrMode& a, auto in) { return infer_qr(a, in); }, qr_rules());
  return {std::move(op), typed_kernel<QrMode>(qr_kernel)};
}

}  // namespace tenferro::linalg::detail

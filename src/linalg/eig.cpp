// linalg.eigh (syevd/heevd; small matrices: small::tridiagonal_eigh), linalg.eig and
// linalg.eigvals (geev).
#include <algorithm>
#include <optional>

#include "common.hpp"
#include "ops.hpp"
#include "small.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kEigh = "linalg.eigh";
constexpr const char* kEig = "linalg.eig";
constexpr const char* kEigvals = "linalg.eigvals";

std::string no_convergence(const char* routine, int info) {
  return ::tenferro::detail::str("did not converge (LAPACK ", routine, " info ", info, ")");
}

// ---- linalg.eigh -------------------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_eigh(const TriangleOptions&, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kEigh, in[0], "a");
  require_square(kEigh, in[0], "a");
  return {{real_dtype(in[0].dtype), with_batch<D>({s.rows}, s.batch)}, in[0]};
}

template <class T>
void eigh_into(const Tensor& a, bool lower, real_t<T>* w, T* v) {
  using R = real_t<T>;
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t n = mb.rows, count = mb.count();
  if (n == 0) return;
  const lapack_int ln = to_lapack_int(kEigh, n);
  const char uplo = lower ? 'L' : 'U';
  const T* base = ptr<T>(a);
  const bool small_path = small::use_small_eigh(n);
  struct State {
    std::vector<T> work;
    std::vector<R> rwork;
    std::vector<lapack_int> iwork;
    std::optional<small::EighWorkspace<T>> fast;
  };
  BatchStatus status(count);
  for_each_batch(
      count, split_batch(count, n, n),
      [&] {
        State st;
        if (small_path) st.fast.emplace(n);
        return st;
      },
      [&](std::int64_t b, State& st) {
        T* vb = v + b * n * n;
        R* wb = w + b * n;
        if (small_path) {
          load_matrix(st.fast->a.data(), n, base, mb, b);
          if (small::tridiagonal_eigh(*st.fast, lower, wb, vb)) return;
        }
        load_matrix(vb, n, base, mb, b);
        if (st.work.empty()) {
          T wq(0);
          R rq(0);
          lapack_int iq = 0;
          int info = lapack::heevd<T>('V', uplo, ln, vb, ln, wb, &wq, -1, &rq, -1, &iq, -1);
          if (info != 0) return status.set(b, info);
          st.work.resize(static_cast<std::size_t>(lapack::query_size(wq)));
          st.rwork.resize(static_cast<std::size_t>(is_complex_v<T> ? lapack::query_size(rq) : 1));
          st.iwork.resize(static_cast<std::size_t>(std::max(iq, 1)));
        }
        status.set(b, lapack::heevd<T>('V', uplo, ln, vb, ln, wb, st.work.data(),
                                       static_cast<lapack_int>(st.work.size()), st.rwork.data(),
                                       static_cast<lapack_int>(st.rwork.size()), st.iwork.data(),
                                       static_cast<lapack_int>(st.iwork.size())));
      });
  throw_if_failed(kEigh, a, "a", status,
                  [](int info) { return no_convergence("syevd/heevd", info); });
}

std::vector<Tensor> eigh_kernel(const TriangleOptions& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  const bool lower = attrs.lower;
  check_finite(kEigh, a, "a", lower ? Region::lower : Region::upper);
  std::vector<TensorMeta> metas = infer_eigh<std::int64_t>(attrs, {{meta_of(a)}});
  Tensor w = be.empty(metas[0].dtype, metas[0].shape);
  Tensor v = be.empty(metas[1].dtype, metas[1].shape);
  visit_dtype<kFloatDTypes>(
      a.dtype(), kEigh, [&]<class T>() { eigh_into<T>(a, lower, ptr<real_t<T>>(w), ptr<T>(v)); });
  return {w, v};
}

// ---- linalg.eig, linalg.eigvals -----------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_eig(const char* op, std::span<const BasicTensorMeta<D>> in, bool vectors) {
  BasicMatrixShape<D> s = matrix_shape(op, in[0], "a");
  require_square(op, in[0], "a");
  DType c = complex_dtype(in[0].dtype);
  std::vector<BasicTensorMeta<D>> out{{c, with_batch<D>({s.rows}, s.batch)}};
  if (vectors) out.push_back({c, in[0].shape});
  return out;
}

// Eigenvalues (and right eigenvectors when v != nullptr) of every matrix,
// as complex numbers.
template <class T>
void eig_into(const char* op, const Tensor& a, std::complex<real_t<T>>* w,
              std::complex<real_t<T>>* v) {
  using R = real_t<T>;
  using C = std::complex<R>;
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t n = mb.rows, count = mb.count();
  if (n == 0) return;
  const lapack_int ln = to_lapack_int(op, n);
  const char jobvr = v != nullptr ? 'V' : 'N';
  const lapack_int ldvr = v != nullptr ? ln : 1;
  const T* base = ptr<T>(a);
  struct State {
    std::vector<T> a, work, wr, wi, vr;
    std::vector<R> rwork;
  };
  BatchStatus status(count);
  for_each_batch(
      count, split_batch(count, n, n),
      [&] {
        State st;
        st.a.resize(static_cast<std::size_t>(n * n));
        if constexpr (!is_complex_v<T>) {
          st.wr.resize(static_cast<std::size_t>(n));
          st.wi.resize(static_cast<std::size_t>(n));
          if (v != nullptr) st.vr.resize(static_cast<std::size_t>(n * n));
        } else {
          st.rwork.resize(static_cast<std::size_t>(2 * n));
        }
        return st;
      },
      [&](std::int64_t b, State& st) {
        load_matrix(st.a.data(), n, base, mb, b);
        C* wb = w + b * n;
        C* vb = v != nullptr ? v + b * n * n : nullptr;
        int info = 0;
        if constexpr (is_complex_v<T>) {
          // Complex input: geev writes w and the vectors straight into the outputs.
          C dummy(0);
          C* vr = vb != nullptr ? vb : &dummy;
          if (st.work.empty()) {
            T q(0);
            info = lapack::geev_complex<T>(jobvr, ln, st.a.data(), ln, wb, vr, ldvr, &q, -1,
                                           st.rwork.data());
            if (info != 0) return status.set(b, info);
            st.work.resize(static_cast<std::size_t>(lapack::query_size(q)));
          }
          info = lapack::geev_complex<T>(jobvr, ln, st.a.data(), ln, wb, vr, ldvr, st.work.data(),
                                         static_cast<lapack_int>(st.work.size()), st.rwork.data());
        } else {
          T dummy(0);
          T* vr = vb != nullptr ? st.vr.data() : &dummy;
          if (st.work.empty()) {
            T q(0);
            info = lapack::geev_real<T>(jobvr, ln, st.a.data(), ln, st.wr.data(), st.wi.data(), vr,
                                        ldvr, &q, -1);
            if (info != 0) return status.set(b, info);
            st.work.resize(static_cast<std::size_t>(lapack::query_size(q)));
          }
          info =
              lapack::geev_real<T>(jobvr, ln, st.a.data(), ln, st.wr.data(), st.wi.data(), vr, ldvr,
                                   st.work.data(), static_cast<lapack_int>(st.work.size()));
          if (info != 0) return status.set(b, info);
          // A complex pair (wr +- i wi) has the vectors vr[:, j] +- i vr[:, j+1].
          for (std::int64_t j = 0; j < n; ++j) {
            wb[j] = C(st.wr[static_cast<std::size_t>(j)], st.wi[static_cast<std::size_t>(j)]);
            if (vb == nullptr) continue;
            const T* re = st.vr.data() + j * n;
            if (st.wi[static_cast<std::size_t>(j)] == T(0)) {
              for (std::int64_t i = 0; i < n; ++i) vb[i + j * n] = C(re[i], 0);
            } else if (j + 1 < n) {
              const T* im = re + n;
              for (std::int64_t i = 0; i < n; ++i) {
                vb[i + j * n] = C(re[i], im[i]);
                vb[i + (j + 1) * n] = C(re[i], -im[i]);
              }
              wb[j + 1] =
                  C(st.wr[static_cast<std::size_t>(j + 1)], st.wi[static_cast<std::size_t>(j + 1)]);
              ++j;
            }
          }
        }
        status.set(b, info);
      });
  throw_if_failed(op, a, "a", status, [](int info) { return no_convergence("geev", info); });
}

std::vector<Tensor> eig_kernel(const char* op, const Tensor& a, bool vectors, Backend& be) {
  check_finite(op, a, "a");
  std::vector<Tensor> out;
  for (const TensorMeta& m : infer_eig<std::int64_t>(op, {{meta_of(a)}}, vectors))
    out.push_back(be.empty(m.dtype, m.shape));
  visit_dtype<kFloatDTypes>(a.dtype(), op, [&]<class T>() {
    using C = std::complex<real_t<T>>;
    eig_into<T>(op, a, ptr<C>(out[0]), vectors ? ptr<C>(out[1]) : nullptr);
  });
  return out;
}

}  // namespace

// ---- declarations (Note [Declaring a linalg op] in ops.hpp) ----------------------------

Declaration declare_eigh() {
  FamilyOp op = define_family_op<TriangleOptions>(
      {.name = kEigh, .num_inputs = 1, .num_outputs = 2, .ad = AdKind::nonlinear},
      [](const TriangleOptions& a, auto in) { return infer_eigh(a, in); }, eigh_rules());
  return {std::move(op), typed_kernel<TriangleOptions>(eigh_kernel)};
}

Declaration declare_eig() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kEig, .num_inputs = 1, .num_outputs = 2, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs&, auto in) { return infer_eig(kEig, in, true); }, eig_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>([](const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
    return eig_kernel(kEig, in[0], true, be);
  })};
}

Declaration declare_eigvals() {
  FamilyOp op = define_family_op<NoFamilyAttrs>(
      {.name = kEigvals, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const NoFamilyAttrs&, auto in) { return infer_eig(kEigvals, in, false); }, eigvals_rules());
  return {std::move(op), typed_kernel<NoFamilyAttrs>([](const NoFamilyAttrs&, std::span<const Tensor> in, Backend& be) {
    return eig_kernel(kEigvals, in[0], false, be);
  })};
}

}  // namespace tenferro::linalg::detail

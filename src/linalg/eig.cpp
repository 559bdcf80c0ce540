// linalg.eigh (syevd/heevd, or its phases on threads; small matrices:
// small::tridiagonal_eigh), linalg.eig and linalg.eigvals (geev).
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

// Note [Eigh in phases]: syevd/heevd is three phases: hetrd reduces a to
// a real tridiagonal T = Q^H a Q, stedc solves T by divide and conquer, and
// unmtr applies Q to T's eigenvectors. Debian's OpenBLAS gains nothing from
// a second thread in any of them at order 256 (dsytrd, dstedc, dormtr
// called directly: 1.03 / 1.06, 2.42 / 2.36, 1.66 / 1.69 ms at one / two
// threads), so with two threads and one matrix of order kPhasedEighMin and
// up linalg.eigh runs the phases itself:
//  - hetrd on the calling thread;
//  - the top split of divide and conquer, as stedc's dlaed0 does it:
//    T = diag(T1, T2) + beta-coupling, with the diagonal entries beside the
//    cut lowered by |beta|, (d, e) scaled to largest entry one first. stedc
//    solves T1 and T2 on two threads; merge_halves joins them the way
//    LAPACK's dlaed1 does (laed2's deflation, then dlaed3's steps: a
//    secular-equation root per eigenvalue left, the Loewner update of z,
//    the eigenvector columns, two GEMMs), with dlaed3's loops, which are
//    independent per root, per row or per column, spread over the threads
//    and the two GEMMs run side by side. Each value is computed as dlaed3
//    computes it, in the same order, except the column norms (scaled sum
//    of squares instead of dnrm2);
//  - unmtr on column blocks of the eigenvector matrix, one per thread.
//    Threads other than the first read their own copy of the reflectors:
//    LAPACK's unblocked unmtr path writes into them for a moment.
// Measured (a driver timing linalg::eigh on one f64 matrix, pinned vCPUs of
// a 2-vCPU AMD EPYC Zen 4 VM, min ms one thread (syevd) / two threads
// (phases), two runs 40 minutes apart, the machine's two-thread speed
// differing between them): order 64 0.267 / 0.181-0.254, 128 1.07 /
// 0.68-0.89, 256 5.3 / 3.3-4.1, 512 30.6 / 17.6-23.0, 1024 179 / 98-115;
// bench_peer --mode=linalg --threads=2 --filter=eigh, median of the timed
// calls, old / new binary: 5.27-5.42 / 4.16-4.29 ms. On one thread the
// phases are syevd's own, so it keeps syevd.
template <class T>
struct PhasedEigh {
  using R = real_t<T>;
  PhasedEigh(std::int64_t n, int threads, Backend& be);
  std::int64_t n;
  int threads;
  lapack_int hetrd_lwork = 0, unmtr_lwork = 0;
  lapack_int half_lwork[2] = {0, 0}, half_liwork[2] = {0, 0};
  Scratch scratch;
  T *a = nullptr, *tau = nullptr, *hetrd_work = nullptr, *reflector_copies = nullptr,
    *unmtr_work = nullptr;
  R *d = nullptr, *e = nullptr, *q = nullptr, *half_work[2] = {nullptr, nullptr};
  lapack_int *half_iwork[2] = {nullptr, nullptr}, *indxq = nullptr;
  // merge_halves: laed2's arrays, the GEMM operands, one column per thread.
  R *z = nullptr, *dlamda = nullptr, *w = nullptr, *w_new = nullptr, *z_sign = nullptr,
    *q2 = nullptr, *s_lower = nullptr, *s_upper = nullptr, *columns = nullptr;
  lapack_int *indx = nullptr, *indxc = nullptr, *indxp = nullptr, *coltyp = nullptr;
};

template <class T>
PhasedEigh<T>::PhasedEigh(std::int64_t order, int thread_count, Backend& be)
    : n(order), threads(static_cast<int>(std::clamp<std::int64_t>(thread_count, 1, order / 32))) {
  const lapack_int ln = static_cast<lapack_int>(n);
  const std::int64_t c = n / 2, c2 = n - c;
  // Workspace queries read no arrays; any non-null pointers do.
  T tq(0), dummy(0);
  R rdummy(0);
  lapack::hetrd<T>('L', ln, &dummy, ln, &rdummy, &rdummy, &dummy, &tq, -1);
  hetrd_lwork = std::max<lapack_int>(lapack::query_size(tq), 1);
  const lapack_int cols = static_cast<lapack_int>((n + threads - 1) / threads);
  tq = T(0);
  lapack::unmtr<T>('L', ln, cols, &dummy, ln, &dummy, &dummy, ln, &tq, -1);
  // Room for the 64 x 65 block-reflector factor besides 64 columns of work
  // per column of c: with only the size the query returned, unmtr ran 1.45x
  // slower (order 256, 128 columns: 1.2 against 0.83 ms; OpenBLAS 0.3.21's
  // LAPACK), as if on its unblocked path.
  unmtr_lwork = std::max<lapack_int>(lapack::query_size(tq), cols * 64 + 64 * 65);
  // stedc with compz 'I' on order m: work 1 + 4m + m^2, iwork 3 + 5m.
  for (int h = 0; h < 2; ++h) {
    const std::int64_t m = h == 0 ? c : c2;
    half_lwork[h] = static_cast<lapack_int>(1 + 4 * m + m * m);
    half_liwork[h] = static_cast<lapack_int>(3 + 5 * m);
  }
  const std::int64_t nn = n * n;
  scratch.add(a, nn);
  scratch.add(tau, n);
  scratch.add(hetrd_work, hetrd_lwork);
  scratch.add(reflector_copies, nn * (threads - 1));
  scratch.add(unmtr_work, std::int64_t{unmtr_lwork} * threads);
  scratch.add(d, n);
  scratch.add(e, n);
  scratch.add(q, nn);
  for (int h = 0; h < 2; ++h) {
    scratch.add(half_work[h], half_lwork[h]);
    scratch.add(half_iwork[h], half_liwork[h]);
  }
  scratch.add(indxq, n);
  for (R** p : {&z, &dlamda, &w, &w_new, &z_sign}) scratch.add(*p, n);
  for (R** p : {&q2, &s_lower, &s_upper}) scratch.add(*p, nn);
  scratch.add(columns, n * threads);
  for (lapack_int** p : {&indx, &indxc, &indxp, &coltyp}) scratch.add(*p, n);
  scratch.allocate(be);
}

// The merge of Note [Eigh in phases]. On entry ws.q (n x n) holds the
// halves' eigenvectors in its diagonal blocks (cut after n1), ws.d their
// eigenvalues and ws.indxq each half's ascending order (1-based, per half);
// on exit ws.d and the columns of ws.q are the merged eigenpairs, and
// d[indxq[j] - 1] ascends. Returns LAPACK's info.
template <class T>
int merge_halves(PhasedEigh<T>& ws, lapack_int n1, real_t<T> rho) {
  using R = real_t<T>;
  const lapack_int n = static_cast<lapack_int>(ws.n), n2 = n - n1;
  R *d = ws.d, *q = ws.q, *w = ws.w, *dlamda = ws.dlamda;
  lapack_int* indxc = ws.indxc;
  // z: the last row of the first half's vectors, the first row of the second's.
  for (lapack_int i = 0; i < n1; ++i) ws.z[i] = q[(n1 - 1) + std::int64_t{i} * n];
  for (lapack_int i = 0; i < n2; ++i) ws.z[n1 + i] = q[n1 + std::int64_t{n1 + i} * n];
  lapack_int k = 0;
  int info = lapack::laed2<R>(k, n, n1, d, q, n, ws.indxq, rho, ws.z, dlamda, w, ws.q2, ws.indx,
                              indxc, ws.indxp, ws.coltyp);
  if (info != 0) return info;
  if (k == 0) {  // everything deflated: laed2 left d and q in place
    for (lapack_int i = 0; i < n; ++i) ws.indxq[i] = i + 1;
    return 0;
  }
  const int p = static_cast<int>(std::min<lapack_int>(ws.threads, k));
  // One root of the secular equation per column: d[j], and q[:, j] = dlamda - d[j].
  std::vector<int> root_info(static_cast<std::size_t>(k), 0);
#pragma omp parallel for num_threads(p) schedule(static)
  for (lapack_int j = 0; j < k; ++j)
    root_info[static_cast<std::size_t>(j)] =
        lapack::laed4<R>(k, j + 1, dlamda, w, q + std::int64_t{j} * n, rho, d[j]);
  for (int ri : root_info)
    if (ri != 0) return ri;
  if (k == 2) {
    // Two roots: the vectors are the deltas, rows reordered by indxc.
    for (lapack_int j = 0; j < 2; ++j) {
      R* col = q + std::int64_t{j} * n;
      const R v[2] = {col[0], col[1]};
      col[0] = v[indxc[0] - 1];
      col[1] = v[indxc[1] - 1];
    }
  } else if (k > 2) {
    // The Loewner update: w_i = sign(z_i) sqrt(-q_ii prod_{j != i} q_ij / (dlamda_i - dlamda_j)),
    // each product over j in ascending order, rows in blocks per thread.
    R* w_new = ws.w_new;
    std::copy_n(w, k, ws.z_sign);  // z as laed2 left it in w
    const lapack_int rows_per = (k + p - 1) / p;
#pragma omp parallel for num_threads(p) schedule(static, 1)
    for (int t = 0; t < p; ++t) {
      const lapack_int i0 = std::min(k, t * rows_per), i1 = std::min(k, i0 + rows_per);
      for (lapack_int i = i0; i < i1; ++i) w_new[i] = q[i + std::int64_t{i} * n];
      for (lapack_int j = 0; j < k; ++j) {
        const R* col = q + std::int64_t{j} * n;
        for (lapack_int i = i0; i < i1; ++i)
          if (i != j) w_new[i] *= col[i] / (dlamda[i] - dlamda[j]);
      }
      for (lapack_int i = i0; i < i1; ++i)
        w_new[i] = std::copysign(std::sqrt(-w_new[i]), ws.z_sign[i]);
    }
    std::copy_n(w_new, k, w);
    // Column j of the rank-one update's eigenvectors: w / q[:, j], normalised, rows by indxc.
#pragma omp parallel num_threads(p)
    {
      R* s = ws.columns + std::int64_t{omp_get_thread_num()} * n;
#pragma omp for schedule(static)
      for (lapack_int j = 0; j < k; ++j) {
        R* col = q + std::int64_t{j} * n;
        R big(0);
        for (lapack_int i = 0; i < k; ++i) {
          s[i] = w[i] / col[i];
          big = std::max(big, std::abs(s[i]));
        }
        R sum(0);
        for (lapack_int i = 0; i < k; ++i) sum += (s[i] / big) * (s[i] / big);
        const R norm = big * std::sqrt(sum);
        for (lapack_int i = 0; i < k; ++i) col[i] = s[indxc[i] - 1] / norm;
      }
    }
  }
  // The merged vectors: the halves' vectors (packed by laed2 in q2 by column
  // type: upper only, dense, lower only) times the update's. ctot = coltyp[0..2].
  const lapack_int* ctot = ws.coltyp;
  const lapack_int n12 = ctot[0] + ctot[1], n23 = ctot[1] + ctot[2];
  for (lapack_int j = 0; j < k; ++j) {
    std::copy_n(q + ctot[0] + std::int64_t{j} * n, n23, ws.s_lower + std::int64_t{j} * n23);
    std::copy_n(q + std::int64_t{j} * n, n12, ws.s_upper + std::int64_t{j} * n12);
  }
#pragma omp parallel for num_threads(std::min(p, 2)) schedule(static, 1)
  for (int half = 0; half < 2; ++half) {
    const lapack_int rows = half == 0 ? n1 : n2, inner = half == 0 ? n12 : n23;
    R* out = q + (half == 0 ? 0 : n1);
    if (inner == 0) {
      for (lapack_int j = 0; j < k; ++j) std::fill_n(out + std::int64_t{j} * n, rows, R(0));
      continue;
    }
    const R* left = ws.q2 + (half == 0 ? 0 : std::int64_t{n1} * n12);
    lapack::gemm<R>('N', 'N', rows, k, inner, R(1), left, rows, half == 0 ? ws.s_upper : ws.s_lower,
                    inner, R(0), out, n);
  }
  lapack::lamrg<R>(k, n - k, d, 1, -1, ws.indxq);
  return 0;
}

// Eigenvalues (ascending) into w and eigenvectors into v (n x n) of the
// matrix in ws.a, which is overwritten; returns LAPACK's info.
template <class T>
int eigh_in_phases(PhasedEigh<T>& ws, bool lower, real_t<T>* w, T* v) {
  using R = real_t<T>;
  const std::int64_t n = ws.n;
  const lapack_int ln = static_cast<lapack_int>(n);
  const char uplo = lower ? 'L' : 'U';
  R* d = ws.d;
  R* e = ws.e;
  R* q = ws.q;
  int info = lapack::hetrd<T>(uplo, ln, ws.a, ln, d, e, ws.tau, ws.hetrd_work, ws.hetrd_lwork);
  if (info != 0) return info;
  R scale(0);
  for (std::int64_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(d[i]));
  for (std::int64_t i = 0; i + 1 < n; ++i) scale = std::max(scale, std::abs(e[i]));
  if (scale == R(0)) scale = R(1);  // T = 0: the merge deflates everything, w = 0, q = I
  for (std::int64_t i = 0; i < n; ++i) d[i] /= scale;
  for (std::int64_t i = 0; i + 1 < n; ++i) e[i] /= scale;
  const std::int64_t c = n / 2, c2 = n - c;
  const R beta = e[c - 1];
  d[c - 1] -= std::abs(beta);
  d[c] -= std::abs(beta);
  std::fill_n(q, n * n, R(0));
  // Loops over the halves and the column blocks (not one per thread id), so
  // that a team smaller than asked for still does all of them.
  int half_info[2] = {0, 0};
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int t = 0; t < 2; ++t) {
    const std::int64_t off = t == 0 ? 0 : c, m = t == 0 ? c : c2;
    half_info[t] =
        lapack::stedc<R>(static_cast<lapack_int>(m), d + off, e + off, q + off + off * n, ln,
                         ws.half_work[t], ws.half_lwork[t], ws.half_iwork[t], ws.half_liwork[t]);
  }
  if (half_info[0] != 0) return half_info[0];
  if (half_info[1] != 0) return half_info[1];
  lapack_int* indxq = ws.indxq;
  for (std::int64_t i = 0; i < n; ++i)
    indxq[i] = static_cast<lapack_int>(i < c ? i + 1 : i - c + 1);
  info = merge_halves(ws, static_cast<lapack_int>(c), beta);
  if (info != 0) return info;
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t k = indxq[j] - 1;
    w[j] = d[k] * scale;
    std::copy_n(q + k * n, n, v + j * n);  // real to T
  }
  const int p = ws.threads;
  const std::int64_t per = (n + p - 1) / p;
  std::vector<int> block_info(static_cast<std::size_t>(p), 0);
#pragma omp parallel for num_threads(p) schedule(static, 1)
  for (int t = 0; t < p; ++t) {
    const std::int64_t j0 = std::min<std::int64_t>(t * per, n),
                       j1 = std::min<std::int64_t>(j0 + per, n);
    const T* reflectors = ws.a;
    if (t > 0) {
      T* copy = ws.reflector_copies + (t - 1) * n * n;
      std::copy_n(ws.a, n * n, copy);
      reflectors = copy;
    }
    if (j1 > j0)
      block_info[static_cast<std::size_t>(t)] = lapack::unmtr<T>(
          uplo, ln, static_cast<lapack_int>(j1 - j0), reflectors, ln, ws.tau, v + j0 * n, ln,
          ws.unmtr_work + static_cast<std::size_t>(t) * ws.unmtr_lwork, ws.unmtr_lwork);
  }
  for (int bi : block_info)
    if (bi != 0) return bi;
  return 0;
}

template <class T>
void eigh_into(const Tensor& a, bool lower, real_t<T>* w, T* v, Backend& be) {
  using R = real_t<T>;
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t n = mb.rows, count = mb.count();
  if (n == 0) return;
  const lapack_int ln = to_lapack_int(kEigh, n);
  const char uplo = lower ? 'L' : 'U';
  const T* base = ptr<T>(a);
  const bool small_path = small::use_small_eigh(n);
  const BatchSplit split = split_batch(count, n, n);
  const bool phased = !split.parallel && use_phased_eigh(n);
  struct State {
    Scratch scratch;  // syevd/heevd's workspaces
    T* work = nullptr;
    R* rwork = nullptr;
    lapack_int* iwork = nullptr;
    lapack_int lwork = 0, lrwork = 0, liwork = 0;
    std::optional<small::EighWorkspace<T>> fast;
    std::optional<PhasedEigh<T>> phases;
  };
  BatchStatus status(count);
  for_each_batch(
      count, split,
      [&] {
        State st;
        if (small_path) st.fast.emplace(n);
        if (phased) st.phases.emplace(n, get_num_threads(), be);
        return st;
      },
      [&](std::int64_t b, State& st) {
        T* vb = v + b * n * n;
        R* wb = w + b * n;
        if (small_path) {
          load_matrix(st.fast->a.data(), n, base, mb, b);
          if (small::tridiagonal_eigh(*st.fast, lower, wb, vb)) return;
        }
        if (phased) {
          load_matrix(st.phases->a, n, base, mb, b);
          return status.set(b, eigh_in_phases(*st.phases, lower, wb, vb));
        }
        load_matrix(vb, n, base, mb, b);
        if (st.work == nullptr) {
          T wq(0);
          R rq(0);
          lapack_int iq = 0;
          int info = lapack::heevd<T>('V', uplo, ln, vb, ln, wb, &wq, -1, &rq, -1, &iq, -1);
          if (info != 0) return status.set(b, info);
          st.lwork = lapack::query_size(wq);
          st.lrwork = is_complex_v<T> ? lapack::query_size(rq) : 1;
          st.liwork = std::max(iq, 1);
          st.scratch.add(st.work, st.lwork);
          st.scratch.add(st.rwork, st.lrwork);
          st.scratch.add(st.iwork, st.liwork);
          st.scratch.allocate(be);
        }
        status.set(b, lapack::heevd<T>('V', uplo, ln, vb, ln, wb, st.work, st.lwork, st.rwork,
                                       st.lrwork, st.iwork, st.liwork));
      });
  throw_if_failed(kEigh, a, "a", status,
                  [](int info) { return no_convergence("syevd/heevd or stedc/laed4", info); });
}

std::vector<Tensor> eigh_kernel(const TriangleOptions& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  const bool lower = attrs.lower;
  check_finite(kEigh, a, "a", lower ? Region::lower : Region::upper);
  std::vector<TensorMeta> metas = infer_eigh<std::int64_t>(attrs, {{meta_of(a)}});
  Tensor w = be.empty(metas[0].dtype, metas[0].shape);
  Tensor v = be.empty(metas[1].dtype, metas[1].shape);
  visit_dtype<kFloatDTypes>(a.dtype(), kEigh, [&]<class T>() {
    eigh_into<T>(a, lower, ptr<real_t<T>>(w), ptr<T>(v), be);
  });
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

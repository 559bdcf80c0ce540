// cuSOLVER implementations of the linalg family ops (Note [Linalg
// conventions] in tenferro/linalg/family.hpp): every operand is first copied
// into a column-major [m, n, batch] buffer (cuSOLVER overwrites it), scanned
// for NaN/Inf, then factorized matrix by matrix (or with the batched Jacobi
// solvers for small matrices) on the backend's stream; the per-matrix status
// flags are read back once, and the first failure throws LinalgError.
#include <algorithm>
#include <complex>
#include <sstream>
#include <vector>

#include "state.hpp"
#include "tenferro/cuda/functions.hpp"
#include "tenferro/cuda/transfer.hpp"
#include "tenferro/ops/primitives.hpp"

namespace tenferro::cuda {
namespace {

using detail::check_cuda;
using detail::check_cusolver;

constexpr std::int64_t kSmallBatched = 32;  // gesvdjBatched / syevjBatched limit

cudaDataType data_type(DType d) {
  switch (d) {
    case DType::f32: return CUDA_R_32F;
    case DType::f64: return CUDA_R_64F;
    case DType::c64: return CUDA_C_32F;
    default: return CUDA_C_64F;
  }
}
cudaDataType real_data_type(DType d) { return data_type(real_dtype(d)); }

cudaStream_t stream_of(CudaBackend& be) { return static_cast<cudaStream_t>(be.stream()); }

struct MatrixBatch {
  std::int64_t m = 0, n = 0, count = 1;
  Shape batch;
};

MatrixBatch matrices(const char* op, const Tensor& a, const char* name, CudaBackend& be) {
  TF_CHECK(a.defined(), ValueError, op, "operand ", name, " is undefined");
  TF_CHECK(a.device() == be.device(), DeviceError, op, "operand ", name, " is on ", a.device(),
           " but backend '", be.name(), "' runs on ", be.device());
  TF_CHECK(is_float(a.dtype()), DTypeError, op, "operand ", name, " has dtype ", a.dtype(),
           "; expected f32, f64, c64 or c128");
  TF_CHECK(a.ndim() >= 2, ShapeError, op, "operand ", name, " must have rank >= 2 ([m, n, batch...]), got shape ",
           a.shape());
  MatrixBatch mb;
  mb.m = a.shape()[0];
  mb.n = a.shape()[1];
  for (std::size_t i = 2; i < a.shape().size(); ++i) {
    mb.batch.push_back(a.shape()[i]);
    mb.count *= a.shape()[i];
  }
  return mb;
}

void require_square(const char* op, const Tensor& a, const char* name) {
  TF_CHECK(a.shape()[0] == a.shape()[1], ShapeError, op, "operand ", name, " must be square, got shape ",
           a.shape());
}

Shape with_batch(std::initializer_list<std::int64_t> lead, const Shape& batch) {
  Shape s(lead.begin(), lead.end());
  for (auto b : batch) s.push_back(b);
  return s;
}

std::string position(const Tensor& a, const char* name, std::int64_t b) {
  std::ostringstream os;
  if (a.ndim() <= 2) {
    os << "operand " << name << " (" << a.dtype() << " " << a.shape() << ")";
    return os.str();
  }
  DimVec idx;
  for (std::int64_t d = 2; d < a.ndim(); ++d) {
    idx.push_back(b % a.shape()[static_cast<std::size_t>(d)]);
    b /= a.shape()[static_cast<std::size_t>(d)];
  }
  os << "matrix " << idx << " of the batch (operand " << name << ", " << a.dtype() << " " << a.shape() << ")";
  return os.str();
}

/// A fresh column-major copy of `a` (cuSOLVER overwrites its input).
Tensor working_copy(CudaBackend& be, const Tensor& a) {
  Tensor buf = be.empty(a.dtype(), a.shape());
  detail::copy(be, buf, a);
  return buf;
}

/// ValueError naming the first matrix with a NaN/Inf in `region`.
void check_finite(CudaBackend& be, const char* op, const Tensor& a, const char* name, const Tensor& buf,
                  const MatrixBatch& mb, detail::Region region) {
  if (mb.count == 0 || mb.m * mb.n == 0) return;
  Tensor flags = be.empty(DType::i32, {mb.count});
  detail::launch_nonfinite_flags(buf.dtype(), buf.data_ptr(), mb.m, mb.n, mb.count, region,
                                 flags.data<std::int32_t>(), be.stream());
  check_cuda(cudaGetLastError(), op, "kernel launch");
  Tensor host = download(flags, be);
  auto f = host.host_data<std::int32_t>();
  for (std::int64_t b = 0; b < mb.count; ++b)
    TF_CHECK(f[static_cast<std::size_t>(b)] == 0, ValueError, op, position(a, name, b),
             " has a non-finite entry; NaN and Inf are rejected before cuSOLVER is called");
}

/// Reads the per-matrix info flags and throws for the first failure.
template <class Describe>
void throw_if_failed(CudaBackend& be, const char* op, const Tensor& a, const char* name, const Tensor& info,
                     Describe&& describe) {
  if (info.numel() == 0) return;
  Tensor host = download(info, be);
  auto v = host.host_data<std::int32_t>();
  for (std::int64_t b = 0; b < info.numel(); ++b) {
    const int i = v[static_cast<std::size_t>(b)];
    if (i == 0) continue;
    TF_CHECK(i > 0, BackendError, op, "cuSOLVER rejected argument ", -i, " for ", position(a, name, b));
    throw LinalgError(::tenferro::detail::str(op, ": ", position(a, name, b), " ", describe(i)), b, i);
  }
}

/// Device and host workspaces of a cuSOLVER call.
struct Workspace {
  std::shared_ptr<Storage> device;
  std::vector<char> host;
  std::size_t device_bytes = 0;
  void reserve(CudaBackend& be, std::size_t dev, std::size_t hst) {
    if (dev > device_bytes) {
      device = be.allocate_storage(dev);
      device_bytes = dev;
    }
    if (hst > host.size()) host.resize(hst);
  }
  void* dev_ptr() const { return device ? device->data() : nullptr; }
  void* host_ptr() { return host.empty() ? nullptr : host.data(); }
};

class Params {
 public:
  Params() { check_cusolver(cusolverDnCreateParams(&p_), "linalg", "cusolverDnCreateParams"); }
  ~Params() { cusolverDnDestroyParams(p_); }
  Params(const Params&) = delete;
  Params& operator=(const Params&) = delete;
  operator cusolverDnParams_t() const { return p_; }

 private:
  cusolverDnParams_t p_ = nullptr;
};

char* at(const Tensor& t, std::int64_t element) {
  return static_cast<char*>(t.data_ptr()) + element * static_cast<std::int64_t>(dtype_size(t.dtype()));
}

// ---- typed legacy cuSOLVER entry points (no 64-bit "X" version exists) -------------------

template <class T>
auto dev(T* p) {
  if constexpr (std::is_same_v<T, std::complex<float>>) return reinterpret_cast<cuComplex*>(p);
  else if constexpr (std::is_same_v<T, std::complex<double>>) return reinterpret_cast<cuDoubleComplex*>(p);
  else return p;
}

template <class T>
cusolverStatus_t orgqr_buffer(cusolverDnHandle_t h, int m, int n, int k, T* a, int lda, T* tau, int* lwork) {
  if constexpr (std::is_same_v<T, float>) return cusolverDnSorgqr_bufferSize(h, m, n, k, a, lda, tau, lwork);
  else if constexpr (std::is_same_v<T, double>) return cusolverDnDorgqr_bufferSize(h, m, n, k, a, lda, tau, lwork);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCungqr_bufferSize(h, m, n, k, dev(a), lda, dev(tau), lwork);
  else return cusolverDnZungqr_bufferSize(h, m, n, k, dev(a), lda, dev(tau), lwork);
}
template <class T>
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, int lda, T* tau, T* work, int lwork,
                       int* info) {
  if constexpr (std::is_same_v<T, float>) return cusolverDnSorgqr(h, m, n, k, a, lda, tau, work, lwork, info);
  else if constexpr (std::is_same_v<T, double>) return cusolverDnDorgqr(h, m, n, k, a, lda, tau, work, lwork, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCungqr(h, m, n, k, dev(a), lda, dev(tau), dev(work), lwork, info);
  else return cusolverDnZungqr(h, m, n, k, dev(a), lda, dev(tau), dev(work), lwork, info);
}

template <class T, class R = real_t<T>>
cusolverStatus_t gesvdj_buffer(cusolverDnHandle_t h, cusolverEigMode_t jobz, int econ, int m, int n, T* a, int lda,
                               R* s, T* u, int ldu, T* v, int ldv, int* lwork, gesvdjInfo_t p) {
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSgesvdj_bufferSize(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, lwork, p);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDgesvdj_bufferSize(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, lwork, p);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCgesvdj_bufferSize(h, jobz, econ, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, lwork, p);
  else return cusolverDnZgesvdj_bufferSize(h, jobz, econ, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, lwork, p);
}
template <class T, class R = real_t<T>>
cusolverStatus_t gesvdj(cusolverDnHandle_t h, cusolverEigMode_t jobz, int econ, int m, int n, T* a, int lda, R* s,
                        T* u, int ldu, T* v, int ldv, T* work, int lwork, int* info, gesvdjInfo_t p) {
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSgesvdj(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, p);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDgesvdj(h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, p);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCgesvdj(h, jobz, econ, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, dev(work), lwork, info, p);
  else
    return cusolverDnZgesvdj(h, jobz, econ, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, dev(work), lwork, info, p);
}
template <class T, class R = real_t<T>>
cusolverStatus_t gesvdj_batched_buffer(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, T* a, int lda,
                                       R* s, T* u, int ldu, T* v, int ldv, int* lwork, gesvdjInfo_t p, int batch) {
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSgesvdjBatched_bufferSize(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, lwork, p, batch);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDgesvdjBatched_bufferSize(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, lwork, p, batch);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCgesvdjBatched_bufferSize(h, jobz, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, lwork, p, batch);
  else
    return cusolverDnZgesvdjBatched_bufferSize(h, jobz, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, lwork, p, batch);
}
template <class T, class R = real_t<T>>
cusolverStatus_t gesvdj_batched(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, T* a, int lda, R* s,
                                T* u, int ldu, T* v, int ldv, T* work, int lwork, int* info, gesvdjInfo_t p,
                                int batch) {
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSgesvdjBatched(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, p, batch);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDgesvdjBatched(h, jobz, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, p, batch);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCgesvdjBatched(h, jobz, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, dev(work), lwork, info,
                                    p, batch);
  else
    return cusolverDnZgesvdjBatched(h, jobz, m, n, dev(a), lda, s, dev(u), ldu, dev(v), ldv, dev(work), lwork, info,
                                    p, batch);
}
template <class T, class R = real_t<T>>
cusolverStatus_t syevj_batched_buffer(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
                                      T* a, int lda, R* w, int* lwork, syevjInfo_t p, int batch) {
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSsyevjBatched_bufferSize(h, jobz, uplo, n, a, lda, w, lwork, p, batch);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDsyevjBatched_bufferSize(h, jobz, uplo, n, a, lda, w, lwork, p, batch);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCheevjBatched_bufferSize(h, jobz, uplo, n, dev(a), lda, w, lwork, p, batch);
  else return cusolverDnZheevjBatched_bufferSize(h, jobz, uplo, n, dev(a), lda, w, lwork, p, batch);
}
template <class T, class R = real_t<T>>
cusolverStatus_t syevj_batched(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T* a,
                               int lda, R* w, T* work, int lwork, int* info, syevjInfo_t p, int batch) {
  if constexpr (std::is_same_v<T, float>)
    return cusolverDnSsyevjBatched(h, jobz, uplo, n, a, lda, w, work, lwork, info, p, batch);
  else if constexpr (std::is_same_v<T, double>)
    return cusolverDnDsyevjBatched(h, jobz, uplo, n, a, lda, w, work, lwork, info, p, batch);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return cusolverDnCheevjBatched(h, jobz, uplo, n, dev(a), lda, w, dev(work), lwork, info, p, batch);
  else return cusolverDnZheevjBatched(h, jobz, uplo, n, dev(a), lda, w, dev(work), lwork, info, p, batch);
}

int to_int(const char* op, std::int64_t v) {
  TF_CHECK(v <= 2147483647, UnimplementedError, op, "extent ", v, " exceeds cuSOLVER's 32-bit interface");
  return static_cast<int>(v);
}

/// vh = v^H for column-major [n, k, batch] v (a conjugating transposed copy).
void adjoint_into(CudaBackend& be, const Tensor& v, const Tensor& vh) {
  DimVec perm{1, 0};
  for (std::int64_t d = 2; d < v.ndim(); ++d) perm.push_back(d);
  Tensor vt = v.permute(perm);
  if (is_complex(v.dtype())) {
    const Tensor in[] = {vt};
    be.execute(OpKind::conj, NoAttrs{}, in, vh);
  } else {
    detail::copy(be, vh, vt);
  }
}

// ---- SVD --------------------------------------------------------------------------------

constexpr const char* kSvd = "linalg.svd";

/// jobz: 0 values only, 1 reduced vectors, 2 full vectors.
SvdResult svd_impl(const char* op, const Tensor& a, int jobz, CudaBackend& be) {
  const MatrixBatch mb = matrices(op, a, "a", be);
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t m = mb.m, n = mb.n, k = std::min(m, n), count = mb.count;
  const std::int64_t ku = jobz == 2 ? m : k, kv = jobz == 2 ? n : k;
  const DType d = a.dtype();
  SvdResult r;
  r.s = be.empty(real_dtype(d), with_batch({k}, mb.batch));
  if (jobz > 0) {
    r.u = be.empty(d, with_batch({m, ku}, mb.batch));
    r.vh = be.empty(d, with_batch({kv, n}, mb.batch));
  }
  if (count == 0) return r;
  if (k == 0) {
    if (jobz == 2) {
      detail::launch_identity(d, m, count, r.u.data_ptr(), be.stream());
      detail::launch_identity(d, n, count, r.vh.data_ptr(), be.stream());
    }
    return r;
  }
  Tensor buf = working_copy(be, a);
  check_finite(be, op, a, "a", buf, mb, detail::Region::all);
  const int im = to_int(op, m), in = to_int(op, n);
  // V (n x kv per matrix) before it is conjugate-transposed into vh.
  Tensor u = jobz > 0 ? r.u : be.empty(d, {m, 1, count});
  Tensor v = be.empty(d, {n, jobz > 0 ? kv : 1, count});
  Tensor info = be.empty(DType::i32, {count});
  cusolverDnHandle_t h = be.state().cusolver_handle();
  const cusolverEigMode_t mode = jobz > 0 ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  gesvdjInfo_t params = nullptr;
  check_cusolver(cusolverDnCreateGesvdjInfo(&params), op, "cusolverDnCreateGesvdjInfo");
  struct Destroy {
    gesvdjInfo_t p;
    ~Destroy() { cusolverDnDestroyGesvdjInfo(p); }
  } destroy{params};
  visit_dtype<kFloatDTypes>(d, op, [&]<class T>() {
    using R = real_t<T>;
    T* A = static_cast<T*>(buf.data_ptr());
    R* S = static_cast<R*>(r.s.data_ptr());
    int* inf = info.data<std::int32_t>();
    int lwork = 0;
    if (m <= kSmallBatched && n <= kSmallBatched && count > 1 && count <= 2147483647) {
      // Batched Jacobi: full U [m, m] and V [n, n] per matrix.
      Tensor uf = be.empty(d, {m, m, count}), vf = be.empty(d, {n, n, count});
      T* U = static_cast<T*>(uf.data_ptr());
      T* V = static_cast<T*>(vf.data_ptr());
      const int batch = static_cast<int>(count);
      check_cusolver(gesvdj_batched_buffer<T>(h, mode, im, in, A, im, S, U, im, V, in, &lwork, params, batch), op,
                     "gesvdjBatched_bufferSize");
      Tensor work = be.empty(d, {std::max(lwork, 1)});
      check_cusolver(gesvdj_batched<T>(h, mode, im, in, A, im, S, U, im, V, in, static_cast<T*>(work.data_ptr()),
                                       lwork, inf, params, batch),
                     op, "gesvdjBatched");
      if (jobz > 0) {
        detail::copy(be, r.u, detail::restride(uf, {m, ku, count}, {1, m, m * m}, 0));
        detail::copy(be, v, detail::restride(vf, {n, kv, count}, {1, n, n * n}, 0));
      }
      return;
    }
    const int econ = jobz == 2 ? 0 : 1;
    const int ldu = im, ldv = in;
    const std::int64_t ucols = jobz > 0 ? ku : 1, vcols = jobz > 0 ? kv : 1;
    T* U = static_cast<T*>(u.data_ptr());
    T* V = static_cast<T*>(v.data_ptr());
    check_cusolver(gesvdj_buffer<T>(h, mode, econ, im, in, A, im, S, U, ldu, V, ldv, &lwork, params), op,
                   "gesvdj_bufferSize");
    Tensor work = be.empty(d, {std::max(lwork, 1)});
    for (std::int64_t b = 0; b < count; ++b)
      check_cusolver(gesvdj<T>(h, mode, econ, im, in, A + b * m * n, im, S + b * k,
                               jobz > 0 ? U + b * m * ucols : U, ldu, jobz > 0 ? V + b * n * vcols : V, ldv,
                               static_cast<T*>(work.data_ptr()), lwork, inf + b, params),
                     op, "gesvdj");
  });
  throw_if_failed(be, op, a, "a", info, [](int i) {
    return ::tenferro::detail::str("did not converge (cuSOLVER gesvdj info ", i, ")");
  });
  if (jobz > 0) adjoint_into(be, v.reshape(with_batch({n, kv}, mb.batch)), r.vh);
  return r;
}

// ---- QR ----------------------------------------------------------------------------------

constexpr const char* kQr = "linalg.qr";

}  // namespace

SvdResult svd(const Tensor& a, bool full_matrices, CudaBackend& be) {
  return svd_impl(kSvd, a, full_matrices ? 2 : 1, be);
}

Tensor svdvals(const Tensor& a, CudaBackend& be) { return svd_impl("linalg.svdvals", a, 0, be).s; }

QrResult qr(const Tensor& a, std::string_view mode_name, CudaBackend& be) {
  const char* op = kQr;
  TF_CHECK(mode_name == "reduced" || mode_name == "complete" || mode_name == "r", ValueError, op,
           "mode must be \"reduced\", \"complete\" or \"r\", got \"", mode_name, "\"");
  const MatrixBatch mb = matrices(op, a, "a", be);
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t m = mb.m, n = mb.n, k = std::min(m, n), count = mb.count;
  const bool complete = mode_name == "complete", want_q = mode_name != "r";
  const std::int64_t kq = complete ? m : k;  // columns of Q, rows of R
  const DType d = a.dtype();
  QrResult r;
  r.q = want_q ? be.empty(d, with_batch({m, kq}, mb.batch)) : be.empty(d, with_batch({0, 0}, mb.batch));
  r.r = be.empty(d, with_batch({kq, n}, mb.batch));
  if (count == 0 || r.r.numel() + r.q.numel() == 0) return r;
  Tensor buf = working_copy(be, a);
  check_finite(be, op, a, "a", buf, mb, detail::Region::all);
  Tensor tau = be.empty(d, {std::max<std::int64_t>(k, 1), count});
  Tensor info = be.empty(DType::i32, {count});
  cusolverDnHandle_t h = be.state().cusolver_handle();
  Params params;
  Workspace ws;
  if (k > 0) {
    std::size_t dev_bytes = 0, host_bytes = 0;
    check_cusolver(cusolverDnXgeqrf_bufferSize(h, params, m, n, data_type(d), buf.data_ptr(), m, data_type(d),
                                               tau.data_ptr(), data_type(d), &dev_bytes, &host_bytes),
                   op, "cusolverDnXgeqrf_bufferSize");
    ws.reserve(be, dev_bytes, host_bytes);
    for (std::int64_t b = 0; b < count; ++b)
      check_cusolver(cusolverDnXgeqrf(h, params, m, n, data_type(d), at(buf, b * m * n), m, data_type(d),
                                      at(tau, b * std::max<std::int64_t>(k, 1)), data_type(d), ws.dev_ptr(), dev_bytes,
                                      ws.host_ptr(), host_bytes, info.data<std::int32_t>() + b),
                     op, "cusolverDnXgeqrf");
  } else {
    check_cuda(cudaMemsetAsync(info.data_ptr(), 0, static_cast<std::size_t>(count) * 4, stream_of(be)), op,
               "cudaMemsetAsync");
  }
  // R: the upper triangle of the first kq rows (rows >= m of a complete R do not exist).
  detail::launch_extract(d, detail::MatrixPart::upper, kq, n, count, buf.data_ptr(), m, m * n, r.r.data_ptr(),
                         be.stream());
  if (want_q && m > 0) {
    // Q from the k reflectors: the first min(kq, n) columns of the factor, then orgqr/ungqr.
    const std::int64_t cols = std::min(kq, n);
    if (cols > 0)
      detail::copy(be, detail::restride(r.q, {m, cols, count}, {1, m, m * kq}, 0),
                   detail::restride(buf, {m, cols, count}, {1, m, m * n}, 0));
    if (k == 0) {
      if (kq > 0) detail::launch_identity(d, m, count, r.q.data_ptr(), be.stream());  // complete, n == 0
    } else {
      visit_dtype<kFloatDTypes>(d, op, [&]<class T>() {
        const int im = to_int(op, m), iq = to_int(op, kq), ik = static_cast<int>(k);
        T* Q = static_cast<T*>(r.q.data_ptr());
        T* Tau = static_cast<T*>(tau.data_ptr());
        int lwork = 0;
        check_cusolver(orgqr_buffer<T>(h, im, iq, ik, Q, im, Tau, &lwork), op, "orgqr_bufferSize");
        Tensor work = be.empty(d, {std::max(lwork, 1)});
        for (std::int64_t b = 0; b < count; ++b)
          check_cusolver(orgqr<T>(h, im, iq, ik, Q + b * m * kq, im, Tau + b * k, static_cast<T*>(work.data_ptr()),
                                  lwork, info.data<std::int32_t>() + b),
                         op, "orgqr/ungqr");
      });
    }
  }
  detail::check_cuda(cudaGetLastError(), op, "kernel launch");
  throw_if_failed(be, op, a, "a", info, [](int i) { return ::tenferro::detail::str("failed (cuSOLVER info ", i, ")"); });
  return r;
}

namespace {

/// getrf of every matrix of `buf` (m x n each) in place: 1-based int64
/// pivots [k, count]; info flags per matrix (info > 0: U[i-1, i-1] == 0).
void getrf_all(CudaBackend& be, const char* op, const Tensor& buf, std::int64_t m, std::int64_t n,
               std::int64_t count, const Tensor& pivots, const Tensor& info) {
  const std::int64_t k = std::min(m, n);
  cusolverDnHandle_t h = be.state().cusolver_handle();
  Params params;
  std::size_t dev_bytes = 0, host_bytes = 0;
  const cudaDataType t = data_type(buf.dtype());
  check_cusolver(cusolverDnXgetrf_bufferSize(h, params, m, n, t, buf.data_ptr(), std::max<std::int64_t>(m, 1), t,
                                             &dev_bytes, &host_bytes),
                 op, "cusolverDnXgetrf_bufferSize");
  Workspace ws;
  ws.reserve(be, dev_bytes, host_bytes);
  for (std::int64_t b = 0; b < count; ++b)
    check_cusolver(cusolverDnXgetrf(h, params, m, n, t, at(buf, b * m * n), std::max<std::int64_t>(m, 1),
                                    pivots.data<std::int64_t>() + b * k, t, ws.dev_ptr(), dev_bytes, ws.host_ptr(),
                                    host_bytes, info.data<std::int32_t>() + b),
                   op, "cusolverDnXgetrf");
}

}  // namespace

LuResult lu(const Tensor& a, bool permutation_matrix, CudaBackend& be) {
  const char* op = "linalg.lu";
  const MatrixBatch mb = matrices(op, a, "a", be);
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t m = mb.m, n = mb.n, k = std::min(m, n), count = mb.count;
  const DType d = a.dtype();
  LuResult r;
  r.perm = be.empty(DType::i64, with_batch({m}, mb.batch));
  r.l = be.empty(d, with_batch({m, k}, mb.batch));
  r.u = be.empty(d, with_batch({k, n}, mb.batch));
  r.p = permutation_matrix ? be.empty(d, with_batch({m, m}, mb.batch)) : be.empty(d, with_batch({0, 0}, mb.batch));
  if (count == 0) return r;
  Tensor buf = working_copy(be, a);
  check_finite(be, op, a, "a", buf, mb, detail::Region::all);
  Tensor pivots = be.empty(DType::i64, {std::max<std::int64_t>(k, 1), count});
  Tensor info = be.empty(DType::i32, {count});
  if (k > 0) getrf_all(be, op, buf, m, n, count, pivots, info);
  detail::launch_extract(d, detail::MatrixPart::unit_lower, m, k, count, buf.data_ptr(), m, m * n, r.l.data_ptr(),
                         be.stream());
  detail::launch_extract(d, detail::MatrixPart::upper, k, n, count, buf.data_ptr(), m, m * n, r.u.data_ptr(),
                         be.stream());
  detail::launch_pivots_to_perm(pivots.data<std::int64_t>(), m, k, count, r.perm.data<std::int64_t>(),
                                permutation_matrix ? r.p.data_ptr() : nullptr, d, nullptr, be.stream());
  detail::check_cuda(cudaGetLastError(), op, "kernel launch");
  if (k > 0) {
    // A singular U is not an error for lu; only argument errors are.
    Tensor host = download(info, be);
    for (std::int32_t i : host.host_data<std::int32_t>())
      TF_CHECK(i >= 0, BackendError, op, "cuSOLVER getrf rejected argument ", -i);
  }
  return r;
}

LuFactorResult lu_factor(const Tensor& a, CudaBackend& be) {
  const char* op = "linalg.lu_factor";
  const MatrixBatch mb = matrices(op, a, "a", be);
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t m = mb.m, n = mb.n, k = std::min(m, n), count = mb.count;
  LuFactorResult r;
  r.lu = be.empty(a.dtype(), a.shape());
  r.pivots = be.empty(DType::i64, with_batch({k}, mb.batch));
  if (count == 0 || r.lu.numel() == 0) return r;
  detail::copy(be, r.lu, a);
  check_finite(be, op, a, "a", r.lu, mb, detail::Region::all);
  Tensor pivots = be.empty(DType::i64, {std::max<std::int64_t>(k, 1), count});
  Tensor info = be.empty(DType::i32, {count});
  getrf_all(be, op, r.lu, m, n, count, pivots, info);
  Tensor perm = be.empty(DType::i64, {m, count});
  detail::launch_pivots_to_perm(pivots.data<std::int64_t>(), m, k, count, perm.data<std::int64_t>(), nullptr,
                                a.dtype(), r.pivots.data<std::int64_t>(), be.stream());
  detail::check_cuda(cudaGetLastError(), op, "kernel launch");
  Tensor host = download(info, be);
  for (std::int32_t i : host.host_data<std::int32_t>())
    TF_CHECK(i >= 0, BackendError, op, "cuSOLVER getrf rejected argument ", -i);
  return r;
}

Tensor cholesky(const Tensor& a, bool lower, CudaBackend& be) {
  const char* op = "linalg.cholesky";
  const MatrixBatch mb = matrices(op, a, "a", be);
  require_square(op, a, "a");
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t n = mb.n, count = mb.count;
  Tensor out = be.empty(a.dtype(), a.shape());
  if (count == 0 || n == 0) return out;
  detail::copy(be, out, a);
  check_finite(be, op, a, "a", out, mb, lower ? detail::Region::lower : detail::Region::upper);
  Tensor info = be.empty(DType::i32, {count});
  cusolverDnHandle_t h = be.state().cusolver_handle();
  Params params;
  const cudaDataType t = data_type(a.dtype());
  const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  std::size_t dev_bytes = 0, host_bytes = 0;
  check_cusolver(cusolverDnXpotrf_bufferSize(h, params, uplo, n, t, out.data_ptr(), n, t, &dev_bytes, &host_bytes),
                 op, "cusolverDnXpotrf_bufferSize");
  Workspace ws;
  ws.reserve(be, dev_bytes, host_bytes);
  for (std::int64_t b = 0; b < count; ++b)
    check_cusolver(cusolverDnXpotrf(h, params, uplo, n, t, at(out, b * n * n), n, t, ws.dev_ptr(), dev_bytes,
                                    ws.host_ptr(), host_bytes, info.data<std::int32_t>() + b),
                   op, "cusolverDnXpotrf");
  // The triangle potrf did not write is zero in the result (in place).
  detail::launch_extract(a.dtype(), lower ? detail::MatrixPart::lower : detail::MatrixPart::upper, n, n, count,
                         out.data_ptr(), n, n * n, out.data_ptr(), be.stream());
  detail::check_cuda(cudaGetLastError(), op, "kernel launch");
  throw_if_failed(be, op, a, "a", info, [](int i) {
    return ::tenferro::detail::str("is not positive definite: its leading minor of order ", i,
                                   " is not (cuSOLVER potrf info ", i, ")");
  });
  return out;
}

EighResult eigh(const Tensor& a, bool lower, CudaBackend& be) {
  const char* op = "linalg.eigh";
  const MatrixBatch mb = matrices(op, a, "a", be);
  require_square(op, a, "a");
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t n = mb.n, count = mb.count;
  const DType d = a.dtype();
  EighResult r;
  r.eigenvalues = be.empty(real_dtype(d), with_batch({n}, mb.batch));
  r.eigenvectors = be.empty(d, a.shape());
  if (count == 0 || n == 0) return r;
  Tensor& v = r.eigenvectors;
  detail::copy(be, v, a);
  check_finite(be, op, a, "a", v, mb, lower ? detail::Region::lower : detail::Region::upper);
  Tensor info = be.empty(DType::i32, {count});
  cusolverDnHandle_t h = be.state().cusolver_handle();
  const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  const cusolverEigMode_t jobz = CUSOLVER_EIG_MODE_VECTOR;
  if (n <= kSmallBatched && count > 1 && count <= 2147483647) {
    syevjInfo_t params = nullptr;
    check_cusolver(cusolverDnCreateSyevjInfo(&params), op, "cusolverDnCreateSyevjInfo");
    struct Destroy {
      syevjInfo_t p;
      ~Destroy() { cusolverDnDestroySyevjInfo(p); }
    } destroy{params};
    visit_dtype<kFloatDTypes>(d, op, [&]<class T>() {
      using R = real_t<T>;
      const int in = static_cast<int>(n), batch = static_cast<int>(count);
      T* A = static_cast<T*>(v.data_ptr());
      R* W = static_cast<R*>(r.eigenvalues.data_ptr());
      int lwork = 0;
      check_cusolver(syevj_batched_buffer<T>(h, jobz, uplo, in, A, in, W, &lwork, params, batch), op,
                     "syevjBatched_bufferSize");
      Tensor work = be.empty(d, {std::max(lwork, 1)});
      check_cusolver(syevj_batched<T>(h, jobz, uplo, in, A, in, W, static_cast<T*>(work.data_ptr()), lwork,
                                      info.data<std::int32_t>(), params, batch),
                     op, "syevjBatched");
    });
  } else {
    Params params;
    const cudaDataType t = data_type(d), rt = real_data_type(d);
    std::size_t dev_bytes = 0, host_bytes = 0;
    check_cusolver(cusolverDnXsyevd_bufferSize(h, params, jobz, uplo, n, t, v.data_ptr(), n, rt,
                                               r.eigenvalues.data_ptr(), t, &dev_bytes, &host_bytes),
                   op, "cusolverDnXsyevd_bufferSize");
    Workspace ws;
    ws.reserve(be, dev_bytes, host_bytes);
    for (std::int64_t b = 0; b < count; ++b)
      check_cusolver(cusolverDnXsyevd(h, params, jobz, uplo, n, t, at(v, b * n * n), n, rt,
                                      at(r.eigenvalues, b * n), t, ws.dev_ptr(), dev_bytes, ws.host_ptr(), host_bytes,
                                      info.data<std::int32_t>() + b),
                     op, "cusolverDnXsyevd");
  }
  throw_if_failed(be, op, a, "a", info, [](int i) {
    return ::tenferro::detail::str("did not converge (cuSOLVER syevd/syevj info ", i, ")");
  });
  return r;
}

Tensor solve(const Tensor& a, const Tensor& b, CudaBackend& be) {
  const char* op = "linalg.solve";
  const MatrixBatch mb = matrices(op, a, "a", be);
  require_square(op, a, "a");
  TF_CHECK(b.defined() && b.device() == be.device(), DeviceError, op, "operand b is on ",
           b.defined() ? b.device() : Device::cpu(), " but backend '", be.name(), "' runs on ", be.device());
  TF_CHECK(b.dtype() == a.dtype(), DTypeError, op, "operands a (", a.dtype(), ") and b (", b.dtype(),
           ") must have one dtype");
  const std::int64_t n = mb.n, count = mb.count;
  const bool vector = b.ndim() == 1;
  TF_CHECK(vector ? (a.ndim() == 2 && b.shape()[0] == n)
                  : (b.ndim() == a.ndim() && b.shape()[0] == n &&
                     std::equal(b.shape().begin() + 2, b.shape().end(), a.shape().begin() + 2)),
           ShapeError, op, "b of shape ", b.shape(), " does not fit a of shape ", a.shape(),
           " (expected [n, r, batch...] with the batch of a, or [n] for an unbatched a)");
  detail::DeviceGuard guard(be.ordinal());
  const std::int64_t nrhs = vector ? 1 : b.shape()[1];
  Tensor x = be.empty(b.dtype(), b.shape());
  if (count == 0 || x.numel() == 0) {
    if (n > 0 && count > 0) {
      Tensor buf = working_copy(be, a);
      check_finite(be, op, a, "a", buf, mb, detail::Region::all);
    }
    return x;
  }
  Tensor buf = working_copy(be, a);
  check_finite(be, op, a, "a", buf, mb, detail::Region::all);
  detail::copy(be, x, b);
  MatrixBatch bb{n, nrhs, count, mb.batch};
  check_finite(be, op, b, "b", x, bb, detail::Region::all);
  Tensor pivots = be.empty(DType::i64, {n, count});
  Tensor info = be.empty(DType::i32, {count});
  getrf_all(be, op, buf, n, n, count, pivots, info);
  throw_if_failed(be, op, a, "a", info, [](int i) {
    return ::tenferro::detail::str("is singular: U[", i - 1, ", ", i - 1, "] is exactly zero (cuSOLVER getrf info ",
                                   i, ")");
  });
  cusolverDnHandle_t h = be.state().cusolver_handle();
  Params params;
  const cudaDataType t = data_type(a.dtype());
  for (std::int64_t k = 0; k < count; ++k)
    check_cusolver(cusolverDnXgetrs(h, params, CUBLAS_OP_N, n, nrhs, t, at(buf, k * n * n), n,
                                    pivots.data<std::int64_t>() + k * n, t, at(x, k * n * nrhs), n,
                                    info.data<std::int32_t>() + k),
                   op, "cusolverDnXgetrs");
  throw_if_failed(be, op, a, "a", info, [](int i) { return ::tenferro::detail::str("failed (getrs info ", i, ")"); });
  return x;
}

}  // namespace tenferro::cuda

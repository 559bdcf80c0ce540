#pragma once
// Shared pieces of the linalg family: operand checks for inference, the
// batch-of-matrices view of a strided tensor, copies into LAPACK's layout,
// the non-finite scan, the (OpenMP) batch loop and failure reporting.
// Private to src/linalg.
//
// Note [Batch loop]: a kernel checks its operands (shapes in `infer`, values
// here: non-finite entries, pivots) before it writes anything, then walks
// the batch once. Each thread owns one workspace, sized by one LAPACK
// workspace query (made when the thread reaches its first matrix that goes
// to LAPACK) and reused for all its matrices. A LAPACK failure does not stop
// the loop; it is recorded per matrix, and after the loop the first failing
// matrix is reported as a LinalgError, so a throwing call never returns
// (partial) output. The batch is split across threads when it has enough
// arithmetic to pay for a parallel region and the matrices are small (LAPACK
// threads large ones itself) or at least as many as the threads; a loop that
// stays on one thread keeps LAPACK on one thread too for matrices up to
// order 256 (Note [LAPACK threads]).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "lapack.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/ops/family.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/tensor/strided_copy.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::linalg::detail {

using lapack::lapack_int;

// ---- inference helpers ----------------------------------------------------------
// Templates over the extent type D: std::int64_t (concrete inference) or Dim
// (symbolic inference, traced programs). One inference per op serves both
// (Note [Declaring a linalg op] in ops.hpp); a check that symbolic extents
// cannot decide yet passes and is made again when the program runs.

/// a != b is certain (always decided for concrete extents).
inline bool differs(std::int64_t a, std::int64_t b) { return a != b; }
inline bool differs(const Dim& a, const Dim& b) { return known_different(a, b); }
/// The value of a constant extent (always, for concrete extents).
inline std::optional<std::int64_t> constant_extent(std::int64_t v) { return v; }
inline std::optional<std::int64_t> constant_extent(const Dim& d) { return d.try_value(); }

/// min(a, b); over symbols, a fresh symbol bound when the op runs unless
/// the answer is decidable now.
inline std::int64_t min_extent(std::int64_t a, std::int64_t b) { return std::min(a, b); }
inline Dim min_extent(const Dim& a, const Dim& b) {
  if (known_equal(a, b)) return a;
  auto x = a.try_value(), y = b.try_value();
  if (x && y) return Dim(std::min(*x, *y));
  return Dim::fresh("k");
}

/// Extents of a matrix operand [rows, cols, batch...].
template <class D>
struct BasicMatrixShape {
  D rows{};
  D cols{};
  ExtentList<D> batch;
};
using MatrixShape = BasicMatrixShape<std::int64_t>;

/// Checks that operand `name` of `op` has a float dtype and rank >= 2.
template <class D>
BasicMatrixShape<D> matrix_shape(const char* op, const BasicTensorMeta<D>& m, const char* name) {
  TF_CHECK(is_float(m.dtype), DTypeError, op, "operand ", name, " has dtype ", m.dtype,
           "; expected one of ", kFloatDTypes);
  TF_CHECK(m.shape.size() >= 2, ShapeError, op, "operand ", name,
           " must be a matrix [m, n, batch...] of rank >= 2, got shape ", m.shape);
  return {m.shape[0], m.shape[1], ExtentList<D>(m.shape.begin() + 2, m.shape.end())};
}
/// ShapeError unless rows == cols.
template <class D>
void require_square(const char* op, const BasicTensorMeta<D>& m, const char* name) {
  TF_CHECK(!differs(m.shape[0], m.shape[1]), ShapeError, op, "operand ", name,
           " must be square [n, n, batch...], got shape ", m.shape);
}
/// DTypeError unless both operands have one dtype.
template <class D>
void require_same_dtype(const char* op, const BasicTensorMeta<D>& a, const char* an,
                        const BasicTensorMeta<D>& b, const char* bn) {
  TF_CHECK(a.dtype == b.dtype, DTypeError, op, "operands ", an, " and ", bn,
           " must have one dtype, got ", a.dtype, " and ", b.dtype);
}
/// ShapeError unless the batch axes agree.
template <class D>
void require_same_batch(const char* op, const BasicMatrixShape<D>& a, const BasicTensorMeta<D>& am,
                        const char* an, const BasicMatrixShape<D>& b, const BasicTensorMeta<D>& bm,
                        const char* bn) {
  bool same = a.batch.size() == b.batch.size();
  for (std::size_t i = 0; same && i < a.batch.size(); ++i) same = !differs(a.batch[i], b.batch[i]);
  TF_CHECK(same, ShapeError, op, "batch axes (axes 2...) differ: ", an, " ", am.shape, " vs ", bn,
           " ", bm.shape, "; they must agree exactly");
}
/// `lead` followed by `batch` (with_batch<D> in generic inference).
template <class D>
ExtentList<D> with_batch(std::initializer_list<std::type_identity_t<D>> lead, const ExtentList<D>& batch) {
  ExtentList<D> s(lead.begin(), lead.end());
  for (const D& e : batch) s.push_back(e);
  return s;
}
inline Shape with_batch(std::initializer_list<std::int64_t> lead, const Shape& batch) {
  return with_batch<std::int64_t>(lead, batch);
}

/// A right-hand side operand: [n, r, batch...] with the batch of a
/// [n, n, batch...] matrix, or a vector [n] when that matrix has no batch.
/// Returns the matrix shape with `is_vector` set for a vector (then cols = 1).
template <class D>
struct RhsShape {
  BasicMatrixShape<D> shape;
  bool is_vector = false;
};
template <class D>
RhsShape<D> rhs_shape(const char* op, const BasicTensorMeta<D>& a, const BasicMatrixShape<D>& as,
                      const BasicTensorMeta<D>& b, const char* an, const char* bn, const D& rows_expected) {
  require_same_dtype(op, a, an, b, bn);
  if (b.shape.size() == 1) {
    TF_CHECK(as.batch.empty(), ShapeError, op, "a vector ", bn, " ", b.shape,
             " needs an unbatched ", an, ", got ", an, " ", a.shape, "; give ", bn,
             " as [n, r, batch...]");
    TF_CHECK(!differs(b.shape[0], rows_expected), ShapeError, op, "operand ", bn, " ", b.shape,
             " must have ", rows_expected, " rows to match ", an, " ", a.shape);
    return {{b.shape[0], D(1), {}}, true};
  }
  BasicMatrixShape<D> bs = matrix_shape(op, b, bn);
  TF_CHECK(!differs(bs.rows, rows_expected), ShapeError, op, "operand ", bn, " ", b.shape,
           " must have ", rows_expected, " rows to match ", an, " ", a.shape);
  require_same_batch(op, as, a, an, bs, b, bn);
  return {bs, false};
}

/// The inference of an op on one square matrix whose output is like it.
template <class D>
std::vector<BasicTensorMeta<D>> infer_square(const char* op, std::span<const BasicTensorMeta<D>> in) {
  matrix_shape(op, in[0], "a");
  require_square(op, in[0], "a");
  return {in[0]};
}

/// A real attribute >= 0 (or the negative "default" sentinel when allowed).
double checked_tolerance(const char* op, const char* key, double v, bool allow_negative_default);

/// The metadata of a tensor (for a kernel that reuses its op's inference).
inline TensorMeta meta_of(const Tensor& t) { return {t.dtype(), t.shape()}; }

// ---- kernel helpers ------------------------------------------------------------------

/// The matrices of a tensor [rows, cols, batch...]: strides of the matrix
/// axes and the element offset of each matrix from `data_ptr()`, in
/// column-major order over the batch axes (all 0 for an empty tensor).
struct MatrixBatch {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t rs = 1;  ///< stride of axis 0
  std::int64_t cs = 1;  ///< stride of axis 1
  std::vector<std::int64_t> offsets;
  std::int64_t count() const { return static_cast<std::int64_t>(offsets.size()); }
};
/// `t` must have rank >= 2 (a vector [n] is given as `t.expand_dims(1)`).
MatrixBatch matrix_batch(const Tensor& t);

/// How LAPACK can read a matrix in place: column-major with leading
/// dimension `ld` (transposed = false), or its transpose is (transposed = true).
struct InPlaceLayout {
  bool ok = false;
  bool transposed = false;
  std::int64_t ld = 1;
};
InPlaceLayout in_place_layout(const MatrixBatch& mb);

/// Copies a rows x cols matrix with strides (rs, cs) into column-major
/// memory with leading dimension ld.
template <class T>
void copy_matrix(T* dst, std::int64_t ld, const T* src, std::int64_t rows, std::int64_t cols,
                 std::int64_t rs, std::int64_t cs) {
  if (rows == 0 || cols == 0) return;
  if (rs == 1 && (cols == 1 || (cs == rows && ld == rows))) {
    std::copy_n(src, rows * cols, dst);  // one contiguous block
  } else if (rs == 1) {
    for (std::int64_t j = 0; j < cols; ++j) std::copy_n(src + j * cs, rows, dst + j * ld);
  } else if (rows * cols >= 4096) {
    // Large transposed copies go through the cache-blocked strided copy.
    tenferro::detail::copy_strided(dst, Strides{1, ld}, src, Strides{rs, cs}, Shape{rows, cols},
                                   sizeof(T));
  } else {
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) dst[i + j * ld] = src[i * rs + j * cs];
  }
}

/// Copies matrix `b` of `mb` (in the tensor whose data starts at `base`).
template <class T>
void load_matrix(T* dst, std::int64_t ld, const T* base, const MatrixBatch& mb, std::int64_t b) {
  copy_matrix(dst, ld, base + mb.offsets[static_cast<std::size_t>(b)], mb.rows, mb.cols, mb.rs,
              mb.cs);
}

template <class T>
bool is_finite_value(const T& v) {
  if constexpr (is_complex_v<T>)
    return std::isfinite(v.real()) && std::isfinite(v.imag());
  else
    return std::isfinite(v);
}

/// Which part of a matrix an op reads.
enum class Region { all, lower, upper };

/// ValueError naming `op`, operand `name`, the element and its batch entry
/// when `t` (rank >= 1; a vector is one column) has a NaN or Inf where
/// `region` says the op reads it.
void check_finite(const char* op, const Tensor& t, const char* name, Region region = Region::all);

/// "matrix [1, 0] of the batch (operand a, f64 [3, 3, 2, 2])" or
/// "the matrix (operand a, f64 [3, 3])".
std::string matrix_position(const Tensor& t, const char* name, std::int64_t b);

/// LAPACK infos per matrix of a batch (0: success).
class BatchStatus {
 public:
  explicit BatchStatus(std::int64_t count) : info_(static_cast<std::size_t>(count), 0) {}
  void set(std::int64_t b, int info) { info_[static_cast<std::size_t>(b)] = info; }
  /// The first failing matrix, or -1.
  std::int64_t first_failure() const {
    for (std::size_t b = 0; b < info_.size(); ++b)
      if (info_[b] != 0) return static_cast<std::int64_t>(b);
    return -1;
  }
  int info(std::int64_t b) const { return info_[static_cast<std::size_t>(b)]; }

 private:
  std::vector<int> info_;
};

/// InternalError for a negative info (an argument LAPACK rejected: a bug here).
void check_lapack_args(const char* op, const char* routine, int info);

/// Throws LinalgError for the first failure in `status`, if any; `describe`
/// turns (info > 0) into the problem text ("is singular: U[2, 2] is exactly
/// zero"); a negative info (LAPACK rejected an argument) is an internal error.
template <class Describe>
void throw_if_failed(const char* op, const Tensor& t, const char* name, const BatchStatus& status,
                     Describe&& describe) {
  std::int64_t b = status.first_failure();
  if (b < 0) return;
  int info = status.info(b);
  check_lapack_args(op, "routine", info);
  throw LinalgError(
      ::tenferro::detail::str(op, ": ", matrix_position(t, name, b), " ", describe(info)), b, info);
}

/// ValueError when an extent does not fit LAPACK's 32-bit integers.
lapack_int to_lapack_int(const char* op, std::int64_t v);

/// Estimated flops below which a batch stays on one thread.
inline constexpr double kParallelWork = 1 << 17;

/// Estimated flops per matrix (rows * cols * min(rows, cols)) up to which
/// LAPACK runs on one thread (Note [LAPACK threads]).
inline constexpr double kThreadedLapackWork = 256.0 * 256.0 * 256.0;
/// The same for LU factorizations (getrf), which gain from a second thread
/// from order 256 (Note [LAPACK threads]; smaller orders were not measured
/// again and keep one thread).
inline constexpr double kThreadedGetrfWork = 256.0 * 256.0 * 256.0 - 1.0;
/// The same for least squares (gelsd), which loses at two threads up to
/// 512 x 256 (rows * cols * min) and gains at 1024 x 512 (Note [LAPACK
/// threads]).
inline constexpr double kThreadedGelsdWork = 512.0 * 256.0 * 256.0;

/// How a batch loop runs: split across threads, or on the calling thread
/// with LAPACK kept to one thread.
struct BatchSplit {
  bool parallel = false;
  bool one_lapack_thread = false;
};

/// The split of a batch of `count` rows x cols problems (Note [Batch loop]);
/// LAPACK keeps one thread up to `threaded_work` flops per matrix.
BatchSplit split_batch(std::int64_t count, std::int64_t rows, std::int64_t cols,
                       double threaded_work = kThreadedLapackWork);

/// Note [LAPACK threads]: OpenBLAS's OpenMP build runs a call on as many
/// threads as the calling thread's OpenMP setting. For matrices up to order
/// 256 that was slower at two threads than at one for seven of eight
/// operations on a 2-vCPU VM (bench_peer --mode=linalg, 256 x 256, ms at one
/// / two threads: cholesky 0.52 / 0.70, solve 1.17 / 1.34, lu 1.36 / 1.56,
/// det 1.20 / 1.42, qr 5.5 / 6.5, eigh 11.8 / 13.9), and the arithmetic is
/// too little to gain much on more cores. Such matrices run with the calling
/// thread's setting lowered to one for the loop (a per-thread setting: other
/// threads are not affected) and restored after it. Measured again later
/// (bench_peer --mode=linalg --threads=2, two pinned vCPUs of an AMD EPYC
/// VM, min of three alternating runs, ms one LAPACK thread / two): getrf
/// alone gains, lu 0.529 / 0.459 and det 0.490 / 0.436, while cholesky
/// 0.227 / 0.282 and qr 2.23 / 2.32 still lose; LU factorizations take the
/// lower limit kThreadedGetrfWork. Least squares (gelsd, whose bidiagonal
/// reduction is matrix-vector work) lost at two threads on 512 x 256 (the
/// peer report's jvp_lstsq/256 13.5 ms at one thread, 14.0 at two) and
/// gains on 1024 x 512 (73 / 63 ms); with the higher limit
/// kThreadedGelsdWork, jvp_lstsq/256 at two threads took 13.1-13.3 ms
/// against 13.9-14.1 (bench_peer_ad --mode=jvp_vjp --threads=2
/// --filter=lstsq, three alternating runs, two pinned vCPUs).
class OneLapackThread {
 public:
  explicit OneLapackThread(bool on) : saved_(on ? omp_get_max_threads() : 0) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~OneLapackThread() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  OneLapackThread(const OneLapackThread&) = delete;
  OneLapackThread& operator=(const OneLapackThread&) = delete;

 private:
  int saved_;
};

/// Kernel scratch as pieces of one buffer from the backend (Note [Buffer
/// cache]: LAPACK workspaces from malloc are fresh pages, faulted in on
/// every call), each piece 64-byte aligned. `add` records a pointer and a
/// count; `allocate` gets the buffer and points every recorded pointer at
/// its piece:
///
///   double* work;
///   lapack_int* ipiv;
///   Scratch s;
///   s.add(work, lwork);
///   s.add(ipiv, n);
///   s.allocate(be);  // work and ipiv now usable
class Scratch {
 public:
  template <class U>
  void add(U*& p, std::int64_t count) {
    const std::size_t offset = bytes_;
    bytes_ +=
        (static_cast<std::size_t>(std::max<std::int64_t>(count, 0)) * sizeof(U) + 63) / 64 * 64;
    bind_.push_back([&p, offset](unsigned char* base) { p = reinterpret_cast<U*>(base + offset); });
  }
  void allocate(Backend& be) {
    memory_ = be.allocate_storage(bytes_);
    for (auto& bind : bind_) bind(static_cast<unsigned char*>(memory_->data()));
    bind_.clear();
  }

 private:
  std::size_t bytes_ = 0;
  std::vector<std::function<void(unsigned char*)>> bind_;
  std::shared_ptr<Storage> memory_;
};

/// Order from which one matrix on several threads runs linalg.eigh in
/// phases (Note [Eigh in phases] in eig.cpp).
inline constexpr std::int64_t kPhasedEighMin = 64;
inline bool use_phased_eigh(std::int64_t n) {
  return n >= kPhasedEighMin && get_num_threads() > 1 && !omp_in_parallel();
}

/// Order from which one square real matrix on several threads runs
/// linalg.svd in phases (Note [SVD in phases] in svd.cpp).
inline constexpr std::int64_t kPhasedSvdMin = 128;
inline bool use_phased_svd(std::int64_t m, std::int64_t n) {
  return m == n && n >= kPhasedSvdMin && get_num_threads() > 1 && !omp_in_parallel();
}

/// Runs body(b, state) for b in [0, count), with one `state = make_state()`
/// per thread, in parallel when `split.parallel` (the body must not throw).
template <class MakeState, class Body>
void for_each_batch(std::int64_t count, BatchSplit split, MakeState&& make_state, Body&& body) {
  if (count <= 0) return;
  if (!split.parallel || count < 2 || get_num_threads() <= 1 || omp_in_parallel()) {
    OneLapackThread one(split.one_lapack_thread && !omp_in_parallel());
    auto state = make_state();
    for (std::int64_t b = 0; b < count; ++b) body(b, state);
    return;
  }
  int threads = static_cast<int>(std::min<std::int64_t>(get_num_threads(), count));
#pragma omp parallel num_threads(threads)
  {
    auto state = make_state();
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < count; ++b) body(b, state);
  }
}

/// Machine epsilon of the real type of T.
template <class T>
constexpr double eps_of() {
  return static_cast<double>(std::numeric_limits<real_t<T>>::epsilon());
}

/// Typed pointer to the first element of a host tensor.
template <class T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

/// The empty [0, 0, batch...] tensor of an output that was not requested
/// (Note [Unrequested outputs] in tenferro/linalg/family.hpp).
Tensor unrequested_output(Backend& backend, DType dtype, const Shape& batch);

/// Fills a column-major rows x cols matrix with the identity.
template <class T>
void set_identity(T* p, std::int64_t rows, std::int64_t cols) {
  std::fill(p, p + rows * cols, T(0));
  for (std::int64_t i = 0; i < std::min(rows, cols); ++i) p[i + i * rows] = T(1);
}

}  // namespace tenferro::linalg::detail

#pragma once
/// \file
/// Error types of tenferro.
///
/// Every public function reports bad input by throwing a subclass of
/// `tenferro::Error`. The message always starts with the operation name and
/// names the offending shapes, dtypes, devices or values:
///
/// ```cpp
/// try {
///   auto v = t.reshape({7});                  // t has 6 elements
/// } catch (const tenferro::ShapeError& e) {
///   // e.what(): "reshape: cannot view shape [2, 3] (6 elements) as [7] (7 elements)"
/// }
/// ```
///
/// A failed call leaves every tensor it was given unchanged.

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <cstddef>
#include <utility>

namespace tenferro {

/// Broad class of an error, for programs that branch on it.
enum class ErrorCode {
  InvalidArgument,  ///< bad shapes, dtypes, attributes, strings
  OutOfRange,       ///< indices, axes or slice bounds outside the tensor
  Unimplemented,    ///< a valid request that this build cannot serve
  BackendFailure,   ///< a library (BLAS, LAPACK, CUDA, ...) reported failure
  ResourceExhausted,///< more memory than the limit allows (MemoryError)
  Internal,         ///< a bug in tenferro
};

/// Base of all tenferro exceptions.
///
/// A layer that catches an error to say where it happened adds that context
/// in place and rethrows the same object, so the error keeps its dynamic type
/// (a `LinalgError` stays catchable as `LinalgError`, with its fields):
///
/// ```cpp
/// try {
///   run_step();
/// } catch (tenferro::Error& e) {
///   e.prepend_context("run_compiled: instruction %3 = linalg.solve: ");
///   throw;  // not `throw e;`, which would slice to the static type
/// }
/// ```
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code), message_(std::make_shared<std::string>(message)) {}
  ErrorCode code() const noexcept { return code_; }
  /// The message, including any context prepended since construction.
  const char* what() const noexcept override { return message_->c_str(); }
  /// Puts `context` in front of the message. Copies of an error share its
  /// message (copying stays nothrow), so every copy sees the context.
  void prepend_context(std::string_view context);

 private:
  ErrorCode code_;
  std::shared_ptr<std::string> message_;
};

/// Shapes that do not fit together (broadcasting, reshape, contraction sizes).
class ShapeError : public Error {
 public:
  explicit ShapeError(const std::string& m) : Error(ErrorCode::InvalidArgument, m) {}
};

/// A dtype the operation does not accept, or two dtypes that must agree.
class DTypeError : public Error {
 public:
  explicit DTypeError(const std::string& m) : Error(ErrorCode::InvalidArgument, m) {}
};

/// Tensors on different devices, or a device the backend does not own.
class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& m) : Error(ErrorCode::InvalidArgument, m) {}
};

/// Axes, indices or slice bounds outside the tensor.
class IndexError : public Error {
 public:
  explicit IndexError(const std::string& m) : Error(ErrorCode::OutOfRange, m) {}
};

/// Any other invalid argument (bad attribute, malformed string, overflow).
class ValueError : public Error {
 public:
  explicit ValueError(const std::string& m) : Error(ErrorCode::InvalidArgument, m) {}
};

/// A valid request that this build or backend does not implement.
class UnimplementedError : public Error {
 public:
  explicit UnimplementedError(const std::string& m) : Error(ErrorCode::Unimplemented, m) {}
};

/// A library call (BLAS, LAPACK, CUDA, FFT provider) reported a failure.
class BackendError : public Error {
 public:
  explicit BackendError(const std::string& m) : Error(ErrorCode::BackendFailure, m) {}
};

/// An allocation larger than the host memory limit allows, refused before
/// any memory is touched (tenferro/tensor/storage.hpp, `host_memory_limit`).
///
/// ```cpp
/// try {
///   auto t = tenferro::Tensor::zeros({1 << 20, 1 << 20});   // 8 TiB
/// } catch (const tenferro::MemoryError& e) {
///   // e.what(): "zeros: 8796093022208 bytes (8 TiB) requested, but the host memory
///   //            limit is 20.1 GiB (the memory available now)"
///   std::size_t asked = e.requested_bytes(), limit = e.limit_bytes();
/// }
/// ```
class MemoryError : public Error {
 public:
  MemoryError(const std::string& message, std::size_t requested, std::size_t limit)
      : Error(ErrorCode::ResourceExhausted, message), requested_(requested), limit_(limit) {}
  /// Bytes the failed allocation asked for.
  std::size_t requested_bytes() const noexcept { return requested_; }
  /// The limit it was held to (for a budget set with `set_host_memory_limit`,
  /// the budget left when it was asked).
  std::size_t limit_bytes() const noexcept { return limit_; }

 private:
  std::size_t requested_;
  std::size_t limit_;
};

/// A factorization or solve failed on one matrix of a batch: singular
/// matrices (`solve`, `inv`, `lu_solve`, `triangular_solve`), matrices that
/// are not positive definite (`cholesky`), non-convergence (`svd`, `eigh`,
/// `eig`, `lstsq`), on any backend (LAPACK, cuSOLVER). No output is
/// returned when it is thrown, and the operands are unchanged.
///
/// ```cpp
/// try {
///   auto x = tenferro::linalg::solve(a, b, cpu);   // a: [3, 3, 4], matrix 2 singular
/// } catch (const tenferro::LinalgError& e) {
///   // e.what(): "linalg.solve: matrix [2] of the batch (operand a, f64 [3, 3, 4]) is
///   //            singular: U[1, 1] of its LU factorisation is exactly zero
///   //            (LAPACK getrf info 2)"
///   std::int64_t which = e.batch_index();   // 2
///   int info = e.info();                    // 2
/// }
/// ```
class LinalgError : public Error {
 public:
  LinalgError(const std::string& message, std::int64_t batch_index, int info)
      : Error(ErrorCode::BackendFailure, message), batch_index_(batch_index), info_(info) {}
  /// Column-major linear index of the failing matrix over the batch axes
  /// (0 for an unbatched operand).
  std::int64_t batch_index() const noexcept { return batch_index_; }
  /// The LAPACK `info` code (> 0) of the failure (the same code for the
  /// built-in small-matrix kernels, e.g. the index + 1 of a zero pivot).
  int info() const noexcept { return info_; }

 private:
  std::int64_t batch_index_;
  int info_;
};

/// A violated internal invariant: a bug in tenferro, please report it.
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& m) : Error(ErrorCode::Internal, m) {}
};

namespace detail {

/// Concatenates streamable values into a string (message building).
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

[[noreturn]] void internal_assert_fail(const char* cond, const char* file, int line,
                                       const std::string& msg);

}  // namespace detail
}  // namespace tenferro

/// Throws `ErrorType(op + ": " + message)` unless `cond` holds.
/// `TF_CHECK(n >= 0, ShapeError, "reshape", "negative size ", n);`
#define TF_CHECK(cond, ErrorType, op, ...)                                           \
  do {                                                                               \
    if (!(cond)) [[unlikely]]                                                        \
      throw ::tenferro::ErrorType(::tenferro::detail::str(op, ": ", __VA_ARGS__));  \
  } while (0)

/// Unconditionally throws `ErrorType(op + ": " + message)`.
#define TF_THROW(ErrorType, op, ...) \
  throw ::tenferro::ErrorType(::tenferro::detail::str(op, ": ", __VA_ARGS__))

/// Internal invariant (a bug if it fails); always checked, throws InternalError.
#define TF_INTERNAL_ASSERT(cond, ...)                                                    \
  do {                                                                                   \
    if (!(cond)) [[unlikely]]                                                            \
      ::tenferro::detail::internal_assert_fail(#cond, __FILE__, __LINE__,                \
                                               ::tenferro::detail::str("" __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)

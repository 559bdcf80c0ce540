#pragma once
/// \file
/// `Tensor`: a runtime-dtype, strided, column-major-by-default tensor handle.
///
/// ```cpp
/// using namespace tenferro;
/// Tensor a = Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5, 6});
/// // a = [[1, 3, 5],
/// //      [2, 4, 6]]            (axis 0 is fastest in memory)
/// Tensor at = a.permute({1, 0});   // a view: no copy, strides [2, 1]
/// double x = at.at<double>({2, 1}); // 6
/// Tensor c = at.contiguous();      // copies now, because `at` is not column-major
/// ```
///
/// A `Tensor` is a handle: copying it copies the handle, not the data; both
/// handles see the same `Storage`. Views (`permute`, `slice`, `select`,
/// `reshape`, `diagonal`, `broadcast_to`, `flip`, `transpose`) only change
/// shape, strides and offset. Everything that allocates says so in its
/// documentation (`contiguous`, `duplicate`, `reshape_copy`, factories, ops).
///
/// **Threads.** Copying, destroying and reading handles from several threads
/// is safe (the storage's reference count is atomic), also when they share a
/// storage. Writing elements (`set`, a kernel writing an output, `copy_from`)
/// is not synchronised: no other thread may read or write that storage
/// meanwhile.
///
/// This layer holds data, views, copies and element access only. Functions
/// that compute (`add`, `matmul`, `sum`, ...) are free functions of the ops
/// layer that take the backend that runs them: `tenferro::matmul(a, b,
/// backend)` (tenferro/ops/sugar.hpp, docs/ops_surface.md).

#include <complex>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "tenferro/tensor/device.hpp"
#include "tenferro/tensor/dtype.hpp"
#include "tenferro/tensor/error.hpp"
#include "tenferro/tensor/scalar.hpp"
#include "tenferro/tensor/shape.hpp"
#include "tenferro/tensor/storage.hpp"

namespace tenferro {

/// "Up to the end of the axis" for `SliceSpec::stop`.
inline constexpr std::int64_t kSliceEnd = std::numeric_limits<std::int64_t>::max();

/// Half-open range [start, stop) taken every `step` (> 0) elements of one axis.
struct SliceSpec {
  std::int64_t start = 0;
  std::int64_t stop = kSliceEnd;
  std::int64_t step = 1;
};

class Tensor {
 public:
  /// An undefined tensor (no storage); `defined()` is false. (User-provided
  /// so that value-initialised arrays of tensors are not zero-filled first.)
  ///
  /// An undefined tensor has no elements: `numel()` is 0 and its `shape()`
  /// is empty. Its metadata accessors (`defined`, `dtype`, `shape`,
  /// `strides`, `offset`, `ndim`, `numel`, `device`, `storage`) answer;
  /// every view, copy and element access (`reshape`, `broadcast_to`,
  /// `contiguous`, `to_vec_col_major`, `at`, `item`, ...) throws
  /// ValueError naming the operation: "reshape: tensor is undefined ...".
  Tensor() {}
  /// A view of `storage` with the given layout; checks that every addressed
  /// element lies inside the storage (IndexError), and ValueError when the
  /// layout's element offsets overflow int64.
  Tensor(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides,
         std::int64_t offset);

  // ---- metadata --------------------------------------------------------
  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  /// Offset of element (0, ..., 0) from the start of the storage, in elements.
  std::int64_t offset() const { return offset_; }
  std::int64_t ndim() const { return static_cast<std::int64_t>(shape_.size()); }
  /// Number of elements: the product of the extents (1 for rank 0), and 0
  /// for an undefined tensor.
  std::int64_t numel() const;
  /// Extent of `axis` (negative counts from the end).
  std::int64_t size(std::int64_t axis) const;
  Device device() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  /// True when both tensors view the same storage.
  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }

  /// Column-major contiguous: strides equal `col_major_strides(shape)`
  /// (axes of extent 1 may have any stride).
  bool is_contiguous() const;
  bool is_row_major_contiguous() const;

  /// Pointer to element (0, ..., 0), on the tensor's device (raw bytes).
  void* data_ptr() const;
  /// Typed pointer to element (0, ..., 0); checks the dtype.
  template <class T>
  T* data() const {
    check_dtype(dtype_of<T>, "data");
    return static_cast<T*>(data_ptr());
  }

  // ---- factories (host memory; all allocate) ----------------------------
  // A bad shape (a negative extent, more elements than fit in int64 or bytes
  // than fit in memory) is a ValueError naming the factory called
  // ("zeros: negative extent -1 in shape [-1, 2]"); from_vec_row_major
  // reports the shape it was given, not the reversed one it lays out.
  /// Uninitialised column-major host tensor.
  static Tensor empty(const Shape& shape, DType dtype);
  static Tensor zeros(const Shape& shape, DType dtype = DType::f64);
  static Tensor ones(const Shape& shape, DType dtype = DType::f64);
  static Tensor full(const Shape& shape, Scalar value, DType dtype);
  /// The n x m identity (m defaults to n).
  static Tensor eye(std::int64_t n, DType dtype = DType::f64);
  static Tensor eye(std::int64_t n, std::int64_t m, DType dtype);
  /// 0, 1, ..., n-1.
  static Tensor arange(std::int64_t n, DType dtype = DType::f64);
  /// start, start+step, ... while < stop (> stop for negative step).
  static Tensor arange(double start, double stop, double step, DType dtype);
  /// Uniform in [low, high) from a seeded xoshiro256** stream; for complex
  /// dtypes the real and imaginary parts are drawn independently. The same
  /// seed gives the same values on every platform.
  static Tensor uniform(const Shape& shape, DType dtype, std::uint64_t seed, double low = 0.0,
                        double high = 1.0);
  /// Normal(mean, stddev) by Box-Muller from the same stream (complex: each
  /// part drawn with the given stddev).
  static Tensor normal(const Shape& shape, DType dtype, std::uint64_t seed, double mean = 0.0,
                       double stddev = 1.0);
  /// Copies `values` (column-major order) into a new tensor.
  template <class T>
  static Tensor from_vec_col_major(const Shape& shape, const std::vector<T>& values);
  /// Takes `values` in row-major (C) order; returns a permuted view of one
  /// column-major buffer, without copying or reordering the values.
  template <class T>
  static Tensor from_vec_row_major(const Shape& shape, const std::vector<T>& values);
  /// A rank-0 tensor.
  template <class T>
  static Tensor scalar(T value) {
    return from_vec_col_major<T>(Shape{}, std::vector<T>{value});
  }

  // ---- views (metadata only; never copy) --------------------------------
  /// out.shape[i] = shape[perm[i]].
  Tensor permute(const DimVec& perm) const;
  /// Swaps axes 0 and 1, the matrix axes (rank >= 2; trailing batch axes
  /// stay): [m, n, b...] -> [n, m, b...]. Use `permute` for other orders.
  Tensor transpose() const;
  Tensor slice(std::int64_t axis, std::int64_t start, std::int64_t stop,
               std::int64_t step = 1) const;
  /// One spec per leading axis; later axes are kept whole.
  Tensor slice(const std::vector<SliceSpec>& specs) const;
  /// Fixes `axis` at `index` and drops it.
  Tensor select(std::int64_t axis, std::int64_t index) const;
  /// Reinterprets the shape (column-major element order); one extent may be
  /// -1. Throws ShapeError when the layout does not allow a view: use
  /// `reshape_copy` then.
  Tensor reshape(const Shape& shape) const;
  /// The diagonal of axes (axis1, axis2) as a new last axis (NumPy's
  /// convention); `offset` > 0 is above the main diagonal.
  Tensor diagonal(std::int64_t axis1 = 0, std::int64_t axis2 = 1, std::int64_t offset = 0) const;
  /// NumPy broadcasting to `shape` (trailing axes aligned): stride 0 on
  /// broadcast axes.
  Tensor broadcast_to(const Shape& shape) const;
  /// Reverses the listed axes (negative strides).
  Tensor flip(const DimVec& axes) const;
  /// Inserts an axis of extent 1 at position `axis` (in [0, ndim]).
  Tensor expand_dims(std::int64_t axis) const;

  // ---- copies (allocate) -------------------------------------------------
  /// This tensor if it is column-major contiguous, else a contiguous copy.
  Tensor contiguous() const;
  /// Always a fresh column-major contiguous copy.
  Tensor duplicate() const;
  /// `contiguous()` followed by `reshape(shape)`.
  Tensor reshape_copy(const Shape& shape) const;
  /// Copies the elements of `src` (same shape, same dtype) into this tensor's
  /// memory (host tensors).
  void copy_from(const Tensor& src) const;

  // ---- element access (host tensors) ------------------------------------
  /// The elements of a column-major contiguous host tensor.
  template <class T>
  std::span<T> host_data() const;
  /// Read-only `host_data`.
  template <class T>
  std::span<const T> as_slice() const {
    return host_data<T>();
  }
  /// Element at a multi-index (bounds checked).
  template <class T>
  T at(const DimVec& index) const {
    check_dtype(dtype_of<T>, "at");
    return *static_cast<const T*>(element_ptr(index, "at"));
  }
  /// Writes one element (bounds checked).
  template <class T>
  void set(const DimVec& index, T value) const {
    check_dtype(dtype_of<T>, "set");
    // A Tensor is a handle: const is shallow, the elements stay writable.
    *static_cast<T*>(const_cast<void*>(element_ptr(index, "set"))) = value;
  }
  /// All elements in column-major order (any layout).
  template <class T>
  std::vector<T> to_vec_col_major() const;
  /// The single element of a one-element tensor.
  Scalar item() const;

 protected:
  /// Throws ValueError naming `op` when the tensor is undefined.
  void check_defined(const char* op) const;
  void check_dtype(DType expected, const char* op) const;
  const void* element_ptr(const DimVec& index, const char* op) const;
  void* element_ptr(const DimVec& index, const char* op);

 private:
  Tensor with_layout(Shape shape, Strides strides, std::int64_t offset) const;
  // The factories' shared steps; errors name `op` (the factory called).
  static Tensor allocate_host(const Shape& shape, DType dtype, const char* op);
  static Tensor filled(const Shape& shape, Scalar value, DType dtype, const char* op);
  static std::int64_t check_value_count(const Shape& shape, std::size_t count, const char* op);

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Strides strides_;
  std::int64_t offset_ = 0;
  DType dtype_ = DType::f64;
};

/// Prints dtype, shape and (for tensors up to 1000 elements) the values;
/// matrices print as rows, higher ranks as [:, :, k...] slices.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- template definitions ------------------------------------------------

template <class T>
Tensor Tensor::from_vec_col_major(const Shape& shape, const std::vector<T>& values) {
  std::int64_t n = check_value_count(shape, values.size(), "from_vec_col_major");
  Tensor t = allocate_host(shape, dtype_of<T>, "from_vec_col_major");
  T* p = static_cast<T*>(t.data_ptr());
  for (std::int64_t i = 0; i < n; ++i) p[i] = values[static_cast<std::size_t>(i)];
  return t;
}

template <class T>
Tensor Tensor::from_vec_row_major(const Shape& shape, const std::vector<T>& values) {
  // The row-major buffer of shape [a, b, c] is the column-major buffer of
  // shape [c, b, a]; reversing the axes gives the requested shape as a view.
  // Checked in the caller's terms: the name and shape it passed.
  check_value_count(shape, values.size(), "from_vec_row_major");
  Shape reversed(shape.rbegin(), shape.rend());
  Tensor t = from_vec_col_major<T>(reversed, values);
  DimVec perm;
  for (std::int64_t i = t.ndim() - 1; i >= 0; --i) perm.push_back(i);
  return t.permute(perm);
}

template <class T>
std::span<T> Tensor::host_data() const {
  check_defined("host_data");
  check_dtype(dtype_of<T>, "host_data");
  TF_CHECK(device().is_cpu(), DeviceError, "host_data", "tensor is on ", device(),
           "; download it to the host first");
  TF_CHECK(is_contiguous(), ValueError, "host_data", "tensor of shape ", shape_, " with strides ",
           strides_, " is not column-major contiguous; call contiguous() first");
  return {static_cast<T*>(data_ptr()), static_cast<std::size_t>(numel())};
}

}  // namespace tenferro

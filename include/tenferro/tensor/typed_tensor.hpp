#pragma once
/// \file
/// `TypedTensor<T>`: a `Tensor` whose dtype is fixed at compile time.
///
/// ```cpp
/// using namespace tenferro;
/// auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {3.0, 0.0, 0.0, 1.0});
/// double first = a.host_data()[0];        // 3.0, no dtype argument needed
/// Tensor dynamic = a;                     // same storage, runtime dtype f64
/// auto back = TypedTensor<double>(dynamic); // checked: throws DTypeError on mismatch
/// ```
///
/// It is a thin face over `Tensor` (it adds no state): every view returns a
/// `TypedTensor`. Computing functions are the ops layer's free functions,
/// which have typed overloads (`tenferro::matmul(a, b, backend)` returns a
/// `TypedTensor<T>`; tenferro/ops/sugar.hpp).

#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

template <class T>
class TypedTensor : public Tensor {
 public:
  using value_type = T;

  /// An undefined tensor.
  TypedTensor() = default;
  /// Checked conversion from a runtime-dtype tensor (DTypeError on mismatch).
  explicit TypedTensor(Tensor t) : Tensor(std::move(t)) {
    if (defined()) check_dtype(dtype_of<T>, "TypedTensor");
  }

  static TypedTensor from_vec_col_major(const Shape& shape, const std::vector<T>& values) {
    return TypedTensor(Tensor::from_vec_col_major<T>(shape, values));
  }
  static TypedTensor from_vec_row_major(const Shape& shape, const std::vector<T>& values) {
    return TypedTensor(Tensor::from_vec_row_major<T>(shape, values));
  }
  static TypedTensor empty(const Shape& s) { return TypedTensor(Tensor::empty(s, dtype_of<T>)); }
  static TypedTensor zeros(const Shape& s) { return TypedTensor(Tensor::zeros(s, dtype_of<T>)); }
  static TypedTensor ones(const Shape& s) { return TypedTensor(Tensor::ones(s, dtype_of<T>)); }
  static TypedTensor full(const Shape& s, T v) {
    return TypedTensor(Tensor::full(s, Scalar(v), dtype_of<T>));
  }
  static TypedTensor eye(std::int64_t n) { return TypedTensor(Tensor::eye(n, dtype_of<T>)); }
  static TypedTensor eye(std::int64_t n, std::int64_t m) {
    return TypedTensor(Tensor::eye(n, m, dtype_of<T>));
  }
  static TypedTensor arange(std::int64_t n) { return TypedTensor(Tensor::arange(n, dtype_of<T>)); }
  static TypedTensor uniform(const Shape& s, std::uint64_t seed, double low = 0.0,
                             double high = 1.0) {
    return TypedTensor(Tensor::uniform(s, dtype_of<T>, seed, low, high));
  }
  static TypedTensor normal(const Shape& s, std::uint64_t seed, double mean = 0.0,
                            double stddev = 1.0) {
    return TypedTensor(Tensor::normal(s, dtype_of<T>, seed, mean, stddev));
  }
  static TypedTensor scalar(T v) { return TypedTensor(Tensor::scalar<T>(v)); }

  // ---- element access ----------------------------------------------------
  T* data() const { return static_cast<T*>(data_ptr()); }
  std::span<T> host_data() const { return Tensor::host_data<T>(); }
  std::span<const T> as_slice() const { return Tensor::host_data<T>(); }
  T at(const DimVec& index) const { return Tensor::at<T>(index); }
  void set(const DimVec& index, T value) const { Tensor::set<T>(index, value); }
  std::vector<T> to_vec_col_major() const { return Tensor::to_vec_col_major<T>(); }
  T item() const { return Tensor::item().template to<T>(); }

  // ---- views ---------------------------------------------------------------
  TypedTensor permute(const DimVec& p) const { return TypedTensor(Tensor::permute(p)); }
  /// Swaps axes 0 and 1 (see Tensor::transpose).
  TypedTensor transpose() const { return TypedTensor(Tensor::transpose()); }
  TypedTensor slice(std::int64_t axis, std::int64_t start, std::int64_t stop,
                    std::int64_t step = 1) const {
    return TypedTensor(Tensor::slice(axis, start, stop, step));
  }
  TypedTensor slice(const std::vector<SliceSpec>& specs) const {
    return TypedTensor(Tensor::slice(specs));
  }
  TypedTensor select(std::int64_t axis, std::int64_t index) const {
    return TypedTensor(Tensor::select(axis, index));
  }
  TypedTensor reshape(const Shape& s) const { return TypedTensor(Tensor::reshape(s)); }
  TypedTensor diagonal(std::int64_t a1 = 0, std::int64_t a2 = 1, std::int64_t off = 0) const {
    return TypedTensor(Tensor::diagonal(a1, a2, off));
  }
  TypedTensor broadcast_to(const Shape& s) const { return TypedTensor(Tensor::broadcast_to(s)); }
  TypedTensor flip(const DimVec& axes) const { return TypedTensor(Tensor::flip(axes)); }
  TypedTensor expand_dims(std::int64_t axis) const {
    return TypedTensor(Tensor::expand_dims(axis));
  }
  TypedTensor contiguous() const { return TypedTensor(Tensor::contiguous()); }
  TypedTensor duplicate() const { return TypedTensor(Tensor::duplicate()); }
  TypedTensor reshape_copy(const Shape& s) const { return TypedTensor(Tensor::reshape_copy(s)); }
};

}  // namespace tenferro

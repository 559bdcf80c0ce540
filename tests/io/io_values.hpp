#pragma once
// The values of the io interop files (the formula of tests/io/io_values.py):
// element r in row-major (C) order of an array of dtype `d` is value<T>(r).
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <tenferro/tensor.hpp>

namespace io_test {

template <class T>
T value(std::int64_t r) {
  using namespace tenferro;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(static_cast<double>(r) * 0.5 - 3.0);
  } else if constexpr (is_complex_v<T>) {
    using R = real_t<T>;
    return T(static_cast<R>(static_cast<double>(r) * 0.5 - 3.0),
             static_cast<R>(1.0 - static_cast<double>(r) * 0.25));
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return static_cast<T>(r * 7 - 20);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return r * 3000000000LL - 5;
  } else {
    return r % 3 == 0;
  }
}

/// A column-major tensor of `shape` holding value<T>(row-major index).
template <class T>
tenferro::Tensor make(const tenferro::Shape& shape) {
  using namespace tenferro;
  Tensor t = Tensor::empty(shape, dtype_of<T>);
  Strides rm = row_major_strides(shape);
  std::int64_t n = t.numel();
  T* p = static_cast<T*>(t.data_ptr());
  for (std::int64_t c = 0; c < n; ++c) {  // c: column-major index
    std::int64_t rest = c, r = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) {
      r += (rest % shape[a]) * rm[a];
      rest /= shape[a];
    }
    p[c] = value<T>(r);
  }
  return t;
}

/// The same values in a row-major tensor (a permuted view of a fresh buffer).
template <class T>
tenferro::Tensor make_row_major(const tenferro::Shape& shape) {
  using namespace tenferro;
  Shape reversed(shape.rbegin(), shape.rend());
  DimVec perm;
  for (std::int64_t i = static_cast<std::int64_t>(shape.size()) - 1; i >= 0; --i) perm.push_back(i);
  Tensor t = Tensor::empty(reversed, dtype_of<T>).permute(perm);
  t.copy_from(make<T>(shape));
  return t;
}

/// Checks every element of `t` (any layout) against value<T>(row-major index).
template <class T>
void expect_values(const tenferro::Tensor& t, const tenferro::Shape& shape) {
  using namespace tenferro;
  ASSERT_EQ(t.dtype(), dtype_of<T>);
  ASSERT_EQ(t.shape(), shape);
  Strides rm = row_major_strides(shape);
  std::int64_t n = shape_numel(shape);
  for (std::int64_t r = 0; r < n; ++r) {
    DimVec idx(shape.size());
    for (std::size_t a = 0; a < shape.size(); ++a) idx[a] = (r / rm[a]) % shape[a];
    ASSERT_EQ(t.at<T>(idx), value<T>(r)) << "row-major element " << r;
  }
}

}  // namespace io_test

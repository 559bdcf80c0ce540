#include "support/test_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

namespace tenferro::testing {

Tensor random_tensor(const Shape& shape, DType dtype, std::uint64_t seed) {
  if (is_float(dtype)) return Tensor::uniform(shape, dtype, seed, -1.0, 1.0);
  Tensor u = Tensor::uniform(shape, DType::f64, seed, 0.0, 1.0);
  Tensor out = Tensor::empty(shape, dtype);
  auto src = u.host_data<double>();
  visit_dtype<kIntegerDTypes | DTypeSet{DType::bool_}>(dtype, "random_tensor", [&]<class T>() {
    auto dst = out.host_data<T>();
    for (std::size_t i = 0; i < dst.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) dst[i] = src[i] < 0.5;
      else dst[i] = static_cast<T>(std::floor(src[i] * 11.0) - 5.0);
    }
  });
  return out;
}

std::vector<DimVec> all_indices(const Shape& shape) {
  std::vector<DimVec> out;
  std::int64_t n = shape_numel(shape);
  DimVec idx(shape.size(), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    out.push_back(idx);
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor with_random_layout(const Tensor& t, std::uint64_t seed, int kind) {
  std::mt19937_64 rng(seed);
  if (kind < 0) kind = static_cast<int>(rng() % kNumLayouts);
  const std::int64_t r = t.ndim();
  if (r == 0 || kind == 0) return t.duplicate();
  DimVec all(static_cast<std::size_t>(r));
  std::iota(all.begin(), all.end(), 0);
  switch (kind) {
    case 1: {  // row-major
      DimVec rev(all.rbegin(), all.rend());
      Tensor buf = Tensor::empty(t.permute(rev).shape(), t.dtype());
      buf.copy_from(t.permute(rev));
      return buf.permute(rev);
    }
    case 2: {  // random permutation
      DimVec p = all;
      std::shuffle(p.begin(), p.end(), rng);
      DimVec inv(p.size());
      for (std::size_t i = 0; i < p.size(); ++i) inv[static_cast<std::size_t>(p[i])] = static_cast<std::int64_t>(i);
      Tensor buf = Tensor::empty(t.permute(p).shape(), t.dtype());
      buf.copy_from(t.permute(p));
      return buf.permute(inv);
    }
    case 3: {  // every other element of a larger buffer
      Shape big;
      for (auto n : t.shape()) big.push_back(2 * n + 1);
      Tensor buf = Tensor::zeros(big, t.dtype());
      std::vector<SliceSpec> specs;
      for (auto n : t.shape()) specs.push_back({1, 1 + 2 * n, 2});
      Tensor v = buf.slice(specs);
      v.copy_from(t);
      return v;
    }
    case 4: {  // reversed axes
      Tensor buf = Tensor::empty(t.shape(), t.dtype());
      buf.copy_from(t.flip(all));
      return buf.flip(all);
    }
    default: {  // permuted, strided, offset and one reversed axis
      DimVec p = all;
      std::shuffle(p.begin(), p.end(), rng);
      DimVec inv(p.size());
      for (std::size_t i = 0; i < p.size(); ++i) inv[static_cast<std::size_t>(p[i])] = static_cast<std::int64_t>(i);
      Tensor tp = t.permute(p);
      Shape big;
      for (auto n : tp.shape()) big.push_back(n + 3);
      Tensor buf = Tensor::zeros(big, t.dtype());
      std::vector<SliceSpec> specs;
      for (auto n : tp.shape()) specs.push_back({2, 2 + n, 1});
      Tensor v = buf.slice(specs);
      v.copy_from(tp.flip({0}));
      return v.flip({0}).permute(inv);  // negative stride on one axis
    }
  }
}

std::complex<double> value_at(const Tensor& t, const DimVec& index) {
  return visit_dtype(t.dtype(), "value_at", [&]<class T>() -> std::complex<double> {
    T v = t.at<T>(index);
    if constexpr (is_complex_v<T>) return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
    else return {static_cast<double>(v), 0.0};
  });
}

std::int64_t int_value_at(const Tensor& t, const DimVec& index) {
  return visit_dtype<kIntegerDTypes | DTypeSet{DType::bool_}>(
      t.dtype(), "int_value_at", [&]<class T>() { return static_cast<std::int64_t>(t.at<T>(index)); });
}

Tensor tensor_from_values(const Shape& shape, DType dtype,
                          const std::vector<std::complex<double>>& values) {
  std::int64_t n = shape_numel(shape);
  if (static_cast<std::int64_t>(values.size()) != n)
    throw std::invalid_argument("tensor_from_values: wrong number of values");
  Tensor t = Tensor::empty(shape, dtype);
  visit_dtype(dtype, "tensor_from_values", [&]<class T>() {
    T* p = t.data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto& v = values[i];
      if constexpr (std::is_same_v<T, bool>) p[i] = v != std::complex<double>(0, 0);
      else if constexpr (is_complex_v<T>) p[i] = T(static_cast<real_t<T>>(v.real()), static_cast<real_t<T>>(v.imag()));
      else if constexpr (std::is_integral_v<T>) p[i] = static_cast<T>(std::llround(v.real()));
      else p[i] = static_cast<T>(v.real());
    }
  });
  return t;
}

Tensor tensor_from_ints(const Shape& shape, DType dtype, const std::vector<std::int64_t>& values) {
  std::int64_t n = shape_numel(shape);
  if (static_cast<std::int64_t>(values.size()) != n)
    throw std::invalid_argument("tensor_from_ints: wrong number of values");
  Tensor t = Tensor::empty(shape, dtype);
  visit_dtype<kIntegerDTypes | DTypeSet{DType::bool_}>(dtype, "tensor_from_ints", [&]<class T>() {
    T* p = t.data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) p[i] = values[i] != 0;
      else p[i] = static_cast<T>(values[i]);  // modular (C++20)
    }
  });
  return t;
}

Tensor fake_device_tensor(const Shape& shape, DType dtype, Device device) {
  std::size_t bytes = static_cast<std::size_t>(shape_numel(shape)) * dtype_size(dtype);
  auto host = std::make_shared<std::vector<std::byte>>(std::max<std::size_t>(bytes, 1));
  auto storage = std::make_shared<Storage>(
      host->data(), bytes, device, [](void*, std::size_t, void*) {}, nullptr, host);
  return Tensor(storage, dtype, shape, col_major_strides(shape), 0);
}

Tensor empty_dense_permuted(const Shape& shape, DType dtype, const DimVec& order) {
  Strides st(shape.size(), 0);
  std::int64_t acc = 1;
  for (std::int64_t a : order) {
    st[static_cast<std::size_t>(a)] = acc;
    acc *= std::max<std::int64_t>(shape[static_cast<std::size_t>(a)], 1);
  }
  auto storage = Storage::allocate_host(static_cast<std::size_t>(shape_numel(shape)) * dtype_size(dtype));
  return Tensor(storage, dtype, shape, st, 0);
}

std::vector<DType> dtypes_in(DTypeSet set) {
  std::vector<DType> out;
  for (int i = 0; i < kNumDTypes; ++i)
    if (set.contains(static_cast<DType>(i))) out.push_back(static_cast<DType>(i));
  return out;
}

double dtype_eps(DType d) {
  switch (real_dtype(d)) {
    case DType::f32: return std::numeric_limits<float>::epsilon();
    case DType::f64: return std::numeric_limits<double>::epsilon();
    default: return 1.0;
  }
}

namespace {
bool part_close(double a, double b, double rtol, double atol) {
  if (std::isnan(b)) return std::isnan(a);
  if (std::isinf(b)) return a == b;
  return std::abs(a - b) <= atol + rtol * std::abs(b);
}
}  // namespace

::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected, double rtol,
                                         double atol) {
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure() << "dtype " << actual.dtype() << " != " << expected.dtype();
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure() << "shape " << actual.shape() << " != " << expected.shape();
  if (!is_float(actual.dtype())) {
    // Exact int64 comparison (doubles cannot hold every i64).
    for (const DimVec& idx : all_indices(actual.shape())) {
      std::int64_t a = int_value_at(actual, idx), b = int_value_at(expected, idx);
      long double diff = std::abs(static_cast<long double>(a) - static_cast<long double>(b));
      bool ok = a == b || diff <= atol + rtol * std::abs(static_cast<long double>(b));
      if (!ok)
        return ::testing::AssertionFailure() << "at index " << idx << ": got " << a << ", expected " << b
                                             << " (rtol " << rtol << ", atol " << atol << ")";
    }
    return ::testing::AssertionSuccess();
  }
  for (const DimVec& idx : all_indices(actual.shape())) {
    auto a = value_at(actual, idx), b = value_at(expected, idx);
    double scale = std::abs(b);
    bool ok = std::isnan(b.real()) || std::isnan(b.imag()) || std::isinf(b.real()) || std::isinf(b.imag())
                  ? part_close(a.real(), b.real(), rtol, atol) && part_close(a.imag(), b.imag(), rtol, atol)
                  : std::abs(a - b) <= atol + rtol * scale;
    if (!ok)
      return ::testing::AssertionFailure() << "at index " << idx << ": got " << a << ", expected " << b
                                           << " (rtol " << rtol << ", atol " << atol << ")";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult tensors_equal(const Tensor& actual, const Tensor& expected) {
  return tensors_close(actual, expected, 0.0, 0.0);
}

}  // namespace tenferro::testing

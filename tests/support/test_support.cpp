#include "support/test_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

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

#pragma once
// Test helpers: random operands, an independent reference dot_general
// (odometer loops with Tensor::at, sharing nothing with BLIS or the CPU
// kernels), element comparisons, and a provider that counts the calls the
// providers tried before it declined.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include <tenferro/cpu.hpp>
#include <tenferro/ops/kernels.hpp>
#include <tenferro/runtime.hpp>
#include <tenferro/tensor.hpp>
#include <tenferro_blis/blis_provider.hpp>

namespace tfblis_test {

using namespace tenferro;

inline Tensor random(const Shape& shape, DType dtype, std::uint64_t seed) {
  return Tensor::uniform(shape, dtype, seed, -1.0, 1.0);
}

inline bool contains(const DimVec& v, std::int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Steps `idx` through the box `ext` (first index fastest); false at the end.
inline bool next_index(std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& ext) {
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (++idx[i] < ext[i]) return true;
    idx[i] = 0;
  }
  return false;
}

// dot_general by its definition (StableHLO: output axes batch..., lhs free..., rhs free...).
template <class T>
Tensor reference_dot(const DotGeneralAttrs& d, const Tensor& a, const Tensor& b) {
  DimVec af, bf;
  for (std::int64_t i = 0; i < a.ndim(); ++i)
    if (!contains(d.lhs_batching_dimensions, i) && !contains(d.lhs_contracting_dimensions, i))
      af.push_back(i);
  for (std::int64_t i = 0; i < b.ndim(); ++i)
    if (!contains(d.rhs_batching_dimensions, i) && !contains(d.rhs_contracting_dimensions, i))
      bf.push_back(i);
  auto ext = [](const Tensor& t, std::int64_t axis) {
    return t.shape()[static_cast<std::size_t>(axis)];
  };
  Shape out_shape;
  for (auto x : d.lhs_batching_dimensions) out_shape.push_back(ext(a, x));
  for (auto x : af) out_shape.push_back(ext(a, x));
  for (auto x : bf) out_shape.push_back(ext(b, x));
  Tensor c = Tensor::zeros(out_shape, a.dtype());
  std::vector<std::int64_t> kext;
  for (auto x : d.lhs_contracting_dimensions) kext.push_back(ext(a, x));
  const std::vector<std::int64_t> oext(out_shape.begin(), out_shape.end());
  for (auto e : oext)
    if (e == 0) return c;
  std::vector<std::int64_t> o(oext.size(), 0);
  const std::size_t nb = d.lhs_batching_dimensions.size();
  do {
    DimVec ia(static_cast<std::size_t>(a.ndim()), 0), ib(static_cast<std::size_t>(b.ndim()), 0);
    for (std::size_t i = 0; i < nb; ++i) {
      ia[static_cast<std::size_t>(d.lhs_batching_dimensions[i])] = o[i];
      ib[static_cast<std::size_t>(d.rhs_batching_dimensions[i])] = o[i];
    }
    for (std::size_t i = 0; i < af.size(); ++i) ia[static_cast<std::size_t>(af[i])] = o[nb + i];
    for (std::size_t i = 0; i < bf.size(); ++i)
      ib[static_cast<std::size_t>(bf[i])] = o[nb + af.size() + i];
    T acc(0);
    bool empty = false;
    for (auto e : kext) empty = empty || e == 0;
    if (!empty) {
      std::vector<std::int64_t> k(kext.size(), 0);
      do {
        for (std::size_t i = 0; i < k.size(); ++i) {
          ia[static_cast<std::size_t>(d.lhs_contracting_dimensions[i])] = k[i];
          ib[static_cast<std::size_t>(d.rhs_contracting_dimensions[i])] = k[i];
        }
        acc += a.at<T>(ia) * b.at<T>(ib);
      } while (next_index(k, kext));
    }
    c.set<T>(DimVec(o.begin(), o.end()), acc);
  } while (next_index(o, oext));
  return c;
}

inline Tensor reference(const DotGeneralAttrs& d, const Tensor& a, const Tensor& b) {
  switch (a.dtype()) {
    case DType::f32:
      return reference_dot<float>(d, a, b);
    case DType::f64:
      return reference_dot<double>(d, a, b);
    case DType::c64:
      return reference_dot<std::complex<float>>(d, a, b);
    case DType::c128:
      return reference_dot<std::complex<double>>(d, a, b);
    case DType::i64:
      return reference_dot<std::int64_t>(d, a, b);
    default:
      throw ValueError("reference: dtype not covered by the test");
  }
}

// Elements in column-major order as complex<double> (any float dtype) or
// as exact integers converted to double.
inline std::vector<std::complex<double>> values(const Tensor& t) {
  std::vector<std::complex<double>> v;
  auto take = [&]<class T>() {
    for (T x : t.to_vec_col_major<T>()) v.emplace_back(x);
  };
  switch (t.dtype()) {
    case DType::f32:
      take.operator()<float>();
      break;
    case DType::f64:
      take.operator()<double>();
      break;
    case DType::c64:
      take.operator()<std::complex<float>>();
      break;
    case DType::c128:
      take.operator()<std::complex<double>>();
      break;
    case DType::i64:
      for (auto x : t.to_vec_col_major<std::int64_t>()) v.emplace_back(static_cast<double>(x));
      break;
    default:
      throw ValueError("values: dtype not covered by the test");
  }
  return v;
}

// Largest elementwise difference relative to the largest |element| of b
// (1 when b is all zeros); infinite for a NaN or a shape mismatch.
inline double rel_diff(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return INFINITY;
  const auto va = values(a), vb = values(b);
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < va.size(); ++i) {
    const double d = std::abs(va[i] - vb[i]);
    if (std::isnan(d)) return INFINITY;  // (std::max would drop a NaN)
    diff = std::max(diff, d);
    scale = std::max(scale, std::abs(vb[i]));
  }
  return diff / (scale > 0 ? scale : 1.0);
}

// Tolerance for a sum of `k` products of numbers of order one.
inline double tolerance(DType d, std::int64_t k) {
  const bool single = d == DType::f32 || d == DType::c64;
  return (single ? 1e-6 : 1e-14) * static_cast<double>(std::max<std::int64_t>(k, 1)) * 4;
}

// A provider that counts the dot_general calls reaching it and declines
// them. Added before "blis" (so tried after it), it counts BLIS's declines.
struct Counter {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  void add_to(Backend& backend) const {
    backend.kernels().add(
        OpKind::dot_general, DeviceKind::cpu, "counter",
        [c = calls](OpKind, const Attrs&, std::span<const Tensor>, const Tensor&, Backend&) {
          ++*c;
          return false;
        });
  }
  int count() const { return *calls; }
};

}  // namespace tfblis_test

#include "fft_test_util.hpp"

#include <cmath>
#include <numbers>

namespace tenferro::fft::testing {

std::int64_t Ref::offset(const DimVec& idx) const {
  std::int64_t off = 0, stride = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    off += idx[d] * stride;
    stride *= shape[d];
  }
  return off;
}

Ref zeros_ref(const Shape& shape) {
  return Ref{shape, std::vector<Cx>(static_cast<std::size_t>(shape_numel(shape)))};
}

Ref to_ref(const Tensor& t) {
  Ref r = zeros_ref(t.shape());
  for (const DimVec& idx : tenferro::testing::all_indices(t.shape())) {
    auto z = tenferro::testing::value_at(t, idx);
    r.at(idx) = Cx(z.real(), z.imag());
  }
  return r;
}

namespace {

// exp(sign 2 pi i p / n) with p reduced mod n first (accurate twiddles).
Cx twiddle(int sign, std::int64_t p, std::int64_t n) {
  long double a = 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(p % n) /
                  static_cast<long double>(n);
  return {std::cos(a), sign * std::sin(a)};
}

// Applies out[idx] = f(x, idx) over the multi-indices of `shape`.
template <class F>
Ref generate(const Shape& shape, F&& f) {
  Ref out = zeros_ref(shape);
  for (const DimVec& idx : tenferro::testing::all_indices(shape)) out.at(idx) = f(idx);
  return out;
}

}  // namespace

Ref fit(const Ref& x, std::int64_t axis, std::int64_t n) {
  Shape s = x.shape;
  s[static_cast<std::size_t>(axis)] = n;
  return generate(s, [&](const DimVec& idx) {
    return idx[static_cast<std::size_t>(axis)] < x.shape[static_cast<std::size_t>(axis)] ? x.at(idx)
                                                                                         : Cx(0);
  });
}

Ref dft(const Ref& x, std::int64_t axis, int sign) {
  const std::size_t a = static_cast<std::size_t>(axis);
  const std::int64_t n = x.shape[a];
  return generate(x.shape, [&](const DimVec& idx) {
    DimVec j = idx;
    Cx sum = 0;
    for (j[a] = 0; j[a] < n; ++j[a]) sum += x.at(j) * twiddle(sign, j[a] * idx[a], n);
    return sum;
  });
}

Ref half(const Ref& x, std::int64_t axis) {
  return fit(x, axis, x.shape[static_cast<std::size_t>(axis)] / 2 + 1);
}

Ref c2r(const Ref& x, std::int64_t axis, std::int64_t n) {
  const std::size_t a = static_cast<std::size_t>(axis);
  Shape s = x.shape;
  s[a] = n;
  return generate(s, [&](const DimVec& idx) {
    DimVec k = idx;
    k[a] = 0;
    long double sum = x.at(k).real();
    for (k[a] = 1; 2 * k[a] < n; ++k[a]) sum += 2 * (x.at(k) * twiddle(+1, k[a] * idx[a], n)).real();
    if (n % 2 == 0) {
      k[a] = n / 2;
      sum += x.at(k).real() * (idx[a] % 2 == 0 ? 1 : -1);
    }
    return Cx(sum);
  });
}

Ref conj(const Ref& x) {
  Ref r = x;
  for (auto& z : r.v) z = std::conj(z);
  return r;
}

Ref scaled(const Ref& x, long double s) {
  Ref r = x;
  for (auto& z : r.v) z *= s;
  return r;
}

long double norm_scale(Norm norm, long double n, bool inverse) {
  switch (norm) {
    case Norm::backward: return inverse ? 1 / n : 1;
    case Norm::ortho: return 1 / std::sqrt(n);
    case Norm::forward: return inverse ? 1 : 1 / n;
  }
  return 0;
}

namespace {
long double product(const DimVec& v) {
  long double p = 1;
  for (auto x : v) p *= static_cast<long double>(x);
  return p;
}
Norm ref_swap_norm(Norm n) {
  return n == Norm::backward ? Norm::forward : n == Norm::forward ? Norm::backward : Norm::ortho;
}
}  // namespace

Ref ref_c2c(const Ref& x, const DimVec& axes, const DimVec& lengths, Norm norm, bool inverse) {
  Ref r = x;
  for (std::size_t i = 0; i < axes.size(); ++i) r = fit(r, axes[i], lengths[i]);
  for (std::int64_t a : axes) r = dft(r, a, inverse ? +1 : -1);
  return scaled(r, norm_scale(norm, product(lengths), inverse));
}

Ref ref_r2c(const Ref& x, const DimVec& axes, const DimVec& lengths, Norm norm) {
  Ref r = ref_c2c(x, axes, lengths, norm, false);
  return half(r, axes.back());
}

Ref ref_c2r(const Ref& x, const DimVec& axes, const DimVec& lengths, Norm norm) {
  Ref r = x;
  const std::size_t last = axes.size() - 1;
  for (std::size_t i = 0; i < axes.size(); ++i)
    r = fit(r, axes[i], i == last ? lengths[i] / 2 + 1 : lengths[i]);
  for (std::size_t i = 0; i < last; ++i) r = dft(r, axes[i], +1);
  r = c2r(r, axes[last], lengths[last]);
  return scaled(r, norm_scale(norm, product(lengths), true));
}

Ref ref_hfft(const Ref& x, std::int64_t axis, std::int64_t n, Norm norm) {
  return ref_c2r(conj(x), {axis}, {n}, ref_swap_norm(norm));
}

Ref ref_ihfft(const Ref& x, std::int64_t axis, std::int64_t n, Norm norm) {
  return conj(ref_r2c(x, {axis}, {n}, ref_swap_norm(norm)));
}

double tol_for(DType dtype) { return real_dtype(dtype) == DType::f32 ? 2e-5 : 1e-12; }

::testing::AssertionResult close_to(const Tensor& actual, const Ref& expected, DType dtype,
                                    double tol) {
  if (actual.dtype() != dtype)
    return ::testing::AssertionFailure() << "dtype " << actual.dtype() << ", expected " << dtype;
  if (actual.shape() != expected.shape)
    return ::testing::AssertionFailure() << "shape " << actual.shape() << ", expected "
                                         << expected.shape;
  long double err = 0, scale = 0;
  DimVec worst;
  for (const DimVec& idx : tenferro::testing::all_indices(expected.shape)) {
    auto a = tenferro::testing::value_at(actual, idx);
    Cx e = expected.at(idx);
    if (!is_complex(dtype)) e = Cx(e.real());
    long double d = std::abs(Cx(a.real(), a.imag()) - e);
    if (!(d <= err)) {  // also catches NaN
      err = d;
      worst = idx;
    }
    scale = std::max(scale, std::abs(e));
  }
  if (err <= tol * std::max<long double>(scale, 1e-300L)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "max error " << static_cast<double>(err) << " at " << worst << " exceeds " << tol
         << " x max |expected| = " << static_cast<double>(scale) << "; got "
         << tenferro::testing::value_at(actual, worst) << ", expected "
         << std::complex<double>(expected.at(worst));
}

::testing::AssertionResult close_to(const Tensor& actual, const Tensor& expected, double tol) {
  return close_to(actual, to_ref(expected), expected.dtype(), tol);
}

std::vector<double> hash_values(std::int64_t count, std::uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(count));
  const std::uint64_t mask = 0xFFFFFFFFull;
  for (std::int64_t j = 0; j < count; ++j) {
    std::uint64_t h = (static_cast<std::uint64_t>(j) * 2654435761ull + seed * 40503ull + 12345ull) & mask;
    h = ((h ^ (h >> 13)) * 1274126177ull) & mask;
    v[static_cast<std::size_t>(j)] = (static_cast<double>(h % 2001) - 1000.0) / 1000.0;
  }
  return v;
}

Tensor tensor_from_values(const Shape& shape, DType dtype, const std::vector<double>& values) {
  const std::int64_t n = shape_numel(shape);
  const std::size_t parts = is_complex(dtype) ? 2 : 1;
  if (values.size() != parts * static_cast<std::size_t>(n))
    throw std::runtime_error("tensor_from_values: wrong number of values");
  Tensor t = Tensor::empty(shape, dtype);
  visit_dtype<kFloatDTypes>(dtype, "tensor_from_values", [&]<class T>() {
    auto d = t.host_data<T>();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if constexpr (is_complex_v<T>)
        d[i] = T(static_cast<real_t<T>>(values[2 * i]), static_cast<real_t<T>>(values[2 * i + 1]));
      else
        d[i] = static_cast<T>(values[i]);
    }
  });
  return t;
}

Tensor hash_tensor(const Shape& shape, DType dtype, std::uint64_t seed) {
  const std::int64_t n = shape_numel(shape) * (is_complex(dtype) ? 2 : 1);
  return tensor_from_values(shape, dtype, hash_values(n, seed));
}

void for_each_provider(const std::function<void()>& body) {
  std::vector<std::string> names = available_providers();
  if (names.empty()) GTEST_SKIP() << "no FFT provider in this build";
  // FFTW_MEASURE on thousands of distinct small layouts would take minutes;
  // FftProvider.MeasuredPlans covers the measured path.
  const PlanEffort effort = plan_effort();
  set_plan_effort(PlanEffort::estimate);
  for (const std::string& name : names) {
    SCOPED_TRACE("provider " + name);
    set_provider(name);
    body();
  }
  set_provider(names.front());
  set_plan_effort(effort);
}

Cx dot(const Tensor& a, const Tensor& b) {
  Ref ra = to_ref(a), rb = to_ref(b);
  Cx s = 0;
  for (std::size_t i = 0; i < ra.v.size(); ++i) s += std::conj(ra.v[i]) * rb.v[i];
  return s;
}

long double real_dot(const Tensor& a, const Tensor& b) { return dot(a, b).real(); }

}  // namespace tenferro::fft::testing

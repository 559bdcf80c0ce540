// Tensor factories: empty/zeros/ones/full/eye/arange and seeded random.
#include <cmath>
#include <numbers>

#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

// Every factory allocates here, so a bad shape is reported under the
// factory's own name ("zeros: negative extent -1 ...", not "empty: ...").
Tensor Tensor::allocate_host(const Shape& shape, DType dtype, const char* op) {
  std::int64_t n = shape_numel(shape, op);
  std::size_t bytes = 0;
  TF_CHECK(!__builtin_mul_overflow(static_cast<std::size_t>(n), dtype_size(dtype), &bytes),
           ValueError, op, "shape ", shape, " of ", dtype, " overflows the address space");
  return Tensor(Storage::allocate_host(bytes, op), dtype, shape, col_major_strides(shape), 0);
}

std::int64_t Tensor::check_value_count(const Shape& shape, std::size_t count, const char* op) {
  std::int64_t n = shape_numel(shape, op);
  TF_CHECK(static_cast<std::uint64_t>(count) == static_cast<std::uint64_t>(n), ShapeError, op, "shape ", shape,
           " needs ", n, " values, got ", count);
  return n;
}

Tensor Tensor::empty(const Shape& shape, DType dtype) { return allocate_host(shape, dtype, "empty"); }

Tensor Tensor::filled(const Shape& shape, Scalar value, DType dtype, const char* op) {
  Tensor t = allocate_host(shape, dtype, op);
  visit_dtype(dtype, op, [&]<class T>() {
    T v = value.to<T>();
    T* p = static_cast<T*>(t.data_ptr());
    std::int64_t n = t.numel();
    for (std::int64_t i = 0; i < n; ++i) p[i] = v;
  });
  return t;
}

Tensor Tensor::full(const Shape& shape, Scalar value, DType dtype) { return filled(shape, value, dtype, "full"); }

Tensor Tensor::zeros(const Shape& shape, DType dtype) {
  Tensor t = allocate_host(shape, dtype, "zeros");
  if (t.data_ptr()) std::memset(t.data_ptr(), 0, t.storage()->nbytes());
  return t;
}

Tensor Tensor::ones(const Shape& shape, DType dtype) { return filled(shape, Scalar(1), dtype, "ones"); }

Tensor Tensor::eye(std::int64_t n, DType dtype) { return eye(n, n, dtype); }

Tensor Tensor::eye(std::int64_t n, std::int64_t m, DType dtype) {
  Tensor t = allocate_host({n, m}, dtype, "eye");
  if (t.data_ptr()) std::memset(t.data_ptr(), 0, t.storage()->nbytes());
  visit_dtype(dtype, "eye", [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::int64_t i = 0; i < std::min(n, m); ++i) p[i + i * n] = Scalar(1).to<T>();
  });
  return t;
}

Tensor Tensor::arange(std::int64_t n, DType dtype) {
  TF_CHECK(n >= 0, ValueError, "arange", "length must be non-negative, got ", n);
  return arange(0.0, static_cast<double>(n), 1.0, dtype);
}

Tensor Tensor::arange(double start, double stop, double step, DType dtype) {
  TF_CHECK(step != 0 && std::isfinite(step) && std::isfinite(start) && std::isfinite(stop),
           ValueError, "arange", "needs finite start/stop and a non-zero step, got (", start,
           ", ", stop, ", ", step, ")");
  double len = std::ceil((stop - start) / step);
  TF_CHECK(len < 0x1p63, ValueError, "arange", "(", start, ", ", stop, ", ", step,
           ") has more elements than fit in int64");
  std::int64_t n = len > 0 ? static_cast<std::int64_t>(len) : 0;
  Tensor t = empty({n}, dtype);
  visit_dtype(dtype, "arange", [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::int64_t i = 0; i < n; ++i)
      p[i] = Scalar(start + static_cast<double>(i) * step).to<T>();
  });
  return t;
}

namespace {

// xoshiro256** seeded through splitmix64: fixed, portable streams.
class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed) {
    for (auto& s : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      s = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {
    std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// Fills `count` doubles; complex dtypes take two per element (re, im).
template <class Draw>
Tensor random_tensor(const Shape& shape, DType dtype, const char* op, Draw draw) {
  Tensor t = Tensor::empty(shape, dtype);
  visit_dtype<kFloatDTypes>(dtype, op, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    std::int64_t n = t.numel();
    for (std::int64_t i = 0; i < n; ++i) {
      if constexpr (is_complex_v<T>) {
        double re = draw();
        double im = draw();
        p[i] = T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(im));
      } else {
        p[i] = static_cast<T>(draw());
      }
    }
  });
  return t;
}

}  // namespace

Tensor Tensor::uniform(const Shape& shape, DType dtype, std::uint64_t seed, double low,
                       double high) {
  TF_CHECK(low < high && std::isfinite(low) && std::isfinite(high), ValueError, "uniform",
           "needs finite low < high, got [", low, ", ", high, ")");
  Xoshiro256 rng(seed);
  bool single = real_dtype(dtype) == DType::f32;
  return random_tensor(shape, dtype, "uniform", [&] {
    double v = low + (high - low) * rng.uniform();
    // Rounding to float may reach `high`; keep the interval half-open.
    if (single && static_cast<float>(v) >= static_cast<float>(high))
      v = std::nextafter(static_cast<float>(high), static_cast<float>(low));
    return v;
  });
}

Tensor Tensor::normal(const Shape& shape, DType dtype, std::uint64_t seed, double mean,
                      double stddev) {
  TF_CHECK(stddev >= 0 && std::isfinite(stddev) && std::isfinite(mean), ValueError, "normal",
           "needs finite mean and stddev >= 0, got (", mean, ", ", stddev, ")");
  Xoshiro256 rng(seed);
  bool have_spare = false;
  double spare = 0;
  return random_tensor(shape, dtype, "normal", [&] {
    if (have_spare) {
      have_spare = false;
      return mean + stddev * spare;
    }
    double u1 = 1.0 - rng.uniform();  // (0, 1]
    double u2 = rng.uniform();
    double r = std::sqrt(-2.0 * std::log(u1));
    spare = r * std::sin(2.0 * std::numbers::pi * u2);
    have_spare = true;
    return mean + stddev * r * std::cos(2.0 * std::numbers::pi * u2);
  });
}

}  // namespace tenferro

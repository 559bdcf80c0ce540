#pragma once
// Shared test helpers: random tensors in random layouts, element-wise
// comparison with tolerances, and dtype lists for typed tests.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::testing {

/// Random values: floats uniform in [-1, 1) (complex: both parts), integers
/// in [-5, 5], bools fair. Deterministic for a seed.
Tensor random_tensor(const Shape& shape, DType dtype, std::uint64_t seed);

/// The same values as `t` in a different memory layout chosen by `seed`:
/// column-major, row-major, a random axis permutation, every other element
/// of a larger buffer (strides > 1), reversed axes (negative strides), with a
/// storage offset, or combinations. `kind` forces one (0..5) when >= 0.
Tensor with_random_layout(const Tensor& t, std::uint64_t seed, int kind = -1);

/// Restores the thread count (`set_num_threads`) a test changed.
class ThreadGuard {
 public:
  ThreadGuard() : saved_(get_num_threads()) {}
  ~ThreadGuard() { set_num_threads(saved_); }
  ThreadGuard(const ThreadGuard&) = delete;
  ThreadGuard& operator=(const ThreadGuard&) = delete;

 private:
  int saved_;
};

/// Number of layouts `with_random_layout` knows (for exhaustive loops).
inline constexpr int kNumLayouts = 6;

/// Multi-indices of a shape in column-major order (for reference loops).
std::vector<DimVec> all_indices(const Shape& shape);

/// Element of `t` at `index` converted to complex<double> (any dtype).
std::complex<double> value_at(const Tensor& t, const DimVec& index);

/// Element of an integer or bool tensor at `index`, exactly.
std::int64_t int_value_at(const Tensor& t, const DimVec& index);

/// A column-major tensor of `dtype` from complex<double> values in
/// column-major order: real dtypes take the real part, integers round to
/// nearest, bool tests != 0.
Tensor tensor_from_values(const Shape& shape, DType dtype,
                          const std::vector<std::complex<double>>& values);

/// A column-major integer or bool tensor from exact int64 values (integers
/// wrap to the dtype's width, bool tests != 0).
Tensor tensor_from_ints(const Shape& shape, DType dtype, const std::vector<std::int64_t>& values);

/// A tensor whose storage claims to live on `device` but is host memory with
/// a no-op deleter (kept alive by the storage): only for testing device
/// checks, never to be computed on.
Tensor fake_device_tensor(const Shape& shape, DType dtype, Device device);

/// Uninitialised host tensor with a dense layout whose axes are ordered in
/// memory by `order` (order[0] fastest): the strides are a permutation of
/// column-major strides, as backends accept for outputs.
Tensor empty_dense_permuted(const Shape& shape, DType dtype, const DimVec& order);

/// The dtypes contained in a set, in enum order.
std::vector<DType> dtypes_in(DTypeSet set);

/// Machine epsilon of a float dtype's real part (1 for integers and bool).
double dtype_eps(DType d);

/// Asserts same dtype and shape and |a - b| <= atol + rtol |b| elementwise
/// (NaNs must match NaNs, infinities must be equal); integer and bool
/// tensors compare exactly in int64 when rtol and atol are 0. Reports the
/// first mismatching index.
::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected,
                                         double rtol, double atol);

/// Asserts exact equality of dtype, shape and values (NaN equals NaN).
::testing::AssertionResult tensors_equal(const Tensor& actual, const Tensor& expected);

/// Runs `f` and checks that it throws an exception of type `E` whose
/// message contains every string in `fragments`.
template <class E, class F>
::testing::AssertionResult throws_with(F&& f, std::initializer_list<std::string> fragments) {
  try {
    f();
  } catch (const E& e) {
    std::string msg = e.what();
    for (const auto& frag : fragments)
      if (msg.find(frag) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << msg << "\" lacks \"" << frag << "\"";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

inline const std::vector<DType>& float_dtypes() {
  static const std::vector<DType> v{DType::f32, DType::f64, DType::c64, DType::c128};
  return v;
}
inline const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v{DType::f32, DType::f64, DType::c64, DType::c128,
                                    DType::i32, DType::i64, DType::bool_};
  return v;
}

/// A data path a test reads (tests/data/...): the environment variable
/// `env` when it is set and not empty, else `built_in`, the path CMake
/// compiled in. The override lets a built test read another checkout's copy
/// of the data (tests/standalone runs the data tests on a fresh clone's):
///
///   std::string dir = data_path("TENFERRO_AD_ORACLES_DIR", TENFERRO_AD_ORACLES_DIR);
///   // $ TENFERRO_AD_ORACLES_DIR=/tmp/clone/tests/data/ad-oracles ./test_ad_oracles
inline std::string data_path(const char* env, const char* built_in) {
  const char* v = std::getenv(env);
  return v != nullptr && *v != 0 ? std::string(v) : std::string(built_in);
}

/// The stride of a long sweep (every op-database sample of an op, every
/// benchmark instance, a fixed-seed batch of random programs): the
/// environment variable `TENFERRO_TEST_STRIDE` when set, else 1, read once.
/// A sweep runs its items 0, n, 2n, ... of the full list. The sanitizer
/// stage of scripts/test.sh sets it, so the instrumented build checks a
/// spread subset of what the Release stage runs in full:
///
///   for (const OpSample* s : swept(samples)) check(*s);
///   // $ TENFERRO_TEST_STRIDE=3 ./test_xla
inline std::size_t sweep_stride() {
  static const std::size_t stride = [] {
    const char* v = std::getenv("TENFERRO_TEST_STRIDE");
    if (v == nullptr || *v == 0) return std::size_t{1};
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != 0 || n < 1 || n > 1000)
      throw std::invalid_argument(std::string("TENFERRO_TEST_STRIDE must be an integer in [1, 1000], got '") + v + "'");
    return static_cast<std::size_t>(n);
  }();
  return stride;
}

/// The items of a sweep that sweep_stride() keeps: items 0, n, 2n, ...
template <class T>
std::vector<const T*> swept(const std::vector<T>& items) {
  std::vector<const T*> out;
  for (std::size_t i = 0; i < items.size(); i += sweep_stride()) out.push_back(&items[i]);
  return out;
}

}  // namespace tenferro::testing

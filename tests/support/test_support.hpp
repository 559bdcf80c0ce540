#pragma once
// Shared test helpers: random tensors in random layouts, element-wise
// comparison with tolerances, and dtype lists for typed tests.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
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

/// Number of layouts `with_random_layout` knows (for exhaustive loops).
inline constexpr int kNumLayouts = 6;

/// Multi-indices of a shape in column-major order (for reference loops).
std::vector<DimVec> all_indices(const Shape& shape);

/// Element of `t` at `index` converted to complex<double> (any dtype).
std::complex<double> value_at(const Tensor& t, const DimVec& index);

/// Machine epsilon of a float dtype's real part (1 for integers and bool).
double dtype_eps(DType d);

/// Asserts same dtype and shape and |a - b| <= atol + rtol |b| elementwise
/// (NaNs must match NaNs); reports the first mismatching index.
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

}  // namespace tenferro::testing

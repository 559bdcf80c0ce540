#pragma once
// Helpers of the FFT tests: a naive O(n^2) DFT on long-double arrays (the
// independent reference), normwise comparison, the reference-file input
// generator, and a loop over the built-in providers.
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.hpp"
#include "tenferro/fft.hpp"

namespace tenferro::fft::testing {

/// The three normalisations, for loops over all of them.
inline constexpr Norm kNorms[] = {Norm::backward, Norm::ortho, Norm::forward};

using Cx = std::complex<long double>;

/// A dense column-major array of complex long doubles.
struct Ref {
  Shape shape;
  std::vector<Cx> v;
  std::int64_t offset(const DimVec& idx) const;
  Cx& at(const DimVec& idx) { return v[static_cast<std::size_t>(offset(idx))]; }
  const Cx& at(const DimVec& idx) const { return v[static_cast<std::size_t>(offset(idx))]; }
};

Ref to_ref(const Tensor& t);
Ref zeros_ref(const Shape& shape);

// ---- naive building blocks -------------------------------------------------------------
/// Crops or zero-pads `axis` to `n` entries.
Ref fit(const Ref& x, std::int64_t axis, std::int64_t n);
/// out_k = sum_j x_j exp(sign 2 pi i j k / n) along `axis` (the definition, O(n^2)).
Ref dft(const Ref& x, std::int64_t axis, int sign);
/// The first n/2 + 1 entries along `axis` (n its extent).
Ref half(const Ref& x, std::int64_t axis);
/// Complex-to-real along `axis` from m = n/2 + 1 entries: the Hermitian
/// extension's backward DFT, written out (real parts of entries 0 and n/2).
Ref c2r(const Ref& x, std::int64_t axis, std::int64_t n);
Ref conj(const Ref& x);
Ref scaled(const Ref& x, long double s);

/// Scale of a transform with norm `norm` over N points (forward or inverse).
long double norm_scale(Norm norm, long double n, bool inverse);

// ---- reference transforms (NumPy semantics, explicit axes and lengths) ------------------
Ref ref_c2c(const Ref& x, const DimVec& axes, const DimVec& lengths, Norm norm, bool inverse);
Ref ref_r2c(const Ref& x, const DimVec& axes, const DimVec& lengths, Norm norm);
/// `lengths` are output lengths; the last axis of `axes` is the real one.
Ref ref_c2r(const Ref& x, const DimVec& axes, const DimVec& lengths, Norm norm);
Ref ref_hfft(const Ref& x, std::int64_t axis, std::int64_t n, Norm norm);
Ref ref_ihfft(const Ref& x, std::int64_t axis, std::int64_t n, Norm norm);

/// Asserts dtype and shape, and max |actual - expected| <= tol * max |expected|.
::testing::AssertionResult close_to(const Tensor& actual, const Ref& expected, DType dtype,
                                    double tol);
/// The same between two tensors.
::testing::AssertionResult close_to(const Tensor& actual, const Tensor& expected, double tol);

/// Tolerance of a comparison with an exact reference for `dtype`'s precision.
double tol_for(DType dtype);

// ---- reference-file inputs ------------------------------------------------------------------
/// The generator of tests/fft/gen_reference.py: `count` multiples of 1/1000 in [-1, 1].
std::vector<double> hash_values(std::int64_t count, std::uint64_t seed);
/// A column-major tensor of `shape` filled from hash_values (complex: re, im interleaved).
Tensor hash_tensor(const Shape& shape, DType dtype, std::uint64_t seed);
/// A tensor from interleaved (complex) or plain (real) values in column-major order.
Tensor tensor_from_values(const Shape& shape, DType dtype, const std::vector<double>& values);

// ---- providers -----------------------------------------------------------------------------------
/// Runs `body` once with each built-in provider selected (SCOPED_TRACE names it)
/// and PlanEffort::estimate, then restores the default provider and effort.
/// Skips the test when there is none.
void for_each_provider(const std::function<void()>& body);

/// The real inner product Re <a, b> = Re sum conj(a) b over all elements (any dtypes).
long double real_dot(const Tensor& a, const Tensor& b);
/// The complex inner product <a, b> = sum conj(a) b.
Cx dot(const Tensor& a, const Tensor& b);

}  // namespace tenferro::fft::testing

#pragma once
/// \file
/// Matrix functions and scalar summaries: `det`, `slogdet`, `matrix_exp`,
/// `matrix_rank`, `norm` / `vector_norm` / `matrix_norm`, `cond`.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/linalg.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {3, 0, 0, 1});
/// double d = linalg::det(a, cpu).item();                      // 3
/// double n2 = linalg::norm(a, cpu, 2).item();                 // 3 (largest singular value)
/// double nf = linalg::norm(a, cpu, "fro").item();             // sqrt(10)
/// double k = linalg::cond(a, cpu).item();                     // 3
/// auto e = linalg::matrix_exp(a, cpu);                        // diag(e^3, e)
/// ```
/// Scalar summaries of a batch [m, n, batch...] have shape [batch...].

#include <cstdint>
#include <limits>
#include <string>

#include "tenferro/linalg/family.hpp"
#include "tenferro/linalg/solvers.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/typed_tensor.hpp"

namespace tenferro::linalg {

// NormOrder and kInf: tenferro/linalg/attrs.hpp.

/// Determinant (getrf; 0 for a singular matrix, 1 for 0 x 0), [batch...].
/// ```cpp
/// Tensor d = linalg::det(a, cpu);
/// ```
Tensor det(const Tensor& a, Backend& backend);

/// det(a) = sign * exp(logabsdet).
template <class Mat, class Real>
struct BasicSlogdetResult {
  Mat sign;        ///< dtype of a: +-1 (complex: unit modulus), 0 when singular
  Real logabsdet;  ///< real; -inf when singular
};
using SlogdetResult = BasicSlogdetResult<Tensor, Tensor>;
template <class T>
using TypedSlogdetResult = BasicSlogdetResult<TypedTensor<T>, TypedTensor<real_t<T>>>;

/// Sign and log |det| without overflow.
/// ```cpp
/// auto [sign, logabsdet] = linalg::slogdet(a, cpu);
/// ```
SlogdetResult slogdet(const Tensor& a, Backend& backend);

/// Matrix exponential by scaling and squaring with a Pade approximant of
/// degree 3..13 chosen from the 1-norm (Higham 2005). Non-finite input is a
/// ValueError. Finite input is always computed, even when its 1-norm
/// overflows (the norm is formed as max|a_ij| times a bounded sum): the
/// result is then exp(a) where it is representable (exactly I + N for a
/// nilpotent N with N^2 = 0) and +-inf or NaN where it overflows, never a
/// silent identity.
/// ```cpp
/// Tensor e = linalg::matrix_exp(a, cpu);
/// ```
Tensor matrix_exp(const Tensor& a, Backend& backend);

/// Number of singular values s_i > max(atol, rtol * s_0), i64 [batch...].
/// ```cpp
/// Tensor r = linalg::matrix_rank(a, cpu, {.rtol = 1e-8});
/// ```
Tensor matrix_rank(const Tensor& a, Backend& backend, RankTolerance tolerance = {});

/// Vector norm along axis 0 of x [n, batch...] -> real [batch...]:
/// (sum |x_i|^p)^(1/p); kInf: max |x_i|; -kInf: min |x_i|; 0: number of
/// nonzeros.
/// ```cpp
/// Tensor n1 = linalg::vector_norm(x, cpu, 1);
/// ```
Tensor vector_norm(const Tensor& x, Backend& backend, double ord = 2.0);
/// Matrix norm of a [m, n, batch...] -> real [batch...]: "fro", "nuc"
/// (sum of singular values), 1 / -1 (max / min column sum of |a|), 2 / -2
/// (largest / smallest singular value), kInf / -kInf (max / min row sum).
/// ```cpp
/// Tensor nrm = linalg::matrix_norm(a, cpu, "nuc");
/// ```
Tensor matrix_norm(const Tensor& a, Backend& backend, NormOrder ord = NormOrder::fro());
/// `vector_norm` for rank-1 input (default order 2), `matrix_norm` for
/// rank >= 2 (default "fro").
/// ```cpp
/// double l2 = linalg::norm(v, cpu).item().to<double>();
/// ```
Tensor norm(const Tensor& a, Backend& backend);
Tensor norm(const Tensor& a, Backend& backend, NormOrder ord);

/// Condition number in a norm: s_0 / s_{k-1} for 2 (default; any shape),
/// s_{k-1} / s_0 for -2, else norm(a) * norm(inv(a)) (square a only). A
/// singular matrix gives +inf.
/// ```cpp
/// Tensor c = linalg::cond(a, cpu);        // 2-norm
/// Tensor c1 = linalg::cond(a, cpu, 1);
/// ```
Tensor cond(const Tensor& a, Backend& backend, NormOrder ord = 2);

// ---- typed overloads --------------------------------------------------------------------------

template <class T>
TypedTensor<T> det(const TypedTensor<T>& a, Backend& backend) {
  return TypedTensor<T>(linalg::det(static_cast<const Tensor&>(a), backend));
}
template <class T>
TypedSlogdetResult<T> slogdet(const TypedTensor<T>& a, Backend& backend) {
  auto r = linalg::slogdet(static_cast<const Tensor&>(a), backend);
  return {TypedTensor<T>(r.sign), TypedTensor<real_t<T>>(r.logabsdet)};
}
template <class T>
TypedTensor<T> matrix_exp(const TypedTensor<T>& a, Backend& backend) {
  return TypedTensor<T>(linalg::matrix_exp(static_cast<const Tensor&>(a), backend));
}
template <class T>
TypedTensor<std::int64_t> matrix_rank(const TypedTensor<T>& a, Backend& backend,
                                      RankTolerance tolerance = {}) {
  return TypedTensor<std::int64_t>(
      linalg::matrix_rank(static_cast<const Tensor&>(a), backend, tolerance));
}
template <class T>
TypedTensor<real_t<T>> vector_norm(const TypedTensor<T>& x, Backend& backend, double ord = 2.0) {
  return TypedTensor<real_t<T>>(linalg::vector_norm(static_cast<const Tensor&>(x), backend, ord));
}
template <class T>
TypedTensor<real_t<T>> matrix_norm(const TypedTensor<T>& a, Backend& backend,
                                   NormOrder ord = NormOrder::fro()) {
  return TypedTensor<real_t<T>>(linalg::matrix_norm(static_cast<const Tensor&>(a), backend, ord));
}
template <class T>
TypedTensor<real_t<T>> norm(const TypedTensor<T>& a, Backend& backend) {
  return TypedTensor<real_t<T>>(linalg::norm(static_cast<const Tensor&>(a), backend));
}
template <class T>
TypedTensor<real_t<T>> norm(const TypedTensor<T>& a, Backend& backend, NormOrder ord) {
  return TypedTensor<real_t<T>>(linalg::norm(static_cast<const Tensor&>(a), backend, ord));
}
template <class T>
TypedTensor<real_t<T>> cond(const TypedTensor<T>& a, Backend& backend, NormOrder ord = 2) {
  return TypedTensor<real_t<T>>(linalg::cond(static_cast<const Tensor&>(a), backend, ord));
}

}  // namespace tenferro::linalg

#pragma once
/// \file
/// Element types (`DType`), their C++ types, promotion and runtime dispatch.
///
/// ```cpp
/// using namespace tenferro;
/// static_assert(dtype_of<double> == DType::f64);
/// DType d = promote_types(DType::f32, DType::c128);  // c128
/// // Turn a runtime dtype into a typed call, restricted to the float dtypes:
/// double bytes = visit_dtype<kFloatDTypes>(d, "example", []<class T>() {
///   return double(sizeof(T));
/// });
/// ```

#include <complex>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <utility>

#include "tenferro/tensor/error.hpp"

namespace tenferro {

/// Runtime element type of a tensor (rows of dtypes.def).
enum class DType : std::uint8_t {
#define TF_DTYPE(name, cpp_type, text) name,
#include "tenferro/tensor/dtypes.def"
#undef TF_DTYPE
};

inline constexpr int kNumDTypes = 0
#define TF_DTYPE(name, cpp_type, text) +1
#include "tenferro/tensor/dtypes.def"
#undef TF_DTYPE
    ;

/// A set of dtypes, usable as a template argument (see `visit_dtype`).
struct DTypeSet {
  std::uint32_t bits = 0;
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> ds) {
    for (DType d : ds) bits |= 1u << static_cast<unsigned>(d);
  }
  constexpr bool contains(DType d) const { return (bits >> static_cast<unsigned>(d)) & 1u; }
  constexpr DTypeSet operator|(DTypeSet o) const {
    DTypeSet r;
    r.bits = bits | o.bits;
    return r;
  }
  constexpr bool operator==(const DTypeSet&) const = default;
};

inline constexpr DTypeSet kRealFloatDTypes{DType::f32, DType::f64};
inline constexpr DTypeSet kComplexDTypes{DType::c64, DType::c128};
inline constexpr DTypeSet kFloatDTypes = kRealFloatDTypes | kComplexDTypes;
inline constexpr DTypeSet kIntegerDTypes{DType::i32, DType::i64};
/// Types with an order (compare LT/GT, max, min, clamp, sign of reals).
inline constexpr DTypeSet kRealDTypes = kRealFloatDTypes | kIntegerDTypes;
/// Everything but bool: supports + - * and sums.
inline constexpr DTypeSet kNumericDTypes = kFloatDTypes | kIntegerDTypes;
inline constexpr DTypeSet kAllDTypes = kNumericDTypes | DTypeSet{DType::bool_};

namespace detail {
template <class T>
struct DTypeOf;
#define TF_DTYPE(name, cpp_type, text)                    \
  template <>                                             \
  struct DTypeOf<cpp_type> {                              \
    static constexpr DType value = DType::name;           \
  };
#include "tenferro/tensor/dtypes.def"
#undef TF_DTYPE

template <class T>
struct IsComplex : std::false_type {};
template <class R>
struct IsComplex<std::complex<R>> : std::true_type {};

template <class T>
struct RealOf {
  using type = T;
};
template <class R>
struct RealOf<std::complex<R>> {
  using type = R;
};
}  // namespace detail

/// The `DType` of a C++ element type: `dtype_of<float> == DType::f32`.
template <class T>
inline constexpr DType dtype_of = detail::DTypeOf<std::remove_cv_t<T>>::value;

/// True for `std::complex<float>` and `std::complex<double>`.
template <class T>
inline constexpr bool is_complex_v = detail::IsComplex<std::remove_cv_t<T>>::value;

/// The real type underlying `T` (`float` for `std::complex<float>`).
template <class T>
using real_t = typename detail::RealOf<T>::type;

/// Size in bytes of one element.
constexpr std::size_t dtype_size(DType d) {
  switch (d) {
#define TF_DTYPE(name, cpp_type, text) \
  case DType::name:                    \
    return sizeof(cpp_type);
#include "tenferro/tensor/dtypes.def"
#undef TF_DTYPE
  }
  return 0;
}

/// Short name ("f32", "c128", "bool").
constexpr const char* dtype_name(DType d) {
  switch (d) {
#define TF_DTYPE(name, cpp_type, text) \
  case DType::name:                    \
    return text;
#include "tenferro/tensor/dtypes.def"
#undef TF_DTYPE
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, DType d);
std::ostream& operator<<(std::ostream& os, DTypeSet s);

constexpr bool is_complex(DType d) { return kComplexDTypes.contains(d); }
constexpr bool is_float(DType d) { return kFloatDTypes.contains(d); }
constexpr bool is_integer(DType d) { return kIntegerDTypes.contains(d); }

/// Real dtype of the same precision (c64 -> f32, c128 -> f64, others unchanged).
constexpr DType real_dtype(DType d) {
  return d == DType::c64 ? DType::f32 : d == DType::c128 ? DType::f64 : d;
}
/// Complex dtype of the same precision (f32 -> c64, f64 -> c128; complex
/// unchanged). Integers and bool map to c128; ops that need a float reject them first.
constexpr DType complex_dtype(DType d) {
  return d == DType::f32 || d == DType::c64 ? DType::c64 : DType::c128;
}

/// Result dtype of mixing `a` and `b` (PyTorch/JAX lattice):
/// bool < integers < floats < complex; within a kind the wider wins; mixing a
/// complex with a wider real gives the wider complex (c64 + f64 = c128);
/// integers mixed with floats give the float (i64 + f32 = f32).
constexpr DType promote_types(DType a, DType b) {
  auto kind = [](DType d) {
    return d == DType::bool_ ? 0 : is_integer(d) ? 1 : is_complex(d) ? 3 : 2;
  };
  auto wide = [](DType d) {
    return d == DType::f64 || d == DType::c128 || d == DType::i64;
  };
  int k = kind(a) > kind(b) ? kind(a) : kind(b);
  if (k == 0) return DType::bool_;
  if (k == 1) return (wide(a) || wide(b)) ? DType::i64 : DType::i32;
  // Float kinds: precision is taken from the float operands only.
  bool w = (is_float(a) && wide(a)) || (is_float(b) && wide(b));
  if (k == 2) return w ? DType::f64 : DType::f32;
  return w ? DType::c128 : DType::c64;
}

/// Calls `f.template operator()<T>()` with the C++ type of `d`, for the dtypes
/// in `Allowed`; other dtypes throw a `DTypeError` naming `op`. Only the
/// allowed types are instantiated, so `f` may use operations that exist only
/// for them (e.g. `std::exp` with `kFloatDTypes`).
template <DTypeSet Allowed = kAllDTypes, class F>
decltype(auto) visit_dtype(DType d, const char* op, F&& f) {
  switch (d) {
#define TF_DTYPE(name, cpp_type, text)                                    \
  case DType::name:                                                       \
    if constexpr (Allowed.contains(DType::name)) {                        \
      return std::forward<F>(f).template operator()<cpp_type>();          \
    }                                                                     \
    break;
#include "tenferro/tensor/dtypes.def"
#undef TF_DTYPE
  }
  TF_THROW(DTypeError, op, "dtype ", d, " is not supported (expected one of ", Allowed, ")");
}

}  // namespace tenferro

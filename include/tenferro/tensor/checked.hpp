#pragma once
/// \file
/// Overflow-checked int64 arithmetic for extents, strides, offsets and
/// element counts.
///
/// Shape inference, layouts and kernels compute index arithmetic with these
/// helpers, so that a request too large for int64 is reported as a
/// `ValueError` naming the operation and the operands instead of wrapping
/// around (which would make a huge extent look small, or a far offset look
/// inside the storage):
///
/// ```cpp
/// std::int64_t m = tenferro::checked_add(lo, n, "pad", "padded extent ");
/// // lo = INT64_MAX, n = 3 throws
/// //   ValueError("pad: padded extent 9223372036854775807 + 3 overflows int64")
/// ```
///
/// (`shape_numel` in tenferro/tensor/shape.hpp is the checked product of a
/// whole shape.)

#include <cstdint>

#include "tenferro/tensor/error.hpp"

namespace tenferro {

/// `a + b`; throws ValueError "<op>: <what><a> + <b> overflows int64" when the
/// sum does not fit in int64.
inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* op, const char* what = "") {
  std::int64_t r;
  TF_CHECK(!__builtin_add_overflow(a, b, &r), ValueError, op, what, a, " + ", b, " overflows int64");
  return r;
}

/// `a - b`; throws ValueError "<op>: <what><a> - <b> overflows int64" when the
/// difference does not fit in int64.
inline std::int64_t checked_sub(std::int64_t a, std::int64_t b, const char* op, const char* what = "") {
  std::int64_t r;
  TF_CHECK(!__builtin_sub_overflow(a, b, &r), ValueError, op, what, a, " - ", b, " overflows int64");
  return r;
}

/// `a * b`; throws ValueError "<op>: <what><a> * <b> overflows int64" when the
/// product does not fit in int64.
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* op, const char* what = "") {
  std::int64_t r;
  TF_CHECK(!__builtin_mul_overflow(a, b, &r), ValueError, op, what, a, " * ", b, " overflows int64");
  return r;
}

/// ceil(a / b) for a >= 0 and b > 0, without the overflow of `(a + b - 1) / b`
/// (the number of elements of a range of length `a` taken every `b`).
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

/// True when the window [start, start + extent) lies inside [0, size), for
/// extent >= 0 and size >= 0; decided without computing `start + extent`,
/// which overflows for a start near INT64_MAX.
constexpr bool window_inside(std::int64_t start, std::int64_t extent, std::int64_t size) {
  return start >= 0 && extent <= size && start <= size - extent;
}

}  // namespace tenferro

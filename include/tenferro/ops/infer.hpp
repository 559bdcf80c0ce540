#pragma once
/// \file
/// Shape and dtype inference: a pure function over metadata.
///
/// ```cpp
/// using namespace tenferro;
/// TensorMeta a{DType::f64, {2, 3}}, b{DType::f64, {3, 4}};
/// TensorMeta c = infer(OpKind::dot_general,
///                      DotGeneralAttrs{.lhs_contracting_dimensions = {1},
///                                      .rhs_contracting_dimensions = {0}},
///                      {{a, b}});               // f64 [2, 4]
/// ```
/// Eager execution runs `infer` and then the kernel; traced programs run
/// `infer` alone. Bad operands throw the `tenferro::Error` subclass that
/// names the op, the offending values and the operand shapes/dtypes.

#include <span>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/dim.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/dtype.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro {

/// What inference sees of a tensor: dtype and extents (`D = std::int64_t`
/// for concrete shapes, `D = Dim` for symbolic ones).
template <class D>
struct BasicTensorMeta {
  DType dtype = DType::f64;
  ExtentList<D> shape{};
  bool operator==(const BasicTensorMeta&) const = default;
};
using TensorMeta = BasicTensorMeta<std::int64_t>;
using SymMeta = BasicTensorMeta<Dim>;

std::ostream& operator<<(std::ostream& os, const TensorMeta& m);
std::ostream& operator<<(std::ostream& os, const SymMeta& m);

/// Output dtype and shape of primitive `kind` applied to `inputs`. Checks
/// arity, the attribute alternative, dtypes and shapes.
TensorMeta infer(OpKind kind, const Attrs& attrs, std::span<const TensorMeta> inputs);

/// The same rules over symbolic extents (one implementation serves both).
/// Checks that cannot be decided while extents are symbolic (is n == m?)
/// pass here and are made by the concrete `infer` when the program runs.
SymMeta infer(OpKind kind, const SymAttrs& attrs, std::span<const SymMeta> inputs);

}  // namespace tenferro

// The user-facing functions on Tensor + Backend: the op layer (op_layer.hpp)
// instantiated with an emitter that runs each primitive eagerly.
#include "tenferro/ops/sugar.hpp"

#include "op_layer.hpp"
#include "tenferro/ops/primitives.hpp"

namespace tenferro {

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  return op_layer::broadcast_extents<std::int64_t>(a, b, op);
}

SymShape broadcast_sym_shapes(const SymShape& a, const SymShape& b, const char* op) {
  return op_layer::broadcast_extents<Dim>(a, b, op);
}

namespace {

// Note [Op layer]: runs each primitive at once on `backend`; structural
// helpers are strided views.
struct TensorEmitter {
  using Handle = Tensor;
  using Extent = std::int64_t;
  Backend& backend;

  static DType dtype(const Tensor& t) { return t.dtype(); }
  static const Shape& shape(const Tensor& t) { return t.shape(); }
  Tensor apply(OpKind k, const Attrs& attrs, std::span<const Tensor> in) {
    return ops::call(k, attrs, in, backend);
  }
  Tensor constant(Scalar v, DType d, const Tensor&) { return backend.from_host(Tensor::full({}, v, d)); }
  static Tensor permute(const Tensor& t, const DimVec& perm) { return t.permute(perm); }
  static Tensor diagonal(const Tensor& t, std::int64_t a1, std::int64_t a2) {
    return t.diagonal(a1, a2);
  }
};

}  // namespace

#define TF_E TensorEmitter e{be}

#define TF_BINARY(name, kind)                                         \
  Tensor name(const Tensor& a, const Tensor& b, Backend& be) {        \
    TF_E;                                                             \
    return op_layer::binary(e, OpKind::kind, a, b);                   \
  }                                                                   \
  Tensor name(const Tensor& a, Scalar b, Backend& be) {               \
    TF_E;                                                             \
    return op_layer::binary_scalar(e, OpKind::kind, a, b);            \
  }
TENFERRO_OP_LAYER_BINARY(TF_BINARY)
#undef TF_BINARY

Tensor sub(Scalar a, const Tensor& b, Backend& be) {
  TF_E;
  return op_layer::binary_scalar(e, OpKind::subtract, b, a, true);
}
Tensor div(Scalar a, const Tensor& b, Backend& be) {
  TF_E;
  return op_layer::binary_scalar(e, OpKind::divide, b, a, true);
}
Tensor complex(const Tensor& re, const Tensor& im, Backend& be) {
  TF_E;
  return op_layer::binary(e, OpKind::complex, re, im);
}

Tensor compare(const Tensor& a, const Tensor& b, ComparisonDirection dir, Backend& be) {
  TF_E;
  return op_layer::binary(e, OpKind::compare, a, b, CompareAttrs{dir});
}
Tensor compare(const Tensor& a, Scalar b, ComparisonDirection dir, Backend& be) {
  TF_E;
  return op_layer::binary_scalar(e, OpKind::compare, a, b, false, CompareAttrs{dir});
}
#define TF_COMPARE(name, dir)                                                        \
  Tensor name(const Tensor& a, const Tensor& b, Backend& be) {                       \
    return compare(a, b, ComparisonDirection::dir, be);                              \
  }                                                                                  \
  Tensor name(const Tensor& a, Scalar b, Backend& be) {                              \
    return compare(a, b, ComparisonDirection::dir, be);                              \
  }
TENFERRO_OP_LAYER_COMPARE(TF_COMPARE)
#undef TF_COMPARE

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Backend& be) {
  TF_E;
  return op_layer::where(e, cond, a, b);
}
Tensor clamp(const Tensor& lo, const Tensor& x, const Tensor& hi, Backend& be) {
  TF_E;
  return op_layer::clamp(e, lo, x, hi);
}
Tensor clamp(Scalar lo, const Tensor& x, Scalar hi, Backend& be) {
  TF_E;
  return op_layer::clamp(e, lo, x, hi);
}

#define TF_UNARY(name, kind)                  \
  Tensor name(const Tensor& a, Backend& be) { \
    TF_E;                                     \
    return op_layer::unary(e, OpKind::kind, a); \
  }
TENFERRO_OP_LAYER_UNARY(TF_UNARY)
#undef TF_UNARY
#define TF_FLOAT_UNARY(name)                          \
  Tensor name(const Tensor& a, Backend& be) {         \
    TF_E;                                             \
    return op_layer::float_unary(e, OpKind::name, a); \
  }
TENFERRO_OP_LAYER_FLOAT_UNARY(TF_FLOAT_UNARY)
#undef TF_FLOAT_UNARY
#define TF_LAYER_UNARY(name)                  \
  Tensor name(const Tensor& a, Backend& be) { \
    TF_E;                                     \
    return op_layer::name(e, a);              \
  }
TENFERRO_OP_LAYER_NAMED_UNARY(TF_LAYER_UNARY)
#undef TF_LAYER_UNARY

#define TF_ROUNDING(name, kind)                 \
  Tensor name(const Tensor& a, Backend& be) {   \
    TF_E;                                       \
    return op_layer::rounding(e, OpKind::kind, a); \
  }
TENFERRO_OP_LAYER_ROUNDING(TF_ROUNDING)
#undef TF_ROUNDING
Tensor round(const Tensor& a, std::int64_t decimals, Backend& be) {
  TF_E;
  return op_layer::round_decimals(e, a, decimals);
}
#define TF_FLOAT_BINARY(name)                                         \
  Tensor name(const Tensor& a, const Tensor& b, Backend& be) {        \
    TF_E;                                                             \
    return op_layer::float_binary(e, OpKind::name, a, b);             \
  }                                                                   \
  Tensor name(const Tensor& a, Scalar b, Backend& be) {               \
    TF_E;                                                             \
    return op_layer::float_binary_scalar(e, OpKind::name, a, b);      \
  }
TENFERRO_OP_LAYER_FLOAT_BINARY(TF_FLOAT_BINARY)
#undef TF_FLOAT_BINARY
Tensor polygamma(std::int64_t n, const Tensor& a, Backend& be) {
  TF_E;
  return op_layer::polygamma(e, n, a);
}
Tensor mvlgamma(const Tensor& a, std::int64_t p, Backend& be) {
  TF_E;
  return op_layer::mvlgamma(e, a, p);
}
std::pair<Tensor, Tensor> frexp(const Tensor& a, Backend& be) {
  TF_E;
  return op_layer::frexp(e, a);
}

Tensor convert(const Tensor& a, DType dtype, Backend& be) {
  TF_E;
  return op_layer::convert(e, a, dtype);
}

Tensor matmul(const Tensor& a, const Tensor& b, Backend& be) {
  TF_E;
  return op_layer::matmul(e, a, b);
}
Tensor dot_general(const Tensor& a, const Tensor& b, const DotGeneralAttrs& dims, Backend& be) {
  TF_E;
  return op_layer::dot_general(e, a, b, dims);
}

#define TF_REDUCE(name, kind)                                     \
  Tensor name(const Tensor& a, const DimVec& axes, Backend& be) { \
    TF_E;                                                         \
    return op_layer::reduce(e, OpKind::kind, a, axes);            \
  }                                                               \
  Tensor name(const Tensor& a, Backend& be) {                     \
    TF_E;                                                         \
    return op_layer::reduce(e, OpKind::kind, a, op_layer::all_axes(e, a)); \
  }
TENFERRO_OP_LAYER_REDUCE(TF_REDUCE)
#undef TF_REDUCE

Tensor mean(const Tensor& a, const DimVec& axes, Backend& be) {
  TF_E;
  return op_layer::mean(e, a, axes);
}
Tensor mean(const Tensor& a, Backend& be) {
  TF_E;
  return op_layer::mean(e, a, op_layer::all_axes(e, a));
}

#undef TF_E

}  // namespace tenferro

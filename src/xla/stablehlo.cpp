// StableHLO (MLIR text) lowering of compiled programs.
//
// Note [Reversed shapes]: StableHLO tensors are row-major (the last
// dimension varies fastest), ours are column-major (the first does). A
// column-major tensor of shape (d0, ..., dn-1) has exactly the bytes of a
// row-major tensor of the reversed shape (dn-1, ..., d0), so every value of
// a program is described to StableHLO by its reversed shape and every axis
// number k of an attribute becomes n-1-k (n the rank of the tensor the axis
// belongs to). Host buffers then cross over as they are (no transposes),
// reshape keeps its meaning (the linear element order is the same on both
// sides) and lists indexed by axis (slice bounds, padding, slice sizes,
// dynamic_slice starts) are reversed. Two ops need more than renumbering:
// - dot_general: ours orders the result (batch, lhs free, rhs free) in our
//   axis order; in reversed form that is (rhs free, lhs free, batch), all
//   reversed. StableHLO puts batch first, so the lowering swaps the operands
//   (the product commutes; dot_general never conjugates) and moves the batch
//   axes behind the free ones with one transpose (none without batch axes).
// - gather/scatter with index_vector_dim == rank(indices) (an implicit
//   trailing index-vector axis of length 1): reversed it would sit before
//   axis 0, so the indices are first reshaped to carry that axis explicitly.
#include "tenferro/xla/stablehlo.hpp"

#include "lowering.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

#include "tenferro/fft/family.hpp"
#include "tenferro/ops/graph.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/runtime/compiler.hpp"
#include "tenferro/runtime/traced_tensor.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro::xla {

namespace {

const char* elem_type(DType d) {
  switch (d) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::c64: return "complex<f32>";
    case DType::c128: return "complex<f64>";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::bool_: return "i1";
  }
  return "?";
}

std::string tensor_type(DType d, const Shape& s) {
  std::string t = "tensor<";
  for (std::size_t i = s.size(); i-- > 0;) t += std::to_string(s[i]) + "x";
  return t + elem_type(d) + ">";
}

// A value of the function being written: its SSA name, dtype and (our,
// column-major) shape.
struct V {
  std::string name;
  DType dtype = DType::f64;
  Shape shape;
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
};

std::string i64_array(const std::vector<std::int64_t>& v) {
  std::string s = "array<i64";
  const char* sep = ": ";
  for (auto x : v) {
    s += sep + std::to_string(x);
    sep = ", ";
  }
  return s + ">";
}

std::string int_list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Axis k of a rank-n tensor in reversed form (Note [Reversed shapes]).
std::int64_t rev(std::int64_t k, std::int64_t n) { return n - 1 - k; }

template <class List>
std::vector<std::int64_t> rev_axes(const List& axes, std::int64_t n, bool sorted) {
  std::vector<std::int64_t> out;
  for (auto a : axes) out.push_back(rev(static_cast<std::int64_t>(a), n));
  if (sorted) std::sort(out.begin(), out.end());
  return out;
}

template <class List>
std::vector<std::int64_t> reversed(const List& l) {
  std::vector<std::int64_t> out(l.begin(), l.end());
  std::reverse(out.begin(), out.end());
  return out;
}

std::string hex_bytes(const void* data, std::size_t n) {
  static const char* digits = "0123456789ABCDEF";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string s = "\"0x";
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s + "\"";
}

const char* compare_type(DType d) {
  if (d == DType::bool_) return "UNSIGNED";
  if (is_integer(d)) return "SIGNED";
  return "FLOAT";
}

// Why `kind` on operands of `dtype` has no lowering (nullptr: it has one).
// Every row of ops.def is a case (no default), so a new primitive fails the
// build here until it is classified.
const char* refusal(OpKind kind, DType dtype) {
  (void)dtype;
  switch (kind) {
    case OpKind::add: case OpKind::subtract: case OpKind::multiply: case OpKind::negate:
    case OpKind::conj: case OpKind::dot_general: case OpKind::reduce_sum:
    case OpKind::transpose: case OpKind::reshape: case OpKind::broadcast_in_dim:
    case OpKind::gather: case OpKind::scatter: case OpKind::slice: case OpKind::dynamic_slice:
    case OpKind::dynamic_update_slice: case OpKind::pad: case OpKind::concatenate:
    case OpKind::reverse: case OpKind::divide: case OpKind::abs: case OpKind::sign:
    case OpKind::maximum: case OpKind::minimum: case OpKind::compare: case OpKind::select:
    case OpKind::clamp: case OpKind::exp: case OpKind::log: case OpKind::sin: case OpKind::cos:
    case OpKind::tanh: case OpKind::sqrt: case OpKind::rsqrt: case OpKind::power:
    case OpKind::expm1: case OpKind::log1p: case OpKind::real: case OpKind::imag:
    case OpKind::complex: case OpKind::convert: case OpKind::is_finite:
    case OpKind::reduce_prod: case OpKind::reduce_max: case OpKind::reduce_min:
    case OpKind::floor: case OpKind::ceil: case OpKind::round_nearest_even: case OpKind::trunc:
    case OpKind::fmod: case OpKind::remainder: case OpKind::ldexp:
    case OpKind::erf: case OpKind::erfc: case OpKind::erfinv: case OpKind::lgamma:
    case OpKind::digamma: case OpKind::polygamma: case OpKind::i1e: case OpKind::ndtr:
      return nullptr;
    case OpKind::frexp_exponent:
      return "StableHLO has no exponent extraction (it would need bitcast_convert and a subnormal path)";
    case OpKind::erfcx:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::ndtri:
    case OpKind::log_ndtr:
      return "neither StableHLO nor CHLO has this special function, and composing it from others "
             "loses the accuracy of ours (docs/special_functions.md)";
  }
  return "unknown op";
}

class Emitter {
 public:
  std::ostringstream out;

  V emit(const std::string& op, const std::vector<V>& args, const std::string& attrs, DType rd, const Shape& rs) {
    V r{fresh(), rd, rs};
    out << "    " << r.name << " = \"" << op << "\"(";
    for (std::size_t i = 0; i < args.size(); ++i) out << (i ? ", " : "") << args[i].name;
    out << ")";
    if (!attrs.empty()) out << " {" << attrs << "}";
    out << " : (";
    for (std::size_t i = 0; i < args.size(); ++i) out << (i ? ", " : "") << tensor_type(args[i].dtype, args[i].shape);
    out << ") -> " << tensor_type(rd, rs) << "\n";
    return r;
  }
  V unary(const std::string& op, const V& x, DType rd) { return emit(op, {x}, "", rd, x.shape); }
  V unary(const std::string& op, const V& x) { return emit(op, {x}, "", x.dtype, x.shape); }
  V binary(const std::string& op, const V& a, const V& b) { return emit(op, {a, b}, "", a.dtype, a.shape); }

  // A constant from raw column-major bytes (Note [Reversed shapes]: they are
  // the row-major bytes of the reversed shape). bool goes through i8.
  V constant(DType d, const Shape& s, const void* data) {
    std::int64_t n = 1;
    for (auto e : s) n *= e;
    if (n == 0) {  // no bytes to write: broadcast a scalar to the empty shape
      std::int64_t zero[2] = {0, 0};
      return broadcast(constant(d, {}, zero), s);
    }
    if (d == DType::bool_) {
      V b{fresh(), DType::i32, s};
      std::vector<std::int8_t> bytes(static_cast<std::size_t>(n));
      std::memcpy(bytes.data(), data, static_cast<std::size_t>(n));
      out << "    " << b.name << " = \"stablehlo.constant\"() {value = dense<"
          << hex_bytes(bytes.data(), bytes.size()) << "> : " << tensor_type_i8(s) << "} : () -> "
          << tensor_type_i8(s) << "\n";
      V zero{fresh(), DType::i32, {}};
      out << "    " << zero.name << " = \"stablehlo.constant\"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>\n";
      V zb = broadcast_i8(zero, s);
      V r{fresh(), DType::bool_, s};
      out << "    " << r.name << " = \"stablehlo.compare\"(" << b.name << ", " << zb.name
          << ") {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = "
             "#stablehlo<comparison_type SIGNED>} : ("
          << tensor_type_i8(s) << ", " << tensor_type_i8(s) << ") -> " << tensor_type(DType::bool_, s) << "\n";
      return r;
    }
    V r{fresh(), d, s};
    std::string ty = tensor_type(d, s);
    out << "    " << r.name << " = \"stablehlo.constant\"() {value = dense<"
        << hex_bytes(data, static_cast<std::size_t>(n) * dtype_size(d)) << "> : " << ty << "} : () -> " << ty
        << "\n";
    return r;
  }

  // A scalar of dtype d with value re (+ i im), then broadcast to shape s.
  V full(DType d, const Shape& s, double re, double im = 0) {
    unsigned char buf[16] = {};
    switch (d) {
      case DType::f32: { float v = static_cast<float>(re); std::memcpy(buf, &v, 4); break; }
      case DType::f64: std::memcpy(buf, &re, 8); break;
      case DType::c64: {
        float v[2] = {static_cast<float>(re), static_cast<float>(im)};
        std::memcpy(buf, v, 8);
        break;
      }
      case DType::c128: { double v[2] = {re, im}; std::memcpy(buf, v, 16); break; }
      case DType::i32: { auto v = static_cast<std::int32_t>(re); std::memcpy(buf, &v, 4); break; }
      case DType::i64: { auto v = static_cast<std::int64_t>(re); std::memcpy(buf, &v, 8); break; }
      case DType::bool_: buf[0] = re != 0; break;
    }
    V c = constant(d, {}, buf);
    return s.empty() ? c : broadcast(c, s);
  }
  V full_i64(DType d, const Shape& s, std::int64_t value) {
    unsigned char buf[8] = {};
    if (d == DType::i32) {
      auto v = static_cast<std::int32_t>(value);
      std::memcpy(buf, &v, 4);
    } else {
      std::memcpy(buf, &value, 8);
    }
    V c = constant(d, {}, buf);
    return s.empty() ? c : broadcast(c, s);
  }

  V broadcast(const V& x, const Shape& s) {
    if (x.shape == s) return x;
    TF_INTERNAL_ASSERT(x.shape.empty(), "xla: broadcast of a non-scalar");
    return emit("stablehlo.broadcast_in_dim", {x}, "broadcast_dimensions = array<i64>", x.dtype, s);
  }
  V compare(const V& a, const V& b, const char* dir) {
    return emit("stablehlo.compare", {a, b},
                std::string("comparison_direction = #stablehlo<comparison_direction ") + dir +
                    ">, compare_type = #stablehlo<comparison_type " + compare_type(a.dtype) + ">",
                DType::bool_, a.shape);
  }
  V select(const V& p, const V& a, const V& b) { return emit("stablehlo.select", {p, a, b}, "", a.dtype, a.shape); }
  V convert(const V& x, DType to) { return x.dtype == to ? x : emit("stablehlo.convert", {x}, "", to, x.shape); }
  V reshape(const V& x, const Shape& s) { return x.shape == s ? x : emit("stablehlo.reshape", {x}, "", x.dtype, s); }
  // transpose with our permutation (result axis i = operand axis perm[i]).
  V transpose(const V& x, const std::vector<std::int64_t>& perm) {
    bool identity = true;
    for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<std::int64_t>(i);
    if (identity) return x;
    const std::int64_t n = x.rank();
    std::vector<std::int64_t> p(perm.size());
    Shape rs(perm.size());
    for (std::int64_t j = 0; j < n; ++j) p[static_cast<std::size_t>(j)] = rev(perm[static_cast<std::size_t>(rev(j, n))], n);
    for (std::size_t i = 0; i < perm.size(); ++i) rs[i] = x.shape[static_cast<std::size_t>(perm[i])];
    return emit("stablehlo.transpose", {x}, "permutation = " + i64_array(p), x.dtype, rs);
  }
  // A reduction of `x` over our axes with the body `op` and initial value init.
  // `nan_propagating`: the body is a NaN-propagating maximum/minimum (Note
  // [NaN max]), written out as ops of the region.
  V reduce(const V& x, const V& init, const std::vector<std::int64_t>& axes, const char* op, const Shape& rs,
           bool nan_propagating = false) {
    V r{fresh(), x.dtype, rs};
    std::string st = tensor_type(x.dtype, {});
    std::string a = fresh(), b = fresh(), c = fresh();
    out << "    " << r.name << " = \"stablehlo.reduce\"(" << x.name << ", " << init.name << ") ({\n"
        << "    ^bb0(" << a << ": " << st << ", " << b << ": " << st << "):\n"
        << "      " << c << " = \"" << op << "\"(" << a << ", " << b << ") : (" << st << ", " << st << ") -> " << st
        << "\n";
    if (nan_propagating) {
      std::string bt = tensor_type(DType::bool_, {});
      std::string na = fresh(), nb = fresh(), any = fresh(), sum = fresh(), sel = fresh();
      const char* ne = " {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = "
                       "#stablehlo<comparison_type FLOAT>}";
      out << "      " << na << " = \"stablehlo.compare\"(" << a << ", " << a << ")" << ne << " : (" << st << ", "
          << st << ") -> " << bt << "\n"
          << "      " << nb << " = \"stablehlo.compare\"(" << b << ", " << b << ")" << ne << " : (" << st << ", "
          << st << ") -> " << bt << "\n"
          << "      " << any << " = \"stablehlo.or\"(" << na << ", " << nb << ") : (" << bt << ", " << bt << ") -> "
          << bt << "\n"
          << "      " << sum << " = \"stablehlo.add\"(" << a << ", " << b << ") : (" << st << ", " << st << ") -> "
          << st << "\n"
          << "      " << sel << " = \"stablehlo.select\"(" << any << ", " << sum << ", " << c << ") : (" << bt
          << ", " << st << ", " << st << ") -> " << st << "\n";
      c = sel;
    }
    out << "      \"stablehlo.return\"(" << c << ") : (" << st << ") -> ()\n"
        << "    }) {dimensions = " << i64_array(rev_axes(axes, x.rank(), true)) << "} : ("
        << tensor_type(x.dtype, x.shape) << ", " << st << ") -> " << tensor_type(x.dtype, rs) << "\n";
    return r;
  }
  // Scalar k of a rank-1 index vector (as a rank-0 tensor).
  V element(const V& idx, std::int64_t k) {
    V s = emit("stablehlo.slice", {idx},
               "start_indices = " + i64_array({k}) + ", limit_indices = " + i64_array({k + 1}) +
                   ", strides = " + i64_array({1}),
               idx.dtype, {1});
    return reshape(s, {});
  }

  std::string fresh() { return "%t" + std::to_string(counter_++); }

 private:
  static std::string tensor_type_i8(const Shape& s) {
    std::string t = "tensor<";
    for (std::size_t i = s.size(); i-- > 0;) t += std::to_string(s[i]) + "x";
    return t + "i8>";
  }
  V broadcast_i8(const V& x, const Shape& s) {
    if (s.empty()) return x;
    V r{fresh(), DType::i32, s};
    out << "    " << r.name << " = \"stablehlo.broadcast_in_dim\"(" << x.name
        << ") {broadcast_dimensions = array<i64>} : (tensor<i8>) -> " << tensor_type_i8(s) << "\n";
    return r;
  }
  int counter_ = 0;
};

const char* simple_unary(OpKind k) {
  switch (k) {
    case OpKind::negate: return "stablehlo.negate";
    case OpKind::abs: return "stablehlo.abs";
    case OpKind::sign: return "stablehlo.sign";
    case OpKind::exp: return "stablehlo.exponential";
    case OpKind::log: return "stablehlo.log";
    case OpKind::sin: return "stablehlo.sine";
    case OpKind::cos: return "stablehlo.cosine";
    case OpKind::tanh: return "stablehlo.tanh";
    case OpKind::sqrt: return "stablehlo.sqrt";
    case OpKind::rsqrt: return "stablehlo.rsqrt";
    case OpKind::expm1: return "stablehlo.exponential_minus_one";
    case OpKind::log1p: return "stablehlo.log_plus_one";
    case OpKind::real: return "stablehlo.real";
    case OpKind::imag: return "stablehlo.imag";
    case OpKind::floor: return "stablehlo.floor";
    case OpKind::ceil: return "stablehlo.ceil";
    case OpKind::round_nearest_even: return "stablehlo.round_nearest_even";
    case OpKind::erf: return "chlo.erf";
    case OpKind::erfc: return "chlo.erfc";
    case OpKind::erfinv: return "chlo.erf_inv";
    case OpKind::lgamma: return "chlo.lgamma";
    case OpKind::digamma: return "chlo.digamma";
    case OpKind::i1e: return "chlo.bessel_i1e";
    default: return nullptr;
  }
}

const char* simple_binary(OpKind k) {
  switch (k) {
    case OpKind::add: return "stablehlo.add";
    case OpKind::subtract: return "stablehlo.subtract";
    case OpKind::multiply: return "stablehlo.multiply";
    case OpKind::divide: return "stablehlo.divide";
    case OpKind::power: return "stablehlo.power";
    case OpKind::fmod: return "stablehlo.remainder";
    default: return nullptr;
  }
}

// Note [NaN max]: the CPU plugin's maximum and minimum return the other
// operand for a NaN (its fast min/max), ours and StableHLO's spec return
// NaN. So floats get the NaN explicitly: where either operand is NaN, a + b
// (NaN); elsewhere the plugin's maximum/minimum. The same body serves
// reduce_max/reduce_min and clamp.
V nan_minmax(Emitter& e, const char* op, const V& a, const V& b) {
  V m = e.binary(op, a, b);
  if (!is_float(a.dtype)) return m;
  V nan = e.binary("stablehlo.or", e.compare(a, a, "NE"), e.compare(b, b, "NE"));
  return e.select(nan, e.binary("stablehlo.add", a, b), m);
}

// Saturating float -> integer conversion as ours (Note [Convert] in
// src/cpu/scalar_ops.hpp): NaN -> 0, out-of-range values clamp.
V float_to_int(Emitter& e, const V& x, DType to) {
  const double lo = to == DType::i32 ? static_cast<double>(std::numeric_limits<std::int32_t>::min())
                                     : static_cast<double>(std::numeric_limits<std::int64_t>::min());
  const double hi = to == DType::i32 ? static_cast<double>(std::numeric_limits<std::int32_t>::max())
                                     : static_cast<double>(std::numeric_limits<std::int64_t>::max());
  V c = e.convert(x, to);
  V is_nan = e.compare(x, x, "NE");
  V below = e.compare(x, e.full(x.dtype, x.shape, lo), "LE");
  V above = e.compare(x, e.full(x.dtype, x.shape, hi), "GE");
  const std::int64_t ilo = to == DType::i32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
  const std::int64_t ihi = to == DType::i32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
  V r = e.select(above, e.full_i64(to, x.shape, ihi), c);
  r = e.select(below, e.full_i64(to, x.shape, ilo), r);
  return e.select(is_nan, e.full_i64(to, x.shape, 0), r);
}

V lower_convert(Emitter& e, const V& x, DType to) {
  if (x.dtype == to) return x;
  if (to == DType::bool_) return e.compare(x, e.full(x.dtype, x.shape, 0), "NE");
  V src = x;
  if (is_complex(x.dtype) && !is_complex(to)) src = e.unary("stablehlo.real", x, real_dtype(x.dtype));
  if (is_float(src.dtype) && !is_complex(src.dtype) && is_integer(to)) return float_to_int(e, src, to);
  return e.convert(src, to);
}

// An elementwise primitive (also each step of a fused chain). `args` have
// the result's shape except where the op allows scalars (select, clamp).
V lower_elementwise(Emitter& e, OpKind kind, const Attrs& attrs, const std::vector<V>& args, DType rd,
                    const Shape& rs) {
  if (const char* u = simple_unary(kind)) return e.emit(u, {args[0]}, "", rd, rs);
  if (const char* b = simple_binary(kind)) return e.emit(b, {args[0], args[1]}, "", rd, rs);
  const V& x = args[0];
  switch (kind) {
    case OpKind::maximum: return nan_minmax(e, "stablehlo.maximum", args[0], args[1]);
    case OpKind::minimum: return nan_minmax(e, "stablehlo.minimum", args[0], args[1]);
    case OpKind::clamp: {
      if (!is_float(args[1].dtype)) return e.emit("stablehlo.clamp", args, "", rd, rs);
      V lo = e.broadcast(args[0], rs), hi = e.broadcast(args[2], rs);
      return nan_minmax(e, "stablehlo.minimum", nan_minmax(e, "stablehlo.maximum", args[1], lo), hi);
    }
    case OpKind::conj: {
      if (!is_complex(x.dtype)) return x;
      DType r = real_dtype(x.dtype);
      V re = e.unary("stablehlo.real", x, r);
      V im = e.unary("stablehlo.negate", e.unary("stablehlo.imag", x, r));
      return e.emit("stablehlo.complex", {re, im}, "", x.dtype, x.shape);
    }
    case OpKind::complex: return e.emit("stablehlo.complex", {args[0], args[1]}, "", rd, rs);
    case OpKind::compare: {
      static const char* names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
      auto d = std::get<CompareAttrs>(attrs).direction;
      return e.compare(args[0], args[1], names[static_cast<int>(d)]);
    }
    case OpKind::select: return e.emit("stablehlo.select", args, "", rd, rs);
    case OpKind::convert: return lower_convert(e, x, std::get<ConvertAttrs>(attrs).dtype);
    case OpKind::is_finite: {
      if (!is_complex(x.dtype)) return e.emit("stablehlo.is_finite", {x}, "", DType::bool_, rs);
      DType r = real_dtype(x.dtype);
      V a = e.emit("stablehlo.is_finite", {e.unary("stablehlo.real", x, r)}, "", DType::bool_, rs);
      V b = e.emit("stablehlo.is_finite", {e.unary("stablehlo.imag", x, r)}, "", DType::bool_, rs);
      return e.binary("stablehlo.and", a, b);
    }
    case OpKind::trunc: {
      V neg = e.compare(x, e.full(x.dtype, x.shape, 0), "LT");
      return e.select(neg, e.unary("stablehlo.ceil", x), e.unary("stablehlo.floor", x));
    }
    case OpKind::remainder: {
      // Python's remainder: fmod, moved by y where its sign differs from y's.
      const V& y = args[1];
      V r = e.binary("stablehlo.remainder", x, y);
      V zero = e.full(x.dtype, x.shape, 0);
      V nonzero = e.compare(r, zero, "NE");
      V differ = e.compare(e.compare(r, zero, "LT"), e.compare(y, zero, "LT"), "NE");
      return e.select(e.binary("stablehlo.and", nonzero, differ), e.binary("stablehlo.add", r, y), r);
    }
    case OpKind::ldexp: {
      // As ldexp_of (src/ops/special_math.hpp): an integral e (inf included)
      // scales exactly, clamped to +-1100, here as four exact powers of two
      // 2^q 2^q 2^q 2^(e-3q) so that no factor overflows where the result
      // does not; other e multiply by 2^e. Zero stays zero (with its sign).
      const V& ex = args[1];
      auto pow2 = [&](const V& k) { return e.binary("stablehlo.power", e.full(x.dtype, x.shape, 2), k); };
      V integral = e.compare(ex, e.unary("stablehlo.floor", ex), "EQ");
      V ec = e.emit("stablehlo.clamp", {e.full(x.dtype, {}, -1100), ex, e.full(x.dtype, {}, 1100)}, "", x.dtype, x.shape);
      V q = e.unary("stablehlo.floor", e.binary("stablehlo.multiply", ec, e.full(x.dtype, x.shape, 0.25)));
      V last = e.binary("stablehlo.subtract", ec, e.binary("stablehlo.multiply", q, e.full(x.dtype, x.shape, 3)));
      V pq = pow2(q);
      V r = e.binary("stablehlo.multiply", e.binary("stablehlo.multiply", e.binary("stablehlo.multiply", x, pq), pq), pq);
      r = e.binary("stablehlo.multiply", r, pow2(last));
      V frac = e.binary("stablehlo.multiply", x, pow2(ex));
      V zero = e.compare(x, e.full(x.dtype, x.shape, 0), "EQ");
      return e.select(zero, x, e.select(integral, r, frac));
    }
    case OpKind::ndtr: {
      // ndtr(x) = erfc(-x / sqrt 2) / 2
      V t = e.binary("stablehlo.multiply", x, e.full(x.dtype, x.shape, -0.70710678118654752440));
      return e.binary("stablehlo.multiply", e.unary("chlo.erfc", t), e.full(x.dtype, x.shape, 0.5));
    }
    case OpKind::polygamma: {
      V n = e.full(x.dtype, x.shape, static_cast<double>(std::get<PolygammaAttrs>(attrs).n));
      return e.emit("chlo.polygamma", {n, x}, "", rd, rs);
    }
    default: break;
  }
  TF_THROW(InternalError, "to_stablehlo", "no elementwise lowering for ", op_name(kind));
}

V reduce_init(Emitter& e, OpKind kind, DType d) {
  switch (kind) {
    case OpKind::reduce_sum: return e.full(d, {}, 0);
    case OpKind::reduce_prod: return e.full(d, {}, 1);
    case OpKind::reduce_max:
      if (d == DType::i32) return e.full_i64(d, {}, std::numeric_limits<std::int32_t>::min());
      if (d == DType::i64) return e.full_i64(d, {}, std::numeric_limits<std::int64_t>::min());
      return e.full(d, {}, -std::numeric_limits<double>::infinity());
    default:
      if (d == DType::i32) return e.full_i64(d, {}, std::numeric_limits<std::int32_t>::max());
      if (d == DType::i64) return e.full_i64(d, {}, std::numeric_limits<std::int64_t>::max());
      return e.full(d, {}, std::numeric_limits<double>::infinity());
  }
}

// Index vectors with an implicit trailing axis get it explicitly (Note [Reversed shapes]).
V explicit_index_vector(Emitter& e, const V& idx, std::int64_t& ivd) {
  if (ivd < idx.rank()) return idx;
  Shape s = idx.shape;
  s.push_back(1);
  return e.reshape(idx, s);
}

V lower_primitive(Emitter& e, OpKind kind, const Attrs& attrs, const std::vector<V>& in, DType rd,
                  const Shape& rs) {
  const char* op = op_name(kind);
  switch (op_info(kind).category) {
    case OpCategory::unary:
    case OpCategory::binary:
    case OpCategory::ternary:
      return lower_elementwise(e, kind, attrs, in, rd, rs);
    default: break;
  }
  const V& x = in[0];
  const std::int64_t n = x.rank();
  switch (kind) {
    case OpKind::reduce_sum:
    case OpKind::reduce_prod:
    case OpKind::reduce_max:
    case OpKind::reduce_min: {
      const auto& a = std::get<AxesAttrs>(attrs);
      std::vector<std::int64_t> axes(a.dimensions.begin(), a.dimensions.end());
      DType d = x.dtype;
      const char* body = kind == OpKind::reduce_sum    ? (d == DType::bool_ ? "stablehlo.or" : "stablehlo.add")
                         : kind == OpKind::reduce_prod ? "stablehlo.multiply"
                         : kind == OpKind::reduce_max  ? "stablehlo.maximum"
                                                       : "stablehlo.minimum";
      const bool nan = (kind == OpKind::reduce_max || kind == OpKind::reduce_min) && is_float(d);
      return e.reduce(x, reduce_init(e, kind, d), axes, body, rs, nan);
    }
    case OpKind::dot_general: {
      const auto& a = std::get<DotGeneralAttrs>(attrs);
      const V& l = x;
      const V& r = in[1];
      const std::int64_t nl = l.rank(), nr = r.rank();
      const std::size_t nb = a.lhs_batching_dimensions.size();
      // Swapped operands (rhs first), batch axes in reversed order.
      std::vector<std::int64_t> rb, lb;
      for (std::size_t i = nb; i-- > 0;) {
        rb.push_back(rev(a.rhs_batching_dimensions[i], nr));
        lb.push_back(rev(a.lhs_batching_dimensions[i], nl));
      }
      std::vector<std::int64_t> rc = rev_axes(a.rhs_contracting_dimensions, nr, false);
      std::vector<std::int64_t> lc = rev_axes(a.lhs_contracting_dimensions, nl, false);
      std::string dn = "dot_dimension_numbers = #stablehlo.dot<";
      std::string sep;
      auto field = [&](const char* name, const std::vector<std::int64_t>& v) {
        if (v.empty()) return;
        dn += sep + name + " = " + int_list(v);
        sep = ", ";
      };
      field("lhs_batching_dimensions", rb);
      field("rhs_batching_dimensions", lb);
      field("lhs_contracting_dimensions", rc);
      field("rhs_contracting_dimensions", lc);
      dn += ">";
      // StableHLO result (row-major): batch (reversed order), rhs free, lhs
      // free, each in increasing reversed axis. As our shape: the reverse.
      const std::int64_t nout = static_cast<std::int64_t>(rs.size());
      const std::int64_t nfree = nout - static_cast<std::int64_t>(nb);
      Shape hs(static_cast<std::size_t>(nout));
      // Our column-major view of the StableHLO result: (lhs free, rhs free, batch).
      for (std::int64_t i = 0; i < nfree; ++i) hs[static_cast<std::size_t>(i)] = rs[nb + static_cast<std::size_t>(i)];
      for (std::size_t i = 0; i < nb; ++i) hs[static_cast<std::size_t>(nfree) + i] = rs[i];
      V d = e.emit("stablehlo.dot_general", {r, l}, dn, rd, hs);
      if (nb == 0) return d;
      std::vector<std::int64_t> perm;
      for (std::size_t i = 0; i < nb; ++i) perm.push_back(nfree + static_cast<std::int64_t>(i));
      for (std::int64_t i = 0; i < nfree; ++i) perm.push_back(i);
      return e.transpose(d, perm);
    }
    case OpKind::transpose: {
      const auto& p = std::get<PermutationAttrs>(attrs).permutation;
      return e.transpose(x, std::vector<std::int64_t>(p.begin(), p.end()));
    }
    case OpKind::reshape: return e.emit("stablehlo.reshape", {x}, "", rd, rs);
    case OpKind::broadcast_in_dim: {
      const auto& a = std::get<BroadcastInDimAttrs>(attrs);
      const std::int64_t no = static_cast<std::int64_t>(rs.size());
      std::vector<std::int64_t> dims(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k)
        dims[static_cast<std::size_t>(rev(k, n))] = rev(a.broadcast_dimensions[static_cast<std::size_t>(k)], no);
      return e.emit("stablehlo.broadcast_in_dim", {x}, "broadcast_dimensions = " + i64_array(dims), rd, rs);
    }
    case OpKind::slice: {
      const auto& a = std::get<SliceAttrs>(attrs);
      return e.emit("stablehlo.slice", {x},
                    "start_indices = " + i64_array(reversed(a.start_indices)) +
                        ", limit_indices = " + i64_array(reversed(a.limit_indices)) +
                        ", strides = " + i64_array(reversed(a.strides)),
                    rd, rs);
    }
    case OpKind::dynamic_slice: {
      const auto& a = std::get<DynamicSliceAttrs>(attrs);
      std::vector<V> args{x};
      for (std::int64_t k = n; k-- > 0;) args.push_back(e.element(in[1], k));
      return e.emit("stablehlo.dynamic_slice", args, "slice_sizes = " + i64_array(reversed(a.slice_sizes)), rd, rs);
    }
    case OpKind::dynamic_update_slice: {
      std::vector<V> args{x, in[1]};
      for (std::int64_t k = n; k-- > 0;) args.push_back(e.element(in[2], k));
      return e.emit("stablehlo.dynamic_update_slice", args, "", rd, rs);
    }
    case OpKind::pad: {
      const auto& a = std::get<PadAttrs>(attrs);
      return e.emit("stablehlo.pad", {x, in[1]},
                    "edge_padding_low = " + i64_array(reversed(a.edge_padding_low)) +
                        ", edge_padding_high = " + i64_array(reversed(a.edge_padding_high)) +
                        ", interior_padding = " + i64_array(reversed(a.interior_padding)),
                    rd, rs);
    }
    case OpKind::concatenate: {
      const auto d = std::get<ConcatenateAttrs>(attrs).dimension;
      return e.emit("stablehlo.concatenate", in, "dimension = " + std::to_string(rev(d, n)) + " : i64", rd, rs);
    }
    case OpKind::reverse: {
      const auto& a = std::get<AxesAttrs>(attrs);
      return e.emit("stablehlo.reverse", {x}, "dimensions = " + i64_array(rev_axes(a.dimensions, n, true)), rd, rs);
    }
    case OpKind::gather: {
      const auto& a = std::get<GatherAttrs>(attrs);
      std::int64_t ivd = a.index_vector_dim;
      V idx = explicit_index_vector(e, in[1], ivd);
      const std::int64_t ni = idx.rank(), no = static_cast<std::int64_t>(rs.size());
      std::string dn = "dimension_numbers = #stablehlo.gather<offset_dims = " +
                       int_list(rev_axes(a.offset_dims, no, true)) +
                       ", collapsed_slice_dims = " + int_list(rev_axes(a.collapsed_slice_dims, n, true)) +
                       ", start_index_map = " + int_list(rev_axes(a.start_index_map, n, false)) +
                       ", index_vector_dim = " + std::to_string(rev(ivd, ni)) +
                       ">, slice_sizes = " + i64_array(reversed(a.slice_sizes)) + ", indices_are_sorted = false";
      return e.emit("stablehlo.gather", {x, idx}, dn, rd, rs);
    }
    case OpKind::scatter: {
      const auto& a = std::get<ScatterAttrs>(attrs);
      if (n == 0) {
        // A rank-0 operand: every (empty) index is in bounds and each update
        // hits the one element. XLA's scatter simplifier rejects this form,
        // so: add -> operand + the sum of the updates; replace -> the last
        // update in order (the operand when there is none).
        const V& upd = in[2];
        std::int64_t count = 1;
        for (auto d : upd.shape) count *= d;
        std::vector<std::int64_t> all;
        for (std::int64_t k = 0; k < upd.rank(); ++k) all.push_back(k);
        if (a.mode == ScatterMode::add) {
          const char* body = x.dtype == DType::bool_ ? "stablehlo.or" : "stablehlo.add";
          V zero = e.full(x.dtype, {}, 0);
          return e.binary(body, x, e.reduce(upd, zero, all, body, {}));
        }
        if (count == 0) return x;
        return e.element(e.reshape(upd, {count}), count - 1);
      }
      std::int64_t ivd = a.index_vector_dim;
      V idx = explicit_index_vector(e, in[1], ivd);
      const V& upd = in[2];
      const std::int64_t ni = idx.rank(), nu = upd.rank();
      V r{e.fresh(), rd, rs};
      std::string st = tensor_type(x.dtype, {});
      std::string p = e.fresh(), q = e.fresh(), c = e.fresh();
      e.out << "    " << r.name << " = \"stablehlo.scatter\"(" << x.name << ", " << idx.name << ", " << upd.name
            << ") ({\n"
            << "    ^bb0(" << p << ": " << st << ", " << q << ": " << st << "):\n";
      if (a.mode == ScatterMode::add) {
        const char* body = x.dtype == DType::bool_ ? "stablehlo.or" : "stablehlo.add";
        e.out << "      " << c << " = \"" << body << "\"(" << p << ", " << q << ") : (" << st << ", " << st
              << ") -> " << st << "\n"
              << "      \"stablehlo.return\"(" << c << ") : (" << st << ") -> ()\n";
      } else {
        e.out << "      \"stablehlo.return\"(" << q << ") : (" << st << ") -> ()\n";
      }
      e.out << "    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = "
            << int_list(rev_axes(a.update_window_dims, nu, true))
            << ", inserted_window_dims = " << int_list(rev_axes(a.inserted_window_dims, n, true))
            << ", scatter_dims_to_operand_dims = " << int_list(rev_axes(a.scatter_dims_to_operand_dims, n, false))
            << ", index_vector_dim = " << rev(ivd, ni) << ">, indices_are_sorted = false, unique_indices = false} : ("
            << tensor_type(x.dtype, x.shape) << ", " << tensor_type(idx.dtype, idx.shape) << ", "
            << tensor_type(upd.dtype, upd.shape) << ") -> " << tensor_type(rd, rs) << "\n";
      return r;
    }
    default: break;
  }
  TF_THROW(InternalError, "to_stablehlo", "no lowering for ", op);
}

// fft.fft (the family op of every transform) to stablehlo.fft (Note [Reversed shapes]): stablehlo.fft
// transforms the innermost axes, which are our leading axes in reverse;
// RFFT/IRFFT halve the innermost, our axis 0. So the transformed axes are
// first moved to the front (the halved one, the last of `axes`, to axis 0),
// and the normalisation is applied as a scale (StableHLO's IFFT divides by
// the transform size, its FFT does not).
V lower_fft(Emitter& e, const fft::TransformAttrs& a, const V& x, DType rd, const Shape& rs) {
  const std::int64_t n = x.rank();
  const std::size_t k = a.axes.size();
  std::vector<std::int64_t> perm;  // our axes, transformed ones first: axes.back(), ..., axes[0]
  for (std::size_t i = k; i-- > 0;) perm.push_back(a.axes[i]);
  for (std::int64_t i = 0; i < n; ++i)
    if (std::find(a.axes.begin(), a.axes.end(), i) == a.axes.end()) perm.push_back(i);
  std::vector<std::int64_t> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  V xt = e.transpose(x, perm);
  Shape ts(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) ts[i] = rs[static_cast<std::size_t>(perm[i])];
  // fft_length in StableHLO order: reversed of our leading k axes (lengths[i] belongs to axes[i]).
  std::vector<std::int64_t> lengths;
  for (std::size_t i = 0; i < k; ++i) lengths.push_back(a.lengths[i]);
  static const char* types[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  V y = e.emit("stablehlo.fft", {xt},
               std::string("fft_type = #stablehlo<fft_type ") + types[static_cast<int>(a.type)] +
                   ">, fft_length = " + i64_array(lengths),
               rd, ts);
  double size = 1;
  for (auto l : a.lengths) size *= static_cast<double>(l);
  const bool inverse = a.type == fft::FftType::IFFT || a.type == fft::FftType::IRFFT;
  // StableHLO computes the "backward" normalisation; rescale to the asked one.
  double scale = 1;
  if (a.norm == fft::Norm::ortho) scale = inverse ? std::sqrt(size) : 1 / std::sqrt(size);
  else if (a.norm == fft::Norm::forward) scale = inverse ? size : 1 / size;
  if (scale != 1) y = e.binary("stablehlo.multiply", y, e.full(rd, ts, scale));
  return e.transpose(y, inv);
}

bool is_fft(const Instruction& ins) {
  for (const FamilyOp& o : fft::family().ops)
    if (&o == ins.family) return true;
  return false;
}

}  // namespace

bool lowerable(OpKind kind, DType dtype) { return refusal(kind, dtype) == nullptr; }

std::vector<Tensor> bind_program_inputs(const Program& p, const RunInputs& given, const char* op) {
  std::vector<Tensor> bound;
  if (given.by_position()) {
    TF_CHECK(given.positional().size() == p.inputs.size(), ValueError, op, "the program takes ", p.inputs.size(),
             " inputs, got ", given.positional().size());
    bound = given.positional();
  } else {
    bound.resize(p.inputs.size());
    for (const auto& [name, t] : given.named()) {
      auto it = std::find_if(p.inputs.begin(), p.inputs.end(), [&](const ProgramInput& in) { return in.name == name; });
      TF_CHECK(it != p.inputs.end(), ValueError, op, "the program has no input named '", name, "'");
      std::size_t k = static_cast<std::size_t>(it - p.inputs.begin());
      TF_CHECK(!bound[k].defined(), ValueError, op, "input '", name, "' is given twice");
      bound[k] = t;
    }
  }
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const ProgramInput& in = p.inputs[k];
    const Tensor& t = bound[k];
    TF_CHECK(t.defined(), ValueError, op, "input '", in.name, "' is not bound");
    TF_CHECK(t.dtype() == in.meta.dtype, DTypeError, op, "input '", in.name, "' has dtype ", t.dtype(),
             " but the program declares ", in.meta.dtype);
    TF_CHECK(t.shape().size() == in.meta.shape.size(), ShapeError, op, "input '", in.name, "' has shape ",
             t.shape(), " but the program expects rank ", in.meta.shape.size(), " ", in.meta.shape);
  }
  return bound;
}

std::string to_stablehlo(const Program& p, const RunInputs& example_inputs) {
  return detail::lower_program(p, bind_program_inputs(p, example_inputs, "to_stablehlo"), "to_stablehlo").text;
}

namespace {

// The symbol bindings that the arguments' shapes give `p`'s inputs.
DimBindings bind_extents(const Program& p, const std::vector<V>& args, const char* op) {
  DimBindings env;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const SymShape& sym = p.inputs[k].meta.shape;
    const Shape& actual = args[k].shape;
    for (std::size_t i = 0; i < sym.size(); ++i) {
      const Dim& d = sym[i];
      if (d.is_symbol() && !env.count(d.symbol())) env[d.symbol()] = actual[i];
      bool bound = true;
      for (const std::string& s : d.symbols()) bound = bound && env.count(s);
      TF_CHECK(bound && d.evaluate(env) == actual[i], ShapeError, op, "input '", p.inputs[k].name,
               "' has extent ", actual[i], " on axis ", i, " but the program expects ", d, " (shape ",
               sym, ")");
    }
  }
  return env;
}

// Family ops written in primitives (FamilyOp::lower) nest; a lowering that
// reaches itself again is refused at this depth.
constexpr int kMaxFamilyDepth = 16;

// Writes the instructions of `p` into `e`, its inputs bound to `args` (in
// the order of p.inputs), and returns the values of its outputs. Every
// instruction is checked before the first is written.
std::vector<V> emit_program(Emitter& e, const Program& p, const std::vector<V>& args, int depth, const char* op) {
  const DimBindings env = bind_extents(p, args, op);
  auto slot_shape = [&](int slot, const std::string& what) {
    const SymShape& s = p.slot_meta[static_cast<std::size_t>(slot)].shape;
    for (const Dim& d : s)
      for (const std::string& v : d.symbols())
        TF_CHECK(env.count(v), UnimplementedError, op, what, " has extent ", d, " (shape ", s,
                 "), which depends on data or on no input; StableHLO needs static shapes");
    return evaluate_shape(s, env);
  };
  // Refuse before writing anything.
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instruction& ins = p.code[i];
    std::string where = tenferro::detail::str("instruction %", i, " = ", ins.name());
    if (ins.kind == Instruction::Kind::family) {
      TF_CHECK(is_fft(ins) || ins.family->lower, UnimplementedError, op, where, ": family op '", ins.family->name,
               "' has no StableHLO lowering (no lowering to primitives and no StableHLO counterpart)");
      TF_CHECK(depth < kMaxFamilyDepth, UnimplementedError, op, where, ": family op '", ins.family->name,
               "' still lowers to family ops after ", kMaxFamilyDepth, " levels (a lowering that reaches itself?)");
    } else if (ins.kind == Instruction::Kind::primitive) {
      DType d = ins.inputs.empty() ? DType::f64 : p.slot_meta[static_cast<std::size_t>(ins.inputs[0])].dtype;
      const char* why = refusal(ins.op, d);
      TF_CHECK(why == nullptr, UnimplementedError, op, where, ": ", op_name(ins.op), " on ", d,
               " has no StableHLO lowering: ", why);
    } else {
      for (const auto& s : ins.fused.steps) {
        const char* why = refusal(s.op, s.dtype);
        TF_CHECK(why == nullptr, UnimplementedError, op, where, ": ", op_name(s.op),
                 " has no StableHLO lowering: ", why);
      }
    }
    for (int s : ins.outputs) slot_shape(s, where);
  }

  std::map<int, V> slots;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) slots[p.inputs[k].slot] = args[k];
  for (const auto& [slot, t] : p.constants) {
    Tensor c = t.is_contiguous() ? t : t.contiguous();
    slots[slot] = e.constant(c.dtype(), c.shape(), c.data_ptr());
  }
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instruction& ins = p.code[i];
    std::vector<V> in;
    for (int s : ins.inputs) {
      auto it = slots.find(s);
      TF_INTERNAL_ASSERT(it != slots.end(), "to_stablehlo: slot %", s, " is read before it is written");
      in.push_back(it->second);
    }
    const int out0 = ins.outputs.at(0);
    const SymMeta& m = p.slot_meta[static_cast<std::size_t>(out0)];
    Shape rs = slot_shape(out0, ins.name());
    std::vector<V> r(1);
    switch (ins.kind) {
      case Instruction::Kind::primitive:
        r[0] = lower_primitive(e, ins.op, evaluate_attrs(ins.attrs, env), in, m.dtype, rs);
        break;
      case Instruction::Kind::fused: {
        std::vector<V> steps;
        for (const auto& st : ins.fused.steps) {
          std::vector<V> args_;
          for (int a : st.args) args_.push_back(a >= 0 ? steps[static_cast<std::size_t>(a)] : in[static_cast<std::size_t>(-1 - a)]);
          // Operands of a fused step are result-shaped, or scalars where the op takes them.
          if (st.op != OpKind::select && st.op != OpKind::clamp)
            for (auto& v : args_) v = v.shape.empty() && !rs.empty() ? e.broadcast(v, rs) : v;
          steps.push_back(lower_elementwise(e, st.op, st.attrs, args_, st.dtype, rs));
        }
        r[0] = steps.back();
        break;
      }
      case Instruction::Kind::family:
        if (is_fft(ins)) {
          r[0] = lower_fft(e, ins.family_attrs.as<fft::TransformAttrs>(), in.at(0), m.dtype, rs);
        } else {
          // The op written in primitives (and family ops), traced for these
          // operands' static metadata, compiled and emitted in place.
          std::vector<Value> vin;
          for (std::size_t k = 0; k < in.size(); ++k)
            vin.push_back(graph::input("xla_operand_" + std::to_string(k), in[k].dtype, to_sym_shape(in[k].shape)));
          std::vector<Value> vout = ins.family->lower(ins.family_attrs, vin);
          TF_CHECK(vout.size() == ins.outputs.size(), InternalError, op, ins.name(), ": its lowering gives ",
                   vout.size(), " values for ", ins.outputs.size(), " outputs");
          Program sub = GraphCompiler().compile(std::vector<TracedTensor>(vout.begin(), vout.end()));
          std::vector<V> sub_args;
          for (const ProgramInput& si : sub.inputs)
            sub_args.push_back(in.at(static_cast<std::size_t>(std::stoi(si.name.substr(std::strlen("xla_operand_"))))));
          r = emit_program(e, sub, sub_args, depth + 1, op);
        }
        break;
    }
    for (std::size_t k = 0; k < ins.outputs.size(); ++k) {
      const int o = ins.outputs[k];
      const SymMeta& mk = p.slot_meta[static_cast<std::size_t>(o)];
      TF_INTERNAL_ASSERT(k < r.size() && r[k].shape == slot_shape(o, ins.name()) && r[k].dtype == mk.dtype,
                         "to_stablehlo: ", ins.name(), " lowered to a value of another type");
      slots[o] = r[k];
    }
  }
  std::vector<V> outs;
  for (int o : p.outputs) outs.push_back(slots.at(o));
  return outs;
}

}  // namespace

detail::LoweredProgram detail::lower_program(const Program& p, const std::vector<Tensor>& inputs, const char* op) {
  Emitter e;
  std::vector<V> args;
  std::ostringstream sig;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    args.push_back(V{"%arg" + std::to_string(k), inputs[k].dtype(), inputs[k].shape()});
    sig << (k ? ", " : "") << args[k].name << ": " << tensor_type(args[k].dtype, args[k].shape);
  }
  const std::vector<V> outs = emit_program(e, p, args, 0, op);
  std::ostringstream mod;
  mod << "module @tenferro attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
      << "  func.func public @main(" << sig.str() << ") -> (";
  for (std::size_t k = 0; k < outs.size(); ++k) mod << (k ? ", " : "") << tensor_type(outs[k].dtype, outs[k].shape);
  mod << ") {\n" << e.out.str() << "    return ";
  for (std::size_t k = 0; k < outs.size(); ++k) mod << (k ? ", " : "") << outs[k].name;
  mod << " : ";
  for (std::size_t k = 0; k < outs.size(); ++k) mod << (k ? ", " : "") << tensor_type(outs[k].dtype, outs[k].shape);
  mod << "\n  }\n}\n";
  LoweredProgram result{mod.str(), {}};
  for (const V& v : outs) result.outputs.push_back(TensorMeta{v.dtype, v.shape});
  return result;
}

}  // namespace tenferro::xla

// The WGSL kernels of the WebGPU backend and their host side: strided
// elementwise maps (every unary, binary and ternary primitive but the
// special functions; structural ops are strided copies of host-computed
// views), tree reductions in workgroup memory, and dot_general as a tiled
// GEMM with workgroup-memory tiles and a batch axis.
//
// Note [WebGPU element types]: WGSL has f32, i32, u32 and no 8- or 64-bit
// types. f32 and i32 tensors are array<f32> / array<i32>; c64 is
// array<vec2<f32>> (re, im); bool tensors (one byte per element) are read as
// bytes of an array<u32> and written with atomicAnd/atomicOr on the word
// holding the byte, so that threads writing neighbouring bytes do not race.
// f64, c128 and i64 are refused. Indices are i32: tensors of 2^31 elements
// or more are refused too.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "state.hpp"


namespace tenferro::webgpu {
namespace detail {
namespace {

constexpr std::int64_t kMaxIndex = std::int64_t{1} << 31;

bool storable(DType d) { return d == DType::f32 || d == DType::c64 || d == DType::i32 || d == DType::bool_; }

// Whether the backend has a kernel for `op` at all (any dtype).
bool op_covered(OpKind op) {
  switch (op) {
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfinv:
    case OpKind::erfcx:
    case OpKind::lgamma:
    case OpKind::digamma:
    case OpKind::polygamma:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::i1e:
    case OpKind::ndtr:
    case OpKind::ndtri:
    case OpKind::log_ndtr: return false;
    case OpKind::gather:
    case OpKind::scatter:
    case OpKind::dynamic_slice:
    case OpKind::dynamic_update_slice:
    case OpKind::add:
    case OpKind::subtract:
    case OpKind::multiply:
    case OpKind::negate:
    case OpKind::conj:
    case OpKind::dot_general:
    case OpKind::reduce_sum:
    case OpKind::transpose:
    case OpKind::reshape:
    case OpKind::broadcast_in_dim:
    case OpKind::slice:
    case OpKind::pad:
    case OpKind::concatenate:
    case OpKind::reverse:
    case OpKind::divide:
    case OpKind::abs:
    case OpKind::sign:
    case OpKind::maximum:
    case OpKind::minimum:
    case OpKind::compare:
    case OpKind::select:
    case OpKind::clamp:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::power:
    case OpKind::expm1:
    case OpKind::log1p:
    case OpKind::real:
    case OpKind::imag:
    case OpKind::complex:
    case OpKind::convert:
    case OpKind::is_finite:
    case OpKind::reduce_prod:
    case OpKind::reduce_max:
    case OpKind::reduce_min:
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::round_nearest_even:
    case OpKind::trunc:
    case OpKind::fmod:
    case OpKind::remainder:
    case OpKind::ldexp:
    case OpKind::frexp_exponent: return true;
  }
  return false;
}

// ---- WGSL text pieces ----------------------------------------------------------------

const char* value_type(DType d) {
  switch (d) {
    case DType::f32: return "f32";
    case DType::i32: return "i32";
    case DType::c64: return "vec2<f32>";
    case DType::bool_: return "bool";
    default: TF_INTERNAL_ASSERT(false, "webgpu: no WGSL type for ", d);
  }
}
const char* storage_type(DType d) {
  switch (d) {
    case DType::f32: return "f32";
    case DType::i32: return "i32";
    case DType::c64: return "vec2<f32>";
    case DType::bool_: return "u32";
    default: TF_INTERNAL_ASSERT(false, "webgpu: no WGSL type for ", d);
  }
}
const char* zero_of(DType d) {
  switch (d) {
    case DType::f32: return "0.0";
    case DType::i32: return "0";
    case DType::c64: return "vec2<f32>(0.0, 0.0)";
    case DType::bool_: return "false";
    default: TF_INTERNAL_ASSERT(false, "webgpu: no WGSL type for ", d);
  }
}

// Scalar helpers shared by the elementwise and reduction kernels.
const char* kHelpers = R"(
fn f_nan() -> f32 { return bitcast<f32>(0x7fc00000u); }
fn f_inf() -> f32 { return bitcast<f32>(0x7f800000u); }
fn f_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn f_isfinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
fn f_max(a: f32, b: f32) -> f32 { if (f_isnan(a) || f_isnan(b)) { return f_nan(); } return select(a, b, a < b); }
fn f_min(a: f32, b: f32) -> f32 { if (f_isnan(a) || f_isnan(b)) { return f_nan(); } return select(a, b, b < a); }
fn f_sign(x: f32) -> f32 { if (f_isnan(x) || x == 0.0) { return x; } return select(-1.0, 1.0, x > 0.0); }
fn f_expm1(x: f32) -> f32 {
  let u = exp(x);
  if (u == 1.0 || f_isnan(x)) { return x; }
  let um1 = u - 1.0;
  if (um1 == -1.0) { return -1.0; }
  if (!f_isfinite(u)) { return u; }
  return um1 * x / log(u);
}
fn f_log1p(x: f32) -> f32 {
  let u = 1.0 + x;
  if (u == 1.0 || f_isnan(x)) { return x; }
  if (!f_isfinite(u) || u <= 0.0) { return log(u); }
  return log(u) * x / (u - 1.0);
}
fn f_tanh(x: f32) -> f32 { if (f_isnan(x)) { return x; } if (abs(x) > 15.0) { return sign(x); } return tanh(x); }
fn f_pow(a: f32, b: f32) -> f32 {
  if (b == 0.0 || a == 1.0) { return 1.0; }
  if (f_isnan(a) || f_isnan(b)) { return f_nan(); }
  if (a == 0.0) { if (b < 0.0) { return f_inf(); } return 0.0; }
  let r = exp2(b * log2(abs(a)));
  if (a < 0.0) {
    if (!f_isfinite(b)) { return select(0.0, f_inf(), (abs(a) > 1.0) == (b > 0.0)); }
    if (b != trunc(b)) { return f_nan(); }
    if (abs(b) < 16777216.0 && trunc(b * 0.5) * 2.0 != b) { return -r; }
  }
  return r;
}
fn f_fmod(a: f32, b: f32) -> f32 {
  // Exact, like C's fmod: subtract the largest b * 2^k that fits, each
  // subtraction exact (Sterbenz), until |x| < |b|.
  if (f_isnan(a) || f_isnan(b) || b == 0.0 || !f_isfinite(a)) { return f_nan(); }
  let y = abs(b);
  var x = abs(a);
  if (!f_isfinite(b) || x < y) { return a; }
  for (var i = 0; i < 320 && x >= y; i = i + 1) {
    var t = ldexp(y, frexp(x).exp - frexp(y).exp);
    if (t > x) { t = t * 0.5; }
    x = x - t;
  }
  if (x == 0.0) { return select(0.0, bitcast<f32>(0x80000000u), a < 0.0); }
  return select(x, -x, a < 0.0);
}
fn f_remainder(a: f32, b: f32) -> f32 {
  var r = f_fmod(a, b);
  if (f_isnan(r)) { return r; }
  if (r != 0.0) { if ((r < 0.0) != (b < 0.0)) { r = r + b; } return r; }
  return select(0.0, bitcast<f32>(0x80000000u), b < 0.0);
}
fn f_ldexp(x: f32, e: f32) -> f32 {
  if (e == trunc(e)) {
    var c = clamp(e, -400.0, 400.0);
    var r = x;
    for (var i = 0; i < 8 && c != 0.0; i = i + 1) {
      let s = clamp(c, -100.0, 100.0);
      r = r * exp2(s);
      c = c - s;
    }
    return r;
  }
  return x * exp2(e);
}
fn f_frexp_exp(x: f32) -> i32 { if (!f_isfinite(x) || x == 0.0) { return 0; } return frexp(x).exp; }
fn f_to_i32(v: f32) -> i32 {
  if (f_isnan(v)) { return 0; }
  if (v <= -2147483648.0) { return i32(-2147483647) - 1; }
  if (v >= 2147483647.0) { return 2147483647; }
  return i32(v);
}
fn i_div(a: i32, b: i32) -> i32 { if (b == 0) { return -1; } return a / b; }
fn i_pow(base0: i32, e0: i32) -> i32 {
  if (e0 < 0) { if (base0 == 1) { return 1; } if (base0 == -1) { return select(1, -1, (e0 & 1) != 0); } return 0; }
  var r = 1; var b = base0; var e = e0;
  loop { if (e <= 0) { break; } if ((e & 1) != 0) { r = r * b; } b = b * b; e = e >> 1u; }
  return r;
}
fn c_mul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> { return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn c_abs(a: vec2<f32>) -> f32 {
  if (f_isinf2(a)) { return f_inf(); }
  if (f_isnan(a.x) || f_isnan(a.y)) { return f_nan(); }
  let m = max(abs(a.x), abs(a.y));
  if (m == 0.0) { return 0.0; }
  if (!f_isfinite(m)) { if (f_isinf2(a)) { return f_inf(); } return f_nan(); }
  let x = a.x / m; let y = a.y / m;
  return m * sqrt(x * x + y * y);
}
fn f_isinf2(a: vec2<f32>) -> bool {
  return (bitcast<u32>(a.x) & 0x7fffffffu) == 0x7f800000u || (bitcast<u32>(a.y) & 0x7fffffffu) == 0x7f800000u;
}
fn c_div(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  if (abs(b.x) >= abs(b.y)) {
    if (b.x == 0.0) { return vec2<f32>(a.x / 0.0, a.y / 0.0); }
    let r = b.y / b.x; let d = b.x + b.y * r;
    return vec2<f32>((a.x + a.y * r) / d, (a.y - a.x * r) / d);
  }
  let r = b.x / b.y; let d = b.x * r + b.y;
  return vec2<f32>((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
fn c_exp(a: vec2<f32>) -> vec2<f32> { let e = exp(a.x); if (a.y == 0.0) { return vec2<f32>(e, a.y); } return vec2<f32>(e * cos(a.y), e * sin(a.y)); }
fn c_log(a: vec2<f32>) -> vec2<f32> { return vec2<f32>(log(c_abs(a)), atan2(a.y, a.x)); }
fn c_sqrt(a: vec2<f32>) -> vec2<f32> {
  let r = c_abs(a);
  if (r == 0.0) { return vec2<f32>(0.0, a.y); }
  let t = sqrt((r + abs(a.x)) * 0.5);
  if (a.x >= 0.0) { return vec2<f32>(t, a.y / (2.0 * t)); }
  return vec2<f32>(abs(a.y) / (2.0 * t), select(t, -t, a.y < 0.0 || (a.y == 0.0 && bitcast<u32>(a.y) != 0u)));
}
fn c_sin(a: vec2<f32>) -> vec2<f32> { return vec2<f32>(sin(a.x) * cosh(a.y), cos(a.x) * sinh(a.y)); }
fn c_cos(a: vec2<f32>) -> vec2<f32> { return vec2<f32>(cos(a.x) * cosh(a.y), -sin(a.x) * sinh(a.y)); }
fn c_tanh(a: vec2<f32>) -> vec2<f32> {
  if (abs(a.x) > 15.0) { return vec2<f32>(sign(a.x), 0.0); }
  let d = cosh(2.0 * a.x) + cos(2.0 * a.y);
  return vec2<f32>(sinh(2.0 * a.x) / d, sin(2.0 * a.y) / d);
}
fn c_expm1(a: vec2<f32>) -> vec2<f32> {
  // exp(x) cos(y) - 1 = expm1(x) cos(y) - 2 sin^2(y/2)
  let s = sin(0.5 * a.y);
  return vec2<f32>(f_expm1(a.x) * cos(a.y) - 2.0 * s * s, exp(a.x) * sin(a.y));
}
fn c_log1p(a: vec2<f32>) -> vec2<f32> {
  let m = max(abs(a.x), abs(a.y));
  if (m < 1e-4) { return vec2<f32>(f_log1p(a.x + 0.5 * a.y * a.y - 0.0), atan2(a.y, 1.0 + a.x)); }
  return c_log(vec2<f32>(1.0 + a.x, a.y));
}
fn c_pow(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  if (b.x == 0.0 && b.y == 0.0) { return vec2<f32>(1.0, 0.0); }
  if (a.x == 0.0 && a.y == 0.0) { if (b.y == 0.0 && b.x > 0.0) { return vec2<f32>(0.0, 0.0); } return vec2<f32>(f_nan(), f_nan()); }
  return c_exp(c_mul(b, c_log(a)));
}
fn c_sign(a: vec2<f32>) -> vec2<f32> { let m = c_abs(a); if (m == 0.0) { return vec2<f32>(0.0, 0.0); } return a / m; }
fn c_isfinite(a: vec2<f32>) -> bool { return f_isfinite(a.x) && f_isfinite(a.y); }
fn b_u(x: bool) -> u32 { return select(0u, 1u, x); }
// Comparisons spelled out for NaN: WGSL leaves them to the implementation.
fn f_eq(a: f32, b: f32) -> bool { return !f_isnan(a) && !f_isnan(b) && a == b; }
fn f_lt(a: f32, b: f32) -> bool { return !f_isnan(a) && !f_isnan(b) && a < b; }
fn f_le(a: f32, b: f32) -> bool { return !f_isnan(a) && !f_isnan(b) && a <= b; }
fn c_eq(a: vec2<f32>, b: vec2<f32>) -> bool { return f_eq(a.x, b.x) && f_eq(a.y, b.y); }
)";

// The body of `fn op(a, b, c) -> Out` for an elementwise primitive; `in`
// is the dtype the op dispatches on, `out` the output dtype.
std::string op_body(OpKind kind, const Attrs& attrs, DType in, DType out) {
  const bool c = in == DType::c64, f = in == DType::f32, i = in == DType::i32;
  switch (kind) {
    case OpKind::add: return "return a + b;";
    case OpKind::subtract: return "return a - b;";
    case OpKind::multiply: return c ? "return c_mul(a, b);" : "return a * b;";
    case OpKind::divide: return c ? "return c_div(a, b);" : i ? "return i_div(a, b);" : "return a / b;";
    case OpKind::negate: return "return -a;";
    case OpKind::conj: return c ? "return vec2<f32>(a.x, -a.y);" : "return a;";
    case OpKind::abs: return c ? "return c_abs(a);" : "return abs(a);";
    case OpKind::sign: return c ? "return c_sign(a);" : f ? "return f_sign(a);" : "return sign(a);";
    case OpKind::maximum: return f ? "return f_max(a, b);" : "return max(a, b);";
    case OpKind::minimum: return f ? "return f_min(a, b);" : "return min(a, b);";
    case OpKind::clamp:  // (lo, x, hi)
      return f ? "return f_min(f_max(b, a), c);" : "return min(max(b, a), c);";
    case OpKind::select: return "return select(c, b, a);";
    case OpKind::compare: {
      const auto dir = std::get<CompareAttrs>(attrs).direction;
      const char* ops[] = {"==", "!=", "<", "<=", ">", ">="};
      const char* o = ops[static_cast<int>(dir)];
      if (c) return dir == ComparisonDirection::EQ ? "return c_eq(a, b);" : "return !c_eq(a, b);";
      if (f) {
        switch (dir) {
          case ComparisonDirection::EQ: return "return f_eq(a, b);";
          case ComparisonDirection::NE: return "return !f_eq(a, b);";
          case ComparisonDirection::LT: return "return f_lt(a, b);";
          case ComparisonDirection::LE: return "return f_le(a, b);";
          case ComparisonDirection::GT: return "return f_lt(b, a);";
          case ComparisonDirection::GE: return "return f_le(b, a);";
        }
      }
      if (in == DType::bool_) return std::string("return b_u(a) ") + o + " b_u(b);";
      return std::string("return a ") + o + " b;";
    }
    case OpKind::exp: return c ? "return c_exp(a);" : "return exp(a);";
    case OpKind::log: return c ? "return c_log(a);" : "return log(a);";
    case OpKind::sin: return c ? "return c_sin(a);" : "return sin(a);";
    case OpKind::cos: return c ? "return c_cos(a);" : "return cos(a);";
    case OpKind::tanh: return c ? "return c_tanh(a);" : "return f_tanh(a);";
    case OpKind::sqrt: return c ? "return c_sqrt(a);" : "return sqrt(a);";
    case OpKind::rsqrt: return c ? "return c_div(vec2<f32>(1.0, 0.0), c_sqrt(a));" : "return 1.0 / sqrt(a);";
    case OpKind::power: return c ? "return c_pow(a, b);" : i ? "return i_pow(a, b);" : "return f_pow(a, b);";
    case OpKind::expm1: return c ? "return c_expm1(a);" : "return f_expm1(a);";
    case OpKind::log1p: return c ? "return c_log1p(a);" : "return f_log1p(a);";
    case OpKind::real: return c ? "return a.x;" : "return a;";
    case OpKind::imag: return c ? "return a.y;" : "return 0.0;";
    case OpKind::complex: return "return vec2<f32>(a, b);";
    case OpKind::is_finite: return c ? "return c_isfinite(a);" : "return f_isfinite(a);";
    case OpKind::floor: return "return floor(a);";
    case OpKind::ceil: return "return ceil(a);";
    case OpKind::round_nearest_even: return "return round(a);";
    case OpKind::trunc: return "return trunc(a);";
    case OpKind::fmod: return "return f_fmod(a, b);";
    case OpKind::remainder: return "return f_remainder(a, b);";
    case OpKind::ldexp: return "return f_ldexp(a, b);";
    case OpKind::frexp_exponent: return "return f_frexp_exp(a);";
    case OpKind::convert: {
      if (in == out) return "return a;";
      // Through the real part for complex sources (as on the CPU).
      std::string x = c ? "a.x" : "a";
      const DType from = c ? DType::f32 : in;
      if (out == DType::bool_) {
        if (c) return "return !f_eq(a.x, 0.0) || !f_eq(a.y, 0.0);";
        if (in == DType::f32) return "return !f_eq(a, 0.0);";
        return std::string("return a != ") + zero_of(in) + ";";
      }
      if (out == DType::c64) {
        if (from == DType::bool_) return "return vec2<f32>(select(0.0, 1.0, a), 0.0);";
        return "return vec2<f32>(f32(" + x + "), 0.0);";
      }
      if (from == DType::bool_) return out == DType::f32 ? "return select(0.0, 1.0, a);" : "return select(0, 1, a);";
      if (out == DType::i32) return from == DType::f32 ? "return f_to_i32(" + x + ");" : "return " + x + ";";
      return "return f32(" + x + ");";
    }
    default: TF_INTERNAL_ASSERT(false, "webgpu: ", op_name(kind), " is not elementwise");
  }
}

// The name of parameter j of the map's `fop`: a, b, c as in op_body, then p3, p4, ...
std::string param_name(std::size_t j) {
  const char* names[] = {"a", "b", "c"};
  return j < 3 ? std::string(names[j]) : "p" + std::to_string(j);
}

std::string load_fn(int j, DType d) {
  std::ostringstream s;
  s << "fn ld" << j << "(i: i32) -> " << value_type(d) << " { ";
  if (d == DType::bool_)
    s << "return ((in" << j << "[u32(i) >> 2u] >> ((u32(i) & 3u) * 8u)) & 0xffu) != 0u; }\n";
  else
    s << "return in" << j << "[i]; }\n";
  return s.str();
}

std::string store_fn(DType d) {
  if (d == DType::bool_)
    return "fn st(i: i32, v: bool) { let w = u32(i) >> 2u; let sh = (u32(i) & 3u) * 8u;\n"
           "  atomicAnd(&dst[w], ~(0xffu << sh)); atomicOr(&dst[w], b_u(v) << sh); }\n";
  return std::string("fn st(i: i32, v: ") + value_type(d) + ") { dst[i] = v; }\n";
}

std::string bindings(DType out, const std::vector<DType>& in) {
  std::ostringstream s;
  s << "@group(0) @binding(0) var<storage, read> md: array<i32>;\n";
  s << "@group(0) @binding(1) var<storage, read_write> dst: array<"
    << (out == DType::bool_ ? "atomic<u32>" : storage_type(out)) << ">;\n";
  for (std::size_t j = 0; j < in.size(); ++j)
    s << "@group(0) @binding(" << j + 2 << ") var<storage, read> in" << j << ": array<" << storage_type(in[j])
      << ">;\n";
  return s.str();
}

// A strided map: out[idx] = op(in0[idx], in1[idx], ...) over the output's
// index space; metadata: numel, rank, shape[rank], then per operand
// (output first) offset and strides[rank].
std::string elementwise_shader(const std::string& prelude, const std::string& body, DType out,
                               const std::vector<DType>& in) {
  std::ostringstream s;
  s << bindings(out, in) << kHelpers << prelude;
  for (std::size_t j = 0; j < in.size(); ++j) s << load_fn(static_cast<int>(j), in[j]);
  s << store_fn(out);
  s << "fn fop(";
  for (std::size_t j = 0; j < in.size(); ++j) s << (j ? ", " : "") << param_name(j) << ": " << value_type(in[j]);
  s << ") -> " << value_type(out) << " { " << body << " }\n";
  const std::size_t n = in.size() + 1;
  s << "@compute @workgroup_size(256)\n"
       "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n"
       "  let n = md[0];\n  let r = md[1];\n  let stride_ = i32(nwg.x) * 256;\n"
       "  for (var e = i32(gid.x); e < n; e = e + stride_) {\n";
  for (std::size_t j = 0; j < n; ++j) s << "    var o" << j << " = md[2 + r + " << j << " * (r + 1)];\n";
  s << "    if (r == 1) {\n";
  for (std::size_t j = 0; j < n; ++j) s << "      o" << j << " = o" << j << " + e * md[3 + r + " << j << " * (r + 1)];\n";
  s << "    } else {\n      var rem = e;\n      for (var d = 0; d < r; d = d + 1) {\n"
       "        let ext = md[2 + d];\n        let idx = rem % ext;\n        rem = rem / ext;\n";
  for (std::size_t j = 0; j < n; ++j)
    s << "        o" << j << " = o" << j << " + idx * md[3 + r + " << j << " * (r + 1) + d];\n";
  s << "      }\n    }\n    st(o0, fop(";
  for (std::size_t j = 0; j < in.size(); ++j) s << (j ? ", " : "") << "ld" << j << "(o" << j + 1 << ")";
  s << "));\n  }\n}\n";
  return s.str();
}

// ---- host side -----------------------------------------------------------------------

struct View {
  Shape shape;
  std::vector<Strides> strides;  // per operand
  std::vector<std::int64_t> offsets;
};

// Merges neighbouring axes that every operand walks as one (and drops
// extent-1 axes), so contiguous operands become rank 1.
View coalesce(const Shape& shape, const std::vector<const Tensor*>& ops, const std::vector<Strides>& strides) {
  View v;
  const std::size_t n = ops.size();
  v.strides.resize(n);
  for (std::size_t j = 0; j < n; ++j) v.offsets.push_back(ops[j]->offset());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !v.shape.empty();
    for (std::size_t j = 0; j < n && merge; ++j)
      merge = strides[j][d] == v.strides[j].back() * v.shape.back();
    if (merge) {
      v.shape.back() *= shape[d];
    } else {
      v.shape.push_back(shape[d]);
      for (std::size_t j = 0; j < n; ++j) v.strides[j].push_back(strides[j][d]);
    }
  }
  return v;
}

void check_index_range(const Tensor& t, const char* op) {
  const std::int64_t elems = static_cast<std::int64_t>(t.storage()->nbytes() / dtype_size(t.dtype()));
  TF_CHECK(elems < kMaxIndex && t.numel() < kMaxIndex, UnimplementedError, op, "a tensor of ", t.numel(),
           " elements (storage of ", elems, ") exceeds the WebGPU backend's 32-bit indices");
}

std::uint32_t groups_for(std::int64_t n, std::int64_t per_group) {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>((n + per_group - 1) / per_group, 1, 65535));
}

// The inputs' buffers; an input sharing the output's buffer is copied
// first (WebGPU forbids a buffer bound both read-only and writable).
std::vector<Binding> input_bindings(WebGpuBackend& be, std::span<const Tensor> in, const Tensor& out,
                                    std::vector<Tensor>& keep) {
  std::vector<Binding> b;
  State& s = be.state();
  for (const Tensor& t : in) {
    if (t.storage() == out.storage()) {
      auto copy = be.allocate_storage(t.storage()->nbytes());
      s.copy_buffer(buffer_of(t), 0, static_cast<WGPUBuffer>(copy->data()), 0, bound_size(t));
      keep.emplace_back(copy, t.dtype(), Shape{}, Strides{}, 0);
      b.push_back({static_cast<WGPUBuffer>(copy->data()), bound_size(t)});
    } else {
      b.push_back({buffer_of(t), bound_size(t)});
    }
  }
  return b;
}

// Runs `body` over out's index space with inputs of any strides (rank-0
// inputs broadcast).
void run_map(WebGpuBackend& be, const std::string& prelude, const std::string& body, std::span<const Tensor> in,
             const Tensor& out, const char* op) {
  if (out.numel() == 0) return;
  std::vector<const Tensor*> ops{&out};
  std::vector<Strides> strides{out.strides()};
  std::vector<DType> dts;
  for (const Tensor& t : in) {
    ops.push_back(&t);
    strides.push_back(t.ndim() == 0 && out.ndim() > 0 ? Strides(out.shape().size(), 0) : t.strides());
    dts.push_back(t.dtype());
  }
  for (const Tensor* t : ops) check_index_range(*t, op);
  View v = coalesce(out.shape(), ops, strides);
  const std::int64_t r = static_cast<std::int64_t>(v.shape.size());
  std::vector<std::int32_t> meta{static_cast<std::int32_t>(out.numel()), static_cast<std::int32_t>(r)};
  for (auto e : v.shape) meta.push_back(static_cast<std::int32_t>(e));
  for (std::size_t j = 0; j < ops.size(); ++j) {
    meta.push_back(static_cast<std::int32_t>(v.offsets[j]));
    for (auto st : v.strides[j]) meta.push_back(static_cast<std::int32_t>(st));
  }
  State& s = be.state();
  const Pipeline& p = s.pipeline(elementwise_shader(prelude, body, out.dtype(), dts), op);
  std::vector<Tensor> keep;
  std::vector<Binding> b{{buffer_of(out), bound_size(out)}};
  for (const Binding& x : input_bindings(be, in, out, keep)) b.push_back(x);
  s.dispatch(p, meta, b, groups_for(out.numel(), 256), 1, 1, op);
}

Tensor view_of(const Tensor& t, Shape shape, Strides strides, std::int64_t offset) {
  return Tensor(t.storage(), t.dtype(), std::move(shape), std::move(strides), offset);
}

}  // namespace

void check_supported(OpKind op, DType dtype, DType out_dtype) {
  TF_CHECK(storable(dtype), UnimplementedError, op_name(op), "dtype ", dtype,
           " is not supported by the WebGPU backend (WGSL has no 64-bit types)");
  TF_CHECK(storable(out_dtype), UnimplementedError, op_name(op), "output dtype ", out_dtype,
           " is not supported by the WebGPU backend (WGSL has no 64-bit types)");
  TF_CHECK(op_covered(op), UnimplementedError, op_name(op), "has no WebGPU kernel (dtype ", dtype, ")");
}

void copy(WebGpuBackend& be, const Tensor& in, const Tensor& out) {
  const Tensor ins[] = {in};
  run_map(be, "", "return a;", ins, out, "copy");
}

void elementwise(WebGpuBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  DType d = in[0].dtype();
  if (kind == OpKind::select || kind == OpKind::clamp) d = in[1].dtype();
  run_map(be, "", op_body(kind, attrs, d, out.dtype()), in, out, op_name(kind));
}

void fused(WebGpuBackend& be, const FusedElementwise& k, std::span<const Tensor> in, const Tensor& out) {
  // One pass: each step is a WGSL function (the primitive's own body), the
  // map's fop chains them, so every element is read once and written once.
  std::ostringstream body, fns;
  std::vector<DType> step_dtype;
  for (std::size_t i = 0; i < k.steps.size(); ++i) {
    const auto& st = k.steps[i];
    auto arg_dtype = [&](int a) { return a >= 0 ? step_dtype[static_cast<std::size_t>(a)] : in[static_cast<std::size_t>(-1 - a)].dtype(); };
    auto arg_name = [&](int a) { return a >= 0 ? "v" + std::to_string(a) : param_name(static_cast<std::size_t>(-1 - a)); };
    DType key = arg_dtype(st.args[0]);
    if ((st.op == OpKind::select || st.op == OpKind::clamp) && st.args.size() > 1) key = arg_dtype(st.args[1]);
    check_supported(st.op, key, st.dtype);
    fns << "fn s" << i << "(";
    for (std::size_t j = 0; j < st.args.size(); ++j)
      fns << (j ? ", " : "") << param_name(j) << ": " << value_type(arg_dtype(st.args[j]));
    fns << ") -> " << value_type(st.dtype) << " { " << op_body(st.op, st.attrs, key, st.dtype) << " }\n";
    body << "let v" << i << " = s" << i << "(";
    for (std::size_t j = 0; j < st.args.size(); ++j) body << (j ? ", " : "") << arg_name(st.args[j]);
    body << "); ";
    step_dtype.push_back(st.dtype);
  }
  body << "return v" << k.steps.size() - 1 << ";";
  run_map(be, fns.str(), body.str(), in, out, "fused elementwise");
}

// ---- reductions ------------------------------------------------------------------------

void reduce(WebGpuBackend& be, OpKind kind, const DimVec& axes, const Tensor& in, const Tensor& out) {
  const char* op = op_name(kind);
  check_index_range(in, op);
  check_index_range(out, op);
  const DType d = in.dtype();
  const bool c = d == DType::c64, f = d == DType::f32;
  std::string identity, combine;
  switch (kind) {
    case OpKind::reduce_sum:
      identity = zero_of(d);
      combine = "a + b";
      break;
    case OpKind::reduce_prod:
      identity = c ? "vec2<f32>(1.0, 0.0)" : f ? "1.0" : "1";
      combine = c ? "c_mul(a, b)" : "a * b";
      break;
    case OpKind::reduce_max:
      identity = f ? "-f_inf()" : "i32(-2147483647) - 1";
      combine = f ? "f_max(a, b)" : "max(a, b)";
      break;
    case OpKind::reduce_min:
      identity = f ? "f_inf()" : "2147483647";
      combine = f ? "f_min(a, b)" : "min(a, b)";
      break;
    default: TF_INTERNAL_ASSERT(false, "webgpu: ", op, " is not a reduction");
  }
  // Kept axes (the output's, in order) and reduced axes of the input.
  std::vector<bool> reduced(static_cast<std::size_t>(in.ndim()), false);
  for (auto a : axes) reduced[static_cast<std::size_t>(a)] = true;
  Shape kept_shape, red_shape;
  Strides kept_in, red_in;
  for (std::size_t a = 0; a < reduced.size(); ++a) {
    if (reduced[a]) {
      red_shape.push_back(in.shape()[a]);
      red_in.push_back(in.strides()[a]);
    } else {
      kept_shape.push_back(in.shape()[a]);
      kept_in.push_back(in.strides()[a]);
    }
  }
  std::int64_t red_count = 1;
  for (auto e : red_shape) red_count *= e;
  const Tensor* kept_ops[] = {&out, &in};
  View kv = coalesce(kept_shape, {kept_ops[0], kept_ops[1]}, {out.strides(), kept_in});
  View rv = coalesce(red_shape, {&in}, {red_in});
  std::vector<std::int32_t> meta{static_cast<std::int32_t>(out.numel()), static_cast<std::int32_t>(kv.shape.size()),
                                 static_cast<std::int32_t>(rv.shape.size()), static_cast<std::int32_t>(red_count),
                                 static_cast<std::int32_t>(in.offset()), static_cast<std::int32_t>(out.offset())};
  for (auto e : kv.shape) meta.push_back(static_cast<std::int32_t>(e));
  for (auto e : kv.strides[1]) meta.push_back(static_cast<std::int32_t>(e));
  for (auto e : kv.strides[0]) meta.push_back(static_cast<std::int32_t>(e));
  for (auto e : rv.shape) meta.push_back(static_cast<std::int32_t>(e));
  for (auto e : rv.strides[0]) meta.push_back(static_cast<std::int32_t>(e));
  std::ostringstream s;
  s << bindings(d, {d}) << kHelpers << load_fn(0, d) << store_fn(d);
  s << "fn comb(a: " << value_type(d) << ", b: " << value_type(d) << ") -> " << value_type(d) << " { return "
    << combine << "; }\n";
  s << "var<workgroup> part: array<" << value_type(d) << ", 64>;\n";
  s << R"(@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let n_out = md[0]; let rk = md[1]; let rr = md[2]; let cnt = md[3];
  let t = i32(lid.x);
  for (var o = i32(wid.x); o < n_out; o = o + i32(nwg.x)) {
    var rem = o; var ib = md[4]; var ob = md[5];
    for (var d = 0; d < rk; d = d + 1) {
      let ext = md[6 + d]; let idx = rem % ext; rem = rem / ext;
      ib = ib + idx * md[6 + rk + d]; ob = ob + idx * md[6 + 2 * rk + d];
    }
    var acc = )" << identity << R"(;
    for (var j = t; j < cnt; j = j + 64) {
      var q = j; var off = ib;
      for (var d = 0; d < rr; d = d + 1) {
        let ext = md[6 + 3 * rk + d]; let idx = q % ext; q = q / ext;
        off = off + idx * md[6 + 3 * rk + rr + d];
      }
      acc = comb(acc, ld0(off));
    }
    part[t] = acc;
    workgroupBarrier();
    for (var w = 32; w > 0; w = w >> 1u) {
      if (t < w) { part[t] = comb(part[t], part[t + w]); }
      workgroupBarrier();
    }
    if (t == 0) { st(ob, part[0]); }
    workgroupBarrier();
  }
}
)";
  State& st = be.state();
  const Pipeline& p = st.pipeline(s.str(), op);
  std::vector<Tensor> keep;
  const Tensor ins[] = {in};
  std::vector<Binding> b{{buffer_of(out), bound_size(out)}};
  for (const Binding& x : input_bindings(be, ins, out, keep)) b.push_back(x);
  st.dispatch(p, meta, b, groups_for(out.numel(), 1), 1, 1, op);
}

// ---- dot_general -----------------------------------------------------------------------

namespace {

// Collapses `dims` of a layout into one (extent, stride) when walking them
// in order is one arithmetic progression.
bool collapse(const Shape& shape, const Strides& strides, const std::vector<std::int64_t>& dims, std::int64_t& extent,
              std::int64_t& stride) {
  extent = 1;
  stride = 0;
  bool first = true;
  for (auto d : dims) {
    const auto e = shape[static_cast<std::size_t>(d)], s = strides[static_cast<std::size_t>(d)];
    if (e == 1) continue;
    if (first) {
      stride = s;
      first = false;
    } else if (s != stride * extent) {
      return false;
    }
    extent *= e;
  }
  return true;
}

std::vector<std::int64_t> free_dims(std::int64_t rank, const DimVec& a, const DimVec& b) {
  std::vector<std::int64_t> f;
  for (std::int64_t d = 0; d < rank; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) f.push_back(d);
  return f;
}

// A column-major copy of `t` with its axes in the order `perm`.
Tensor permuted_copy(WebGpuBackend& be, const Tensor& t, const std::vector<std::int64_t>& perm) {
  Shape sh;
  Strides st;
  for (auto p : perm) {
    sh.push_back(t.shape()[static_cast<std::size_t>(p)]);
    st.push_back(t.strides()[static_cast<std::size_t>(p)]);
  }
  Tensor src = view_of(t, sh, st, t.offset());
  Tensor dst = be.empty(t.dtype(), sh);
  if (dst.numel() > 0) copy(be, src, dst);
  return dst;
}

std::string gemm_shader(DType d) {
  // Register blocking written out (no private arrays: dynamically indexed
  // arrays end up in memory on some drivers, lavapipe among them).
  const bool c = d == DType::c64;
  const int ts = c ? 32 : 64, r = ts / 16, bk = 32;
  std::ostringstream s;
  s << "@group(0) @binding(0) var<storage, read> md: array<i32>;\n"
    << "@group(0) @binding(1) var<storage, read_write> C: array<" << storage_type(d) << ">;\n"
    << "@group(0) @binding(2) var<storage, read> A: array<" << storage_type(d) << ">;\n"
    << "@group(0) @binding(3) var<storage, read> B: array<" << storage_type(d) << ">;\n";
  const std::string T = value_type(d), Z = zero_of(d);
  s << "const TS: i32 = " << ts << ";\nconst BK: i32 = " << bk << ";\n";
  s << "var<workgroup> As: array<" << T << ", " << ts * bk << ">;\n";
  s << "var<workgroup> Bs: array<" << T << ", " << ts * bk << ">;\n";
  s << "@compute @workgroup_size(16, 16)\n"
       "fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {\n"
       "  let M = md[0]; let N = md[1]; let K = md[2];\n"
       "  let b = i32(wid.z) + md[15];\n"
       "  let m0 = i32(wid.x) * TS; let n0 = i32(wid.y) * TS;\n"
       "  let tx = i32(lid.x); let ty = i32(lid.y); let t = ty * 16 + tx;\n"
       "  let abase = md[3] + b * md[6]; let bbase = md[7] + b * md[10];\n"
       "  let sam = md[4]; let sak = md[5]; let sbk = md[8]; let sbn = md[9];\n";
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < r; ++j) s << "  var c" << i << j << " = " << Z << ";\n";
  s << "  for (var k0 = 0; k0 < K; k0 = k0 + BK) {\n";
  for (int i = 0; i < ts * bk / 256; ++i) {
    s << "    {\n      let idx = t + " << i * 256 << ";\n"
      << "      let mm = idx & (TS - 1); let kk = idx >> " << (ts == 64 ? 6 : 5) << "u;\n"
      << "      let m = m0 + mm; let ka = k0 + kk; let n = n0 + mm;\n"
      << "      var va = " << Z << ";\n"
      << "      if (m < M && ka < K) { va = A[abase + m * sam + ka * sak]; }\n"
      << "      As[idx] = va;\n"
      << "      var vb = " << Z << ";\n"
      << "      if (n < N && ka < K) { vb = B[bbase + ka * sbk + n * sbn]; }\n"
      << "      Bs[idx] = vb;\n    }\n";
  }
  s << "    workgroupBarrier();\n"
       "    for (var kk = 0; kk < BK; kk = kk + 1) {\n"
       "      let base = kk * TS;\n";
  for (int i = 0; i < r; ++i) s << "      let a" << i << " = As[base + tx + " << 16 * i << "];\n";
  for (int j = 0; j < r; ++j) s << "      let b" << j << " = Bs[base + ty + " << 16 * j << "];\n";
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < r; ++j) {
      if (c)
        s << "      c" << i << j << " = c" << i << j << " + vec2<f32>(a" << i << ".x * b" << j << ".x - a" << i
          << ".y * b" << j << ".y, a" << i << ".x * b" << j << ".y + a" << i << ".y * b" << j << ".x);\n";
      else
        s << "      c" << i << j << " = c" << i << j << " + a" << i << " * b" << j << ";\n";
    }
  s << "    }\n    workgroupBarrier();\n  }\n";
  s << "  let cb = md[11] + b * md[14]; let scm = md[12]; let scn = md[13];\n";
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < r; ++j)
      s << "  if (m0 + tx + " << 16 * i << " < M && n0 + ty + " << 16 * j << " < N) { C[cb + (m0 + tx + " << 16 * i
        << ") * scm + (n0 + ty + " << 16 * j << ") * scn] = c" << i << j << "; }\n";
  s << "}\n";
  return s.str();
}

}  // namespace

void dot_general(WebGpuBackend& be, const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs,
                 const Tensor& out) {
  const char* op = "dot_general";
  const DType d = lhs.dtype();
  const std::vector<std::int64_t> lb(attrs.lhs_batching_dimensions.begin(), attrs.lhs_batching_dimensions.end());
  const std::vector<std::int64_t> rb(attrs.rhs_batching_dimensions.begin(), attrs.rhs_batching_dimensions.end());
  const std::vector<std::int64_t> lc(attrs.lhs_contracting_dimensions.begin(), attrs.lhs_contracting_dimensions.end());
  const std::vector<std::int64_t> rc(attrs.rhs_contracting_dimensions.begin(), attrs.rhs_contracting_dimensions.end());
  const auto lf = free_dims(lhs.ndim(), attrs.lhs_batching_dimensions, attrs.lhs_contracting_dimensions);
  const auto rf = free_dims(rhs.ndim(), attrs.rhs_batching_dimensions, attrs.rhs_contracting_dimensions);
  std::int64_t M, K, Bt, N, K2, B2, sAm, sAk, sAb, sBk, sBn, sBb;
  Tensor A = lhs, B = rhs;
  auto concat = [](std::vector<std::int64_t> a, const std::vector<std::int64_t>& b, const std::vector<std::int64_t>& c2) {
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c2.begin(), c2.end());
    return a;
  };
  if (!(collapse(A.shape(), A.strides(), lf, M, sAm) && collapse(A.shape(), A.strides(), lc, K, sAk) &&
        collapse(A.shape(), A.strides(), lb, Bt, sAb))) {
    A = permuted_copy(be, lhs, concat(lf, lc, lb));
    std::vector<std::int64_t> g1, g2, g3;
    std::int64_t pos = 0;
    for (std::size_t i = 0; i < lf.size(); ++i) g1.push_back(pos++);
    for (std::size_t i = 0; i < lc.size(); ++i) g2.push_back(pos++);
    for (std::size_t i = 0; i < lb.size(); ++i) g3.push_back(pos++);
    collapse(A.shape(), A.strides(), g1, M, sAm);
    collapse(A.shape(), A.strides(), g2, K, sAk);
    collapse(A.shape(), A.strides(), g3, Bt, sAb);
  }
  if (!(collapse(B.shape(), B.strides(), rc, K2, sBk) && collapse(B.shape(), B.strides(), rf, N, sBn) &&
        collapse(B.shape(), B.strides(), rb, B2, sBb))) {
    B = permuted_copy(be, rhs, concat(rc, rf, rb));
    std::vector<std::int64_t> g1, g2, g3;
    std::int64_t pos = 0;
    for (std::size_t i = 0; i < rc.size(); ++i) g1.push_back(pos++);
    for (std::size_t i = 0; i < rf.size(); ++i) g2.push_back(pos++);
    for (std::size_t i = 0; i < rb.size(); ++i) g3.push_back(pos++);
    collapse(B.shape(), B.strides(), g1, K2, sBk);
    collapse(B.shape(), B.strides(), g2, N, sBn);
    collapse(B.shape(), B.strides(), g3, B2, sBb);
  }
  TF_INTERNAL_ASSERT(K == K2 && Bt == B2, "webgpu dot_general: inconsistent groups");
  // Output groups: [batch..., lhs free..., rhs free...].
  const std::int64_t nb = static_cast<std::int64_t>(lb.size()), nm = static_cast<std::int64_t>(lf.size());
  std::vector<std::int64_t> ob, om, on;
  for (std::int64_t i = 0; i < out.ndim(); ++i) (i < nb ? ob : i < nb + nm ? om : on).push_back(i);
  std::int64_t e1, e2, e3, sCm, sCn, sCb;
  Tensor C = out;
  const bool direct = collapse(out.shape(), out.strides(), om, e1, sCm) &&
                      collapse(out.shape(), out.strides(), on, e2, sCn) &&
                      collapse(out.shape(), out.strides(), ob, e3, sCb);
  if (!direct) {
    C = be.empty(d, Shape{M, N, Bt});
    sCm = 1;
    sCn = M;
    sCb = M * N;
  }
  for (const Tensor* t : {&A, &B, &C}) check_index_range(*t, op);
  State& s = be.state();
  const Pipeline& p = s.pipeline(gemm_shader(d), op);
  const std::int64_t ts = d == DType::c64 ? 32 : 64;
  std::vector<Tensor> keep;
  const Tensor ins[] = {A, B};
  std::vector<Binding> bind{{buffer_of(C), bound_size(C)}};
  for (const Binding& x : input_bindings(be, ins, C, keep)) bind.push_back(x);
  for (std::int64_t b0 = 0; b0 < Bt; b0 += 65535) {
    const std::int64_t nbatch = std::min<std::int64_t>(65535, Bt - b0);
    std::vector<std::int32_t> meta;
    for (std::int64_t v : {M, N, K, A.offset(), sAm, sAk, sAb, B.offset(), sBk, sBn, sBb, C.offset(), sCm, sCn, sCb, b0})
      meta.push_back(static_cast<std::int32_t>(v));
    TF_CHECK((M + ts - 1) / ts <= 65535 && (N + ts - 1) / ts <= 65535, UnimplementedError, op, "a ", M, " x ", N,
             " product exceeds the WebGPU dispatch limits");
    s.dispatch(p, meta, bind, static_cast<std::uint32_t>((M + ts - 1) / ts), static_cast<std::uint32_t>((N + ts - 1) / ts),
               static_cast<std::uint32_t>(nbatch), op);
  }
  if (!direct) {
    // C is [M, N, Bt] column-major: view it with out's shape in the order
    // (lhs free..., rhs free..., batch...) and copy into out.
    Strides st(static_cast<std::size_t>(out.ndim()));
    std::int64_t acc = 1;
    for (auto group : {om, on, ob})
      for (auto ax : group) {
        st[static_cast<std::size_t>(ax)] = acc;
        acc *= out.shape()[static_cast<std::size_t>(ax)];
      }
    copy(be, view_of(C, out.shape(), st, 0), out);
  }
}

// ---- indexed copies: gather, dynamic_slice, dynamic_update_slice -----------------------

namespace {

// One axis of an indexed copy's iteration space.
struct IndexedAxis {
  std::int64_t extent, plain_stride, dynamic_stride, index_stride;
};
// One component of the index vector: the operand axis it moves along and
// the largest start (starts are clamped into [0, hi], as on the CPU).
struct IndexedComponent {
  std::int64_t stride, hi;
};

// For every element of the iteration space: plain[p] <-> dynamic[q] where
// q adds the clamped starts read from `indices` (i32). `dynamic_is_source`:
// out = plain side, read from the dynamic side (gather, dynamic_slice);
// otherwise out = dynamic side, written from the plain side
// (dynamic_update_slice).
void indexed_copy(WebGpuBackend& be, const Tensor& out, const Tensor& src, const Tensor& indices,
                  std::int64_t plain_offset, std::int64_t dynamic_offset, std::int64_t index_offset,
                  std::int64_t vector_stride, const std::vector<IndexedAxis>& axes,
                  const std::vector<IndexedComponent>& comps, bool dynamic_is_source, const char* op) {
  std::int64_t n = 1;
  for (const auto& a : axes) n *= a.extent;
  if (n == 0) return;
  TF_CHECK(indices.dtype() == DType::i32, UnimplementedError, op, "index dtype ", indices.dtype(),
           " is not supported by the WebGPU backend (i32 is)");
  for (const Tensor* t : {&out, &src, &indices}) check_index_range(*t, op);
  std::vector<std::int32_t> meta{static_cast<std::int32_t>(n), static_cast<std::int32_t>(axes.size()),
                                 static_cast<std::int32_t>(comps.size()), dynamic_is_source ? 0 : 1,
                                 static_cast<std::int32_t>(plain_offset), static_cast<std::int32_t>(dynamic_offset),
                                 static_cast<std::int32_t>(index_offset), static_cast<std::int32_t>(vector_stride)};
  for (const auto& a : axes)
    for (std::int64_t v : {a.extent, a.plain_stride, a.dynamic_stride, a.index_stride})
      meta.push_back(static_cast<std::int32_t>(v));
  for (const auto& c : comps)
    for (std::int64_t v : {c.stride, c.hi}) meta.push_back(static_cast<std::int32_t>(v));
  const DType d = out.dtype();
  std::ostringstream sh;
  sh << bindings(d, {d, DType::i32}) << kHelpers << load_fn(0, d) << load_fn(1, DType::i32) << store_fn(d);
  sh << R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = md[0]; let r = md[1]; let nv = md[2]; let mode = md[3];
  let stride_ = i32(nwg.x) * 256;
  for (var e = i32(gid.x); e < n; e = e + stride_) {
    var rem = e; var po = md[4]; var qo = md[5]; var io = md[6];
    for (var d = 0; d < r; d = d + 1) {
      let ext = md[8 + 4 * d]; let idx = rem % ext; rem = rem / ext;
      po = po + idx * md[9 + 4 * d]; qo = qo + idx * md[10 + 4 * d]; io = io + idx * md[11 + 4 * d];
    }
    for (var k = 0; k < nv; k = k + 1) {
      let s = clamp(ld1(io + k * md[7]), 0, md[9 + 4 * r + 2 * k]);
      qo = qo + s * md[8 + 4 * r + 2 * k];
    }
    if (mode == 0) { st(po, ld0(qo)); } else { st(qo, ld0(po)); }
  }
}
)";
  State& s = be.state();
  const Pipeline& p = s.pipeline(sh.str(), op);
  std::vector<Tensor> keep;
  const Tensor ins[] = {src, indices};
  std::vector<Binding> b{{buffer_of(out), bound_size(out)}};
  for (const Binding& x : input_bindings(be, ins, out, keep)) b.push_back(x);
  s.dispatch(p, meta, b, groups_for(n, 256), 1, 1, op);
}

void gather(WebGpuBackend& be, const GatherAttrs& a, const Tensor& x, const Tensor& idx, const Tensor& out) {
  auto has = [](const DimVec& v, std::int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  const std::size_t ivd = static_cast<std::size_t>(a.index_vector_dim);
  const std::size_t ir = idx.shape().size();
  // Output axes: offset axes walk the operand's non-collapsed axes in
  // order; the others walk the index tensor's batch axes in order.
  std::vector<std::int64_t> window;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (!has(a.collapsed_slice_dims, static_cast<std::int64_t>(d))) window.push_back(static_cast<std::int64_t>(d));
  std::vector<IndexedAxis> axes;
  std::size_t k = 0, ib = 0;
  for (std::size_t d = 0; d < out.shape().size(); ++d) {
    if (has(a.offset_dims, static_cast<std::int64_t>(d))) {
      axes.push_back({out.shape()[d], out.strides()[d], x.strides()[static_cast<std::size_t>(window[k++])], 0});
    } else {
      if (ib == ivd) ++ib;
      axes.push_back({out.shape()[d], out.strides()[d], 0, idx.strides()[ib]});
      ++ib;
    }
  }
  const std::int64_t nvec = ivd < ir ? idx.shape()[ivd] : 1;
  const std::int64_t vstride = ivd < ir ? idx.strides()[ivd] : 0;
  std::vector<IndexedComponent> comps;
  for (std::int64_t c = 0; c < nvec; ++c) {
    const auto dd = static_cast<std::size_t>(a.start_index_map[static_cast<std::size_t>(c)]);
    comps.push_back({x.strides()[dd], std::max<std::int64_t>(x.shape()[dd] - a.slice_sizes[dd], 0)});
  }
  indexed_copy(be, out, x, idx, out.offset(), x.offset(), idx.offset(), vstride, axes, comps, true, "gather");
}

}  // namespace

// ---- scatter ---------------------------------------------------------------------------

namespace {

// out = operand, then every update window whose start lies inside the
// operand (XLA's rule, as on the CPU) is written (replace) or added (add)
// at its place. Adds are atomic: i32 with atomicAdd, f32 and c64 (per
// component) with a compare-exchange loop on the bits, so duplicate
// indices accumulate (in an unspecified order: float sums may differ from
// the CPU's in the last bits). Replace with duplicate indices keeps one of
// the updates, unspecified which (as in StableHLO).
void scatter(WebGpuBackend& be, const ScatterAttrs& a, const Tensor& x, const Tensor& idx, const Tensor& upd,
             const Tensor& out) {
  const char* op = "scatter";
  TF_CHECK(idx.dtype() == DType::i32, UnimplementedError, op, "index dtype ", idx.dtype(),
           " is not supported by the WebGPU backend (i32 is)");
  copy(be, x, out);
  if (upd.numel() == 0) return;
  for (const Tensor* t : {&out, &upd, &idx}) check_index_range(*t, op);
  auto has = [](const DimVec& v, std::int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  const std::size_t ivd = static_cast<std::size_t>(a.index_vector_dim), ir = idx.shape().size();
  std::vector<std::int64_t> window_extent(x.shape().size(), 1);
  std::vector<std::int32_t> axes_meta;
  std::size_t od = 0, ib = 0;
  for (std::size_t d = 0; d < upd.shape().size(); ++d) {
    if (has(a.update_window_dims, static_cast<std::int64_t>(d))) {
      while (has(a.inserted_window_dims, static_cast<std::int64_t>(od))) ++od;
      window_extent[od] = upd.shape()[d];
      for (std::int64_t v : {upd.shape()[d], upd.strides()[d], out.strides()[od], std::int64_t{0}})
        axes_meta.push_back(static_cast<std::int32_t>(v));
      ++od;
    } else {
      if (ib == ivd) ++ib;
      for (std::int64_t v : {upd.shape()[d], upd.strides()[d], std::int64_t{0}, idx.strides()[ib]})
        axes_meta.push_back(static_cast<std::int32_t>(v));
      ++ib;
    }
  }
  const std::int64_t nvec = ivd < ir ? idx.shape()[ivd] : 1;
  const std::int64_t vstride = ivd < ir ? idx.strides()[ivd] : 0;
  std::vector<std::int32_t> meta{static_cast<std::int32_t>(upd.numel()), static_cast<std::int32_t>(upd.ndim()),
                                 static_cast<std::int32_t>(nvec), 0, static_cast<std::int32_t>(out.offset()),
                                 static_cast<std::int32_t>(upd.offset()), static_cast<std::int32_t>(idx.offset()),
                                 static_cast<std::int32_t>(vstride)};
  meta.insert(meta.end(), axes_meta.begin(), axes_meta.end());
  for (std::int64_t k = 0; k < nvec; ++k) {
    const auto ax = static_cast<std::size_t>(a.scatter_dims_to_operand_dims[static_cast<std::size_t>(k)]);
    meta.push_back(static_cast<std::int32_t>(out.strides()[ax]));
    meta.push_back(static_cast<std::int32_t>(x.shape()[ax] - window_extent[ax]));  // inside iff 0 <= s <= hi
  }
  const DType d = out.dtype();
  const bool add = a.mode == ScatterMode::add;
  std::ostringstream sh;
  sh << "@group(0) @binding(0) var<storage, read> md: array<i32>;\n";
  if (add) {
    sh << "@group(0) @binding(1) var<storage, read_write> dst: array<" << (d == DType::i32 ? "atomic<i32>" : "atomic<u32>")
       << ">;\n";
  } else {
    sh << "@group(0) @binding(1) var<storage, read_write> dst: array<"
       << (d == DType::bool_ ? "atomic<u32>" : storage_type(d)) << ">;\n";
  }
  sh << "@group(0) @binding(2) var<storage, read> in0: array<" << storage_type(d) << ">;\n"
     << "@group(0) @binding(3) var<storage, read> in1: array<i32>;\n"
     << kHelpers << load_fn(0, d) << load_fn(1, DType::i32);
  if (!add) {
    sh << store_fn(d);
  } else if (d == DType::i32) {
    sh << "fn st(i: i32, v: i32) { atomicAdd(&dst[i], v); }\n";
  } else {
    sh << "fn add_f(i: i32, v: f32) {\n"
          "  var old = atomicLoad(&dst[i]);\n"
          "  loop {\n"
          "    let r = atomicCompareExchangeWeak(&dst[i], old, bitcast<u32>(bitcast<f32>(old) + v));\n"
          "    if (r.exchanged) { break; }\n"
          "    old = r.old_value;\n"
          "  }\n"
          "}\n";
    if (d == DType::c64) sh << "fn st(i: i32, v: vec2<f32>) { add_f(2 * i, v.x); add_f(2 * i + 1, v.y); }\n";
    else sh << "fn st(i: i32, v: f32) { add_f(i, v); }\n";
  }
  sh << R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n = md[0]; let r = md[1]; let nv = md[2];
  let stride_ = i32(nwg.x) * 256;
  for (var e = i32(gid.x); e < n; e = e + stride_) {
    var rem = e; var qo = md[4]; var uo = md[5]; var io = md[6];
    for (var d = 0; d < r; d = d + 1) {
      let ext = md[8 + 4 * d]; let idx = rem % ext; rem = rem / ext;
      uo = uo + idx * md[9 + 4 * d]; qo = qo + idx * md[10 + 4 * d]; io = io + idx * md[11 + 4 * d];
    }
    var inside = true;
    for (var k = 0; k < nv; k = k + 1) {
      let s = ld1(io + k * md[7]);
      if (s < 0 || s > md[9 + 4 * r + 2 * k]) { inside = false; }
      qo = qo + s * md[8 + 4 * r + 2 * k];
    }
    if (inside) { st(qo, ld0(uo)); }
  }
}
)";
  State& s = be.state();
  const Pipeline& p = s.pipeline(sh.str(), op);
  std::vector<Tensor> keep;
  const Tensor ins[] = {upd, idx};
  std::vector<Binding> b{{buffer_of(out), bound_size(out)}};
  for (const Binding& xb : input_bindings(be, ins, out, keep)) b.push_back(xb);
  s.dispatch(p, meta, b, groups_for(upd.numel(), 256), 1, 1, op);
}

}  // namespace

// ---- structural ops --------------------------------------------------------------------

void structural(WebGpuBackend& be, OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  const Tensor& x = in[0];
  switch (kind) {
    case OpKind::transpose: {
      const auto& perm = std::get<PermutationAttrs>(attrs).permutation;
      Shape sh;
      Strides st;
      for (auto p : perm) {
        sh.push_back(x.shape()[static_cast<std::size_t>(p)]);
        st.push_back(x.strides()[static_cast<std::size_t>(p)]);
      }
      return copy(be, view_of(x, sh, st, x.offset()), out);
    }
    case OpKind::reshape: {
      Tensor src = x;
      if (!x.is_contiguous()) {
        src = be.empty(x.dtype(), x.shape());
        copy(be, x, src);
      }
      return copy(be, view_of(src, out.shape(), col_major_strides(out.shape()), src.offset()), out);
    }
    case OpKind::broadcast_in_dim: {
      const auto& dims = std::get<BroadcastInDimAttrs>(attrs).broadcast_dimensions;
      Strides st(out.shape().size(), 0);
      for (std::size_t i = 0; i < dims.size(); ++i) {
        const auto o = static_cast<std::size_t>(dims[i]);
        st[o] = (x.shape()[i] == 1 && out.shape()[o] != 1) ? 0 : x.strides()[i];
      }
      return copy(be, view_of(x, out.shape(), st, x.offset()), out);
    }
    case OpKind::slice: {
      const auto& a = std::get<SliceAttrs>(attrs);
      Strides st(x.strides().begin(), x.strides().end());
      std::int64_t off = x.offset();
      for (std::size_t i = 0; i < st.size(); ++i) {
        const std::int64_t step = a.strides.empty() ? 1 : a.strides[i];
        off += a.start_indices[i] * x.strides()[i];
        st[i] = x.strides()[i] * step;
      }
      return copy(be, view_of(x, out.shape(), st, off), out);
    }
    case OpKind::reverse: {
      Strides st(x.strides().begin(), x.strides().end());
      std::int64_t off = x.offset();
      for (auto ax : std::get<AxesAttrs>(attrs).dimensions) {
        const auto a = static_cast<std::size_t>(ax);
        if (x.shape()[a] > 0) off += (x.shape()[a] - 1) * st[a];
        st[a] = -st[a];
      }
      return copy(be, view_of(x, x.shape(), st, off), out);
    }
    case OpKind::pad: {
      const auto& a = std::get<PadAttrs>(attrs);
      // 1. the padding value everywhere; 2. the operand's elements that land
      // inside the output, through strided views of both.
      copy(be, view_of(in[1], out.shape(), Strides(out.shape().size(), 0), in[1].offset()), out);
      Shape sh;
      Strides in_st, out_st;
      std::int64_t in_off = x.offset(), out_off = out.offset();
      for (std::size_t i = 0; i < out.shape().size(); ++i) {
        const std::int64_t lo = a.edge_padding_low[i], step = (a.interior_padding.empty() ? 0 : a.interior_padding[i]) + 1;
        const std::int64_t n = x.shape()[i], ext = out.shape()[i];
        std::int64_t first = lo >= 0 ? 0 : (-lo + step - 1) / step;  // first input index inside
        std::int64_t last = n - 1;                                   // last input index inside
        if (n > 0 && lo + last * step > ext - 1) last = (ext - 1 - lo) >= 0 ? (ext - 1 - lo) / step : -1;
        const std::int64_t count = std::max<std::int64_t>(0, last - first + 1);
        if (count == 0) return;
        sh.push_back(count);
        in_st.push_back(x.strides()[i]);
        out_st.push_back(out.strides()[i] * step);
        in_off += first * x.strides()[i];
        out_off += (lo + first * step) * out.strides()[i];
      }
      return copy(be, view_of(x, sh, in_st, in_off), view_of(out, sh, out_st, out_off));
    }
    case OpKind::concatenate: {
      const auto dim = static_cast<std::size_t>(std::get<ConcatenateAttrs>(attrs).dimension);
      std::int64_t pos = 0;
      for (const Tensor& t : in) {
        if (t.numel() > 0) copy(be, t, view_of(out, t.shape(), out.strides(), out.offset() + pos * out.strides()[dim]));
        pos += t.shape()[dim];
      }
      return;
    }
    case OpKind::gather: return gather(be, std::get<GatherAttrs>(attrs), x, in[1], out);
    case OpKind::dynamic_slice: {
      const auto& sizes = std::get<DynamicSliceAttrs>(attrs).slice_sizes;
      std::vector<IndexedAxis> axes;
      std::vector<IndexedComponent> comps;
      for (std::size_t d = 0; d < out.shape().size(); ++d) {
        axes.push_back({out.shape()[d], out.strides()[d], x.strides()[d], 0});
        comps.push_back({x.strides()[d], std::max<std::int64_t>(x.shape()[d] - sizes[d], 0)});
      }
      const std::int64_t vstride = in[1].ndim() > 0 ? in[1].strides()[0] : 0;
      return indexed_copy(be, out, x, in[1], out.offset(), x.offset(), in[1].offset(), vstride, axes, comps, true,
                          "dynamic_slice");
    }
    case OpKind::dynamic_update_slice: {
      const Tensor& upd = in[1];
      copy(be, x, out);
      std::vector<IndexedAxis> axes;
      std::vector<IndexedComponent> comps;
      for (std::size_t d = 0; d < upd.shape().size(); ++d) {
        axes.push_back({upd.shape()[d], upd.strides()[d], out.strides()[d], 0});
        comps.push_back({out.strides()[d], std::max<std::int64_t>(out.shape()[d] - upd.shape()[d], 0)});
      }
      const std::int64_t vstride = in[2].ndim() > 0 ? in[2].strides()[0] : 0;
      return indexed_copy(be, out, upd, in[2], upd.offset(), out.offset(), in[2].offset(), vstride, axes, comps,
                          false, "dynamic_update_slice");
    }
    case OpKind::scatter: return scatter(be, std::get<ScatterAttrs>(attrs), x, in[1], in[2], out);
    default: TF_THROW(UnimplementedError, op_name(kind), "has no WebGPU kernel");
  }
}

}  // namespace detail

bool supports(OpKind op, DType dtype) {
  return detail::storable(dtype) && detail::op_covered(op) && op_info(op).dtypes.contains(dtype);
}

}  // namespace webgpu

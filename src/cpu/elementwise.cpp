// Elementwise kernels: unary, binary and ternary maps over any strides.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "kernels.hpp"
#include "loops.hpp"
#include "scalar_ops.hpp"
#include "vector_math.hpp"

namespace tenferro::cpu {
namespace {

// Runs shorter than this stay in the inline loops: the call into the vector
// kernels (Note [Vector arithmetic]) costs more than it saves on a few
// elements (lm_batch_likelihood_brackets_4_4d of bench/peer along our path,
// best of three alternating runs on one core: 12.1 ms with every run in the
// kernels, 11.0 ms with this limit).
constexpr std::int64_t kArrayRun = 32;

// Note [Short runs] (loops.hpp): innermost runs of at most kShortRun
// elements, in a loop of at least kShortRunsMin, go through blocks of up to
// kShortBlock elements.
constexpr std::int64_t kShortRun = 8;
constexpr std::int64_t kShortRunsMin = std::int64_t{1} << 12;
constexpr std::int64_t kShortBlock = 256;

// Whether a run of n outputs with operand strides sa, sb goes to an array2
// kernel: long enough, and each operand contiguous or broadcast (not both).
bool array2_run(std::int64_t n, std::int64_t sa, std::int64_t sb) {
  return n >= kArrayRun && (sa == 0 || sa == 1) && (sb == 0 || sb == 1) && sa + sb > 0;
}

// Rank-0 operands of select/clamp broadcast: they get all-zero strides.
const std::int64_t* strides_over(const Tensor& t, const Tensor& out, const Strides& zeros) {
  return (t.ndim() == 0 && out.ndim() > 0) ? zeros.data() : t.strides().data();
}

template <class Out, class A, class F>
void map1(const Tensor& out, const Tensor& a, F f) {
  Loop<2> loop(out.shape(), {out.strides().data(), a.strides().data()});
  Out* o = static_cast<Out*>(out.data_ptr());
  const A* x = static_cast<const A*>(a.data_ptr());
  auto body = [&](const std::array<std::int64_t, 2>& off, std::int64_t n,
                  const std::array<std::int64_t, 2>& st) {
    Out* po = o + off[0];
    const A* pa = x + off[1];
    if (st[0] == 1 && st[1] == 1) {
      if constexpr (requires { F::array(pa, po, n); }) F::array(pa, po, n);
      else
        for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = f(pa[i * st[1]]);
    }
  };
  parallel_for(loop.numel, kParallelGrain,
               [&](std::int64_t b, std::int64_t e) { loop.run(b, e, body); });
}

// Note [Permuted operand]: a binary op runs in the output's memory order.
// When an operand's unit-stride axis lies far out in that order, each read
// of it takes a cache line that is gone before the line's next element is
// read: a gather at a small fraction of memory speed (gm_queen5_5_3 along
// opt_flops multiplies 43 M elements with the second factor in another axis
// order: 0.58 s). "Far": more than kLocalReach distinct elements of the
// operand are read between two neighbours along its unit axis (the output
// axes inside its unit axis, less those it is broadcast along). If the
// other operand is read in order, the permuted one is first copied into the
// output by the tiled transposition (parallel_copy, Note [Transpose tiles]),
// and the op then runs in place on the output.
constexpr std::int64_t kLocalReach = 1024;                    // elements
constexpr std::int64_t kPermutedMin = std::int64_t{1} << 16;  // elements

// Whether t is read far from its memory order in out's (contiguous) order.
bool scattered(const Tensor& out, const Tensor& t) {
  const std::size_t r = t.shape().size();
  std::size_t u = r;
  for (std::size_t i = 0; i < r && u == r; ++i)
    if (t.shape()[i] > 1 && t.strides()[i] == 1) u = i;
  if (u == r) return false;
  std::int64_t reach = 1;
  for (std::size_t i = 0; i < r; ++i)
    if (t.strides()[i] != 0 && std::llabs(out.strides()[i]) < std::llabs(out.strides()[u])) reach *= t.shape()[i];
  return reach > kLocalReach;
}

// Whether x is to be copied into out before the op (Note [Permuted operand]).
bool copy_first(const Tensor& out, const Tensor& x, const Tensor& y) {
  return out.numel() >= kPermutedMin && out.is_contiguous() && out.storage() != x.storage() &&
         out.storage() != y.storage() && scattered(out, x) && !scattered(out, y);
}

// A binary op whose innermost runs are short, by blocks of its innermost
// axes (Note [Short runs] in loops.hpp); false when the loop does not qualify.
template <class Out, class A, class B, class F>
bool map2_by_blocks(const Loop<3>& loop, Out* o, const A* x, const B* y, F f) {
  if (loop.rank < 2 || loop.extent[0] > kShortRun || loop.numel < kShortRunsMin) return false;
  Loop<3> outer = loop;
  const InnerBlock<3> blk = split_inner_block(outer, kShortBlock);
  if (blk.size < kArrayRun) return false;
  const std::int64_t* to = blk.offsets[0].data();
  const std::int64_t* ta = blk.offsets[1].data();
  const std::int64_t* tb = blk.offsets[2].data();
  const std::int64_t m = blk.size;
  const bool dense_out = blk.dense[0];
  auto body = [&](const std::array<std::int64_t, 3>& off, std::int64_t n,
                  const std::array<std::int64_t, 3>& st) {
    for (std::int64_t i = 0; i < n; ++i) {
      Out* po = o + off[0] + i * st[0];
      const A* pa = x + off[1] + i * st[1];
      const B* pb = y + off[2] + i * st[2];
      if (dense_out) {
        for (std::int64_t p = 0; p < m; ++p) po[p] = f(pa[ta[p]], pb[tb[p]]);
      } else {
        for (std::int64_t p = 0; p < m; ++p) po[to[p]] = f(pa[ta[p]], pb[tb[p]]);
      }
    }
  };
  parallel_for(outer.numel, std::max<std::int64_t>(1, kParallelGrain / m),
               [&](std::int64_t b, std::int64_t e) { outer.run(b, e, body); });
  return true;
}

template <class Out, class A, class B, class F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  if constexpr (std::is_same_v<Out, B>) {
    if (copy_first(out, b, a)) {
      parallel_copy(out, b);
      return map2<Out, A, Out>(out, a, out, f);
    }
  }
  if constexpr (std::is_same_v<Out, A>) {
    if (copy_first(out, a, b)) {
      parallel_copy(out, a);
      return map2<Out, Out, B>(out, out, b, f);
    }
  }
  Loop<3> loop(out.shape(), {out.strides().data(), a.strides().data(), b.strides().data()});
  Out* o = static_cast<Out*>(out.data_ptr());
  const A* x = static_cast<const A*>(a.data_ptr());
  const B* y = static_cast<const B*>(b.data_ptr());
  if (map2_by_blocks(loop, o, x, y, f)) return;
  auto body = [&](const std::array<std::int64_t, 3>& off, std::int64_t n,
                  const std::array<std::int64_t, 3>& st) {
    Out* po = o + off[0];
    const A* pa = x + off[1];
    const B* pb = y + off[2];
    if constexpr (requires { F::array2(pa, st[1], pb, st[2], po, n); }) {
      if (st[0] == 1 && array2_run(n, st[1], st[2])) {
        F::array2(pa, st[1], pb, st[2], po, n);
        return;
      }
    }
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
      for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const B v = *pb;
      for (std::int64_t i = 0; i < n; ++i) po[i] = f(pa[i], v);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const A v = *pa;
      for (std::int64_t i = 0; i < n; ++i) po[i] = f(v, pb[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = f(pa[i * st[1]], pb[i * st[2]]);
    }
  };
  parallel_for(loop.numel, kParallelGrain,
               [&](std::int64_t b, std::int64_t e) { loop.run(b, e, body); });
}

template <class Out, class A, class B, class C, class F>
void map3(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f) {
  Strides zeros(out.shape().size(), 0);
  Loop<4> loop(out.shape(), {out.strides().data(), strides_over(a, out, zeros),
                             strides_over(b, out, zeros), strides_over(c, out, zeros)});
  Out* o = static_cast<Out*>(out.data_ptr());
  const A* x = static_cast<const A*>(a.data_ptr());
  const B* y = static_cast<const B*>(b.data_ptr());
  const C* z = static_cast<const C*>(c.data_ptr());
  auto body = [&](const std::array<std::int64_t, 4>& off, std::int64_t n,
                  const std::array<std::int64_t, 4>& st) {
    Out* po = o + off[0];
    const A* pa = x + off[1];
    const B* pb = y + off[2];
    const C* pc = z + off[3];
    for (std::int64_t i = 0; i < n; ++i) po[i * st[0]] = f(pa[i * st[1]], pb[i * st[2]], pc[i * st[3]]);
  };
  parallel_for(loop.numel, kParallelGrain,
               [&](std::int64_t b, std::int64_t e) { loop.run(b, e, body); });
}

template <DTypeSet S, class Make>
void on_dtype(DType d, OpKind kind, Make&& make) {
  visit_dtype<S>(d, op_name(kind), std::forward<Make>(make));
}

// add, subtract, multiply and divide: float and double arrays through the
// vector kernels of Note [Vector arithmetic], other types through `scalar`.
template <Arith Op, class T, class V, class F>
void binary_arith(V& v, F scalar) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) v.template binary<T, T, T>(RealArith<T, Op>{});
  else v.template binary<T, T, T>(scalar);
}

// Calls visitor.unary<Out, A>(f), .binary<Out, A, B>(f) or .ternary<Out, A, B, C>(f)
// with the scalar function of `kind` for the operand dtypes `in` (and the
// result dtype `out` for convert). The one table of elementwise semantics:
// the strided kernels and the fused kernel both go through it.
template <class V>
void dispatch(OpKind kind, const Attrs& attrs, const DType* in, DType out, V&& v) {
  const DType d = in[0];
  switch (kind) {
    case OpKind::add:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        binary_arith<Arith::add, T>(v, [](T x, T y) { return wrap_add(x, y); });
      });
    case OpKind::subtract:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        binary_arith<Arith::subtract, T>(v, [](T x, T y) { return wrap_sub(x, y); });
      });
    case OpKind::multiply:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        binary_arith<Arith::multiply, T>(v, [](T x, T y) { return wrap_mul(x, y); });
      });
    case OpKind::divide:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) v.template binary<T, T, T>([](T x, T y) { return int_div(x, y); });
        else binary_arith<Arith::divide, T>(v, [](T x, T y) { return x / y; });
      });
    case OpKind::maximum:
      return on_dtype<kRealDTypes>(d, kind, [&]<class T>() {
        v.template binary<T, T, T>([](T x, T y) { return max_nan(x, y); });
      });
    case OpKind::minimum:
      return on_dtype<kRealDTypes>(d, kind, [&]<class T>() {
        v.template binary<T, T, T>([](T x, T y) { return min_nan(x, y); });
      });
    case OpKind::power:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) v.template binary<T, T, T>([](T x, T y) { return int_pow(x, y); });
        else v.template binary<T, T, T>([](T x, T y) { return T(std::pow(x, y)); });
      });
    case OpKind::complex:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.template binary<std::complex<T>, T, T>([](T x, T y) { return std::complex<T>(x, y); });
      });
    case OpKind::compare: {
      auto dir = std::get<CompareAttrs>(attrs).direction;
      return on_dtype<kAllDTypes>(d, kind, [&]<class T>() {
        v.template binary<bool, T, T>([dir](T x, T y) { return compare_values(x, y, dir); });
      });
    }
    case OpKind::negate:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return wrap_neg(x); }); });
    case OpKind::conj:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (is_complex_v<T>) v.template unary<T, T>([](T x) { return std::conj(x); });
        else v.template unary<T, T>([](T x) { return x; });
      });
    case OpKind::abs:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() {
        if constexpr (is_complex_v<T>) v.template unary<real_t<T>, T>([](T x) { return std::abs(x); });
        else if constexpr (std::is_integral_v<T>) v.template unary<T, T>([](T x) { return x < 0 ? wrap_neg(x) : x; });
        else v.template unary<T, T>([](T x) { return std::abs(x); });
      });
    case OpKind::sign:
      return on_dtype<kNumericDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return sign_of(x); }); });
    case OpKind::exp:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        if constexpr (is_complex_v<T>) v.template unary<T, T>([](T x) { return std::exp(x); });
        else v.template unary<T, T>(RealExp<T>{});  // Note [Vector exp]
      });
    case OpKind::log:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return std::log(x); }); });
    case OpKind::sin:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return std::sin(x); }); });
    case OpKind::cos:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return std::cos(x); }); });
    case OpKind::tanh:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return std::tanh(x); }); });
    case OpKind::sqrt:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return std::sqrt(x); }); });
    case OpKind::rsqrt:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        v.template unary<T, T>([](T x) { return T(1) / std::sqrt(x); });
      });
    case OpKind::expm1:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return expm1_of(x); }); });
    case OpKind::log1p:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>([](T x) { return log1p_of(x); }); });
    case OpKind::real:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        v.template unary<real_t<T>, T>([](T x) { return std::real(x); });
      });
    case OpKind::imag:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        v.template unary<real_t<T>, T>([](T x) { return static_cast<real_t<T>>(std::imag(x)); });
      });
    case OpKind::is_finite:
      return on_dtype<kFloatDTypes>(d, kind, [&]<class T>() {
        v.template unary<bool, T>([](T x) {
          if constexpr (is_complex_v<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
          else return static_cast<bool>(std::isfinite(x));
        });
      });
    case OpKind::floor:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>(RealRound<T, RoundMode::floor>{}); });
    case OpKind::ceil:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>(RealRound<T, RoundMode::ceil>{}); });
    case OpKind::trunc:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() { v.template unary<T, T>(RealRound<T, RoundMode::trunc>{}); });
    case OpKind::round_nearest_even:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.template unary<T, T>(RealRound<T, RoundMode::nearest_even>{});
      });
    case OpKind::frexp_exponent:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.template unary<std::int32_t, T>([](T x) { return math::frexp_exponent_of(x); });
      });
    case OpKind::fmod:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.template binary<T, T, T>([](T x, T y) { return std::fmod(x, y); });
      });
    case OpKind::remainder:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.template binary<T, T, T>([](T x, T y) { return math::remainder_floor(x, y); });
      });
    case OpKind::ldexp:
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.template binary<T, T, T>([](T x, T y) { return math::ldexp_of(x, y); });
      });
    // Special functions (Note [One scalar definition] in src/ops/special_math.hpp).
#define TF_SPECIAL(name)                                                                                  \
  case OpKind::name:                                                                                      \
    return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {                                           \
      v.template unary<T, T>([](T x) { return math::name##_of(x); });                                     \
    });
    TF_SPECIAL(erf)
    TF_SPECIAL(erfc)
    TF_SPECIAL(erfinv)
    TF_SPECIAL(erfcx)
    TF_SPECIAL(lgamma)
    TF_SPECIAL(digamma)
    TF_SPECIAL(i0)
    TF_SPECIAL(i0e)
    TF_SPECIAL(i1)
    TF_SPECIAL(i1e)
    TF_SPECIAL(ndtr)
    TF_SPECIAL(ndtri)
    TF_SPECIAL(log_ndtr)
#undef TF_SPECIAL
    case OpKind::polygamma: {
      const std::int64_t n = std::get<PolygammaAttrs>(attrs).n;
      return on_dtype<kRealFloatDTypes>(d, kind, [&]<class T>() {
        v.template unary<T, T>([n](T x) { return math::polygamma_of(n, x); });
      });
    }
    case OpKind::convert:
      return on_dtype<kAllDTypes>(d, kind, [&]<class From>() {
        on_dtype<kAllDTypes>(out, kind, [&]<class To>() {
          v.template unary<To, From>([](From x) { return convert_value<To>(x); });
        });
      });
    case OpKind::select:
      return on_dtype<kAllDTypes>(in[1], kind, [&]<class T>() {
        v.template ternary<T, bool, T, T>([](bool p, T x, T y) { return p ? x : y; });
      });
    case OpKind::clamp:
      return on_dtype<kRealDTypes>(in[1], kind, [&]<class T>() {
        v.template ternary<T, T, T, T>([](T lo, T x, T hi) { return min_nan(max_nan(x, lo), hi); });
      });
    default:
      TF_INTERNAL_ASSERT(false, "elementwise: ", op_name(kind), " is not elementwise");
  }
}

// Strided tensors (the primitive kernels).
struct TensorVisitor {
  std::span<const Tensor> in;
  const Tensor& out;
  template <class Out, class A, class F>
  void unary(F f) {
    map1<Out, A>(out, in[0], f);
  }
  template <class Out, class A, class B, class F>
  void binary(F f) {
    map2<Out, A, B>(out, in[0], in[1], f);
  }
  template <class Out, class A, class B, class C, class F>
  void ternary(F f) {
    map3<Out, A, B, C>(out, in[0], in[1], in[2], f);
  }
};

// Contiguous arrays with stride 1, or 0 for a broadcast scalar (the fused kernel).
struct ArrayVisitor {
  void* out;
  const void* const* args;
  const std::int64_t* strides;
  std::int64_t n;
  template <class Out, class A, class F>
  void unary(F f) {
    Out* o = static_cast<Out*>(out);
    const A* a = static_cast<const A*>(args[0]);
    if (strides[0] == 1) {
      if constexpr (requires { F::array(a, o, n); }) F::array(a, o, n);
      else
        for (std::int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else {
      const Out r = f(*a);
      for (std::int64_t i = 0; i < n; ++i) o[i] = r;
    }
  }
  template <class Out, class A, class B, class F>
  void binary(F f) {
    Out* o = static_cast<Out*>(out);
    const A* a = static_cast<const A*>(args[0]);
    const B* b = static_cast<const B*>(args[1]);
    if constexpr (requires { F::array2(a, strides[0], b, strides[1], o, n); }) {
      if (array2_run(n, strides[0], strides[1])) {
        F::array2(a, strides[0], b, strides[1], o, n);
        return;
      }
    }
    if (strides[0] == 1 && strides[1] == 1) {
      for (std::int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
    } else if (strides[0] == 1) {
      const B y = *b;
      for (std::int64_t i = 0; i < n; ++i) o[i] = f(a[i], y);
    } else if (strides[1] == 1) {
      const A x = *a;
      for (std::int64_t i = 0; i < n; ++i) o[i] = f(x, b[i]);
    } else {
      const Out r = f(*a, *b);
      for (std::int64_t i = 0; i < n; ++i) o[i] = r;
    }
  }
  template <class Out, class A, class B, class C, class F>
  void ternary(F f) {
    Out* o = static_cast<Out*>(out);
    const A* a = static_cast<const A*>(args[0]);
    const B* b = static_cast<const B*>(args[1]);
    const C* c = static_cast<const C*>(args[2]);
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(a[i * strides[0]], b[i * strides[1]], c[i * strides[2]]);
  }
};

}  // namespace

void elementwise(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) {
  DType dts[3];
  for (std::size_t i = 0; i < in.size() && i < 3; ++i) dts[i] = in[i].dtype();
  dispatch(kind, attrs, dts, out.dtype(), TensorVisitor{in, out});
}

void elementwise_arrays(OpKind kind, const Attrs& attrs, const DType* in_dtypes, DType out_dtype,
                        const void* const* args, const std::int64_t* strides, void* out, std::int64_t n) {
  dispatch(kind, attrs, in_dtypes, out_dtype, ArrayVisitor{out, args, strides, n});
}

}  // namespace tenferro::cpu

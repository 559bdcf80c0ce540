#include "fuzz/random_program.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <sstream>

#include "support/reference.hpp"
#include "support/test_support.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/einsum/traced.hpp"
#include "tenferro/fft/family.hpp"
#include "tenferro/fft/handles.hpp"
#include "tenferro/linalg/family.hpp"
#include "tenferro/linalg/traced.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro::testing {

Choices::Choices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the bytes seeds the tail PRNG
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  rng_.seed(h);
}

std::int64_t Choices::below(std::int64_t n) {
  if (n <= 1) return 0;
  if (pos_ < size_) return static_cast<std::int64_t>(data_[pos_++]) % n;
  return static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(n));
}

namespace {
std::vector<TracedTensor> traced(const std::vector<Value>& values) {
  return std::vector<TracedTensor>(values.begin(), values.end());
}
}  // namespace

Runtime random_program_runtime(CpuBackend& backend) {
  return Runtime::builder()
      .register_engine(cpu_engine(backend))
      .register_family(linalg::family())
      .register_family(fft::family())
      .build();
}

std::string RandomProgram::describe() const {
  std::ostringstream os;
  os << GraphCompiler::lower(traced(outputs)).to_text();
  return os.str();
}

namespace {

// ---- the generator ------------------------------------------------------------------

enum class Step {
  unary, binary, divide, power, reduce, transpose, reverse, reshape, slice, broadcast, pad,
  concatenate, dynamic_slice, dynamic_update_slice, dot, convert, select, clamp, complex_parts,
  rounding, special, gather, scatter, einsum, fft, linalg, truncated_svd
};

struct Generator {
  Choices& c;
  RandomProgram& p;
  std::vector<Value> pool;

  bool differentiable() const { return p.kind == ProgramKind::differentiable; }
  bool integer() const { return p.kind == ProgramKind::integer; }

  Value apply(OpKind k, SymAttrs a, std::vector<Value> in) { return graph::apply(k, std::move(a), std::move(in)); }
  // A value joins the pool unless it could exceed kMaxElements (its
  // symbols at 5): repeated interior pads or broadcasts would otherwise
  // grow values geometrically, beyond what the naive reference checks in
  // reasonable time (found by the fuzzer: a 1.9M-element c128 chain, 44 s).
  static constexpr std::int64_t kMaxElements = 4096;
  Value keep(Value v) {
    double n = 1;
    for (const Dim& e : v.shape()) {
      DimBindings env;
      for (const auto& sym : e.symbols()) env[sym] = 5;
      n *= static_cast<double>(std::max<std::int64_t>(e.evaluate(env), 0));
    }
    if (n <= kMaxElements) pool.push_back(v);
    return v;
  }

  // A recent value more often than an old one: chains get deep.
  Value pick() {
    auto n = static_cast<std::int64_t>(pool.size());
    if (c.chance(60)) return pool[static_cast<std::size_t>(n - 1 - c.below(std::min<std::int64_t>(n, 3)))];
    return pool[static_cast<std::size_t>(c.below(n))];
  }

  Value scalar(double v, DType d) { return graph::constant(Tensor::full({}, Scalar(v), d)); }
  Value filled_like(const Value& like, double v) {
    BasicBroadcastInDimAttrs<Dim> a{like.shape(), {}};
    return apply(OpKind::broadcast_in_dim, a, {scalar(v, like.dtype())});
  }

  // A smooth, bounded function of a float value: the partner of binary ops
  // when the pool has none of the same shape.
  Value bounded(const Value& a) {
    if (is_complex(a.dtype())) return apply(OpKind::sin, NoAttrs{}, {squashed(a)});
    if (is_integer(a.dtype())) return apply(OpKind::negate, NoAttrs{}, {a});
    return apply(OpKind::tanh, NoAttrs{}, {a});
  }

  // The argument of a periodic function or of a complex exp: an input as it
  // is (in [-1, 1)), a computed value brought into the unit disc first.
  // sin, cos and exp of a large computed value would amplify its rounding
  // error (condition number |x|) beyond any fixed tolerance.
  Value squashed(const Value& a) {
    if (is_input(a)) return is_complex(a.dtype()) ? apply(OpKind::multiply, NoAttrs{}, {a, filled_like(a, 0.25)}) : a;
    if (!is_complex(a.dtype())) return apply(OpKind::tanh, NoAttrs{}, {a});
    Value r = apply(OpKind::abs, NoAttrs{}, {a});  // a / (1 + |a|)
    Value q = apply(OpKind::add, NoAttrs{}, {filled_like(r, 1.0), r});
    Value z = apply(OpKind::complex, NoAttrs{}, {q, filled_like(q, 0.0)});
    return apply(OpKind::divide, NoAttrs{}, {a, z});
  }

  // tanh of a value with NaN replaced by 0, per real part: finite, in
  // [-1, 1], the operand the family ops get (linalg rejects non-finite
  // entries, and random chains can overflow).
  Value finite(const Value& a) {
    if (is_complex(a.dtype()))
      return apply(OpKind::complex, NoAttrs{}, {finite(apply(OpKind::real, NoAttrs{}, {a})),
                                                finite(apply(OpKind::imag, NoAttrs{}, {a}))});
    Value is_num = apply(OpKind::compare, CompareAttrs{ComparisonDirection::EQ}, {a, a});
    return apply(OpKind::tanh, NoAttrs{}, {apply(OpKind::select, NoAttrs{}, {is_num, a, filled_like(a, 0.0)})});
  }

  // A value of a's dtype and shape from the pool, or one derived from a.
  Value partner(const Value& a) {
    std::vector<Value> same;
    for (const Value& v : pool)
      if (v.dtype() == a.dtype() && v.shape() == a.shape()) same.push_back(v);
    if (!same.empty() && c.chance(75)) return same[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(same.size())))];
    return bounded(a);
  }

  // An extent for a new axis: a constant or a symbol from `symbols` (for a
  // value, only symbols of its own extents: those of the other inputs may be
  // bound by no input of the final program).
  Dim new_extent(const std::vector<std::string>& symbols) {
    if (!symbols.empty() && c.chance(30))
      return Dim(symbols[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(symbols.size())))]);
    return Dim(1 + c.below(3));
  }
  static std::vector<std::string> symbols_of(const SymShape& shape) {
    std::vector<std::string> out;
    for (const Dim& e : shape)
      if (e.is_symbol() && std::find(out.begin(), out.end(), e.symbol()) == out.end()) out.push_back(e.symbol());
    return out;
  }

  DimVec random_axes(std::int64_t rank, int percent) {
    DimVec axes;
    for (std::int64_t i = 0; i < rank; ++i)
      if (c.chance(percent)) axes.push_back(i);
    return axes;
  }

  DimVec permutation(std::int64_t rank) {
    DimVec perm(static_cast<std::size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    for (std::int64_t i = rank - 1; i > 0; --i) std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(c.below(i + 1))]);
    return perm;
  }

  bool is_input(const Value& v) const {
    return std::find(p.inputs.begin(), p.inputs.end(), v) != p.inputs.end();
  }

  std::vector<Step> allowed(const Value& a) const {
    DType d = a.dtype();
    bool real_float = d == DType::f32 || d == DType::f64;
    std::vector<Step> s = {Step::unary, Step::binary, Step::reduce, Step::transpose, Step::reverse,
                           Step::reshape, Step::slice, Step::broadcast, Step::pad, Step::concatenate,
                           Step::dynamic_slice, Step::dynamic_update_slice, Step::dot, Step::power};
    if (d == DType::bool_) return {Step::transpose, Step::reverse, Step::reshape, Step::slice, Step::broadcast,
                                   Step::concatenate, Step::convert};
    if (is_float(d)) s.push_back(Step::divide);
    if (!differentiable()) s.push_back(Step::convert);
    if (!differentiable() && !is_complex(d)) s.insert(s.end(), {Step::select, Step::clamp});
    if (is_float(d) && !differentiable()) s.push_back(Step::complex_parts);
    if (real_float && is_input(a) && !differentiable()) s.push_back(Step::rounding);
    if (real_float) s.push_back(Step::special);
    // Gather/scatter need an axis of constant extent to index; einsum any
    // value of a numeric dtype.
    bool constant_axis = std::any_of(a.shape().begin(), a.shape().end(), [](const Dim& e) { return e.try_value().has_value(); });
    if (constant_axis) s.insert(s.end(), {Step::gather, Step::scatter});
    s.push_back(Step::einsum);
    // Family ops (Note [Family ops in random programs]).
    if (is_float(d) && constant_axis) s.push_back(Step::fft);
    if (is_float(d) && constant_axis && a.ndim() >= 1) s.push_back(Step::linalg);
    if (is_float(d) && constant_axis && !differentiable()) s.push_back(Step::truncated_svd);
    return s;
  }

  // One generated step on a value of the pool.
  void step() {
    Value a = pick();
    std::vector<Step> steps = allowed(a);
    Step s = steps[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(steps.size())))];
    const SymShape& sh = a.shape();
    const auto rank = static_cast<std::int64_t>(sh.size());
    DType d = a.dtype();
    switch (s) {
      case Step::unary: {
        if (is_integer(d)) {
          keep(apply(c.chance(50) ? OpKind::negate : OpKind::abs, NoAttrs{}, {a}));
        } else if (is_complex(d)) {
          static const OpKind k[] = {OpKind::negate, OpKind::conj, OpKind::exp, OpKind::sin, OpKind::cos};
          OpKind op = k[c.below(5)];
          keep(apply(op, NoAttrs{}, {op == OpKind::negate || op == OpKind::conj ? a : squashed(a)}));
        } else {
          switch (c.below(differentiable() ? 7 : 9)) {
            case 0: keep(apply(OpKind::negate, NoAttrs{}, {a})); break;
            case 1: keep(apply(OpKind::sin, NoAttrs{}, {squashed(a)})); break;
            case 2: keep(apply(OpKind::cos, NoAttrs{}, {squashed(a)})); break;
            case 3: keep(apply(OpKind::tanh, NoAttrs{}, {a})); break;
            case 4: keep(apply(OpKind::exp, NoAttrs{}, {apply(OpKind::tanh, NoAttrs{}, {a})})); break;
            case 5: keep(apply(OpKind::log1p, NoAttrs{}, {apply(OpKind::multiply, NoAttrs{}, {a, a})})); break;
            case 6: {  // rsqrt(1 + a^2) and sqrt(1 + a^2)
              Value q = apply(OpKind::add, NoAttrs{}, {filled_like(a, 1.0), apply(OpKind::multiply, NoAttrs{}, {a, a})});
              keep(apply(c.chance(50) ? OpKind::sqrt : OpKind::rsqrt, NoAttrs{}, {q}));
              break;
            }
            case 7: keep(apply(OpKind::abs, NoAttrs{}, {a})); break;
            default: keep(apply(is_input(a) ? OpKind::sign : OpKind::abs, NoAttrs{}, {a})); break;  // sign: exact values only
          }
        }
        break;
      }
      case Step::binary: {
        Value b = partner(a);
        std::vector<OpKind> k = {OpKind::add, OpKind::subtract, OpKind::multiply};
        if (!differentiable() && !is_complex(d)) k.insert(k.end(), {OpKind::maximum, OpKind::minimum});
        if (is_integer(d)) k.push_back(OpKind::divide);  // x / 0 = -1 (Note [Integer arithmetic])
        OpKind op = k[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(k.size())))];
        keep(c.chance(50) ? apply(op, NoAttrs{}, {a, b}) : apply(op, NoAttrs{}, {b, a}));
        break;
      }
      case Step::divide: {  // a / q with |q| >= 1
        Value b = partner(a);
        Value q;
        if (is_complex(d)) {
          Value re = apply(OpKind::tanh, NoAttrs{}, {apply(OpKind::real, NoAttrs{}, {b})});
          Value im = apply(OpKind::tanh, NoAttrs{}, {apply(OpKind::imag, NoAttrs{}, {b})});
          re = apply(OpKind::add, NoAttrs{}, {re, filled_like(re, 2.0)});
          q = apply(OpKind::complex, NoAttrs{}, {re, im});
        } else {
          q = apply(OpKind::add, NoAttrs{}, {filled_like(a, 2.0), apply(OpKind::tanh, NoAttrs{}, {b})});
        }
        keep(apply(OpKind::divide, NoAttrs{}, {a, q}));
        break;
      }
      case Step::power:
        keep(apply(OpKind::power, NoAttrs{}, {a, filled_like(a, is_integer(d) ? 3.0 : 2.0)}));
        break;
      case Step::reduce: {
        std::vector<OpKind> k = {OpKind::reduce_sum, OpKind::reduce_prod};
        if (!differentiable() && !is_complex(d)) k.insert(k.end(), {OpKind::reduce_max, OpKind::reduce_min});
        OpKind op = k[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(k.size())))];
        keep(apply(op, AxesAttrs{random_axes(rank, 50)}, {a}));
        break;
      }
      case Step::transpose:
        keep(apply(OpKind::transpose, PermutationAttrs{permutation(rank)}, {a}));
        break;
      case Step::reverse:
        keep(apply(OpKind::reverse, AxesAttrs{random_axes(rank, 50)}, {a}));
        break;
      case Step::reshape: {
        SymShape to = sh;
        std::int64_t mode = c.below(3);
        if (mode == 0 && rank >= 2) {  // merge two adjacent axes
          auto i = static_cast<std::size_t>(c.below(rank - 1));
          to[i] = to[i] * to[i + 1];
          to.erase(to.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        } else if (mode == 1 && rank >= 1) {  // split a constant axis, or drop an extent-1 one
          auto i = static_cast<std::size_t>(c.below(rank));
          if (auto e = to[i].try_value()) {
            if (*e == 1 && c.chance(50)) {
              to.erase(to.begin() + static_cast<std::ptrdiff_t>(i));
            } else {
              std::int64_t f = *e % 2 == 0 && c.chance(60) ? 2 : 1;
              to[i] = Dim(*e / f);
              to.insert(to.begin() + static_cast<std::ptrdiff_t>(i), Dim(f));
            }
          }
        } else if (rank < 4) {  // a new extent-1 axis
          to.insert(to.begin() + static_cast<std::ptrdiff_t>(c.below(rank + 1)), Dim(1));
        }
        keep(apply(OpKind::reshape, BasicReshapeAttrs<Dim>{to}, {a}));
        break;
      }
      case Step::slice: {
        BasicSliceAttrs<Dim> at;
        for (const Dim& e : sh) {
          if (auto v = e.try_value()) {
            std::int64_t start = c.below(*v + 1);
            at.start_indices.push_back(Dim(start));
            at.limit_indices.push_back(Dim(start + c.below(*v - start + 1)));
            at.strides.push_back(1 + c.below(3));
          } else {
            at.start_indices.push_back(Dim(0));
            at.limit_indices.push_back(e);
            at.strides.push_back(1);
          }
        }
        keep(apply(OpKind::slice, at, {a}));
        break;
      }
      case Step::broadcast: {
        if (rank >= 4) return;
        auto at = static_cast<std::size_t>(c.below(rank + 1));
        SymShape to = sh;
        to.insert(to.begin() + static_cast<std::ptrdiff_t>(at), new_extent(symbols_of(sh)));
        DimVec dims;
        for (std::int64_t i = 0; i < rank; ++i) dims.push_back(i < static_cast<std::int64_t>(at) ? i : i + 1);
        // An operand axis of extent 1 may also stretch.
        for (std::int64_t i = 0; i < rank; ++i)
          if (sh[static_cast<std::size_t>(i)] == Dim(1) && c.chance(50)) to[static_cast<std::size_t>(dims[static_cast<std::size_t>(i)])] = new_extent(symbols_of(sh));
        keep(apply(OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<Dim>{to, dims}, {a}));
        break;
      }
      case Step::pad: {
        BasicPadAttrs<Dim> at;
        for (const Dim& e : sh) {
          if (auto v = e.try_value()) {
            std::int64_t interior = differentiable() || *v == 0 ? 0 : c.below(2);
            std::int64_t full = *v + interior * (*v - 1);
            std::int64_t low = c.below(4) - 1, high = c.below(4) - 1;
            if (full + low + high < 0) low = high = 0;
            at.edge_padding_low.push_back(Dim(low));
            at.edge_padding_high.push_back(Dim(high));
            at.interior_padding.push_back(interior);
          } else {
            at.edge_padding_low.push_back(Dim(c.below(3)));
            at.edge_padding_high.push_back(Dim(c.below(3)));
            at.interior_padding.push_back(0);
          }
        }
        keep(apply(OpKind::pad, at, {a, scalar(differentiable() ? 0.0 : 0.5, d)}));
        break;
      }
      case Step::concatenate: {
        if (rank == 0) return;
        std::int64_t axis = c.below(rank);
        std::vector<Value> parts = {a};
        for (const Value& v : pool) {
          if (v.dtype() != d || v.ndim() != rank || parts.size() >= 3) continue;
          bool fits = true;
          for (std::int64_t i = 0; i < rank; ++i)
            if (i != axis && !(v.shape()[static_cast<std::size_t>(i)] == sh[static_cast<std::size_t>(i)])) fits = false;
          if (fits && !(v == a) && c.chance(50)) parts.push_back(v);
        }
        if (parts.size() == 1) parts.push_back(d == DType::bool_ ? a : bounded(a));
        keep(apply(OpKind::concatenate, ConcatenateAttrs{axis}, parts));
        break;
      }
      case Step::dynamic_slice:
      case Step::dynamic_update_slice: {
        BasicDynamicSliceAttrs<Dim> at;
        std::vector<std::int64_t> starts;
        for (const Dim& e : sh) {
          auto v = e.try_value();
          at.slice_sizes.push_back(v ? Dim(c.below(*v + 1)) : e);
          starts.push_back(c.below(6) - 1);  // clamped into range by the op
        }
        DType index = c.chance(50) ? DType::i64 : DType::i32;
        Value st = graph::constant(tensor_from_ints({rank}, index, starts));
        Value piece = apply(OpKind::dynamic_slice, at, {s == Step::dynamic_slice ? a : partner(a), st});
        if (s == Step::dynamic_slice) {
          keep(piece);
        } else {
          std::vector<std::int64_t> starts2;
          for (std::int64_t i = 0; i < rank; ++i) starts2.push_back(c.below(6) - 1);
          Value st2 = graph::constant(tensor_from_ints({rank}, index, starts2));
          keep(apply(OpKind::dynamic_update_slice, NoAttrs{}, {a, piece, st2}));
        }
        break;
      }
      case Step::dot: {
        Value b = a;
        std::vector<Value> same;
        for (const Value& v : pool)
          if (v.dtype() == d) same.push_back(v);
        if (c.chance(70)) b = same[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(same.size())))];
        DotGeneralAttrs at;
        std::vector<bool> used_a(static_cast<std::size_t>(rank)), used_b(static_cast<std::size_t>(b.ndim()));
        DimVec order_a = permutation(rank);
        for (std::int64_t i : order_a)
          for (std::int64_t j = 0; j < b.ndim(); ++j) {
            if (used_a[static_cast<std::size_t>(i)] || used_b[static_cast<std::size_t>(j)]) continue;
            if (!(sh[static_cast<std::size_t>(i)] == b.shape()[static_cast<std::size_t>(j)])) continue;
            std::int64_t r = c.below(100);
            if (r < 25) {
              at.lhs_batching_dimensions.push_back(i);
              at.rhs_batching_dimensions.push_back(j);
            } else if (r < 65) {
              at.lhs_contracting_dimensions.push_back(i);
              at.rhs_contracting_dimensions.push_back(j);
            } else {
              continue;
            }
            used_a[static_cast<std::size_t>(i)] = used_b[static_cast<std::size_t>(j)] = true;
          }
        std::int64_t nb = static_cast<std::int64_t>(at.lhs_batching_dimensions.size());
        std::int64_t nc = static_cast<std::int64_t>(at.lhs_contracting_dimensions.size());
        if (nb + (rank - nb - nc) + (b.ndim() - nb - nc) > 5) return;
        keep(apply(OpKind::dot_general, at, {a, b}));
        break;
      }
      case Step::convert: {
        if (d == DType::bool_) {
          keep(apply(OpKind::convert, ConvertAttrs{p.dtype}, {a}));
        } else if (is_integer(d)) {  // through f64 (exact for these magnitudes) or the other width
          DType via = c.chance(50) ? DType::f64 : (d == DType::i32 ? DType::i64 : DType::i32);
          Value v = apply(OpKind::convert, ConvertAttrs{via}, {a});
          keep(c.chance(50) ? v : apply(OpKind::convert, ConvertAttrs{d}, {v}));
        } else {
          static const DType fl[] = {DType::f32, DType::f64, DType::c64, DType::c128};
          DType to = fl[c.below(4)];
          if (is_complex(d) && !is_complex(to)) to = complex_dtype(to);  // complex -> real drops the imaginary part: keep it complex
          Value v = apply(OpKind::convert, ConvertAttrs{to}, {a});
          keep(c.chance(50) ? v : apply(OpKind::convert, ConvertAttrs{d}, {v}));
        }
        break;
      }
      case Step::select: {
        // A comparison of computed floats is decided by their rounding: only
        // exactly known values (inputs, integers) may give a mask or test
        // equality; otherwise select(a < b, a, b) and the like, which are
        // continuous where the comparison flips.
        Value b = partner(a);
        bool exact = integer() || (is_input(a) && is_input(b));
        static const ComparisonDirection dirs[] = {ComparisonDirection::LT, ComparisonDirection::LE,
                                                   ComparisonDirection::GT, ComparisonDirection::GE,
                                                   ComparisonDirection::EQ, ComparisonDirection::NE};
        Value m = apply(OpKind::compare, CompareAttrs{dirs[c.below(exact ? 6 : 4)]}, {a, b});
        keep(exact && c.chance(30) ? m : apply(OpKind::select, NoAttrs{}, {m, a, b}));
        break;
      }
      case Step::clamp:
        keep(apply(OpKind::clamp, NoAttrs{}, {filled_like(a, -0.5), a, filled_like(a, is_integer(d) ? 2.0 : 0.5)}));
        break;
      case Step::complex_parts: {
        if (is_complex(d)) {
          keep(apply(c.chance(40) ? OpKind::real : c.chance(50) ? OpKind::imag : OpKind::abs, NoAttrs{}, {a}));
        } else {
          keep(apply(OpKind::complex, NoAttrs{}, {a, partner(a)}));
        }
        break;
      }
      case Step::rounding: {  // exact on the (exactly known) input values only
        static const OpKind k[] = {OpKind::floor, OpKind::ceil, OpKind::round_nearest_even, OpKind::trunc,
                                   OpKind::fmod, OpKind::remainder, OpKind::frexp_exponent};
        OpKind op = k[c.below(7)];
        Value scaled = apply(OpKind::multiply, NoAttrs{}, {a, filled_like(a, 4.0)});  // exact: a power of two
        if (op == OpKind::fmod || op == OpKind::remainder)
          keep(apply(op, NoAttrs{}, {scaled, filled_like(a, c.chance(50) ? 0.75 : -1.5)}));
        else
          keep(apply(op, NoAttrs{}, {scaled}));
        break;
      }
      case Step::special: {
        // Each on a domain where it is well conditioned (a chain of log_ndtr
        // of its own output grows doubly exponentially: found by the fuzzer):
        // t = tanh(a) in (-1, 1) maps onto it (q = 1.5 + t keeps lgamma and the polygammas
        // off their poles, p = 0.5 + 0.45 t keeps ndtri off 0 and 1).
        std::vector<OpKind> k = {OpKind::erf, OpKind::ndtr, OpKind::erfc, OpKind::log, OpKind::expm1,
                                 OpKind::erfinv, OpKind::erfcx, OpKind::lgamma, OpKind::digamma,
                                 OpKind::polygamma, OpKind::ndtri, OpKind::log_ndtr, OpKind::ldexp};
        if (!differentiable()) k.insert(k.end(), {OpKind::i0e, OpKind::i1e, OpKind::i0, OpKind::i1, OpKind::is_finite});
        OpKind op = k[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(k.size())))];
        auto t = [&] { return apply(OpKind::tanh, NoAttrs{}, {a}); };
        auto affine = [&](double shift, double scale) {
          return apply(OpKind::add, NoAttrs{}, {filled_like(a, shift), apply(OpKind::multiply, NoAttrs{}, {t(), filled_like(a, scale)})});
        };
        switch (op) {
          case OpKind::log: keep(apply(op, NoAttrs{}, {affine(1.5, 1.0)})); break;
          case OpKind::expm1: keep(apply(op, NoAttrs{}, {t()})); break;
          case OpKind::erfinv: keep(apply(op, NoAttrs{}, {affine(0.0, 0.9)})); break;
          case OpKind::lgamma:
          case OpKind::digamma: keep(apply(op, NoAttrs{}, {affine(1.5, 1.0)})); break;
          case OpKind::polygamma: keep(apply(op, PolygammaAttrs{1 + c.below(2)}, {affine(1.5, 1.0)})); break;
          case OpKind::ndtri: keep(apply(op, NoAttrs{}, {affine(0.5, 0.45)})); break;
          case OpKind::i0:
          case OpKind::i1:
          case OpKind::erfcx:
          case OpKind::log_ndtr: keep(apply(op, NoAttrs{}, {affine(0.0, 3.0)})); break;
          case OpKind::ldexp: keep(apply(op, NoAttrs{}, {a, filled_like(a, static_cast<double>(c.below(7) - 3))})); break;
          default: keep(apply(op, NoAttrs{}, {a})); break;  // erf, ndtr, erfc, i0e, i1e, is_finite: bounded
        }
        break;
      }
      case Step::gather: {
        std::int64_t k = constant_axis(a), e = *sh[static_cast<std::size_t>(k)].try_value();
        std::int64_t count = 1 + c.below(3);
        bool collapse = e > 0 && c.chance(60);  // take single elements along k, or windows
        BasicGatherAttrs<Dim> at;
        at.index_vector_dim = 1;
        at.start_index_map = {k};
        if (collapse) at.collapsed_slice_dims = {k};
        for (std::int64_t i = 0; i < rank; ++i)
          at.slice_sizes.push_back(i == k ? Dim(collapse ? 1 : c.below(e + 1)) : sh[static_cast<std::size_t>(i)]);
        std::int64_t out_rank = 1 + (collapse ? rank - 1 : rank), batch_at = c.below(out_rank);
        if (out_rank > 5) return;
        for (std::int64_t i = 0; i < out_rank; ++i)
          if (i != batch_at) at.offset_dims.push_back(i);
        keep(apply(OpKind::gather, at, {a, index_column(count, e, false)}));
        break;
      }
      case Step::scatter: {
        std::int64_t k = constant_axis(a), e = *sh[static_cast<std::size_t>(k)].try_value();
        if (e == 0) return;
        std::int64_t count = 1 + c.below(3);
        // replace: distinct positions, so the result does not depend on the
        // order updates are applied in; add: repeats accumulate.
        bool replace = !differentiable() && c.chance(30);
        // The updates: rows of a partner along k (one gather), placed at
        // positions of which -1 and e fall outside and are skipped.
        BasicGatherAttrs<Dim> g;
        g.index_vector_dim = 1;
        g.start_index_map = {k};
        g.collapsed_slice_dims = {k};
        for (std::int64_t i = 0; i < rank; ++i) g.slice_sizes.push_back(i == k ? Dim(1) : sh[static_cast<std::size_t>(i)]);
        std::int64_t batch_at = c.below(rank);
        for (std::int64_t i = 0; i < rank; ++i)
          if (i != batch_at) g.offset_dims.push_back(i);
        Value upd = apply(OpKind::gather, g, {partner(a), index_column(count, e, false)});
        ScatterAttrs at;
        at.update_window_dims = g.offset_dims;
        at.inserted_window_dims = {k};
        at.scatter_dims_to_operand_dims = {k};
        at.index_vector_dim = 1;
        at.mode = replace ? ScatterMode::replace : ScatterMode::add;
        keep(apply(OpKind::scatter, at, {a, index_column(count, e, replace), upd}));
        break;
      }
      case Step::einsum: {
        // Labels: an axis reuses a label of an equal extent now and then (a
        // diagonal within an operand, a contraction or batch axis across).
        std::vector<Dim> extent_of;
        auto label_for = [&](const Dim& e) {
          std::vector<std::int64_t> same;
          for (std::size_t l = 0; l < extent_of.size(); ++l)
            if (extent_of[l] == e) same.push_back(static_cast<std::int64_t>(l));
          if (!same.empty() && c.chance(40)) return same[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(same.size())))];
          extent_of.push_back(e);
          return static_cast<std::int64_t>(extent_of.size()) - 1;
        };
        std::vector<std::vector<std::int64_t>> labels(1);
        std::vector<TracedTensor> operands = {TracedTensor(a)};
        for (const Dim& e : sh) labels[0].push_back(label_for(e));
        if (c.chance(60)) {
          std::vector<Value> same;
          for (const Value& v : pool)
            if (v.dtype() == d) same.push_back(v);
          Value b = same[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(same.size())))];
          labels.emplace_back();
          for (const Dim& e : b.shape()) labels[1].push_back(label_for(e));
          operands.emplace_back(b);
        }
        std::vector<std::int64_t> out;
        for (std::int64_t l = 0; l < static_cast<std::int64_t>(extent_of.size()); ++l)
          if (c.chance(50)) out.push_back(l);
        for (std::int64_t i = static_cast<std::int64_t>(out.size()) - 1; i > 0; --i)
          std::swap(out[static_cast<std::size_t>(i)], out[static_cast<std::size_t>(c.below(i + 1))]);
        if (out.size() > 4) out.resize(4);
        // An operand of constant extent 0 makes the einsum a constant of
        // zeros that reads no operand: the program would keep its inputs
        // only through TracedTensor::declared_inputs, which a Value drops.
        for (const TracedTensor& o : operands)
          for (const Dim& e : o.shape())
            if (e == Dim(0)) return;
        keep(einsum(labels, out, operands).graph_value());
        break;
      }
      case Step::fft: {
        std::int64_t k = constant_axis(a), e = *sh[static_cast<std::size_t>(k)].try_value();
        if (e == 0) return;
        static const fft::Norm norms[] = {fft::Norm::backward, fft::Norm::ortho, fft::Norm::forward};
        fft::Options o;
        o.axis = k;
        o.norm = norms[c.below(3)];
        if (differentiable()) {  // real -> complex -> real: a product in the frequency domain
          Value z = fft::lower(a, fft::Transform::rfft, o);
          z = apply(OpKind::multiply, NoAttrs{}, {z, z});
          o.n = e;
          keep(fft::lower(z, fft::Transform::irfft, o));
        } else if (!is_complex(d)) {
          keep(fft::lower(a, c.chance(50) ? fft::Transform::rfft : fft::Transform::fft, o));
        } else {
          std::int64_t pick_t = c.below(3);
          if (pick_t == 2) o.n = std::max<std::int64_t>(1, 2 * e - 1 - c.below(2));
          keep(fft::lower(a, pick_t == 0 ? fft::Transform::fft : pick_t == 1 ? fft::Transform::ifft : fft::Transform::irfft, o));
        }
        break;
      }
      case Step::linalg: {
        std::int64_t k = constant_axis(a), e = *sh[static_cast<std::size_t>(k)].try_value();
        if (e == 0 || e > 4) return;
        Value m = spd(a, k, e);
        switch (c.below(4)) {
          case 0: keep(linalg::solve(m, gram(finite(partner(a)), finite(a), k))); break;
          case 1: keep(linalg::cholesky(m)); break;
          case 2: keep(linalg::inv(m)); break;
          default: keep(linalg::det(m)); break;
        }
        break;
      }
      case Step::truncated_svd: {
        // Note [Family ops in random programs]: the rank r is a fresh symbol
        // bound when the program runs; later steps may broadcast along it.
        std::int64_t k = constant_axis(a), e = *sh[static_cast<std::size_t>(k)].try_value();
        if (e == 0 || e > 4) return;
        // Plus a matrix of ones: a Gram matrix that is zero up to rounding
        // (of x^2 - x x, exactly zero in one compilation and not in another)
        // would have a rank that depends on the compilation; with the ones,
        // its rounding stays below rtol of the largest singular value.
        SymShape square = {Dim(e), Dim(e)};
        Value ones = apply(OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<Dim>{square, {}},
                           {scalar(1.0, d)});
        Value m = apply(OpKind::add, NoAttrs{}, {gram(finite(a), finite(partner(a)), k), ones});
        std::int64_t max_rank = 1 + c.below(e);
        auto svd = linalg::svd_truncated(m, {max_rank, 1e-3});
        keep(svd.s);
        if (max_rank == e) {  // U diag(s) V^H: m itself, up to the dropped values
          Value s = is_complex(d) ? apply(OpKind::convert, ConvertAttrs{d}, {svd.s}) : svd.s;
          Value us = apply(OpKind::multiply, NoAttrs{}, {svd.u, apply(OpKind::broadcast_in_dim,
                                                                     BasicBroadcastInDimAttrs<Dim>{svd.u.shape(), {1}}, {s})});
          DotGeneralAttrs at;
          at.lhs_contracting_dimensions = {1};
          at.rhs_contracting_dimensions = {0};
          keep(apply(OpKind::dot_general, at, {us, svd.vh}));
        }
        break;
      }
    }
  }

  // A random axis of constant extent (the caller knows one exists).
  std::int64_t constant_axis(const Value& a) {
    DimVec axes;
    for (std::int64_t i = 0; i < a.ndim(); ++i)
      if (a.shape()[static_cast<std::size_t>(i)].try_value()) axes.push_back(i);
    return axes[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(axes.size())))];
  }

  // Start indices [count, 1] along an axis of extent e: in [-1, e] (the
  // gather clamps them, the scatter skips those outside), or distinct ones.
  Value index_column(std::int64_t count, std::int64_t e, bool distinct) {
    std::vector<std::int64_t> starts;
    if (distinct) {
      std::vector<std::int64_t> all(static_cast<std::size_t>(e + 2));
      std::iota(all.begin(), all.end(), -1);
      for (std::int64_t i = static_cast<std::int64_t>(all.size()) - 1; i > 0; --i)
        std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(c.below(i + 1))]);
      count = std::min<std::int64_t>(count, static_cast<std::int64_t>(all.size()));
      starts.assign(all.begin(), all.begin() + count);
    } else {
      for (std::int64_t i = 0; i < count; ++i) starts.push_back(c.below(e + 2) - 1);
    }
    DType index = c.chance(50) ? DType::i64 : DType::i32;
    return graph::constant(tensor_from_ints({count, 1}, index, starts));
  }

  // [e, e]: sum over every axis but k of conj(x[.., i, ..]) y[.., j, ..].
  Value gram(const Value& x, const Value& y, std::int64_t k) {
    DotGeneralAttrs at;
    for (std::int64_t i = 0; i < x.ndim(); ++i)
      if (i != k) {
        at.lhs_contracting_dimensions.push_back(i);
        at.rhs_contracting_dimensions.push_back(i);
      }
    Value xc = is_complex(x.dtype()) ? apply(OpKind::conj, NoAttrs{}, {x}) : x;
    return apply(OpKind::dot_general, at, {xc, y});
  }

  // A Hermitian positive definite [e, e] matrix of condition number <= 2
  // built from a: G + (1 + trace G) I with G the Gram matrix of finite(a)
  // along k (eigenvalues of G lie in [0, trace G]).
  Value spd(const Value& a, std::int64_t k, std::int64_t e) {
    Value t = finite(a);
    Value g = gram(t, t, k);
    DimVec all_axes(static_cast<std::size_t>(t.ndim()));
    std::iota(all_axes.begin(), all_axes.end(), 0);
    Value sq = apply(OpKind::multiply, NoAttrs{}, {is_complex(t.dtype()) ? apply(OpKind::conj, NoAttrs{}, {t}) : t, t});
    Value trace = apply(OpKind::reduce_sum, AxesAttrs{all_axes}, {sq});
    Value shift = apply(OpKind::add, NoAttrs{}, {trace, scalar(1.0, a.dtype())});
    SymShape square = {Dim(e), Dim(e)};
    Value eye = graph::constant(Tensor::eye(e, e, a.dtype()));
    Value diag = apply(OpKind::multiply, NoAttrs{}, {eye, apply(OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<Dim>{square, {}}, {shift})});
    return apply(OpKind::add, NoAttrs{}, {g, diag});
  }
};

// ---- running and comparing -----------------------------------------------------------

Tensor random_input(const SymShape& shape, DType dtype, const DimBindings& env, Choices& c) {
  Tensor t = random_tensor(evaluate_shape(shape, env), dtype, c.seed());
  return with_random_layout(t, c.seed());
}

// The unoptimised program evaluated by the naive reference, one slot at a time.
// Note [Family ops in random programs]: a family instruction (FFT, solve,
// Cholesky, inverse, determinant, truncated SVD) has no naive form here; the
// reference runs it with the family's own CPU kernel (call_family) on the
// reference's operands: what is checked is everything around it (the passes,
// the runtime's slots and buffers, symbolic and data-dependent extents), the
// kernels themselves being tested against naive references in tests/linalg
// and tests/fft. A data-dependent extent (the rank of a truncated SVD) is a
// fresh symbol of the program, bound here from the kernel's result. The
// generator gives the kernels well-posed inputs: Hermitian positive definite
// matrices of condition number <= 2, and a truncated SVD keeps s_i >
// 1e-3 s_0, far from the rounding noise of a rank-deficient matrix.
std::vector<Tensor> reference_run(const Program& raw, const std::vector<Tensor>& inputs, DimBindings env,
                                  std::vector<Tensor>* all_slots) {
  static CpuBackend cpu;
  std::vector<Tensor> slot(static_cast<std::size_t>(raw.num_slots()));
  for (std::size_t i = 0; i < raw.inputs.size(); ++i) slot[static_cast<std::size_t>(raw.inputs[i].slot)] = inputs[i];
  for (const auto& [s, v] : raw.constants) slot[static_cast<std::size_t>(s)] = v;
  for (const Instruction& ins : raw.code) {
    std::vector<Tensor> in;
    for (int s : ins.inputs) in.push_back(slot[static_cast<std::size_t>(s)]);
    if (ins.kind == Instruction::Kind::family) {
      std::vector<Tensor> out = call_family(*ins.family, ins.family_attrs, in, cpu);
      for (std::size_t k = 0; k < ins.outputs.size(); ++k) {
        auto o = static_cast<std::size_t>(ins.outputs[k]);
        const SymShape& sym = raw.slot_meta[o].shape;
        for (std::size_t i = 0; i < sym.size() && i < out[k].shape().size(); ++i)
          if (sym[i].is_symbol() && !env.contains(sym[i].symbol())) env[sym[i].symbol()] = out[k].shape()[i];
        slot[o] = out[k];
      }
      continue;
    }
    if (ins.kind != Instruction::Kind::primitive)
      throw std::logic_error("reference_run: fused instruction " + ins.name());
    slot[static_cast<std::size_t>(ins.outputs[0])] = reference_eval(ins.op, evaluate_attrs(ins.attrs, env), in);
  }
  std::vector<Tensor> out;
  for (int s : raw.outputs) out.push_back(slot[static_cast<std::size_t>(s)]);
  if (all_slots) *all_slots = std::move(slot);
  return out;
}

// |got - ref| <= tol elementwise for floats (non-finite values equal), exact otherwise.
std::string compare_to_reference(const Tensor& got, const Tensor& ref, double tol) {
  std::ostringstream os;
  if (got.dtype() != ref.dtype() || got.shape() != ref.shape()) {
    os << "dtype/shape " << dtype_name(got.dtype()) << got.shape() << " vs reference " << dtype_name(ref.dtype())
       << ref.shape();
    return os.str();
  }
  for (const DimVec& idx : all_indices(got.shape())) {
    bool bad;
    if (is_float(got.dtype())) {
      std::complex<double> g = value_at(got, idx), r = value_at(ref, idx);
      auto fin = [](std::complex<double> z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); };
      if (!fin(r) || !fin(g)) {
        auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
        bad = !(same(g.real(), r.real()) && same(g.imag(), r.imag()));
      } else {
        bad = std::abs(g - r) > tol;
      }
      if (bad) os << "at " << idx << ": " << g << " vs reference " << r << " (tolerance " << tol << ")";
    } else {
      bad = int_value_at(got, idx) != int_value_at(ref, idx);
      if (bad) os << "at " << idx << ": " << int_value_at(got, idx) << " vs reference " << int_value_at(ref, idx);
    }
    if (bad) return os.str();
  }
  return "";
}

// The error the kernels may accumulate against the per-op-rounded reference:
// a few ulps of the coarsest float dtype in the program, per instruction and
// per summed term, relative to the largest finite magnitude of any slot;
// doubled by every power instruction and every product of a value with
// itself (x^2, Step::power, x * x: condition number 2, so a chain of k
// squarings turns one rounding into 2^k of them; a fused c128 chain of 14
// differed from the reference by more than the unamplified bound, and so did
// the square z z of a quotient of determinants).
double program_tolerance(const Program& raw, const std::vector<Tensor>& slots) {
  double eps = 0, magnitude = 0, terms = 1, amplification = 1;
  for (const Instruction& ins : raw.code) {
    if (ins.kind != Instruction::Kind::primitive) continue;
    const bool square = (ins.op == OpKind::multiply || ins.op == OpKind::dot_general) &&
                        ins.inputs.size() == 2 && ins.inputs[0] == ins.inputs[1];
    if (ins.op == OpKind::power || square) amplification *= 2;
  }
  for (const Tensor& t : slots) {
    if (!t.defined() || !is_float(t.dtype())) continue;
    eps = std::max(eps, dtype_eps(t.dtype()));
    terms = std::max(terms, static_cast<double>(t.numel()));
    for (const DimVec& idx : all_indices(t.shape())) {
      double m = std::abs(value_at(t, idx));
      if (std::isfinite(m)) magnitude = std::max(magnitude, m);
    }
  }
  return 16 * eps * static_cast<double>(raw.code.size() + 1) * terms * amplification * (magnitude + 1);
}

std::string bindings_text(const DimBindings& env) {
  std::ostringstream os;
  for (const auto& [k, v] : env) os << k << "=" << v << " ";
  return os.str();
}

DimBindings random_bindings(const std::vector<std::string>& symbols, Choices& c) {
  static const std::int64_t sizes[] = {0, 1, 2, 3, 5};
  DimBindings env;
  for (const auto& s : symbols) env[s] = sizes[c.below(5)];
  return env;
}

// One program compiled three ways, and the unoptimised one for the reference.
// Note [Transpose folding and summation order]: every pass but transpose
// folding is bit-for-bit (tenferro/runtime/compiler.hpp); a folded transpose
// lets dot_general read the operand in its own layout, and the GEMM mapping
// then may sum the contracting terms in another order, so `all` is held to
// the reference's tolerance and `exact` (every other pass) to `none` bit for bit.
struct Compiled {
  Program raw, all, exact, none;
};

const CompileOptions kNoPass{false, false, false, false, false, false, false, false, false};

Compiled compile_all_ways(const std::vector<Value>& outputs, const std::function<void(Program&)>& tamper) {
  CompileOptions exact;
  exact.transpose_folding = false;
  exact.broadcast_dot_folding = false;
  Compiled c{GraphCompiler::lower(traced(outputs)), GraphCompiler().compile(traced(outputs)),
             GraphCompiler(exact).compile(traced(outputs)), GraphCompiler(kNoPass).compile(traced(outputs))};
  if (tamper) {
    tamper(c.none);
    c.none.renew_identity();
  }
  return c;
}

// Runs the three compiled programs and the reference on the same inputs;
// "" or a failure message. `outputs` receives the result of `all`.
std::string run_and_compare(const Compiled& prog, const Runtime& runtime, const std::vector<std::string>& names,
                            const std::vector<Tensor>& inputs, const DimBindings& env, std::vector<Tensor>* outputs,
                            CheckStats* stats) {
  std::vector<std::pair<std::string, Tensor>> named;
  for (std::size_t i = 0; i < names.size(); ++i) named.emplace_back(names[i], inputs[i]);
  std::vector<Tensor> res[3];
  const Program* progs[3] = {&prog.all, &prog.exact, &prog.none};
  const char* what[3] = {"all passes", "all passes but transpose folding", "no pass"};
  for (int k = 0; k < 3; ++k) {
    try {
      res[k] = runtime.run_compiled(*progs[k], RunInputs(named));
    } catch (const Error& e) {
      return std::string(what[k]) + ": " + e.what();
    }
  }
  if (stats) stats->runs += 3;
  for (int k = 1; k < 3; ++k)
    if (res[k].size() != res[0].size()) return "output counts differ between pass settings";
  for (std::size_t i = 0; i < res[1].size(); ++i) {
    auto eq = tensors_equal(res[1][i], res[2][i]);
    if (!eq) return "output " + std::to_string(i) + " differs between " + what[1] + " and " + what[2] + ": " + eq.message();
  }
  std::vector<Tensor> slots;
  std::vector<Tensor> ref = reference_run(prog.raw, inputs, env, &slots);
  double tol = program_tolerance(prog.raw, slots);
  for (int k : {0, 2})
    for (std::size_t i = 0; i < res[k].size(); ++i) {
      std::string diff = compare_to_reference(res[k][i], ref[i], tol);
      if (!diff.empty()) return std::string(what[k]) + ": output " + std::to_string(i) + " " + diff;
    }
  if (outputs) *outputs = std::move(res[0]);
  return "";
}


void count_instructions(const Program& raw, CheckStats& stats) {
  stats.instructions += static_cast<long>(raw.code.size());
  bool dynamic = false;
  for (const Instruction& ins : raw.code) {
    if (ins.kind == Instruction::Kind::family) ++stats.family_instructions;
    if (ins.kind == Instruction::Kind::primitive && (ins.op == OpKind::gather || ins.op == OpKind::scatter))
      ++stats.gather_scatter;
    for (int o : ins.outputs)
      for (const Dim& e : raw.slot_meta[static_cast<std::size_t>(o)].shape)
        dynamic = dynamic || (e.is_symbol() && e.symbol().find('#') != std::string::npos);
  }
  if (dynamic) ++stats.data_dependent;
}

std::vector<std::string> input_names(const Program& raw) {
  std::vector<std::string> names;
  for (const auto& in : raw.inputs) names.push_back(in.name);
  return names;
}

std::string failure(const std::string& what, const RandomProgram& p, const DimBindings& env) {
  return what + "\n  bindings: " + bindings_text(env) + "\n  program:\n" + p.describe();
}

// sum_i Re <a_i, b_i> over matching tensors (real f64 here).
double inner(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double* scale) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (const DimVec& idx : all_indices(a[i].shape())) {
      double x = value_at(a[i], idx).real(), y = value_at(b[i], idx).real();
      s += x * y;
      if (scale) *scale += std::abs(x * y);
    }
  return s;
}

std::string graph_input_name(const Value& v) { return v.node->name; }

Tensor axpy(const Tensor& x, double h, const Tensor& t) {
  std::vector<std::complex<double>> v;
  for (const DimVec& idx : all_indices(x.shape())) v.push_back(value_at(x, idx) + h * value_at(t, idx));
  return tensor_from_values(x.shape(), x.dtype(), v);
}

}  // namespace

RandomProgram generate_program(Choices& c, ProgramKind kind, int max_ops) {
  RandomProgram p;
  p.kind = kind;
  switch (kind) {
    case ProgramKind::floating: {
      static const DType d[] = {DType::f32, DType::f64, DType::c64, DType::c128};
      p.dtype = d[c.below(4)];
      break;
    }
    case ProgramKind::integer: p.dtype = c.chance(50) ? DType::i32 : DType::i64; break;
    case ProgramKind::differentiable: p.dtype = DType::f64; break;
  }
  static const char* kSymbols[] = {"n", "m"};
  std::int64_t num_symbols = c.below(3);
  for (std::int64_t i = 0; i < num_symbols; ++i) p.symbols.push_back(kSymbols[i]);
  Generator g{c, p, {}};
  std::int64_t num_inputs = 1 + c.below(3);
  std::vector<std::string> used;
  for (std::int64_t i = 0; i < num_inputs; ++i) {
    SymShape shape;
    std::int64_t rank = c.below(4);
    for (std::int64_t k = 0; k < rank; ++k) shape.push_back(g.new_extent(p.symbols));
    // Inputs that share a shape make binary ops and contractions common.
    if (i > 0 && c.chance(40)) shape = p.inputs[0].shape();
    for (const Dim& e : shape)
      for (const auto& s : e.symbols())
        if (std::find(used.begin(), used.end(), s) == used.end()) used.push_back(s);
    p.inputs.push_back(graph::input("x" + std::to_string(i), p.dtype, shape));
    g.pool.push_back(p.inputs.back());
  }
  p.symbols = used;  // only symbols some input binds (the others would be unbound extents)
  std::int64_t steps = 1 + c.below(max_ops);
  for (std::int64_t i = 0; i < steps; ++i) g.step();
  p.outputs.push_back(g.pool.back());
  if (c.chance(40)) p.outputs.push_back(g.pool[static_cast<std::size_t>(c.below(static_cast<std::int64_t>(g.pool.size())))]);
  if (kind == ProgramKind::differentiable)  // outputs of the program's own dtype (bool/integer values have no tangent)
    std::erase_if(p.outputs, [&](const Value& v) { return v.dtype() != p.dtype; });
  if (p.outputs.empty()) p.outputs.push_back(p.inputs[0]);
  return p;
}

std::string check_program(const RandomProgram& p, const Runtime& runtime, Choices& c, CheckStats* stats,
                          const std::function<void(Program&)>& tamper) {
  Compiled prog = compile_all_ways(p.outputs, tamper);
  const Program& raw = prog.raw;
  if (stats) {
    ++stats->programs;
    count_instructions(raw, *stats);
  }
  std::vector<std::string> names = input_names(raw);
  // Twice, with new extents: one compiled program serves every binding.
  for (int run = 0; run < 2; ++run) {
    DimBindings env = random_bindings(p.symbols, c);
    std::vector<Tensor> inputs;
    for (const auto& in : raw.inputs) inputs.push_back(random_input(in.meta.shape, in.meta.dtype, env, c));
    std::string f = run_and_compare(prog, runtime, names, inputs, env, nullptr, stats);
    if (!f.empty()) return failure(f, p, env);
  }
  return "";
}

std::string check_derivatives(const RandomProgram& p, const Runtime& runtime, Choices& c, CheckStats* stats) {
  // Only the inputs the outputs depend on: a gradient with respect to another
  // would have extents that no input of the program binds.
  Program primal = GraphCompiler().compile(traced(p.outputs));
  std::vector<Value> wrt, tangents, cotangents;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    std::string name = "x" + std::to_string(i);
    bool used = std::any_of(primal.inputs.begin(), primal.inputs.end(), [&](const ProgramInput& in) { return in.name == name; });
    if (!used) continue;
    wrt.push_back(p.inputs[i]);
    tangents.push_back(graph::input("t" + std::to_string(i), p.dtype, p.inputs[i].shape()));
  }
  // Cotangents: a program input cannot have an extent like n + 3, so each is
  // a function of its output, tanh(2.5 y + 0.5) (well conditioned for any y),
  // returned for the dot test.
  for (const Value& y : p.outputs) {
    auto fill = [&](double v) {
      return graph::apply(OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<Dim>{y.shape(), {}},
                          {graph::constant(Tensor::full({}, Scalar(v), y.dtype()))});
    };
    Value z = graph::apply(OpKind::add, NoAttrs{}, {graph::apply(OpKind::multiply, NoAttrs{}, {y, fill(2.5)}), fill(0.5)});
    cotangents.push_back(graph::apply(OpKind::tanh, NoAttrs{}, {z}));
  }
  std::vector<Value> jt = ad::jvp(p.outputs, wrt, tangents);
  std::vector<Value> g = ad::vjp(p.outputs, cotangents, wrt);

  // The derivative program: primal outputs, J t, J^T u.
  std::vector<Value> outs = p.outputs;
  outs.insert(outs.end(), jt.begin(), jt.end());
  outs.insert(outs.end(), g.begin(), g.end());
  outs.insert(outs.end(), cotangents.begin(), cotangents.end());
  Compiled prog = compile_all_ways(outs, {});
  const Program& raw = prog.raw;
  if (stats) {
    ++stats->derivative_checks;
    count_instructions(raw, *stats);
  }
  std::vector<std::string> names = input_names(raw);
  RandomProgram whole = p;
  whole.outputs = outs;

  DimBindings env = random_bindings(p.symbols, c);
  std::vector<Tensor> inputs;
  for (const auto& in : raw.inputs) inputs.push_back(random_input(in.meta.shape, in.meta.dtype, env, c));
  std::vector<Tensor> got;
  std::string f = run_and_compare(prog, runtime, names, inputs, env, &got, stats);
  if (!f.empty()) return failure("derivative program: " + f, whole, env);

  // Split inputs and results by role.
  std::size_t nx = wrt.size(), ny = p.outputs.size();
  std::vector<Tensor> y(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(ny));
  std::vector<Tensor> jv(got.begin() + static_cast<std::ptrdiff_t>(ny), got.begin() + static_cast<std::ptrdiff_t>(2 * ny));
  std::vector<Tensor> gv(got.begin() + static_cast<std::ptrdiff_t>(2 * ny),
                         got.begin() + static_cast<std::ptrdiff_t>(2 * ny + wrt.size()));
  std::vector<Tensor> us(got.begin() + static_cast<std::ptrdiff_t>(2 * ny + wrt.size()), got.end());
  if (gv.size() != nx) return failure("vjp returned " + std::to_string(gv.size()) + " cotangents", whole, env);

  // Inputs by name, so that x, t and g line up (the program orders inputs by first use).
  auto by_name = [&](char role, std::size_t i) -> Tensor {
    std::string want = role + std::to_string(i);
    for (std::size_t k = 0; k < names.size(); ++k)
      if (names[k] == want) return inputs[k];
    return Tensor();
  };
  double scale = 0;
  std::vector<Tensor> gs, ts;
  for (std::size_t i = 0; i < nx; ++i) {
    // A tangent the JVP does not read (its input's derivative is structurally zero) is not an input.
    std::string tname = graph_input_name(tangents[i]);
    Tensor ti = by_name('t', static_cast<std::size_t>(std::stoi(tname.substr(1))));
    if (!ti.defined()) ti = Tensor::zeros(gv[i].shape(), gv[i].dtype());
    ts.push_back(ti);
    gs.push_back(gv[i]);
  }
  double lhs = inner(us, jv, &scale), rhs = inner(gs, ts, &scale);
  // A NaN or infinite derivative of a program whose values are all finite
  // is a failure (the comparisons below are false for NaN).
  auto finite_all = [](const std::vector<Tensor>& ts_) {
    for (const Tensor& t : ts_)
      for (const DimVec& idx : all_indices(t.shape())) {
        std::complex<double> v = value_at(t, idx);
        if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) return false;
      }
    return true;
  };
  if (finite_all(y) && !(std::isfinite(lhs) && std::isfinite(rhs))) {
    std::ostringstream os;
    os << "non-finite derivative of a finite program: <u, J t> = " << lhs << ", <J^T u, t> = " << rhs;
    return failure(os.str(), whole, env);
  }
  if (std::abs(lhs - rhs) > 1e-10 * (scale + 1)) {
    std::ostringstream os;
    os << "dot-product test: <u, J t> = " << lhs << " but <J^T u, t> = " << rhs;
    return failure(os.str(), whole, env);
  }

  // Central differences of the primal along t.
  const double h = 1e-6;
  std::vector<std::pair<std::string, Tensor>> plus, minus;
  for (const auto& in : primal.inputs) {
    std::size_t i = static_cast<std::size_t>(std::stoi(in.name.substr(1)));
    Tensor xi = by_name('x', i), ti = by_name('t', i);
    if (!ti.defined()) ti = Tensor::zeros(xi.shape(), xi.dtype());
    plus.emplace_back(in.name, axpy(xi, h, ti));
    minus.emplace_back(in.name, axpy(xi, -h, ti));
  }
  std::vector<Tensor> yp = runtime.run_compiled(primal, RunInputs(plus));
  std::vector<Tensor> ym = runtime.run_compiled(primal, RunInputs(minus));
  if (stats) stats->runs += 2;
  for (std::size_t k = 0; k < ny; ++k) {
    double big = 1;
    for (const DimVec& idx : all_indices(y[k].shape()))
      big = std::max({big, std::abs(value_at(y[k], idx)), std::abs(value_at(jv[k], idx))});
    for (const DimVec& idx : all_indices(y[k].shape())) {
      std::complex<double> fd = (value_at(yp[k], idx) - value_at(ym[k], idx)) / (2 * h);
      std::complex<double> an = value_at(jv[k], idx);
      if (std::abs(fd - an) > 1e-6 * big || (std::isfinite(std::abs(fd)) && !std::isfinite(std::abs(an)))) {
        std::ostringstream os;
        os << "finite differences: output " << k << " at " << idx << ": J t = " << an << ", central difference "
           << fd;
        return failure(os.str(), whole, env);
      }
    }
  }
  return "";
}

}  // namespace tenferro::testing

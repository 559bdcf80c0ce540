// The op database (see op_db.hpp).
#include "support/op_db.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <ostream>
#include <random>

#include "support/test_support.hpp"

namespace tenferro::testing {

std::ostream& operator<<(std::ostream& os, const OpSample& s) {
  os << op_name(s.kind) << "(" << s.attrs << ")";
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    const Tensor& t = s.inputs[i];
    os << (i ? ", " : " on ") << t.dtype() << t.shape() << " strides " << t.strides() << " offset "
       << t.offset();
  }
  return os << " [" << s.note << "]";
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

using C = std::complex<double>;

// Makes the operands of the samples; every tensor gets its own seed, and
// every operand a random memory layout.
class Gen {
 public:
  explicit Gen(std::uint64_t seed) : seed_(seed) {}

  std::uint64_t next() { return seed_ = seed_ * 6364136223846793005ULL + 1442695040888963407ULL; }

  Tensor layout(const Tensor& t) { return with_random_layout(t, next()); }

  /// random_tensor values (floats in [-1, 1), integers in [-5, 5], fair bools).
  Tensor random(const Shape& s, DType d) { return layout(random_tensor(s, d, next())); }

  /// Floats uniform in [lo, hi) (complex: both parts); integers uniform in
  /// [ceil(lo), floor(hi)]; bools fair.
  Tensor uniform(const Shape& s, DType d, double lo, double hi) {
    if (is_float(d)) return layout(Tensor::uniform(s, d, next(), lo, hi));
    if (d == DType::bool_) return random(s, d);
    return layout(
        ints(s, d, static_cast<std::int64_t>(std::ceil(lo)), static_cast<std::int64_t>(std::floor(hi))));
  }

  /// Integers uniform in [lo, hi] (column-major, no layout change).
  Tensor ints(const Shape& s, DType d, std::int64_t lo, std::int64_t hi) {
    Tensor u = Tensor::uniform(s, DType::f64, next(), 0.0, 1.0);
    std::vector<std::int64_t> v;
    for (double x : u.to_vec_col_major<double>())
      v.push_back(lo + std::min<std::int64_t>(static_cast<std::int64_t>(x * double(hi - lo + 1)), hi - lo));
    return tensor_from_ints(s, d, v);
  }

  /// Values drawn from {-2, -1, 0, 1, 2} (and halves for floats): equal
  /// elements are frequent, which comparisons need.
  Tensor few_values(const Shape& s, DType d) {
    Tensor u = ints(s, DType::i64, -4, 4);
    std::vector<C> v;
    for (std::int64_t x : u.to_vec_col_major<std::int64_t>())
      v.push_back(is_float(d) ? C(double(x) / 2, is_complex(d) ? double(x % 2) : 0.0) : C(double(x / 2), 0));
    return layout(tensor_from_values(s, d, v));
  }

 private:
  std::uint64_t seed_;
};

// Shapes every elementwise and reduction op is tried on: rank 0, a zero
// extent, single elements, vectors, matrices, extent-1 axes, rank 4.
const std::vector<Shape>& sample_shapes() {
  static const std::vector<Shape> s{{}, {0}, {1}, {5}, {3, 4}, {2, 0, 3}, {1, 3, 1}, {2, 3, 1, 2}};
  return s;
}

std::vector<DType> op_dtypes(OpKind kind) { return dtypes_in(op_info(kind).dtypes); }

bool is_real_float(DType d) { return d == DType::f32 || d == DType::f64; }

// Operand `i` of an elementwise op in the op's domain (positive arguments
// for real log/sqrt/rsqrt, bases > 0 for real power, small non-negative
// integer exponents: negative ones get their own edge sample).
Tensor domain_operand(OpKind kind, int i, const Shape& s, DType d, Gen& g) {
  if (is_real_float(d)) {
    switch (kind) {
      case OpKind::log:
      case OpKind::sqrt:
      case OpKind::rsqrt:
        return g.uniform(s, d, 0.1, 4.0);
      case OpKind::log1p:
        return g.uniform(s, d, -0.9, 2.0);
      case OpKind::power:
        return i == 0 ? g.uniform(s, d, 0.1, 3.0) : g.uniform(s, d, -2.0, 2.0);
      case OpKind::exp:
      case OpKind::tanh:
      case OpKind::sin:
      case OpKind::cos:
      case OpKind::expm1:
        return g.uniform(s, d, -3.0, 3.0);
      case OpKind::floor:
      case OpKind::ceil:
      case OpKind::trunc:
      case OpKind::round_nearest_even:
      case OpKind::frexp_exponent:
        return g.uniform(s, d, -6.0, 6.0);
      case OpKind::fmod:
      case OpKind::remainder:
        return i == 0 ? g.uniform(s, d, -10.0, 10.0) : g.uniform(s, d, 0.5, 3.0);
      case OpKind::ldexp:
        return i == 0 ? g.uniform(s, d, -3.0, 3.0) : g.uniform(s, d, -8.0, 8.0);
      case OpKind::erfinv:
        return g.uniform(s, d, -0.999, 0.999);
      case OpKind::ndtri:
        return g.uniform(s, d, 0.001, 0.999);
      case OpKind::erfcx:
      case OpKind::ndtr:
      case OpKind::log_ndtr:
      case OpKind::i0:
      case OpKind::i0e:
      case OpKind::i1:
      case OpKind::i1e:
        return g.uniform(s, d, -12.0, 12.0);
      case OpKind::lgamma:
      case OpKind::digamma:
        return g.uniform(s, d, -4.0, 8.0);
      case OpKind::polygamma:
        return g.uniform(s, d, 0.2, 6.0);
      default:
        return g.random(s, d);
    }
  }
  if (is_integer(d) && kind == OpKind::power) return i == 0 ? g.uniform(s, d, -4, 4) : g.uniform(s, d, 0, 6);
  return g.random(s, d);
}

// ---- elementwise -----------------------------------------------------------

const std::vector<double>& real_edge_values() {
  static const std::vector<double> v{0.0,   1.0,    -1.0, 4.0,   0.25,  kInf,   -kInf, kNaN,
                                     1e-10, -1e-10, 20.0, -20.0, 700.0, -700.0, -2.0,  0.5};
  return v;
}

Tensor real_vector(DType d, const std::vector<double>& v, Gen& g) {
  std::vector<C> c(v.begin(), v.end());
  return g.layout(tensor_from_values({static_cast<std::int64_t>(v.size())}, d, c));
}

Tensor complex_vector(DType d, const std::vector<C>& v, Gen& g) {
  return g.layout(tensor_from_values({static_cast<std::int64_t>(v.size())}, d, v));
}

Tensor int_vector(DType d, const std::vector<std::int64_t>& v, Gen& g) {
  return g.layout(tensor_from_ints({static_cast<std::int64_t>(v.size())}, d, v));
}

void unary_samples(OpKind kind, Gen& g, std::vector<OpSample>& out) {
  for (DType d : op_dtypes(kind))
    for (const Shape& s : sample_shapes())
      out.push_back({kind, NoAttrs{}, {domain_operand(kind, 0, s, d, g)}, "random"});
  for (DType d : op_dtypes(kind)) {
    if (is_real_float(d)) {
      std::vector<double> v = real_edge_values();
      if (kind == OpKind::sign) v.push_back(-0.0);
      out.push_back({kind, NoAttrs{}, {real_vector(d, v, g)}, "NaN/inf/extreme edge values"});
      if (kind == OpKind::floor || kind == OpKind::ceil || kind == OpKind::trunc ||
          kind == OpKind::round_nearest_even || kind == OpKind::frexp_exponent)
        out.push_back({kind,
                       NoAttrs{},
                       {real_vector(d,
                                    {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0, -0.4, 0.49999997, 8388609.0,
                                     4503599627370497.0, 1e30, -1e-30, 3.0, -7.0, 1e-310, 0.75, -1.0 / 3},
                                    g)},
                       "ties, signed zeros, integral and huge values"});
      if (kind == OpKind::erfinv || kind == OpKind::ndtri)
        out.push_back({kind,
                       NoAttrs{},
                       {real_vector(d, {0.5, -0.5, 1e-300, 1 - 1e-12, 0.999999, -0.999999, 1e-20, 0.75, 0.25, 0.9}, g)},
                       "tails of the inverse"});
      if (kind == OpKind::ndtr || kind == OpKind::log_ndtr || kind == OpKind::erfcx)
        out.push_back({kind, NoAttrs{}, {real_vector(d, {-40, -30, -25, -19, -5, 5, 9, 26, 30, 1e10, -1e10}, g)}, "tails"});
    } else if (is_integer(d) && kind != OpKind::conj) {
      out.push_back({kind,
                     NoAttrs{},
                     {int_vector(d, {kI64Min, kI64Max, 0, -1, 1, -7, 7}, g)},
                     "integer extremes (wrapping)"});
    } else if (is_complex(d) && (kind == OpKind::sign || kind == OpKind::abs || kind == OpKind::is_finite)) {
      out.push_back({kind,
                     NoAttrs{},
                     {complex_vector(d, {C(0, 0), C(3, 4), C(-1, 0), C(0, -2), C(kNaN, 0), C(0, kInf)}, g)},
                     "complex zeros and specials"});
    }
  }
}

// polygamma of orders 0 (digamma) to 4: random arguments in its domain, and
// the edge values (poles at 0 and the negative integers, tails).
void polygamma_samples(Gen& g, std::vector<OpSample>& out) {
  const OpKind kind = OpKind::polygamma;
  for (std::int64_t n : {0, 1, 2, 4})
    for (DType d : op_dtypes(kind)) {
      for (const Shape& s : sample_shapes())
        out.push_back({kind, PolygammaAttrs{n}, {domain_operand(kind, 0, s, d, g)}, "random"});
      out.push_back({kind, PolygammaAttrs{n}, {real_vector(d, real_edge_values(), g)}, "NaN/inf/extreme edge values"});
      out.push_back({kind, PolygammaAttrs{n}, {real_vector(d, {-0.5, -1.5, -2.25, 0.1, 13.0, 1e4}, g)}, "negative non-integers"});
    }
}

void binary_samples(OpKind kind, Gen& g, std::vector<OpSample>& out) {
  for (DType d : op_dtypes(kind))
    for (const Shape& s : sample_shapes())
      out.push_back(
          {kind, NoAttrs{}, {domain_operand(kind, 0, s, d, g), domain_operand(kind, 1, s, d, g)}, "random"});
  for (DType d : op_dtypes(kind)) {
    auto add = [&](Tensor a, Tensor b, const char* note) { out.push_back({kind, NoAttrs{}, {a, b}, note}); };
    if (is_real_float(d)) {
      switch (kind) {
        case OpKind::maximum:
        case OpKind::minimum:
          add(real_vector(d, {kNaN, 1, kNaN, kInf, -kInf, 0, 2, -3, kInf}, g),
              real_vector(d, {1, kNaN, kNaN, -kInf, kInf, 5, 2, -4, kNaN}, g), "NaN propagation");
          break;
        case OpKind::divide:
          add(real_vector(d, {1, -1, 0, kInf, 3}, g), real_vector(d, {0, 0, 0, kInf, -kInf}, g),
              "division by zero and infinity");
          break;
        case OpKind::power:
          add(real_vector(d, {0, -8, 2, 1, kNaN, -2, 4}, g),
              real_vector(d, {-1, 1.0 / 3, 1000, kNaN, 0, 3, 0.5}, g), "power corners");
          break;
        case OpKind::add:
        case OpKind::subtract:
        case OpKind::multiply:
          add(real_vector(d, {kInf, kInf, kNaN, 1e30, 0}, g), real_vector(d, {-kInf, 1, 1, 1e30, -kInf}, g),
              "infinities");
          break;
        case OpKind::fmod:
        case OpKind::remainder:
          add(real_vector(d, {5, -5, 5, -5, 0, -0.0, kInf, 1, kNaN, 3, 1e-30, -1e-30, 7.5, -1e30, 6}, g),
              real_vector(d, {3, 3, -3, -3, 2, 2, 2, kInf, 1, 0, 1, 1, -2.5, 7, -kInf}, g),
              "signs, zeros, infinities, NaN, tiny and huge quotients");
          break;
        case OpKind::ldexp:
          add(real_vector(d, {1, 1e30, 1e-30, 3, -2, 0, kInf, kNaN, 1, 1, 5, -0.0}, g),
              real_vector(d, {2000, 100, -160, 0.5, -1074, 5, 1, 1, -kInf, kInf, kNaN, 3}, g),
              "overflow, underflow, non-integral and infinite exponents");
          break;
        default:
          break;
      }
    } else if (is_integer(d)) {
      switch (kind) {
        case OpKind::add:
        case OpKind::subtract:
        case OpKind::multiply:
          add(int_vector(d, {kI64Max, kI64Min, kI64Max, kI64Min, 12345, 1 << 20, 2147483647}, g),
              int_vector(d, {1, -1, 2, -1, -12345, 1 << 20, 2147483647}, g), "integer overflow wraps");
          break;
        case OpKind::divide:
          add(int_vector(d, {7, -7, 7, -7, 0, kI64Min, kI64Min, 5, -5, -2147483648LL}, g),
              int_vector(d, {2, 2, -2, -2, 0, -1, 0, 0, 3, -1}, g), "x / 0 = -1, MIN / -1 = MIN, truncation");
          break;
        case OpKind::power:
          add(int_vector(d, {2, -2, 1, -1, -1, 0, 3, 2, 0, 3, -3, 7}, g),
              int_vector(d, {-1, -3, -5, -5, -4, -2, 0, 31, 0, 40, 3, 63}, g),
              "negative exponents, wrapping powers");
          break;
        case OpKind::maximum:
        case OpKind::minimum:
          add(int_vector(d, {kI64Min, kI64Max, 0}, g), int_vector(d, {kI64Max, kI64Min, 0}, g), "extremes");
          break;
        default:
          break;
      }
    }
  }
}

void compare_samples(Gen& g, std::vector<OpSample>& out) {
  const OpKind kind = OpKind::compare;
  const ComparisonDirection dirs[] = {ComparisonDirection::EQ, ComparisonDirection::NE,
                                      ComparisonDirection::LT, ComparisonDirection::LE,
                                      ComparisonDirection::GT, ComparisonDirection::GE};
  const std::vector<Shape> shapes{{}, {0}, {3, 4}, {2, 3, 1, 2}};
  for (DType d : op_dtypes(kind))
    for (ComparisonDirection dir : dirs) {
      if (is_complex(d) && dir != ComparisonDirection::EQ && dir != ComparisonDirection::NE) continue;
      for (const Shape& s : shapes)
        out.push_back(
            {kind, CompareAttrs{dir}, {g.few_values(s, d), g.few_values(s, d)}, "few distinct values"});
      if (is_real_float(d))
        out.push_back({kind,
                       CompareAttrs{dir},
                       {real_vector(d, {kNaN, 1, kNaN, kInf, -kInf, 0, 2, -kInf}, g),
                        real_vector(d, {1, kNaN, kNaN, kInf, kInf, -0.0, 2, 3}, g)},
                       "NaN and infinities"});
      if (is_complex(d))
        out.push_back({kind,
                       CompareAttrs{dir},
                       {complex_vector(d, {C(kNaN, 0), C(1, 2), C(1, 2), C(0, kInf)}, g),
                        complex_vector(d, {C(kNaN, 0), C(1, 2), C(1, -2), C(0, kInf)}, g)},
                       "complex NaN and infinities"});
      if (is_integer(d))
        out.push_back({kind,
                       CompareAttrs{dir},
                       {int_vector(d, {kI64Min, kI64Max, -1}, g), int_vector(d, {kI64Max, kI64Max, 1}, g)},
                       "integer extremes"});
    }
}

void convert_samples(Gen& g, std::vector<OpSample>& out) {
  const OpKind kind = OpKind::convert;
  const std::vector<Shape> shapes{{}, {0}, {3, 4}, {2, 3, 1, 2}};
  for (DType from : op_dtypes(kind))
    for (DType to : op_dtypes(kind)) {
      for (const Shape& s : shapes)
        out.push_back({kind, ConvertAttrs{to}, {g.uniform(s, from, -40.0, 40.0)}, "random in [-40, 40)"});
      Tensor edge;
      if (is_real_float(from))
        edge = real_vector(from,
                           {kNaN, kInf, -kInf, 3e9, -3e9, 1e20, -1e20, 2.7, -2.7, 0.5, -0.5, 0.0,
                            2147483647.0, -2147483648.0, 1e300},
                           g);
      else if (is_complex(from))
        edge = complex_vector(
            from, {C(kNaN, 1), C(1.5, -2), C(0, 1), C(0, 0), C(-3.9, 7), C(3e9, 0), C(kInf, kInf)}, g);
      else if (is_integer(from))
        edge = int_vector(
            from, {kI64Min, kI64Max, 2147483648LL, -2147483649LL, 123456789012LL, 16777217, -1, 0}, g);
      else
        edge = int_vector(from, {0, 1, 1, 0}, g);
      out.push_back({kind, ConvertAttrs{to}, {edge}, "saturation, NaN, real part, wrapping"});
    }
}

void select_samples(Gen& g, std::vector<OpSample>& out) {
  const OpKind kind = OpKind::select;
  for (DType d : op_dtypes(kind))
    for (const Shape& s : sample_shapes()) {
      out.push_back({kind,
                     NoAttrs{},
                     {g.random(s, DType::bool_), g.random(s, d), g.random(s, d)},
                     "elementwise predicate"});
      if (!s.empty())
        out.push_back({kind,
                       NoAttrs{},
                       {g.random({}, DType::bool_), g.random(s, d), g.random(s, d)},
                       "rank-0 predicate"});
    }
}

void clamp_samples(Gen& g, std::vector<OpSample>& out) {
  const OpKind kind = OpKind::clamp;
  for (DType d : op_dtypes(kind)) {
    for (const Shape& s : sample_shapes()) {
      Tensor x = g.uniform(s, d, -5.0, 5.0);
      out.push_back({kind,
                     NoAttrs{},
                     {g.uniform(s, d, -3.0, 0.0), x, g.uniform(s, d, 0.0, 3.0)},
                     "elementwise bounds"});
      out.push_back(
          {kind, NoAttrs{}, {g.uniform({}, d, -3.0, 0.0), x, g.uniform({}, d, 0.0, 3.0)}, "rank-0 bounds"});
      out.push_back(
          {kind, NoAttrs{}, {g.uniform({}, d, -3.0, 0.0), x, g.uniform(s, d, 0.0, 3.0)}, "mixed bounds"});
    }
    if (is_real_float(d))
      out.push_back(
          {kind,
           NoAttrs{},
           {real_vector(d, {0, 0, 0, kNaN, 1, 0}, g), real_vector(d, {kNaN, 5, -5, 0.5, 0.5, kInf}, g),
            real_vector(d, {1, 1, 1, 1, 0, 2}, g)},
           "NaN and min > max"});
    else
      out.push_back({kind,
                     NoAttrs{},
                     {int_vector(d, {0, 3, kI64Min}, g), int_vector(d, {5, 1, kI64Max}, g),
                      int_vector(d, {1, 2, 0}, g)},
                     "min > max, extremes"});
  }
}

// ---- reductions -----------------------------------------------------------------

std::vector<DimVec> reduction_dims(std::int64_t rank) {
  std::vector<DimVec> out{{}};
  if (rank == 0) return out;
  DimVec all(static_cast<std::size_t>(rank));
  std::iota(all.begin(), all.end(), 0);
  out.push_back({0});
  if (rank >= 2) {
    out.push_back({rank - 1});
    out.push_back({rank - 1, 0});  // unsorted
  }
  if (rank >= 3) out.push_back({0, 2});
  if (rank >= 2) out.push_back(all);
  return out;
}

void reduction_samples(OpKind kind, Gen& g, std::vector<OpSample>& out) {
  for (DType d : op_dtypes(kind))
    for (const Shape& s : sample_shapes())
      for (const DimVec& dims : reduction_dims(static_cast<std::int64_t>(s.size()))) {
        Tensor x = kind == OpKind::reduce_prod && is_float(d) ? g.uniform(s, d, 0.5, 1.5) : g.random(s, d);
        out.push_back({kind, AxesAttrs{dims}, {x}, "random"});
      }
  for (DType d : op_dtypes(kind)) {
    if (is_real_float(d)) {
      // Column 0 holds a NaN, column 1 infinities, column 2 is plain.
      Tensor x = g.layout(
          tensor_from_values({3, 3}, d, {C(1), C(kNaN), C(2), C(kInf), C(-kInf), C(3), C(-1), C(0), C(4)}));
      out.push_back({kind, AxesAttrs{{0}}, {x}, "NaN and infinities"});
      out.push_back({kind, AxesAttrs{{1}}, {x}, "NaN and infinities"});
    }
    if (is_integer(d))
      out.push_back({kind, AxesAttrs{{0}}, {int_vector(d, {kI64Max, kI64Max, 5, kI64Min}, g)}, "wrapping"});
    out.push_back({kind, AxesAttrs{{1}}, {g.random({3, 0, 2}, d)}, "empty reduced axis gives the identity"});
  }
}

// ---- dot_general -------------------------------------------------------------------

enum class Role { batch, contract, lhs_free, rhs_free };

// One dot_general with nb batch, nc contracting and nl / nr free axes placed
// at shuffled positions of each operand.
OpSample dot_general_roles(DType d, int nb, int nc, int nl, int nr, Gen& g, std::mt19937_64& rng) {
  const std::int64_t batch_ext[] = {2, 1}, contract_ext[] = {3, 2}, lfree_ext[] = {2, 3},
                     rfree_ext[] = {4, 1};
  struct Axis {
    Role role;
    int j;
  };
  std::vector<Axis> la, ra;
  for (int j = 0; j < nb; ++j) la.push_back({Role::batch, j}), ra.push_back({Role::batch, j});
  for (int j = 0; j < nc; ++j) la.push_back({Role::contract, j}), ra.push_back({Role::contract, j});
  for (int j = 0; j < nl; ++j) la.push_back({Role::lhs_free, j});
  for (int j = 0; j < nr; ++j) ra.push_back({Role::rhs_free, j});
  std::shuffle(la.begin(), la.end(), rng);
  std::shuffle(ra.begin(), ra.end(), rng);
  DotGeneralAttrs a;
  a.lhs_batching_dimensions.resize(static_cast<std::size_t>(nb));
  a.rhs_batching_dimensions.resize(static_cast<std::size_t>(nb));
  a.lhs_contracting_dimensions.resize(static_cast<std::size_t>(nc));
  a.rhs_contracting_dimensions.resize(static_cast<std::size_t>(nc));
  auto extent = [&](const Axis& x) {
    switch (x.role) {
      case Role::batch:
        return batch_ext[x.j];
      case Role::contract:
        return contract_ext[x.j];
      case Role::lhs_free:
        return lfree_ext[x.j];
      default:
        return rfree_ext[x.j];
    }
  };
  Shape ls, rs;
  for (std::size_t p = 0; p < la.size(); ++p) {
    ls.push_back(extent(la[p]));
    if (la[p].role == Role::batch)
      a.lhs_batching_dimensions[static_cast<std::size_t>(la[p].j)] = std::int64_t(p);
    if (la[p].role == Role::contract)
      a.lhs_contracting_dimensions[static_cast<std::size_t>(la[p].j)] = std::int64_t(p);
  }
  for (std::size_t p = 0; p < ra.size(); ++p) {
    rs.push_back(extent(ra[p]));
    if (ra[p].role == Role::batch)
      a.rhs_batching_dimensions[static_cast<std::size_t>(ra[p].j)] = std::int64_t(p);
    if (ra[p].role == Role::contract)
      a.rhs_contracting_dimensions[static_cast<std::size_t>(ra[p].j)] = std::int64_t(p);
  }
  return {OpKind::dot_general,
          a,
          {g.random(ls, d), g.random(rs, d)},
          "roles at shuffled positions (batch " + std::to_string(nb) + ", contracting " + std::to_string(nc) +
              ", free " + std::to_string(nl) + "/" + std::to_string(nr) + ")"};
}

DotGeneralAttrs mm(DimVec lc, DimVec rc, DimVec lb = {}, DimVec rb = {}) {
  return DotGeneralAttrs{.lhs_batching_dimensions = lb,
                         .rhs_batching_dimensions = rb,
                         .lhs_contracting_dimensions = lc,
                         .rhs_contracting_dimensions = rc};
}

// Row-major (reversed strides) copy of random values.
Tensor row_major(const Shape& s, DType d, Gen& g) {
  return with_random_layout(random_tensor(s, d, g.next()), 0, /*kind=*/1);
}
Tensor col_major(const Shape& s, DType d, Gen& g) { return random_tensor(s, d, g.next()); }

void dot_general_layouts(DType d, Gen& g, std::vector<OpSample>& out) {
  const std::int64_t m = 20, n = 18, k = 16;  // m n k = 5760: above the small-GEMM threshold
  auto add = [&](DotGeneralAttrs a, Tensor l, Tensor r, std::string note) {
    out.push_back({OpKind::dot_general, a, {l, r}, std::move(note)});
  };
  add(mm({1}, {0}), col_major({m, k}, d, g), col_major({k, n}, d, g), "NN, column-major");
  add(mm({1}, {0}), row_major({m, k}, d, g), col_major({k, n}, d, g), "row-major lhs (transpose flag)");
  add(mm({1}, {0}), col_major({m, k}, d, g), row_major({k, n}, d, g), "row-major rhs (transpose flag)");
  add(mm({1}, {0}), row_major({m, k}, d, g), row_major({k, n}, d, g), "both row-major");
  add(mm({0}, {0}), col_major({k, m}, d, g), col_major({k, n}, d, g), "lhs contracted on axis 0");
  add(mm({1}, {1}), col_major({m, k}, d, g), col_major({n, k}, d, g), "rhs contracted on axis 1");
  add(mm({1}, {0}), col_major({4, k, 5}, d, g), col_major({k, n}, d, g),
      "lhs free axes split by the contracting axis (copy)");
  add(mm({0}, {1}), col_major({k, n}, d, g), col_major({3, k, 6}, d, g),
      "rhs free axes split by the contracting axis (copy)");
  add(mm({1, 2}, {1, 0}), col_major({m, 4, 4}, d, g), col_major({4, 4, n}, d, g),
      "two contracting pairs in opposite orders");
  add(mm({1}, {0}), with_random_layout(random_tensor({m, k}, d, g.next()), 0, 3),
      with_random_layout(random_tensor({k, n}, d, g.next()), 0, 3), "strided operands (copy)");
  add(mm({1}, {0}), with_random_layout(random_tensor({m, k}, d, g.next()), 0, 4), col_major({k, n}, d, g),
      "negative strides (copy)");
  add(mm({1}, {0}, {2}, {2}), col_major({m, k, 3}, d, g), col_major({k, n, 3}, d, g), "trailing batch axis");
  add(mm({2}, {0}, {0}, {1}), col_major({3, m, k}, d, g), col_major({k, 3, n}, d, g),
      "batch axes at the front and in the middle");
  add(mm({1}, {0}, {2}, {2}), col_major({m, k, 1}, d, g).broadcast_to({m, k, 4}), col_major({k, n, 4}, d, g),
      "stride-0 batch axis (broadcast lhs)");
  add(mm({1}, {0}, {2, 3}, {2, 3}), col_major({m, k, 2, 1}, d, g).broadcast_to({m, k, 2, 3}),
      col_major({k, n, 1, 1}, d, g).broadcast_to({k, n, 2, 3}), "stride-0 batch axes on both sides");
  add(mm({1}, {0}), col_major({1, k}, d, g).broadcast_to({m, k}), col_major({k, n}, d, g),
      "stride-0 free axis");
  add(mm({1}, {0}), col_major({m, 0}, d, g), col_major({0, n}, d, g), "k = 0 gives zeros");
  add(mm({1}, {0}, {2}, {2}), col_major({m, 0, 2}, d, g), col_major({0, n, 2}, d, g), "batched k = 0");
  add(mm({1}, {0}), col_major({1, 5000}, d, g), col_major({5000, 3}, d, g), "m = 1 on BLAS");
  add(mm({1}, {0}), row_major({30, 200}, d, g), col_major({200, 1}, d, g), "n = 1 on BLAS");
  add(mm({0}, {0}), col_major({5000}, d, g), col_major({5000}, d, g), "vector dot on BLAS");
  add(mm({1}, {0}), col_major({16, 16}, d, g), row_major({16, 16}, d, g), "m n k = 4096: small loop");
  add(mm({1}, {0}), col_major({16, 17}, d, g), row_major({17, 16}, d, g), "m n k = 4352: BLAS");
  add(mm({1}, {0}), col_major({2, 3}, d, g), col_major({3, 2}, d, g), "tiny, small loop");
  add(mm({0}, {0}), col_major({16, 16}, d, g), col_major({16, 16}, d, g),
      "lhs contracted on axis 0, m n k = 4096: small loop, 4 x 4 blocks of dot products");
  add(mm({1}, {0}), row_major({7, 9}, d, g), col_major({9, 6}, d, g),
      "row-major lhs 7 x 9, n = 6: small loop, dot products with partial blocks");
}

void dot_general_samples(Gen& g, std::vector<OpSample>& out) {
  std::mt19937_64 rng(1234);
  for (DType d : op_dtypes(OpKind::dot_general))
    for (int nb = 0; nb <= 2; ++nb)
      for (int nc = 0; nc <= 2; ++nc)
        for (int nl = 0; nl <= 2; ++nl)
          for (int nr = 0; nr <= 2; ++nr) out.push_back(dot_general_roles(d, nb, nc, nl, nr, g, rng));
  // Every placement of one batch, one contracting and one free axis per operand.
  for (DType d : op_dtypes(OpKind::dot_general)) {
    DimVec lpos{0, 1, 2};  // positions of (batch, contracting, free) in lhs
    do {
      DimVec rpos{0, 1, 2};
      do {
        const std::int64_t lext[] = {2, 3, 4}, rext[] = {2, 3, 5};  // batch, contracting, free
        Shape ls(3), rs(3);
        for (std::size_t role = 0; role < 3; ++role) {
          ls[static_cast<std::size_t>(lpos[role])] = lext[role];
          rs[static_cast<std::size_t>(rpos[role])] = rext[role];
        }
        out.push_back({OpKind::dot_general,
                       mm({lpos[1]}, {rpos[1]}, {lpos[0]}, {rpos[0]}),
                       {g.random(ls, d), g.random(rs, d)},
                       "every axis placement"});
      } while (std::next_permutation(rpos.begin(), rpos.end()));
    } while (std::next_permutation(lpos.begin(), lpos.end()));
  }
  for (DType d : op_dtypes(OpKind::dot_general))
    for (const Shape& s : {Shape{0, 3}, Shape{3, 0}})
      out.push_back(
          {OpKind::dot_general, mm({1}, {0}), {g.random(s, d), g.random({s[1], 4}, d)}, "empty free axis"});
  for (const OpSample& s : dot_general_layout_samples()) out.push_back(s);
}

// ---- structural ------------------------------------------------------------------

void transpose_samples(Gen& g, std::vector<OpSample>& out) {
  const std::vector<std::pair<Shape, DimVec>> cases{{{}, {}},
                                                    {{5}, {0}},
                                                    {{3, 4}, {1, 0}},
                                                    {{3, 4}, {0, 1}},
                                                    {{2, 0, 3}, {2, 0, 1}},
                                                    {{1, 3, 1}, {0, 2, 1}},
                                                    {{2, 3, 1, 2}, {3, 1, 0, 2}},
                                                    {{2, 1, 3, 2, 2}, {4, 2, 0, 3, 1}}};
  for (DType d : op_dtypes(OpKind::transpose))
    for (const auto& [s, p] : cases)
      out.push_back({OpKind::transpose, PermutationAttrs{p}, {g.random(s, d)}, "random"});
}

void reshape_samples(Gen& g, std::vector<OpSample>& out) {
  const std::vector<std::pair<Shape, Shape>> cases{{{}, {1}},
                                                   {{1}, {}},
                                                   {{3, 4}, {12}},
                                                   {{3, 4}, {2, 6}},
                                                   {{3, 4}, {4, 3}},
                                                   {{12}, {2, 2, 3}},
                                                   {{2, 3, 1, 2}, {6, 2}},
                                                   {{2, 3, 1, 2}, {1, 12, 1}},
                                                   {{2, 0, 3}, {0, 6}},
                                                   {{2, 0, 3}, {3, 2, 0}}};
  for (DType d : op_dtypes(OpKind::reshape))
    for (const auto& [from, to] : cases) {
      out.push_back({OpKind::reshape, ReshapeAttrs{to}, {g.random(from, d)}, "random layout"});
      out.push_back({OpKind::reshape, ReshapeAttrs{to}, {row_major(from, d, g)}, "row-major (not viewable)"});
    }
}

void broadcast_samples(Gen& g, std::vector<OpSample>& out) {
  struct Case {
    Shape from, to;
    DimVec dims;
  };
  const std::vector<Case> cases{{{3}, {2, 3}, {1}},
                                {{3, 1}, {3, 4}, {0, 1}},
                                {{}, {2, 3}, {}},
                                {{3, 2}, {2, 5, 3}, {2, 0}},
                                {{1}, {0}, {0}},
                                {{0}, {4, 0}, {1}},
                                {{2, 1, 3}, {2, 4, 3, 2}, {0, 1, 2}},
                                {{1, 1}, {1, 1}, {1, 0}},
                                {{3, 4}, {3, 4}, {0, 1}},
                                {{}, {}, {}}};
  for (DType d : op_dtypes(OpKind::broadcast_in_dim))
    for (const Case& c : cases)
      out.push_back(
          {OpKind::broadcast_in_dim, BroadcastInDimAttrs{c.to, c.dims}, {g.random(c.from, d)}, "random"});
}

void slice_samples(Gen& g, std::vector<OpSample>& out) {
  struct Case {
    Shape s;
    DimVec start, limit, strides;
  };
  const std::vector<Case> cases{{{5}, {1}, {5}, {2}},
                                {{3, 4}, {0, 1}, {3, 4}, {2, 2}},
                                {{3, 4}, {1, 1}, {1, 4}, {1, 1}},
                                {{3, 4}, {0, 0}, {3, 4}, {1, 1}},
                                {{2, 3, 1, 2}, {0, 1, 0, 0}, {2, 3, 1, 2}, {1, 2, 1, 3}},
                                {{}, {}, {}, {}},
                                {{2, 0, 3}, {1, 0, 0}, {2, 0, 3}, {1, 1, 2}},
                                {{7}, {2}, {7}, {10}}};
  for (DType d : op_dtypes(OpKind::slice))
    for (const Case& c : cases)
      out.push_back({OpKind::slice, SliceAttrs{c.start, c.limit, c.strides}, {g.random(c.s, d)}, "random"});
}

Tensor starts_tensor(const std::vector<std::int64_t>& v, bool i64, Gen& g) {
  return g.layout(tensor_from_ints({static_cast<std::int64_t>(v.size())}, i64 ? DType::i64 : DType::i32, v));
}

void dynamic_slice_samples(Gen& g, std::vector<OpSample>& out) {
  struct Case {
    Shape s, sizes;
    std::vector<std::int64_t> starts;
  };
  const std::vector<Case> cases{{{5}, {2}, {-3}},
                                {{5}, {2}, {4}},
                                {{3, 4}, {2, 2}, {1, 1}},
                                {{3, 4}, {3, 0}, {7, -1}},
                                {{}, {}, {}},
                                {{2, 3, 1, 2}, {1, 2, 1, 2}, {1, 5, 0, -2}},
                                {{4}, {4}, {2}},
                                {{2, 0, 3}, {1, 0, 2}, {5, 5, 5}}};
  bool i64 = false;
  for (DType d : op_dtypes(OpKind::dynamic_slice))
    for (const Case& c : cases) {
      out.push_back({OpKind::dynamic_slice,
                     DynamicSliceAttrs{c.sizes},
                     {g.random(c.s, d), starts_tensor(c.starts, i64, g)},
                     "starts clamped into range"});
      i64 = !i64;
    }
}

void dynamic_update_slice_samples(Gen& g, std::vector<OpSample>& out) {
  struct Case {
    Shape s, u;
    std::vector<std::int64_t> starts;
  };
  const std::vector<Case> cases{{{5}, {2}, {-3}},
                                {{5}, {2}, {4}},
                                {{3, 4}, {2, 2}, {1, 1}},
                                {{3, 4}, {3, 0}, {7, -1}},
                                {{}, {}, {}},
                                {{2, 3, 1, 2}, {1, 2, 1, 2}, {1, 5, 0, -2}},
                                {{4}, {4}, {2}},
                                {{3, 4}, {1, 4}, {2, 0}}};
  bool i64 = true;
  for (DType d : op_dtypes(OpKind::dynamic_update_slice))
    for (const Case& c : cases) {
      out.push_back({OpKind::dynamic_update_slice,
                     NoAttrs{},
                     {g.random(c.s, d), g.random(c.u, d), starts_tensor(c.starts, i64, g)},
                     "starts clamped into range"});
      i64 = !i64;
    }
}

void pad_samples(Gen& g, std::vector<OpSample>& out) {
  struct Case {
    Shape s;
    DimVec lo, hi, interior;
  };
  const std::vector<Case> cases{{{5}, {2}, {1}, {0}},
                                {{5}, {-1}, {-2}, {1}},
                                {{3, 4}, {1, -1}, {0, 2}, {1, 0}},
                                {{0}, {2}, {1}, {3}},
                                {{}, {}, {}, {}},
                                {{2, 3, 1, 2}, {0, 1, 1, -1}, {1, 0, 1, 0}, {0, 1, 0, 2}},
                                {{3}, {-3}, {0}, {0}},
                                {{4}, {-6}, {2}, {1}},
                                {{2, 0, 3}, {1, 1, 0}, {0, 2, -1}, {2, 1, 0}}};
  for (DType d : op_dtypes(OpKind::pad))
    for (const Case& c : cases)
      out.push_back({OpKind::pad,
                     PadAttrs{c.lo, c.hi, c.interior},
                     {g.random(c.s, d), g.random({}, d)},
                     "negative low/high crop, interior padding"});
}

void concatenate_samples(Gen& g, std::vector<OpSample>& out) {
  const std::vector<std::pair<std::vector<Shape>, std::int64_t>> cases{{{{3, 4}, {2, 4}}, 0},
                                                                       {{{3, 4}, {3, 0}, {3, 2}}, 1},
                                                                       {{{5}}, 0},
                                                                       {{{2, 3, 1, 2}, {2, 3, 2, 2}}, 2},
                                                                       {{{0, 3}, {0, 3}}, 0},
                                                                       {{{1}, {2}, {3}, {0}}, 0},
                                                                       {{{2, 0, 3}, {2, 0, 3}}, 2}};
  for (DType d : op_dtypes(OpKind::concatenate))
    for (const auto& [shapes, dim] : cases) {
      std::vector<Tensor> in;
      for (const Shape& s : shapes) in.push_back(g.random(s, d));
      out.push_back({OpKind::concatenate, ConcatenateAttrs{dim}, in, "random"});
    }
}

void reverse_samples(Gen& g, std::vector<OpSample>& out) {
  const std::vector<std::pair<Shape, DimVec>> cases{
      {{}, {}},         {{5}, {0}},   {{3, 4}, {1}},      {{3, 4}, {0, 1}}, {{2, 3, 1, 2}, {0, 3}},
      {{2, 0, 3}, {2}}, {{3, 4}, {}}, {{1, 3, 1}, {2, 0}}};
  for (DType d : op_dtypes(OpKind::reverse))
    for (const auto& [s, dims] : cases)
      out.push_back({OpKind::reverse, AxesAttrs{dims}, {g.random(s, d)}, "random"});
}

Tensor index_tensor(const Shape& s, const std::vector<std::int64_t>& v, bool i64, Gen& g) {
  return g.layout(tensor_from_ints(s, i64 ? DType::i64 : DType::i32, v));
}

void gather_samples(Gen& g, std::vector<OpSample>& out) {
  struct Case {
    Shape operand, indices;
    std::vector<std::int64_t> values;
    GatherAttrs attrs;
    const char* note;
  };
  const std::vector<Case> cases{
      {{5, 3},
       {4},
       {0, 4, 2, 7},
       {{1}, {0}, {0}, 1, {1, 3}},
       "rows (embedding lookup), one clamped"},
      {{40, 3},
       {12},
       {39, 0, 5, 5, 17, 45, -3, 2, 30, 11, 8, 1},
       {{1}, {0}, {0}, 1, {1, 3}},
       "12 rows, two clamped (Note [Gather along the unit axis])"},
      {{30, 3, 2},
       {9},
       {4, 29, 0, 7, 7, 13, 2, 21, 6},
       {{1, 2}, {0}, {0}, 1, {1, 3, 2}},
       "9 rows of a rank-3 operand (Note [Gather along the unit axis])"},
      {{3, 5}, {2}, {4, -1}, {{0}, {1}, {1}, 1, {3, 1}}, "columns, negative start clamped"},
      {{4, 5, 2},
       {2, 3},
       {0, 0, 3, 4, 1, 2},
       {{1}, {0, 1}, {0, 1}, 0, {1, 1, 2}},
       "index vectors along axis 0"},
      {{6, 4},
       {3, 1},
       {-2, 5, 2},
       {{0, 2}, {}, {1}, 1, {2, 2}},
       "uncollapsed windows, clamped starts"},
      {{4, 5},
       {3, 2},
       {0, 1, 3, 4, 2, 9},
       {{}, {0, 1}, {1, 0}, 1, {1, 1}},
       "start_index_map reversed"},
      {{5, 3}, {0}, {}, {{1}, {0}, {0}, 1, {1, 3}}, "no indices"},
      {{}, {2, 0}, {}, {{}, {}, {}, 1, {}}, "rank-0 operand"},
      {{5, 3},
       {2, 2},
       {4, 0, 1, 3},
       {{1}, {0}, {0}, 2, {1, 3}},
       "2-D batch around the offset axis"},
      {{4, 4, 2},
       {4, 2},
       {0, 1, 2, 3, 0, 1, 2, 3},
       {{1}, {0, 1}, {0, 1}, 1, {1, 1, 2}},
       "diagonal (trace pattern)"},
      {{3, 4}, {2, 1}, {1, 0}, {{0, 1}, {}, {1}, 1, {3, 2}}, "whole-axis windows"}};
  bool i64 = false;
  for (DType d : op_dtypes(OpKind::gather))
    for (const Case& c : cases) {
      out.push_back({OpKind::gather,
                     c.attrs,
                     {g.random(c.operand, d), index_tensor(c.indices, c.values, i64, g)},
                     c.note});
      i64 = !i64;
    }
}

void scatter_samples(Gen& g, std::vector<OpSample>& out) {
  struct Case {
    Shape operand, indices, updates;
    std::vector<std::int64_t> values;
    ScatterAttrs attrs;
    bool unique;  // no two updates hit one element (replace is then deterministic)
    const char* note;
  };
  const std::vector<Case> cases{
      {{5, 3}, {4}, {4, 3}, {1, 3, 1, 4}, {{1}, {0}, {0}, 1}, false, "rows with a duplicate index"},
      {{5, 3}, {4}, {4, 3}, {1, 3, 0, 4}, {{1}, {0}, {0}, 1}, true, "rows, unique"},
      {{6, 4},
       {3, 1},
       {3, 2, 4},
       {-1, 5, 2},
       {{1, 2}, {}, {0}, 1},
       true,
       "windows out of bounds are skipped"},
      {{4, 5}, {2, 3}, {3}, {0, 1, 3, 4, 0, 1}, {{}, {0, 1}, {0, 1}, 0}, false, "points, duplicate pair"},
      {{4, 5}, {2, 3}, {3}, {0, 1, 3, 4, 2, 2}, {{}, {0, 1}, {0, 1}, 0}, true, "points, unique"},
      {{5, 3}, {0}, {0, 3}, {}, {{1}, {0}, {0}, 1}, true, "no updates"},
      {{5, 3}, {2, 2}, {2, 3, 2}, {4, 0, 1, 3}, {{1}, {0}, {0}, 2}, true, "2-D batch around the window axis"},
      {{}, {1, 0}, {1}, {}, {{}, {}, {}, 1}, true, "rank-0 operand"},
      {{}, {3, 0}, {3}, {}, {{}, {}, {}, 1}, false, "rank-0 operand, three adds"}};
  for (DType d : op_dtypes(OpKind::scatter))
    for (const Case& c : cases)
      for (ScatterMode mode : {ScatterMode::add, ScatterMode::replace}) {
        if (mode == ScatterMode::add && !kNumericDTypes.contains(d)) continue;
        if (mode == ScatterMode::replace && !c.unique) continue;
        ScatterAttrs a = c.attrs;
        a.mode = mode;
        out.push_back(
            {OpKind::scatter,
             a,
             {g.random(c.operand, d), index_tensor(c.indices, c.values, mode == ScatterMode::add, g),
              g.random(c.updates, d)},
             c.note});
      }
}

}  // namespace

std::vector<OpSample> dot_general_layout_samples() {
  Gen g(77);
  std::vector<OpSample> out;
  for (DType d : {DType::f32, DType::f64, DType::c64, DType::c128}) dot_general_layouts(d, g, out);
  // Integers always take the strided loop; check it on the same layouts.
  std::vector<OpSample> ints;
  for (DType d : {DType::i32, DType::i64}) dot_general_layouts(d, g, ints);
  for (auto& s : ints) {
    s.note += " (integer)";
    out.push_back(std::move(s));
  }
  return out;
}

// A new row in ops.def must get samples here: no default case.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch-enum"

std::vector<OpSample> op_samples(OpKind kind) {
  Gen g(1000 + static_cast<std::uint64_t>(kind));
  std::vector<OpSample> out;
  switch (kind) {
    case OpKind::negate:
    case OpKind::conj:
    case OpKind::abs:
    case OpKind::sign:
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::expm1:
    case OpKind::log1p:
    case OpKind::real:
    case OpKind::imag:
    case OpKind::is_finite:
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::trunc:
    case OpKind::round_nearest_even:
    case OpKind::frexp_exponent:
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfinv:
    case OpKind::erfcx:
    case OpKind::lgamma:
    case OpKind::digamma:
    case OpKind::i0:
    case OpKind::i0e:
    case OpKind::i1:
    case OpKind::i1e:
    case OpKind::ndtr:
    case OpKind::ndtri:
    case OpKind::log_ndtr:
      unary_samples(kind, g, out);
      break;
    case OpKind::polygamma:
      polygamma_samples(g, out);
      break;
    case OpKind::add:
    case OpKind::subtract:
    case OpKind::multiply:
    case OpKind::divide:
    case OpKind::maximum:
    case OpKind::minimum:
    case OpKind::power:
    case OpKind::complex:
    case OpKind::fmod:
    case OpKind::remainder:
    case OpKind::ldexp:
      binary_samples(kind, g, out);
      break;
    case OpKind::compare:
      compare_samples(g, out);
      break;
    case OpKind::convert:
      convert_samples(g, out);
      break;
    case OpKind::select:
      select_samples(g, out);
      break;
    case OpKind::clamp:
      clamp_samples(g, out);
      break;
    case OpKind::reduce_sum:
    case OpKind::reduce_prod:
    case OpKind::reduce_max:
    case OpKind::reduce_min:
      reduction_samples(kind, g, out);
      break;
    case OpKind::dot_general:
      dot_general_samples(g, out);
      break;
    case OpKind::transpose:
      transpose_samples(g, out);
      break;
    case OpKind::reshape:
      reshape_samples(g, out);
      break;
    case OpKind::broadcast_in_dim:
      broadcast_samples(g, out);
      break;
    case OpKind::gather:
      gather_samples(g, out);
      break;
    case OpKind::scatter:
      scatter_samples(g, out);
      break;
    case OpKind::slice:
      slice_samples(g, out);
      break;
    case OpKind::dynamic_slice:
      dynamic_slice_samples(g, out);
      break;
    case OpKind::dynamic_update_slice:
      dynamic_update_slice_samples(g, out);
      break;
    case OpKind::pad:
      pad_samples(g, out);
      break;
    case OpKind::concatenate:
      concatenate_samples(g, out);
      break;
    case OpKind::reverse:
      reverse_samples(g, out);
      break;
  }
  return out;
}

#pragma GCC diagnostic pop

std::vector<OpSample> parallel_op_samples() {
  Gen g(4242);
  std::vector<OpSample> out;
  auto add = [&](OpKind k, Attrs a, std::vector<Tensor> in, const char* note) {
    out.push_back({k, a, in, note});
  };
  // Elementwise maps (above kParallelGrain = 32768 elements).
  add(OpKind::add, NoAttrs{}, {g.random({256, 160}, DType::f64), g.random({256, 160}, DType::f64)},
      "binary map");
  add(OpKind::multiply, NoAttrs{}, {g.random({64, 40, 16}, DType::i32), g.random({64, 40, 16}, DType::i32)},
      "integer binary map");
  add(OpKind::exp, NoAttrs{}, {g.random({200, 200}, DType::c64)}, "unary map");
  add(OpKind::convert, ConvertAttrs{DType::i32}, {g.uniform({200, 200}, DType::f64, -100, 100)},
      "converting map");
  add(OpKind::select, NoAttrs{},
      {g.random({300, 120}, DType::bool_), g.random({300, 120}, DType::f32),
       g.random({300, 120}, DType::f32)},
      "ternary map");
  // Reductions: split a kept axis, or the reduced axis into private partials.
  for (DType d : {DType::f64, DType::f32, DType::c128, DType::i64}) {
    Tensor x = g.random({400, 100}, d);
    add(OpKind::reduce_sum, AxesAttrs{{0}}, {x}, "reduce the fast axis, split the kept one");
    add(OpKind::reduce_sum, AxesAttrs{{1}}, {x}, "reduce the slow axis, split the kept one");
    add(OpKind::reduce_sum, AxesAttrs{{0, 1}}, {x}, "reduce everything: private partials");
  }
  add(OpKind::reduce_sum, AxesAttrs{{0}}, {g.random({70000}, DType::f64)}, "long vector: private partials");
  add(OpKind::reduce_sum, AxesAttrs{{1}}, {g.random({2, 40000}, DType::f32)}, "two long rows");
  add(OpKind::reduce_max, AxesAttrs{{0, 1}}, {g.random({300, 200}, DType::f32)}, "max of everything");
  add(OpKind::reduce_min, AxesAttrs{{1}}, {g.random({300, 200}, DType::i32)}, "integer min over rows");
  add(OpKind::reduce_prod, AxesAttrs{{0}}, {g.uniform({200, 200}, DType::f64, 0.95, 1.05)}, "products");
  add(OpKind::reduce_sum, AxesAttrs{{0, 2}}, {g.random({40, 30, 40}, DType::f64)},
      "non-adjacent reduced axes");
  // Parallel copies (above 256 KiB).
  add(OpKind::transpose, PermutationAttrs{{2, 0, 1}}, {g.random({64, 48, 16}, DType::f64)},
      "rank-3 permutation");
  add(OpKind::transpose, PermutationAttrs{{1, 0}}, {g.random({128, 256}, DType::c128)}, "matrix transpose");
  add(OpKind::broadcast_in_dim, BroadcastInDimAttrs{{300, 200}, {0}}, {g.random({300}, DType::f64)},
      "broadcast");
  add(OpKind::pad, PadAttrs{{2, -1}, {3, 4}, {1, 0}},
      {g.random({180, 180}, DType::f64), g.random({}, DType::f64)}, "pad");
  add(OpKind::reverse, AxesAttrs{{0, 1}}, {g.random({200, 200}, DType::f64)}, "reverse");
  add(OpKind::concatenate, ConcatenateAttrs{1},
      {g.random({200, 150}, DType::f64), g.random({200, 100}, DType::f64)}, "concatenate");
  // dot_general: batches split over threads, on the small loop and on BLAS.
  add(OpKind::dot_general, mm({1}, {0}, {2}, {2}),
      {g.random({16, 16, 10}, DType::i32), g.random({16, 16, 10}, DType::i32)}, "batched small loop");
  add(OpKind::dot_general, mm({1}, {0}, {2}, {2}),
      {g.random({20, 20, 8}, DType::f64), g.random({20, 20, 8}, DType::f64)}, "batched BLAS");
  add(OpKind::dot_general, mm({1}, {0}, {2}, {2}),
      {g.random({24, 24, 6}, DType::c64), row_major({24, 24, 6}, DType::c64, g)},
      "batched complex BLAS, row-major rhs");
  add(OpKind::dot_general, mm({1}, {0}), {g.random({96, 96}, DType::f64), g.random({96, 96}, DType::f64)},
      "one large GEMM (BLAS threads)");
  return out;
}

}  // namespace tenferro::testing

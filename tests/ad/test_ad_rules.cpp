// Every primitive's derivative rules against finite differences, the
// VJP/JVP consistency identity and second derivatives (HVP), in f64 and c128,
// over several shapes including batched ones.
#include <map>

#include "ad_check.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

Value P(OpKind k, SymAttrs a, std::vector<Value> in) { return graph::apply(k, std::move(a), std::move(in)); }

Tensor convert_to(const Tensor& t, DType d, CpuBackend& cpu) { return ops::convert(t, d, cpu); }

// Random tensor with entries away from zero (|x| in [0.5, 1.5), random sign or phase).
Tensor away_from_zero(const Shape& s, DType d, std::uint64_t seed) {
  CpuBackend cpu;
  Tensor r = random_tensor(s, d, seed);                  // [-1, 1)
  Tensor m = Tensor::uniform(s, real_dtype(d), seed + 1, 0.5, 1.5);
  Tensor mag = abs(r, cpu);
  Tensor unit = div(r, convert_to(mag, d, cpu), cpu);
  return mul(unit, convert_to(m, d, cpu), cpu);
}

// Positive (real) or right-half-plane (complex) values, for log/sqrt/power.
Tensor positive(const Shape& s, DType d, std::uint64_t seed) {
  CpuBackend cpu;
  Tensor r = random_tensor(s, d, seed);
  return add(r, Scalar(2.0), cpu);
}

std::vector<AdCase> cases_for(OpKind k) {
  std::vector<AdCase> out;
  auto unary = [&](std::vector<DType> dtypes, auto make_input) {
    for (DType d : dtypes)
      for (Shape s : {Shape{}, Shape{3}, Shape{2, 3, 2}})
        out.push_back({detail::str(op_name(k), " ", d, s), [k](const std::vector<Value>& x) { return P(k, NoAttrs{}, {x[0]}); },
                       {make_input(s, d, 11)}});
  };
  auto binary = [&](std::vector<DType> dtypes, auto ma, auto mb) {
    for (DType d : dtypes)
      for (Shape s : {Shape{}, Shape{4}, Shape{2, 2, 3}})
        out.push_back({detail::str(op_name(k), " ", d, s),
                       [k](const std::vector<Value>& x) { return P(k, NoAttrs{}, {x[0], x[1]}); },
                       {ma(s, d, 21), mb(s, d, 22)}});
  };
  const std::vector<DType> both{DType::f64, DType::c128}, real{DType::f64};
  auto rnd = [](const Shape& s, DType d, std::uint64_t seed) { return random_tensor(s, d, seed); };
  auto nz = [](const Shape& s, DType d, std::uint64_t seed) { return away_from_zero(s, d, seed); };
  auto pos = [](const Shape& s, DType d, std::uint64_t seed) { return positive(s, d, seed); };
  switch (k) {
    case OpKind::add:
    case OpKind::subtract:
    case OpKind::multiply:
      binary(both, rnd, rnd);
      break;
    case OpKind::divide:
      binary(both, rnd, nz);
      break;
    case OpKind::power:
      binary(both, pos, rnd);
      break;
    case OpKind::maximum:
    case OpKind::minimum:
      binary(real, rnd, [](const Shape& s, DType d, std::uint64_t seed) { return random_tensor(s, d, seed); });
      break;
    case OpKind::complex:
      binary(real, rnd, rnd);
      break;
    case OpKind::compare:
      for (DType d : real)
        out.push_back({"compare", [](const std::vector<Value>& x) {
                         return vops::convert(P(OpKind::compare, CompareAttrs{ComparisonDirection::LT}, {x[0], x[1]}), DType::f64);
                       },
                       {random_tensor({5}, d, 1), random_tensor({5}, d, 2)}});
      break;
    case OpKind::negate:
    case OpKind::conj:
    case OpKind::exp:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::tanh:
    case OpKind::expm1:
      unary(both, rnd);
      break;
    case OpKind::log:
    case OpKind::sqrt:
    case OpKind::rsqrt:
    case OpKind::log1p:
      unary(both, pos);
      break;
    case OpKind::abs:
      unary(both, nz);
      break;
    case OpKind::sign:
      unary(real, nz);
      break;
    case OpKind::real:
    case OpKind::imag:
      unary({DType::c128}, rnd);
      break;
    case OpKind::floor:
    case OpKind::ceil:
    case OpKind::trunc:
    case OpKind::round_nearest_even:
    case OpKind::frexp_exponent:
      // Piecewise constant: the derivative is zero away from the jumps
      // (random inputs in [-3, 3) sit far from integers, halves and powers of 2
      // compared with the finite-difference step).
      for (Shape s : {Shape{}, Shape{5}, Shape{2, 3}})
        out.push_back({detail::str(op_name(k), s), [k](const std::vector<Value>& x) {
                         return vops::convert(P(k, NoAttrs{}, {x[0]}), DType::f64);
                       },
                       {Tensor::uniform(s, DType::f64, 31 + s.size(), -3.0, 3.0)}});
      break;
    case OpKind::fmod:
    case OpKind::remainder:
      binary(real, [](const Shape& s, DType d, std::uint64_t seed) { return Tensor::uniform(s, d, seed, -5.0, 5.0); }, nz);
      break;
    case OpKind::ldexp:
      binary(real, rnd, [](const Shape& s, DType d, std::uint64_t seed) { return Tensor::uniform(s, d, seed, -4.0, 4.0); });
      break;
    // Special functions: inputs inside each domain, away from poles, kinks (i0e, i1e at 0) and ends.
    case OpKind::erf:
    case OpKind::erfc:
    case OpKind::erfcx:
    case OpKind::ndtr:
    case OpKind::log_ndtr:
    case OpKind::i0:
    case OpKind::i1:
      unary(real, [](const Shape& s, DType d, std::uint64_t seed) { return Tensor::uniform(s, d, seed, -2.5, 2.5); });
      break;
    case OpKind::i0e:
    case OpKind::i1e:
      unary(real, nz);
      break;
    case OpKind::erfinv:
      unary(real, [](const Shape& s, DType d, std::uint64_t seed) { return Tensor::uniform(s, d, seed, -0.9, 0.9); });
      break;
    case OpKind::ndtri:
      unary(real, [](const Shape& s, DType d, std::uint64_t seed) { return Tensor::uniform(s, d, seed, 0.05, 0.95); });
      break;
    case OpKind::lgamma:
    case OpKind::digamma:
      unary(real, [](const Shape& s, DType d, std::uint64_t seed) { return Tensor::uniform(s, d, seed, 0.3, 6.0); });
      break;
    case OpKind::polygamma:
      for (std::int64_t n : {0, 1, 3})
        for (Shape s : {Shape{}, Shape{3}, Shape{2, 3}})
          out.push_back({detail::str("polygamma n=", n, s),
                         [n](const std::vector<Value>& x) { return P(OpKind::polygamma, PolygammaAttrs{n}, {x[0]}); },
                         {Tensor::uniform(s, DType::f64, 41 + s.size(), 0.5, 5.0)}});
      break;
    case OpKind::is_finite:
      out.push_back({"is_finite", [](const std::vector<Value>& x) {
                       return vops::convert(P(OpKind::is_finite, NoAttrs{}, {x[0]}), DType::f64);
                     },
                     {random_tensor({3}, DType::f64, 3)}});
      break;
    case OpKind::convert:
      // (f64 <-> f32 takes the same path; finite differences in f32 are too coarse to check it here.)
      for (auto [from, to] : {std::pair{DType::f64, DType::c128}, std::pair{DType::c128, DType::f64}})
        out.push_back({detail::str("convert ", from, "->", to),
                       [to](const std::vector<Value>& x) {
                         Value c = P(OpKind::convert, ConvertAttrs{to}, {x[0]});
                         return to == DType::f32 ? vops::convert(c, DType::f64) : c;
                       },
                       {random_tensor({2, 3}, from, 4)}});
      break;
    case OpKind::select:
      for (DType d : both) {
        Tensor pred = Tensor::from_vec_col_major<bool>({2, 3}, {true, false, false, true, true, false});
        out.push_back({detail::str("select ", d), [pred](const std::vector<Value>& x) {
                         return P(OpKind::select, NoAttrs{}, {graph::constant(pred), x[0], x[1]});
                       },
                       {random_tensor({2, 3}, d, 5), random_tensor({2, 3}, d, 6)}});
      }
      break;
    case OpKind::clamp:
      out.push_back({"clamp", [](const std::vector<Value>& x) { return P(OpKind::clamp, NoAttrs{}, {x[0], x[1], x[2]}); },
                     {Tensor::full({6}, Scalar(-0.4), DType::f64), random_tensor({6}, DType::f64, 7),
                      Tensor::full({6}, Scalar(0.5), DType::f64)}});
      out.push_back({"clamp scalar bounds",
                     [](const std::vector<Value>& x) { return P(OpKind::clamp, NoAttrs{}, {x[0], x[1], x[2]}); },
                     {Tensor::scalar(-0.3), random_tensor({2, 4}, DType::f64, 8), Tensor::scalar(0.6)}});
      break;
    case OpKind::dot_general: {
      struct G {
        Shape a, b;
        DotGeneralAttrs d;
      };
      std::vector<G> gs{
          {{3, 4}, {4, 2}, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}},
          {{4, 3}, {2, 4}, {.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {1}}},
          {{2, 3, 5}, {3, 4, 5},
           {.lhs_batching_dimensions = {2}, .rhs_batching_dimensions = {2}, .lhs_contracting_dimensions = {1},
            .rhs_contracting_dimensions = {0}}},
          {{2, 3, 4}, {4, 2, 3},
           {.lhs_contracting_dimensions = {2, 1}, .rhs_contracting_dimensions = {0, 2}}},
          {{3}, {3}, {.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}}},
          {{2, 3}, {4}, {}},
      };
      for (DType d : both)
        for (const G& g : gs)
          out.push_back({detail::str("dot_general ", d, g.a, g.b, " ", Attrs(g.d)),
                         [g](const std::vector<Value>& x) { return P(OpKind::dot_general, g.d, {x[0], x[1]}); },
                         {random_tensor(g.a, d, 9), random_tensor(g.b, d, 10)}});
      break;
    }
    case OpKind::reduce_sum:
    case OpKind::reduce_prod:
      for (DType d : both)
        for (DimVec ax : {DimVec{0}, DimVec{1, 2}, DimVec{}, DimVec{0, 1, 2}})
          out.push_back({detail::str(op_name(k), " ", d, ax),
                         [k, ax](const std::vector<Value>& x) { return P(k, AxesAttrs{ax}, {x[0]}); },
                         {k == OpKind::reduce_prod ? away_from_zero({2, 3, 2}, d, 12) : random_tensor({2, 3, 2}, d, 12)}});
      break;
    case OpKind::reduce_max:
    case OpKind::reduce_min:
      for (DimVec ax : {DimVec{0}, DimVec{1, 2}, DimVec{0, 1, 2}})
        out.push_back({detail::str(op_name(k), ax), [k, ax](const std::vector<Value>& x) { return P(k, AxesAttrs{ax}, {x[0]}); },
                       {random_tensor({3, 4, 2}, DType::f64, 13)}});
      break;
    case OpKind::transpose:
      for (DType d : both)
        out.push_back({detail::str("transpose ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::transpose, PermutationAttrs{{2, 0, 1}}, {x[0]});
                       },
                       {random_tensor({2, 3, 4}, d, 14)}});
      break;
    case OpKind::reshape:
      for (DType d : both)
        out.push_back({detail::str("reshape ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::reshape, BasicReshapeAttrs<Dim>{{Dim(4), Dim(6)}}, {x[0]});
                       },
                       {random_tensor({2, 3, 4}, d, 15)}});
      break;
    case OpKind::broadcast_in_dim:
      for (DType d : both) {
        out.push_back({detail::str("broadcast_in_dim ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<Dim>{{Dim(2), Dim(3), Dim(4)}, {2, 0}}, {x[0]});
                       },
                       {random_tensor({4, 1}, d, 16)}});
        out.push_back({detail::str("broadcast_in_dim scalar ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::broadcast_in_dim, BasicBroadcastInDimAttrs<Dim>{{Dim(3), Dim(2)}, {}}, {x[0]});
                       },
                       {random_tensor({}, d, 17)}});
      }
      break;
    case OpKind::slice:
      for (DType d : both)
        out.push_back({detail::str("slice ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::slice, BasicSliceAttrs<Dim>{{Dim(1), Dim(0)}, {Dim(6), Dim(3)}, {2, 1}}, {x[0]});
                       },
                       {random_tensor({7, 3}, d, 18)}});
      break;
    case OpKind::pad:
      for (DType d : both)
        out.push_back({detail::str("pad ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::pad, BasicPadAttrs<Dim>{{Dim(2), Dim(-1)}, {Dim(-1), Dim(1)}, {1, 0}}, {x[0], x[1]});
                       },
                       {random_tensor({3, 4}, d, 19), random_tensor({}, d, 20)}});
      break;
    case OpKind::concatenate:
      for (DType d : both)
        out.push_back({detail::str("concatenate ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::concatenate, ConcatenateAttrs{1}, {x[0], x[1], x[0]});
                       },
                       {random_tensor({2, 3}, d, 21), random_tensor({2, 1}, d, 22)}});
      break;
    case OpKind::reverse:
      for (DType d : both)
        out.push_back({detail::str("reverse ", d), [](const std::vector<Value>& x) {
                         return P(OpKind::reverse, AxesAttrs{{0, 2}}, {x[0]});
                       },
                       {random_tensor({2, 3, 2}, d, 23)}});
      break;
    case OpKind::gather:
      for (DType d : both) {
        // Rows 2, 0, 2 (a repeated index) and a clamped start (5 -> 3 for slice size 1 of 4 rows).
        Tensor idx = Tensor::from_vec_col_major<std::int64_t>({4, 1}, {2, 0, 2, 5});
        out.push_back({detail::str("gather rows ", d), [idx](const std::vector<Value>& x) {
                         BasicGatherAttrs<Dim> g;
                         g.offset_dims = {1};
                         g.collapsed_slice_dims = {0};
                         g.start_index_map = {0};
                         g.index_vector_dim = 1;
                         g.slice_sizes = {Dim(1), Dim(3)};
                         return P(OpKind::gather, g, {x[0], graph::constant(idx)});
                       },
                       {random_tensor({4, 3}, d, 24)}});
        out.push_back({detail::str("diagonal (gather) ", d), [](const std::vector<Value>& x) { return vops::diagonal(x[0]); },
                       {random_tensor({3, 3, 2}, d, 25)}});
      }
      break;
    case OpKind::scatter:
      for (ScatterMode mode : {ScatterMode::add, ScatterMode::replace})
        for (DType d : both) {
          // scatter(x[0], starts along axis 0, x[1]) with the given window.
          auto scatter_case = [&](const char* what, std::vector<std::int64_t> starts, DimVec window, DimVec inserted,
                                  const Shape& updates, std::uint64_t seed) {
            Tensor idx = Tensor::from_vec_col_major<std::int64_t>({static_cast<std::int64_t>(starts.size()), 1}, starts);
            ScatterAttrs s;
            s.update_window_dims = std::move(window);
            s.inserted_window_dims = std::move(inserted);
            s.scatter_dims_to_operand_dims = {0};
            s.index_vector_dim = 1;
            s.mode = mode;
            out.push_back({detail::str("scatter ", mode == ScatterMode::add ? "add " : "replace ", d, what),
                           [idx, s](const std::vector<Value>& x) {
                             return P(OpKind::scatter, s, {x[0], graph::constant(idx), x[1]});
                           },
                           {random_tensor({5, 2}, d, seed), random_tensor(updates, d, seed + 1)}});
          };
          scatter_case("", {3, 1}, {1}, {0}, {2, 2}, 26);
          // Regression (found by tests/fuzz): updates whose window lies outside
          // the operand are skipped by scatter, so they get a zero cotangent
          // (Note [Scatter skips windows outside]): starts -1 and 5 of extent 5,
          // and a window of 2 rows at start 4 that only partly fits.
          scatter_case(" outside", {-1, 2, 5}, {1}, {0}, {3, 2}, 28);
          scatter_case(" window partly outside", {4, 1}, {1, 2}, {}, {2, 2, 2}, 30);
        }
      break;
    case OpKind::dynamic_slice:
      for (DType d : both) {
        Tensor st = Tensor::from_vec_col_major<std::int64_t>({2}, {1, 9});  // second start clamps
        out.push_back({detail::str("dynamic_slice ", d), [st](const std::vector<Value>& x) {
                         return P(OpKind::dynamic_slice, BasicDynamicSliceAttrs<Dim>{{Dim(2), Dim(2)}}, {x[0], graph::constant(st)});
                       },
                       {random_tensor({4, 3}, d, 28)}});
      }
      break;
    case OpKind::dynamic_update_slice:
      for (DType d : both) {
        Tensor st = Tensor::from_vec_col_major<std::int64_t>({2}, {2, 0});
        out.push_back({detail::str("dynamic_update_slice ", d), [st](const std::vector<Value>& x) {
                         return P(OpKind::dynamic_update_slice, NoAttrs{}, {x[0], x[1], graph::constant(st)});
                       },
                       {random_tensor({4, 3}, d, 29), random_tensor({2, 2}, d, 30)}});
      }
      break;
  }
  return out;
}

class AdRules : public ::testing::TestWithParam<OpKind> {};

std::vector<OpKind> all_ops() {
  std::vector<OpKind> v;
  for (int k = 0; k < kNumOps; ++k) v.push_back(static_cast<OpKind>(k));
  return v;
}

}  // namespace

// The AD table: the rules agree with each op's AdKind in ops.def (a JVP rule
// exactly for the differentiable ones, a transpose rule for every linear one),
// and every primitive has derivative test cases here.
TEST(AdTable, EveryPrimitiveHasRulesAndCases) {
  for (OpKind k : all_ops()) {
    EXPECT_EQ(ad::has_jvp_rule(k), op_info(k).ad != AdKind::none) << op_name(k);
    if (op_info(k).ad == AdKind::linear) {
      EXPECT_TRUE(ad::has_transpose_rule(k)) << op_name(k);
    }
    if (op_info(k).ad == AdKind::none) {
      EXPECT_FALSE(ad::has_transpose_rule(k)) << op_name(k);
    }
    EXPECT_FALSE(cases_for(k).empty()) << op_name(k) << " has no AD test case";
  }
}

TEST_P(AdRules, FiniteDifferencesConsistencyAndHvp) {
  for (const AdCase& c : cases_for(GetParam())) check_ad_case(c);
}

INSTANTIATE_TEST_SUITE_P(AllOps, AdRules, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<OpKind>& info) { return std::string(op_name(info.param)); });

// Parity of the three user-facing modes (Note [Op layer] in src/ops/op_layer.hpp):
// every user-facing function called on `Tensor` (eager free functions with
// a backend), on `EagerTensor` and on `TracedTensor` (compiled and run by a
// Runtime, with constant and with symbolic extents) gives the same dtype,
// shape and values, or the same error type. Inputs: the op database's
// samples of every elementwise primitive, reduction, select, clamp, convert
// and dot_general (through the user-facing function of that primitive),
// plus mixed dtypes, broadcasting, Scalars of every kind and matmul shapes.
#include <functional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "support/op_db.hpp"
#include "support/test_support.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// Calls a user-facing function the way each mode spells it: the Tensor free
// functions take the backend last, the handle functions do not.
struct WithBackend {
  Backend& backend;
  template <class G, class... A>
  auto operator()(G g, const A&... a) const {
    return g(a..., backend);
  }
};
struct WithoutBackend {
  template <class G, class... A>
  auto operator()(G g, const A&... a) const {
    return g(a...);
  }
};
#define FN(name) [](auto&&... x) { return name(std::forward<decltype(x)>(x)...); }

struct Case {
  std::string name;
  std::vector<Tensor> inputs;
  std::function<Tensor(const std::vector<Tensor>&, Backend&)> tensor;
  std::function<EagerTensor(const std::vector<EagerTensor>&)> eager;
  std::function<TracedTensor(const std::vector<TracedTensor>&)> traced;
};

// One case from a generic `f(call, inputs)` written once for the three modes.
template <class F>
Case make_case(std::string name, std::vector<Tensor> inputs, F f) {
  return {std::move(name), std::move(inputs),
          [f](const std::vector<Tensor>& x, Backend& b) { return f(WithBackend{b}, x); },
          [f](const std::vector<EagerTensor>& x) { return f(WithoutBackend{}, x); },
          [f](const std::vector<TracedTensor>& x) { return f(WithoutBackend{}, x); }};
}

std::string describe(const Case& c) {
  std::string s = c.name + " on";
  for (const Tensor& t : c.inputs) s += detail::str(" ", t.dtype(), t.shape());
  return s;
}

// The outcome of one mode: a tensor, or the dynamic type of the error.
struct Outcome {
  Tensor value;
  std::string error;  // typeid name; empty when a value was produced
  std::string message;
};

template <class F>
Outcome attempt(F&& f) {
  try {
    return {f(), "", ""};
  } catch (const Error& e) {
    return {Tensor(), typeid(e).name(), e.what()};
  }
}

// Symbolic extents for the traced mode: extent 1 stays constant (it
// broadcasts), every other extent e becomes the symbol "n<e>", so equal
// extents of different operands are the same symbol.
SymShape symbolic(const Shape& s) {
  SymShape out;
  for (auto e : s) out.push_back(e == 1 ? Dim(1) : Dim(detail::str("n", e)));
  return out;
}

::testing::AssertionResult same(const Outcome& got, const Outcome& want, const char* mode) {
  if (!want.error.empty() || !got.error.empty()) {
    if (got.error == want.error) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << mode << ": error " << (got.error.empty() ? "none" : got.message)
                                         << " where Tensor mode gives " << (want.error.empty() ? "none" : want.message);
  }
  if (got.value.dtype() != want.value.dtype() || got.value.shape() != want.value.shape())
    return ::testing::AssertionFailure() << mode << ": " << got.value.dtype() << got.value.shape()
                                         << " where Tensor mode gives " << want.value.dtype() << want.value.shape();
  auto r = tensors_equal(got.value, want.value);
  if (!r) return ::testing::AssertionFailure() << mode << ": " << r.message();
  return r;
}

void check(const Case& c, Backend& backend, Runtime& rt, EagerRuntime& eager) {
  Outcome want = attempt([&] { return c.tensor(c.inputs, backend); });

  Outcome e = attempt([&] {
    std::vector<EagerTensor> in;
    for (const Tensor& t : c.inputs) in.push_back(eager.tensor(t));
    return c.eager(in).value();
  });
  EXPECT_TRUE(same(e, want, "EagerTensor")) << describe(c);

  for (bool sym : {false, true}) {
    Outcome t = attempt([&] {
      std::vector<TracedTensor> in;
      for (std::size_t i = 0; i < c.inputs.size(); ++i) {
        const Tensor& x = c.inputs[i];
        SymShape shape = sym ? symbolic(x.shape()) : SymShape(x.shape().begin(), x.shape().end());
        in.push_back(TracedTensor::input(detail::str("in", i), x.dtype(), shape));
      }
      TracedTensor out = c.traced(in);
      Program p = GraphCompiler().compile(out);
      // By name: a result that depends on no input (imag of a real tensor)
      // compiles to a program without inputs.
      std::vector<std::pair<std::string, Tensor>> feed;
      for (const ProgramInput& pi : p.inputs)
        feed.emplace_back(pi.name, c.inputs[static_cast<std::size_t>(std::stoi(pi.name.substr(2)))]);
      return rt.run_compiled(p, feed)[0];
    });
    if (sym && (t.error == typeid(UnimplementedError).name() || !want.error.empty()))
      continue;  // symbolic extents: some functions need constants, and a check of
                 // an extent (max over an empty axis) fails when the program runs
    EXPECT_TRUE(same(t, want, sym ? "TracedTensor (symbolic extents)" : "TracedTensor")) << describe(c);
  }
}

class Parity : public ::testing::Test {
 protected:
  CpuBackend backend;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(backend)).build();
  EagerRuntime eager{backend};
  void run(const std::vector<Case>& cases) {
    for (const Case& c : cases) check(c, backend, rt, eager);
  }
};

// ---- the op database, through the user-facing function of each primitive --------

Case from_sample(const OpSample& s) {
  const auto& in = s.inputs;
  std::string name = detail::str(op_name(s.kind), " [", s.note, "]");
  switch (s.kind) {
#define TF_UNARY_CASE(kind, fn) \
  case OpKind::kind:            \
    return make_case(name, in, [](auto call, const auto& x) { return call(FN(fn), x[0]); });
    TF_UNARY_CASE(negate, neg)
    TF_UNARY_CASE(conj, conj)
    TF_UNARY_CASE(abs, abs)
    TF_UNARY_CASE(sign, sign)
    TF_UNARY_CASE(exp, exp)
    TF_UNARY_CASE(log, log)
    TF_UNARY_CASE(sin, sin)
    TF_UNARY_CASE(cos, cos)
    TF_UNARY_CASE(tanh, tanh)
    TF_UNARY_CASE(sqrt, sqrt)
    TF_UNARY_CASE(rsqrt, rsqrt)
    TF_UNARY_CASE(expm1, expm1)
    TF_UNARY_CASE(log1p, log1p)
    TF_UNARY_CASE(real, real)
    TF_UNARY_CASE(imag, imag)
    TF_UNARY_CASE(is_finite, is_finite)
    TF_UNARY_CASE(floor, floor)
    TF_UNARY_CASE(ceil, ceil)
    TF_UNARY_CASE(trunc, trunc)
    TF_UNARY_CASE(round_nearest_even, round)
    TF_UNARY_CASE(erf, erf)
    TF_UNARY_CASE(erfc, erfc)
    TF_UNARY_CASE(erfinv, erfinv)
    TF_UNARY_CASE(erfcx, erfcx)
    TF_UNARY_CASE(lgamma, lgamma)
    TF_UNARY_CASE(digamma, digamma)
    TF_UNARY_CASE(i0, i0)
    TF_UNARY_CASE(i0e, i0e)
    TF_UNARY_CASE(i1, i1)
    TF_UNARY_CASE(i1e, i1e)
    TF_UNARY_CASE(ndtr, ndtr)
    TF_UNARY_CASE(ndtri, ndtri)
    TF_UNARY_CASE(log_ndtr, log_ndtr)
#undef TF_UNARY_CASE
    case OpKind::polygamma: {
      std::int64_t n = std::get<PolygammaAttrs>(s.attrs).n;
      return make_case(name, in, [n](auto call, const auto& x) { return call(FN(polygamma), n, x[0]); });
    }
    case OpKind::frexp_exponent:
      return make_case(name, in, [](auto call, const auto& x) { return call(FN(frexp), x[0]).second; });
#define TF_BINARY_CASE(kind, fn) \
  case OpKind::kind:             \
    return make_case(name, in, [](auto call, const auto& x) { return call(FN(fn), x[0], x[1]); });
    TF_BINARY_CASE(add, add)
    TF_BINARY_CASE(subtract, sub)
    TF_BINARY_CASE(multiply, mul)
    TF_BINARY_CASE(divide, div)
    TF_BINARY_CASE(power, pow)
    TF_BINARY_CASE(maximum, maximum)
    TF_BINARY_CASE(minimum, minimum)
    TF_BINARY_CASE(complex, complex)
    TF_BINARY_CASE(fmod, fmod)
    TF_BINARY_CASE(remainder, remainder)
    TF_BINARY_CASE(ldexp, ldexp)
#undef TF_BINARY_CASE
    case OpKind::compare: {
      ComparisonDirection dir = std::get<CompareAttrs>(s.attrs).direction;
      return make_case(name, in, [dir](auto call, const auto& x) { return call(FN(compare), x[0], x[1], dir); });
    }
    case OpKind::select:
      return make_case(name, in, [](auto call, const auto& x) { return call(FN(where), x[0], x[1], x[2]); });
    case OpKind::clamp:
      return make_case(name, in, [](auto call, const auto& x) { return call(FN(clamp), x[0], x[1], x[2]); });
    case OpKind::convert: {
      DType d = std::get<ConvertAttrs>(s.attrs).dtype;
      return make_case(name, in, [d](auto call, const auto& x) { return call(FN(convert), x[0], d); });
    }
    case OpKind::dot_general: {
      DotGeneralAttrs dims = std::get<DotGeneralAttrs>(s.attrs);
      return make_case(name, in,
                       [dims](auto call, const auto& x) { return call(FN(dot_general), x[0], x[1], dims); });
    }
#define TF_REDUCE_CASE(kind, fn)                                                                     \
  case OpKind::kind: {                                                                               \
    DimVec axes = std::get<AxesAttrs>(s.attrs).dimensions;                                           \
    return make_case(name, in, [axes](auto call, const auto& x) { return call(FN(fn), x[0], axes); }); \
  }
    TF_REDUCE_CASE(reduce_sum, sum)
    TF_REDUCE_CASE(reduce_prod, prod)
    TF_REDUCE_CASE(reduce_max, max)
    TF_REDUCE_CASE(reduce_min, min)
#undef TF_REDUCE_CASE
    default:
      break;
  }
  return {};
}

TEST_F(Parity, OpDatabaseThroughUserFacingFunctions) {
  int n = 0;
  for (int k = 0; k < kNumOps; ++k) {
    for (const OpSample& s : op_samples(static_cast<OpKind>(k))) {
      Case c = from_sample(s);
      if (!c.tensor) continue;  // structural primitives: no user-facing function in all modes
      check(c, backend, rt, eager);
      ++n;
      // The reductions' samples also serve mean, the unary ones norm and square.
      if (s.kind == OpKind::reduce_sum) {
        DimVec axes = std::get<AxesAttrs>(s.attrs).dimensions;
        check(make_case("mean", s.inputs, [axes](auto call, const auto& x) { return call(FN(mean), x[0], axes); }),
              backend, rt, eager);
      }
      if (s.kind == OpKind::abs) {
        check(make_case("norm", s.inputs, [](auto call, const auto& x) { return call(FN(norm), x[0]); }), backend,
              rt, eager);
        check(make_case("square", s.inputs, [](auto call, const auto& x) { return call(FN(square), x[0]); }),
              backend, rt, eager);
      }
    }
  }
  EXPECT_GT(n, 500);
}

// ---- mixed dtypes, broadcasting, scalars, matmul ------------------------------------

const std::vector<std::pair<Shape, Shape>>& broadcast_pairs() {
  static const std::vector<std::pair<Shape, Shape>> v{
      {{3, 1}, {1, 2}}, {{}, {2, 3}}, {{2, 3}, {3}}, {{2, 3}, {2, 3}}, {{0, 2}, {1, 2}}, {{2, 3}, {4}}};
  return v;
}

TEST_F(Parity, MixedDTypesAndBroadcasting) {
  std::uint64_t seed = 1;
  std::vector<Case> cases;
  for (DType da : all_dtypes())
    for (DType db : all_dtypes())
      for (const auto& [sa, sb] : broadcast_pairs()) {
        std::vector<Tensor> in{random_tensor(sa, da, seed), random_tensor(sb, db, seed + 1)};
        seed += 2;
#define TF_MIXED(fn) \
  cases.push_back(make_case(#fn, in, [](auto call, const auto& x) { return call(FN(fn), x[0], x[1]); }));
        TF_MIXED(add)
        TF_MIXED(sub)
        TF_MIXED(mul)
        TF_MIXED(div)
        TF_MIXED(pow)
        TF_MIXED(maximum)
        TF_MIXED(minimum)
        TF_MIXED(eq)
        TF_MIXED(ne)
        TF_MIXED(lt)
        TF_MIXED(le)
        TF_MIXED(gt)
        TF_MIXED(ge)
        TF_MIXED(complex)
        TF_MIXED(fmod)
        TF_MIXED(remainder)
        TF_MIXED(ldexp)
#undef TF_MIXED
        Tensor cond = random_tensor(sa, DType::bool_, seed++);
        cases.push_back(make_case("where", {cond, in[0], in[1]},
                                  [](auto call, const auto& x) { return call(FN(where), x[0], x[1], x[2]); }));
      }
  run(cases);
}

TEST_F(Parity, ScalarsOfEveryKind) {
  const std::vector<Scalar> scalars{Scalar(2), Scalar(2.5), Scalar(2.5f), Scalar(true),
                                    Scalar(std::complex<double>(1, -2)), Scalar(std::complex<float>(0.5f, 1))};
  std::uint64_t seed = 100;
  std::vector<Case> cases;
  for (DType d : all_dtypes())
    for (const Scalar& s : scalars) {
      std::vector<Tensor> in{random_tensor({2, 3}, d, seed++)};
      std::string tag = detail::str(" with Scalar ", s.dtype());
#define TF_SCALAR(fn) \
  cases.push_back(make_case(#fn + tag, in, [s](auto call, const auto& x) { return call(FN(fn), x[0], s); }));
      TF_SCALAR(add)
      TF_SCALAR(sub)
      TF_SCALAR(mul)
      TF_SCALAR(div)
      TF_SCALAR(pow)
      TF_SCALAR(maximum)
      TF_SCALAR(minimum)
      TF_SCALAR(eq)
      TF_SCALAR(ne)
      TF_SCALAR(lt)
      TF_SCALAR(le)
      TF_SCALAR(gt)
      TF_SCALAR(ge)
      TF_SCALAR(fmod)
      TF_SCALAR(remainder)
      TF_SCALAR(ldexp)
#undef TF_SCALAR
      cases.push_back(make_case("scalar - x" + tag, in, [s](auto call, const auto& x) { return call(FN(sub), s, x[0]); }));
      cases.push_back(make_case("scalar / x" + tag, in, [s](auto call, const auto& x) { return call(FN(div), s, x[0]); }));
      cases.push_back(make_case("clamp" + tag, in, [s](auto call, const auto& x) {
        return call(FN(clamp), Scalar(-0.5), x[0], s);
      }));
    }
  run(cases);
}

TEST_F(Parity, UnaryFunctionsReductionsAndStructure) {
  std::uint64_t seed = 200;
  std::vector<Case> cases;
  for (DType d : all_dtypes())
    for (const Shape& s : std::vector<Shape>{{}, {4}, {3, 3}, {2, 3, 2}, {0, 3}, {3, 0}}) {
      std::vector<Tensor> in{random_tensor(s, d, seed++)};
#define TF_UNARY(fn) cases.push_back(make_case(#fn, in, [](auto call, const auto& x) { return call(FN(fn), x[0]); }));
      TF_UNARY(neg)
      TF_UNARY(square)
      TF_UNARY(abs)
      TF_UNARY(sign)
      TF_UNARY(exp)
      TF_UNARY(log)
      TF_UNARY(sin)
      TF_UNARY(cos)
      TF_UNARY(tanh)
      TF_UNARY(sqrt)
      TF_UNARY(rsqrt)
      TF_UNARY(expm1)
      TF_UNARY(log1p)
      TF_UNARY(conj)
      TF_UNARY(real)
      TF_UNARY(imag)
      TF_UNARY(is_finite)
      TF_UNARY(norm)
      TF_UNARY(trace)
      TF_UNARY(sum)
      TF_UNARY(mean)
      TF_UNARY(max)
      TF_UNARY(min)
      TF_UNARY(prod)
      TF_UNARY(floor)
      TF_UNARY(ceil)
      TF_UNARY(trunc)
      TF_UNARY(round)
      TF_UNARY(erf)
      TF_UNARY(erfc)
      TF_UNARY(erfinv)
      TF_UNARY(erfcx)
      TF_UNARY(lgamma)
      TF_UNARY(digamma)
      TF_UNARY(i0)
      TF_UNARY(i0e)
      TF_UNARY(i1)
      TF_UNARY(i1e)
      TF_UNARY(ndtr)
      TF_UNARY(ndtri)
      TF_UNARY(log_ndtr)
#undef TF_UNARY
      cases.push_back(make_case("polygamma 2", in, [](auto call, const auto& x) { return call(FN(polygamma), 2, x[0]); }));
      for (std::int64_t p : {1, 3})
        cases.push_back(make_case(detail::str("mvlgamma ", p), in,
                                  [p](auto call, const auto& x) { return call(FN(mvlgamma), x[0], p); }));
      for (std::int64_t dec : {2, -1})
        cases.push_back(make_case(detail::str("round decimals ", dec), in,
                                  [dec](auto call, const auto& x) { return call(FN(round), x[0], dec); }));
      cases.push_back(make_case("frexp mantissa", in, [](auto call, const auto& x) { return call(FN(frexp), x[0]).first; }));
      cases.push_back(make_case("frexp exponent", in, [](auto call, const auto& x) { return call(FN(frexp), x[0]).second; }));
      for (DimVec axes : std::vector<DimVec>{{0}, {-1}, {0, -1}}) {
#define TF_AXES(fn) \
  cases.push_back(make_case(#fn, in, [axes](auto call, const auto& x) { return call(FN(fn), x[0], axes); }));
        TF_AXES(sum)
        TF_AXES(mean)
        TF_AXES(max)
        TF_AXES(min)
        TF_AXES(prod)
#undef TF_AXES
      }
      cases.push_back(make_case("convert", in, [](auto call, const auto& x) { return call(FN(convert), x[0], DType::c64); }));
    }
  run(cases);
}

TEST_F(Parity, Matmul) {
  const std::vector<std::pair<Shape, Shape>> shapes{
      {{2, 3}, {3, 4}}, {{3}, {3, 2}}, {{2, 3}, {3}}, {{3}, {3}}, {{2, 3, 2}, {3, 4, 1}},
      {{2, 3, 5}, {3, 4}}, {{2, 0}, {0, 3}}, {{2, 3}, {4, 2}}, {{}, {3}}};
  std::uint64_t seed = 300;
  std::vector<Case> cases;
  for (auto [da, db] : std::vector<std::pair<DType, DType>>{
           {DType::f64, DType::f64}, {DType::f32, DType::c128}, {DType::i32, DType::f32}, {DType::c64, DType::c64}})
    for (const auto& [sa, sb] : shapes)
      cases.push_back(make_case("matmul", {random_tensor(sa, da, seed++), random_tensor(sb, db, seed++)},
                                [](auto call, const auto& x) { return call(FN(matmul), x[0], x[1]); }));
  run(cases);
}

// The rules themselves, by hand, in the three modes (parity alone would pass
// if all three were wrong the same way).
TEST_F(Parity, PromotionRulesByHand) {
  auto i32 = Tensor::from_vec_col_major<std::int32_t>({2}, {1, -3});
  auto f32 = Tensor::from_vec_col_major<float>({2}, {1, 2});
  struct Want {
    Case c;
    DType dtype;
  };
  std::vector<Want> wants{
      {make_case("i32 * 2.0f", {i32}, [](auto call, const auto& x) { return call(FN(mul), x[0], Scalar(2.0f)); }),
       DType::f32},
      {make_case("i32 * 2.0", {i32}, [](auto call, const auto& x) { return call(FN(mul), x[0], Scalar(2.0)); }),
       DType::f64},
      {make_case("i32 + 2", {i32}, [](auto call, const auto& x) { return call(FN(add), x[0], Scalar(2)); }),
       DType::i32},
      {make_case("f32 * 2.0", {f32}, [](auto call, const auto& x) { return call(FN(mul), x[0], Scalar(2.0)); }),
       DType::f32},
      {make_case("f32 + 1i", {f32},
                 [](auto call, const auto& x) { return call(FN(add), x[0], Scalar(std::complex<double>(0, 1))); }),
       DType::c64},
      {make_case("i32 + 1i", {i32},
                 [](auto call, const auto& x) { return call(FN(add), x[0], Scalar(std::complex<double>(0, 1))); }),
       DType::c128},
      {make_case("i32 > 0.5f", {i32}, [](auto call, const auto& x) { return call(FN(gt), x[0], Scalar(0.5f)); }),
       DType::bool_},
      {make_case("exp(i32)", {i32}, [](auto call, const auto& x) { return call(FN(exp), x[0]); }), DType::f64},
  };
  for (const Want& w : wants) {
    EXPECT_EQ(w.c.tensor(w.c.inputs, backend).dtype(), w.dtype) << w.c.name;
    check(w.c, backend, rt, eager);
  }
  Tensor m = mul(i32, Scalar(2.5f), backend);
  EXPECT_EQ(m.to_vec_col_major<float>(), (std::vector<float>{2.5f, -7.5f}));
  Tensor g = gt(i32, Scalar(0.5f), backend);
  EXPECT_EQ(g.to_vec_col_major<bool>(), (std::vector<bool>{true, false}));
}

TEST_F(Parity, EmptyMaxIsAValueErrorInEveryMode) {
  Tensor x = Tensor::zeros({0, 3});
  for (auto mode : {0, 1, 2}) {
    auto f = [&] {
      if (mode == 0) return max(x, {0}, backend);
      if (mode == 1) return max(eager.tensor(x), {0}).value();
      auto t = TracedTensor::input("x", DType::f64, {Dim(0), Dim(3)});
      return rt.run_compiled(GraphCompiler().compile(min(t, {0})), std::vector<Tensor>{x})[0];
    };
    EXPECT_TRUE(throws_with<ValueError>(f, {mode == 2 ? "min" : "max", "axis 0", "[0, 3]", "empty"})) << mode;
  }
}

// Operators of the handles spell the same functions.
TEST_F(Parity, HandleOperatorsAreTheFunctions) {
  Tensor a = random_tensor({2, 3}, DType::f64, 7), b = random_tensor({3}, DType::f32, 8);
  auto ea = eager.tensor(a), eb = eager.tensor(b);
  EXPECT_TRUE(tensors_equal((ea > eb).value(), gt(a, b, backend)));
  EXPECT_TRUE(tensors_equal((ea <= 0.25).value(), le(a, Scalar(0.25), backend)));
  EXPECT_TRUE(tensors_equal((0.25 < ea).value(), gt(a, Scalar(0.25), backend)));
  EXPECT_TRUE(tensors_equal((ea == ea).value(), eq(a, a, backend)));
  EXPECT_TRUE(tensors_equal((ea != eb).value(), ne(a, b, backend)));
  EXPECT_TRUE(tensors_equal((ea >= eb).value(), ge(a, b, backend)));
  EXPECT_TRUE(tensors_equal((2.0 - ea).value(), sub(Scalar(2.0), a, backend)));
  EXPECT_TRUE(tensors_equal((2.0 / ea).value(), div(Scalar(2.0), a, backend)));
  EXPECT_TRUE(tensors_equal((ea - 2.0).value(), sub(a, Scalar(2.0), backend)));
  EXPECT_TRUE(tensors_equal((ea / 2.0).value(), div(a, Scalar(2.0), backend)));
  EXPECT_TRUE(tensors_equal(where(ea > eb, ea, eb).value(), where(gt(a, b, backend), a, b, backend)));
  // Values by hand: where picks elementwise, clamp bounds.
  auto v = Tensor::from_vec_col_major<double>({3}, {-2, 0.5, 3});
  auto ev = eager.tensor(v);
  EXPECT_EQ(clamp(Scalar(-1.0), ev, Scalar(1.0)).value().to_vec_col_major<double>(),
            (std::vector<double>{-1, 0.5, 1}));
  EXPECT_EQ(where(ev > 0.0, ev, -ev).value().to_vec_col_major<double>(), (std::vector<double>{2, 0.5, 3}));
}

}  // namespace

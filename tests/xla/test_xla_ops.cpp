// Every op-database sample of every lowerable primitive, traced into a
// one-instruction program and run through the PJRT plugin, equals the CPU
// runtime's result (exact for integers and bool, 64 eps for floats; a
// larger bound for the CHLO special functions). Primitives without a
// lowering must be refused with an error naming them.
#include <set>

#include "support/op_db.hpp"
#include "xla_test_util.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// Samples where StableHLO's definition differs from ours; each is skipped
// and counted (docs/xla.md, "Known differences").
const char* known_difference(const OpSample& s) {
  (void)s;
  return nullptr;
}

double tolerance_scale(OpKind k) {
  switch (k) {
    case OpKind::erf: case OpKind::erfc: case OpKind::erfinv: case OpKind::lgamma: case OpKind::digamma:
    case OpKind::polygamma: case OpKind::i1e: case OpKind::ndtr: case OpKind::power: case OpKind::tanh:
      return 64;
    case OpKind::dot_general: case OpKind::reduce_sum: case OpKind::reduce_prod:
      return 16;
    default:
      return 1;
  }
}

class XlaOps : public ::testing::TestWithParam<OpKind> {};

TEST_P(XlaOps, PjrtEqualsCpuRuntime) {
  TF_REQUIRE_PJRT(pjrt);
  const OpKind kind = GetParam();
  int ran = 0, refused = 0;
  for (const OpSample& s : op_samples(kind)) {
    std::vector<Value> in;
    for (std::size_t i = 0; i < s.inputs.size(); ++i)
      in.push_back(graph::input(detail::str("in", i), s.inputs[i].dtype(), to_sym_shape(s.inputs[i].shape())));
    Value out = graph::apply(s.kind, to_symbolic(s.attrs), in);
    Program p = GraphCompiler().compile(TracedTensor(out));
    const DType d = s.inputs.front().dtype();
    if (!xla::lowerable(kind, d)) {
      EXPECT_TRUE(throws_with<UnimplementedError>([&] { pjrt->run_compiled(p, s.inputs); },
                                                  {op_name(kind), "no StableHLO lowering"}))
          << s;
      ++refused;
      continue;
    }
    if (const char* why = known_difference(s)) {
      std::cout << "skipped (" << why << "): " << s << "\n";
      continue;
    }
    std::vector<Tensor> want = cpu_runtime().run_compiled(p, s.inputs);
    std::vector<Tensor> got;
    try {
      got = pjrt->run_compiled(p, s.inputs);
    } catch (const Error& e) {
      ADD_FAILURE() << s << "\n" << e.what() << "\n" << xla::to_stablehlo(p, s.inputs);
      continue;
    }
    EXPECT_TRUE(same_results(got, want, tolerance_scale(kind))) << s << "\n" << p.to_text();
    ++ran;
  }
  RecordProperty("ran", ran);
  RecordProperty("refused", refused);
}

std::vector<OpKind> all_ops() {
  std::vector<OpKind> v;
  for (int k = 0; k < kNumOps; ++k) v.push_back(static_cast<OpKind>(k));
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllOps, XlaOps, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<OpKind>& info) { return std::string(op_name(info.param)); });

}  // namespace

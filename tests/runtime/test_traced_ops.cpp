// Every op-database sample traced and run through a compiled program gives
// exactly the eager result (convention: eager vs traced on one op database).
#include "support/op_db.hpp"
#include "support/test_support.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

class TracedVsEager : public ::testing::TestWithParam<OpKind> {};

// Traces one sample with program inputs for the operands (constant or
// symbolic extents), compiles with all passes and compares with ops::call.
void check(const OpSample& s, bool symbolic, Runtime& rt, CpuBackend& backend) {
  std::vector<Value> in;
  std::vector<Tensor> feed;
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    const Tensor& t = s.inputs[i];
    SymShape shape;
    for (std::size_t d = 0; d < t.shape().size(); ++d) {
      // Index operands keep constant extents (their length is part of the op's attributes).
      bool index_operand =
          ((s.kind == OpKind::gather || s.kind == OpKind::scatter || s.kind == OpKind::dynamic_slice) && i == 1) ||
          (s.kind == OpKind::dynamic_update_slice && i == 2);
      shape.push_back(symbolic && !index_operand ? Dim(detail::str("d", i, "_", d)) : Dim(t.shape()[d]));
    }
    in.push_back(graph::input(detail::str("in", i), t.dtype(), shape));
    feed.push_back(t);
  }
  Tensor want = ops::call(s.kind, s.attrs, s.inputs, backend);
  Value out;
  try {
    out = graph::apply(s.kind, to_symbolic(s.attrs), in);
  } catch (const UnimplementedError&) {
    if (symbolic) return;  // e.g. a stride-2 slice over a symbolic extent
    throw;
  }
  Program p = GraphCompiler().compile(TracedTensor(out));
  Tensor got = rt.run_compiled(p, feed)[0];
  EXPECT_TRUE(tensors_equal(got, want)) << s << (symbolic ? " (symbolic extents)" : "") << "\n" << p.to_text();
}

}  // namespace

TEST_P(TracedVsEager, SameResults) {
  CpuBackend backend;
  auto rt = Runtime::builder().register_engine(cpu_engine(backend)).build();
  for (const OpSample& s : op_samples(GetParam())) {
    check(s, false, rt, backend);
    check(s, true, rt, backend);
  }
}

std::vector<OpKind> all_ops() {
  std::vector<OpKind> v;
  for (int k = 0; k < kNumOps; ++k) v.push_back(static_cast<OpKind>(k));
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllOps, TracedVsEager, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<OpKind>& info) { return std::string(op_name(info.param)); });

// Every op-database sample of every lowerable primitive runs through the
// PJRT plugin and equals the CPU runtime's result (exact for integers and
// bool, 64 eps for floats, more for the CHLO special functions and long
// sums). The samples of one op are traced into one program (an input per
// operand, an output per sample), so the plugin compiles once per op.
// Primitives without a lowering must be refused, naming the op.
#include <cmath>

#include "support/op_db.hpp"
#include "xla_test_util.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// Samples where the plugin's definition differs from ours; each is skipped
// and printed (docs/xla.md, "Known differences").
const char* known_difference(const OpSample& s) {
  if ((s.kind == OpKind::digamma || s.kind == OpKind::polygamma) && s.note.find("edge") != std::string::npos)
    return "CHLO's digamma/polygamma give NaN where ours gives -inf or a limit at the poles and infinities";
  return nullptr;
}

// XLA's CPU code runs with subnormals flushed to zero (FTZ/DAZ): inputs
// are given to both runtimes with their subnormals flushed to +-0
// (docs/xla.md). The tolerance's absolute part covers flushed results.
Tensor flush_subnormals(const Tensor& t) {
  if (!is_float(t.dtype()) || t.numel() == 0) return t;
  Tensor c = t.duplicate();
  auto flush = [&]<class R>(R* p, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i)
      if (std::fpclassify(p[i]) == FP_SUBNORMAL) p[i] = std::copysign(R(0), p[i]);
  };
  const std::int64_t n = c.numel() * (is_complex(c.dtype()) ? 2 : 1);
  if (real_dtype(c.dtype()) == DType::f32) flush(static_cast<float*>(c.data_ptr()), n);
  else flush(static_cast<double*>(c.data_ptr()), n);
  return c;
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
  std::vector<TracedTensor> outs;
  std::vector<Tensor> feed;
  std::vector<const OpSample*> ran;
  const std::vector<OpSample> samples = op_samples(kind);
  int refused = 0, skipped = 0;
  for (const OpSample* sample : swept(samples)) {
    const OpSample& s = *sample;
    const DType d = s.inputs.front().dtype();
    std::vector<Value> in;
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
      in.push_back(graph::input(detail::str("s", ran.size(), "_in", i, "_", refused), s.inputs[i].dtype(),
                                to_sym_shape(s.inputs[i].shape())));
      inputs.push_back(flush_subnormals(s.inputs[i]));
    }
    Value out = graph::apply(s.kind, to_symbolic(s.attrs), in);
    if (!xla::lowerable(kind, d)) {
      Program p = GraphCompiler().compile(TracedTensor(out));
      EXPECT_TRUE(throws_with<UnimplementedError>([&] { pjrt->run_compiled(p, inputs); },
                                                  {op_name(kind), "no StableHLO lowering"}))
          << s;
      ++refused;
      continue;
    }
    if (const char* why = known_difference(s)) {
      std::cout << "skipped (" << why << "): " << s << "\n";
      ++skipped;
      continue;
    }
    outs.push_back(TracedTensor(out));
    for (auto& t : inputs) feed.push_back(t);
    ran.push_back(&s);
  }
  if (!outs.empty()) {
    Program p = GraphCompiler().compile(outs);
    std::vector<Tensor> want = cpu_runtime().run_compiled(p, feed);
    std::vector<Tensor> got;
    try {
      got = pjrt->run_compiled(p, feed);
    } catch (const Error& e) {
      FAIL() << e.what() << "\n" << xla::to_stablehlo(p, feed);
    }
    ASSERT_EQ(got.size(), ran.size());
    for (std::size_t k = 0; k < ran.size(); ++k)
      EXPECT_TRUE(same_results({got[k]}, {want[k]}, tolerance_scale(kind))) << *ran[k];
  }
  std::cout << op_name(kind) << ": " << ran.size() << " samples equal, " << refused << " refused, " << skipped
            << " skipped\n";
  RecordProperty("ran", static_cast<int>(ran.size()));
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

// Checkpointing (tenferro::checkpoint): gradients with and without it agree,
// the compiled gradient keeps fewer bytes alive at once, common-subexpression
// elimination does not merge the recomputation back, and misuse is an error.
#include <cmath>
#include <string>

#include "ad_check.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

constexpr std::int64_t kWidth = 16, kBatch = 8, kSteps = 64;

// Inputs of the deep tanh-MLP: x [width, batch], w [width, width].
RunInputs mlp_inputs() {
  Tensor w = Tensor::uniform({kWidth, kWidth}, DType::f64, 7, -0.3, 0.3);
  Tensor x = random_tensor({kWidth, kBatch}, DType::f64, 8);
  return {{"x", x}, {"w", w}};
}

// loss = sum(h_64), h_{k+1} = tanh(w h_k) with h_0 = x, checkpointed in
// segments of `segment` steps (0: no checkpoint). w is captured by the
// checkpointed function, x flows through its explicit input.
TracedTensor mlp_loss(const TracedTensor& x, const TracedTensor& w, int segment) {
  auto step = [&](const TracedTensor& h) { return tanh(matmul(w, h)); };
  TracedTensor h = x;
  if (segment == 0) {
    for (int k = 0; k < kSteps; ++k) h = step(h);
  } else {
    for (int s = 0; s < kSteps / segment; ++s)
      h = checkpoint(
          [&](const TracedTensor& v) {
            TracedTensor u = v;
            for (int k = 0; k < segment; ++k) u = step(u);
            return u;
          },
          h);
  }
  return h.sum();
}

struct Compiled {
  Program program;
  std::vector<Tensor> grads;
};

// Gradients of the loss with respect to x and w, or x alone.
Compiled mlp_grad(int segment, CompileOptions options = {}, bool with_w = true,
                  bool w_first = false) {
  auto x = TracedTensor::input("x", DType::f64, {Dim(kWidth), Dim(kBatch)});
  auto w = TracedTensor::input("w", DType::f64, {Dim(kWidth), Dim(kWidth)});
  std::vector<TracedTensor> wrt{x};
  if (with_w) wrt.insert(w_first ? wrt.begin() : wrt.end(), w);
  std::vector<TracedTensor> g = grad(mlp_loss(x, w, segment), wrt);
  Compiled c{GraphCompiler(options).compile(g), {}};
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  c.grads = rt.run_compiled(c.program, mlp_inputs());
  return c;
}

int count_op(const Program& p, const std::string& name) {
  int n = 0;
  for (const Instruction& ins : p.code)
    if (ins.name() == name) ++n;
  return n;
}

std::vector<Tensor> run(const std::vector<TracedTensor>& outs, const RunInputs& in = {}) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  return rt.run_compiled(GraphCompiler().compile(outs), in);
}

}  // namespace

TEST(Checkpoint, DeepChainGradientsEqual) {
  Compiled plain = mlp_grad(0), ckpt = mlp_grad(8);
  // dx: the same operations in the same order, recomputed: bit for bit.
  EXPECT_EQ(ckpt.grads[0].to_vec_col_major<double>(), plain.grads[0].to_vec_col_major<double>());
  // dw sums 64 per-step terms; the checkpointed sweep adds them per segment
  // first, so the rounding may differ in the last bits.
  std::vector<double> a = ckpt.grads[1].to_vec_col_major<double>(),
                      b = plain.grads[1].to_vec_col_major<double>();
  ASSERT_EQ(a.size(), b.size());
  double scale = 0;
  for (double v : b) scale = std::max(scale, std::abs(v));
  ASSERT_GT(scale, 0);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-13 * scale) << i;
}

TEST(Checkpoint, DeepChainPeakLiveBytes) {
  // Memory of the gradient with respect to x: without checkpoints the
  // backward pass needs all 64 activations; with 8 checkpoints of 8 steps,
  // the 8 segment boundaries and one segment's recomputation.
  Compiled plain = mlp_grad(0, {}, false), ckpt = mlp_grad(8, {}, false);
  EXPECT_EQ(ckpt.grads[0].to_vec_col_major<double>(), plain.grads[0].to_vec_col_major<double>());
  const std::int64_t act = kWidth * kBatch * 8;          // bytes of one activation
  const std::int64_t fixed = (kWidth * kWidth * 2) * 8;  // w and its barriered copy
  std::int64_t plain_peak = peak_live_bytes(plain.program).value();
  std::int64_t ckpt_peak = peak_live_bytes(ckpt.program).value();
  EXPECT_GE(plain_peak, kSteps * act);
  EXPECT_LE(ckpt_peak, fixed + (8 + 8 + 4) * act);
  EXPECT_LT(3 * ckpt_peak, plain_peak);
}

TEST(Checkpoint, DeepChainPeakLiveBytesWithTheParameterGradient) {
  // grad(loss, {w, x}) and grad(loss, {x, w}): dw sums one term per step;
  // those terms are added as they are produced (Note [Fusion and liveness]
  // in src/runtime/compiler.cpp), and dw, which reaches every step, is
  // lowered before dx whatever the order given (Note [Output order]), so
  // checkpoints shrink these programs too.
  for (bool w_first : {true, false}) {
    Compiled plain = mlp_grad(0, {}, true, w_first), ckpt = mlp_grad(8, {}, true, w_first);
    const std::size_t dx = w_first ? 1 : 0;
    EXPECT_EQ(ckpt.grads[dx].to_vec_col_major<double>(),
              plain.grads[dx].to_vec_col_major<double>());
    const std::int64_t act = kWidth * kBatch * 8;
    EXPECT_GE(peak_live_bytes(plain.program).value(), kSteps * act) << w_first;
    EXPECT_LT(3 * peak_live_bytes(ckpt.program).value(), peak_live_bytes(plain.program).value())
        << w_first;
  }
}

TEST(Checkpoint, CseKeepsTheRecomputationApart) {
  // Without fusion every step is one tanh instruction. Forward: segments
  // 1..7 run to produce the last segment's input (the last segment's own
  // forward values are needed by nothing: loss = sum(h) has cotangent 1);
  // backward: all 8 segments recomputed. CSE merging the copies into the
  // forward would leave 64.
  CompileOptions no_fusion;
  no_fusion.fusion = false;
  Compiled plain = mlp_grad(0, no_fusion), ckpt = mlp_grad(8, no_fusion);
  EXPECT_EQ(count_op(plain.program, "tanh"), kSteps);
  EXPECT_EQ(count_op(ckpt.program, "tanh"), (kSteps - 8) + kSteps);
  EXPECT_EQ(ckpt.grads[0].to_vec_col_major<double>(), plain.grads[0].to_vec_col_major<double>());
  // CSE off: the same gradients.
  CompileOptions no_cse = no_fusion;
  no_cse.cse = false;
  Compiled raw = mlp_grad(8, no_cse);
  EXPECT_EQ(raw.grads[0].to_vec_col_major<double>(), ckpt.grads[0].to_vec_col_major<double>());
}

TEST(Checkpoint, SeveralOutputsCapturesAndFiniteDifferences) {
  // f(a, b) = (sin(a) * b, a passed through, exp(c * b)) with c captured.
  auto a = TracedTensor::input("a", DType::f64, {Dim(3)});
  auto b = TracedTensor::input("b", DType::f64, {Dim(3)});
  auto c = TracedTensor::input("c", DType::f64, {Dim(3)});
  auto loss_of = [&](bool use) {
    auto f = [&](const std::vector<TracedTensor>& v) {
      return std::vector<TracedTensor>{v[0].sin() * v[1], v[0], (c * v[1]).exp()};
    };
    std::vector<TracedTensor> o = use ? checkpoint(f, {a, b}) : f({a, b});
    return (o[0] * o[1]).sum() + (o[2] * o[0]).sum() + o[0].sum();
  };
  std::vector<std::vector<double>> vals{{0.3, -1.2, 2.0}, {1.5, 0.4, -0.7}, {0.2, -0.5, 0.9}};
  const char* names[] = {"a", "b", "c"};
  auto inputs = [&](const std::vector<std::vector<double>>& v) {
    std::vector<std::pair<std::string, Tensor>> named;
    for (int i = 0; i < 3; ++i)
      named.push_back(
          {names[i], Tensor::from_vec_col_major<double>({3}, v[static_cast<std::size_t>(i)])});
    return RunInputs(named);
  };
  auto with = run(grad(loss_of(true), {a, b, c}), inputs(vals));
  auto without = run(grad(loss_of(false), {a, b, c}), inputs(vals));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(with[static_cast<std::size_t>(i)].to_vec_col_major<double>(),
              without[static_cast<std::size_t>(i)].to_vec_col_major<double>())
        << i;
  // Central differences of the loss itself.
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  Program lp = GraphCompiler().compile(loss_of(true));
  auto loss_at = [&](const std::vector<std::vector<double>>& v) {
    return rt.run_compiled(lp, inputs(v))[0].item().to<double>();
  };
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      const double h = 1e-6;
      auto plus = vals, minus = vals;
      plus[i][j] += h;
      minus[i][j] -= h;
      double fd = (loss_at(plus) - loss_at(minus)) / (2 * h);
      EXPECT_NEAR(with[i].at<double>({static_cast<std::int64_t>(j)}), fd, 1e-7) << names[i] << j;
    }
}

TEST(Checkpoint, HvpAndForwardModeThroughACheckpoint) {
  auto x = TracedTensor::input("x", DType::f64, {Dim(4)});
  auto v = TracedTensor::input("v", DType::f64, {Dim(4)});
  auto body = [](const TracedTensor& u) { return (u.sin() * u).exp(); };
  auto y_ck = checkpoint(body, x).sum(), y = body(x).sum();
  RunInputs in{{"x", Tensor::from_vec_col_major<double>({4}, {0.1, -0.4, 0.8, 1.3})},
               {"v", Tensor::from_vec_col_major<double>({4}, {1.0, 0.5, -2.0, 0.25})}};
  auto a = run({y_ck, hvp(y_ck, x, v), jvp(y_ck, x, v), grad(grad(y_ck, x).sum(), x)}, in);
  auto b = run({y, hvp(y, x, v), jvp(y, x, v), grad(grad(y, x).sum(), x)}, in);
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::vector<double> p = a[i].to_vec_col_major<double>(), q = b[i].to_vec_col_major<double>();
    ASSERT_EQ(p.size(), q.size());
    for (std::size_t j = 0; j < p.size(); ++j)
      EXPECT_NEAR(p[j], q[j], 1e-13 * (1 + std::abs(q[j]))) << i << "," << j;
  }
}

TEST(Checkpoint, BadInputAndLeakedValues) {
  auto x = TracedTensor::input("x", DType::f64, {Dim(3)});
  EXPECT_THROW(checkpoint(TracedFunction{}, {x}), ValueError);
  EXPECT_THROW(checkpoint([](const std::vector<TracedTensor>& v) { return v; }, {TracedTensor{}}),
               ValueError);
  EXPECT_THROW(checkpoint(
                   [](const std::vector<TracedTensor>&) {
                     return std::vector<TracedTensor>{TracedTensor{}};
                   },
                   {x}),
               ValueError);
  // A value computed inside but used outside without being returned.
  TracedTensor leaked;
  auto y = checkpoint(
      [&](const TracedTensor& u) {
        leaked = u.sin();
        return leaked * 2.0;
      },
      x);
  auto loss = (y + leaked).sum();
  try {
    grad(loss, x);
    ADD_FAILURE() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("checkpointed function"), std::string::npos) << e.what();
  }
  // The traced values themselves are fine, and so is forward mode.
  auto t = TracedTensor::input("t", DType::f64, {Dim(3)});
  RunInputs in{{"x", Tensor::from_vec_col_major<double>({3}, {1, 2, 3})},
               {"t", Tensor::from_vec_col_major<double>({3}, {1, 0, 0})}};
  auto out = run({loss, jvp(loss, x, t)}, in);
  EXPECT_NEAR(out[0].item().to<double>(), 3 * (std::sin(1.0) + std::sin(2.0) + std::sin(3.0)),
              1e-14);
  EXPECT_NEAR(out[1].item().to<double>(), 3 * std::cos(1.0), 1e-14);
}

TEST(Checkpoint, PeakLiveBytesCountsTheSchedule) {
  // x -> a = x*x -> b = a+x -> out = b*b : a dies at b, b at out, written in
  // place when buffer reuse is on.
  auto x = TracedTensor::input("x", DType::f64, {Dim(10)});
  auto a = x * x;
  auto out = (a + x) * (a + x);
  GraphCompiler plain({.fusion = false});
  Program p = plain.compile(out);
  // x (80 bytes) is pinned; a, then b = a + x (in place into a), then out = b*b
  // (b read twice, not in place): x + a + out = 240.
  EXPECT_EQ(peak_live_bytes(p).value(), 240);
  GraphCompiler no_reuse({.fusion = false, .buffer_reuse = false});
  EXPECT_EQ(peak_live_bytes(no_reuse.compile(out)).value(), 80 * 4);
  auto n = TracedTensor::input("n", DType::f64, {Dim("n")});
  EXPECT_FALSE(peak_live_bytes(GraphCompiler().compile(n * n)).has_value());
}

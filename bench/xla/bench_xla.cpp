// The same compiled programs through tenferro's Runtime (CPU engine) and
// through the PJRT CPU plugin ($TENFERRO_PJRT_PLUGIN), in one run, same
// inputs: a fused elementwise chain, a matmul chain and two einsum networks
// of tests/data/instances. Prints the median wall time of each and the
// ratio PJRT / ours (< 1: PJRT is faster). Run pinned to one core:
//
//   export TENFERRO_PJRT_PLUGIN=.deps/xla_cpu_pjrt/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so
//   OMP_NUM_THREADS=1 taskset -c 0 build/bench/xla/bench_xla
//
// The PJRT time includes uploading the inputs and downloading the results
// (host tensors in, host tensors out, as run_compiled returns them); its
// compilation happens in the warm-up run and is reported separately.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "../../tests/einsum/instances.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/runtime.hpp"
#include "tenferro/xla.hpp"

using namespace tenferro;

namespace {

double seconds(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median_time(const std::function<void()>& f, int reps) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(seconds(f));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Case {
  std::string name;
  Program program;
  RunInputs inputs;
};

}  // namespace

int main() {
  auto pjrt = xla::PjrtRuntime::from_env();
  CpuBackend cpu;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  std::vector<Case> cases;
  {
    auto x = TracedTensor::input("x", DType::f64, {Dim(1024), Dim(1024)});
    TracedTensor y = tanh(x) * 2.0 + exp(-(x * x)) - sin(x) * 0.5;
    cases.push_back({"elementwise chain f64[1024, 1024] (4 ops fused)", GraphCompiler().compile(y),
                     RunInputs{{"x", Tensor::normal({1024, 1024}, DType::f64, 1)}}});
  }
  {
    auto a = TracedTensor::input("a", DType::f64, {Dim(512), Dim(512)});
    auto b = TracedTensor::input("b", DType::f64, {Dim(512), Dim(512)});
    auto c = TracedTensor::input("c", DType::f64, {Dim(512), Dim(512)});
    TracedTensor y = matmul(matmul(matmul(a, b), c), a);
    cases.push_back({"matmul chain 3 x f64[512, 512]", GraphCompiler().compile(y),
                     RunInputs{{"a", Tensor::normal({512, 512}, DType::f64, 2)},
                               {"b", Tensor::normal({512, 512}, DType::f64, 3)},
                               {"c", Tensor::normal({512, 512}, DType::f64, 4)}}});
  }
  for (const auto& inst : testing::load_instances(TENFERRO_INSTANCES_DIR)) {
    if (inst.name != "lm_batch_likelihood_sentence_4_4d" && inst.name != "str_matrix_chain_multiplication_100")
      continue;
    std::vector<TracedTensor> ops;
    std::vector<std::pair<std::string, Tensor>> named;
    for (std::size_t k = 0; k < inst.shapes.size(); ++k) {
      Tensor t = testing::instance_operand(inst, k);
      named.emplace_back("t" + std::to_string(k), t);
      ops.push_back(TracedTensor::input(named.back().first, DType::f64, to_sym_shape(t.shape())));
    }
    cases.push_back({"einsum " + inst.name, GraphCompiler().compile(einsum(inst.subscripts, ops)), RunInputs(named)});
  }
  std::printf("%-52s %12s %12s %12s %8s\n", "program", "ours [ms]", "PJRT [ms]", "compile [s]", "PJRT/ours");
  for (const Case& c : cases) {
    double compile = seconds([&] { pjrt.run_compiled(c.program, c.inputs); });
    rt.run_compiled(c.program, c.inputs);
    // About a second per side, at least 5 runs.
    double one = seconds([&] { rt.run_compiled(c.program, c.inputs); });
    int reps = std::max(5, static_cast<int>(1.0 / std::max(one, 1e-4)));
    reps = std::min(reps, 200);
    double ours = median_time([&] { rt.run_compiled(c.program, c.inputs); }, reps);
    double theirs = median_time([&] { pjrt.run_compiled(c.program, c.inputs); }, reps);
    std::printf("%-52s %12.3f %12.3f %12.2f %8.2f\n", c.name.c_str(), ours * 1e3, theirs * 1e3, compile,
                theirs / ours);
  }
  return 0;
}

// Traced versus eager einsum on instances of tests/data/instances/,
// one thread, the same contraction path (the file's opt_flops path) in
// both modes:
//   <instance>/eager   einsum(spec, tensors, cpu, {.path}, &cache): the plan
//                      comes from the cache, intermediates from its pool;
//   <instance>/traced  the same einsum traced on TracedTensor inputs,
//                      compiled once (all GraphCompiler passes), then
//                      Runtime::run_compiled per iteration.
// Planning and compilation are outside the timed loops (reported as
// counters). Each mode's result is checked against the other once.
//
//   bench_einsum_traced [--instances=a,b,...] [google benchmark flags]
//   e.g. --benchmark_repetitions=15 --benchmark_enable_random_interleaving=true
//        --benchmark_out=traced.json --benchmark_out_format=json
//   and bench/einsum/traced_vs_eager.py traced.json for medians and ratios.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>

#include "../../tests/einsum/instances.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// Default selection: the n-ary matmul chain plus einsum instances of
// different character (batched GEMM, a long MPS ladder, two tree-like
// language-model networks, a 100-matrix chain, and a 415-tensor network of
// many Hadamard/outer steps).
const char* kDefaultInstances =
    "nary_matmul_chain_64,bin_batched_matmul_b32_m64_n64_k64,str_mps_varying_inner_product_200,"
    "lm_batch_likelihood_sentence_4_4d,lm_batch_likelihood_brackets_4_4d,str_matrix_chain_multiplication_100,"
    "tensornetwork_permutation_light_415";

struct Operands {
  std::vector<Tensor> tensors;
};

std::shared_ptr<Operands> operands_of(const EinsumInstance& inst) {
  auto ops = std::make_shared<Operands>();
  for (std::size_t k = 0; k < inst.shapes.size(); ++k) ops->tensors.push_back(instance_operand(inst, k));
  return ops;
}

double max_abs(const Tensor& t) {
  const Tensor c = t.contiguous();  // kept alive while its data is read
  double m = 0;
  for (double x : c.host_data<double>()) m = std::max(m, std::abs(x));
  return m;
}

void bench_eager(benchmark::State& state, const EinsumInstance& inst, const std::shared_ptr<Operands>& ops) {
  CpuBackend cpu;
  EinsumCache cache;
  const PathOptions opts{.path = inst.opt_flops};
  Tensor warm = einsum(inst.spec, ops->tensors, cpu, opts, &cache);  // plans, first touch of pages
  benchmark::DoNotOptimize(warm.data_ptr());
  warm = Tensor();
  for (auto _ : state) {
    Tensor r = einsum(inst.spec, ops->tensors, cpu, opts, &cache);
    benchmark::DoNotOptimize(r.data_ptr());
  }
  auto plan = cache.plan(inst.spec, inst.shapes, std::vector<DType>(inst.shapes.size(), DType::f64), opts);
  state.counters["log10_flops"] = std::log10(plan->path().cost.flops);
}

void bench_traced(benchmark::State& state, const EinsumInstance& inst, const std::shared_ptr<Operands>& ops) {
  CpuBackend cpu;
  const PathOptions opts{.path = inst.opt_flops};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<TracedTensor> in;
  for (std::size_t k = 0; k < inst.shapes.size(); ++k)
    in.push_back(TracedTensor::input("x" + std::to_string(k), DType::f64, to_sym_shape(inst.shapes[k])));
  TracedTensor y = einsum(inst.spec, in, opts);
  const auto t1 = std::chrono::steady_clock::now();
  Program p = GraphCompiler().compile(y);
  const auto t2 = std::chrono::steady_clock::now();
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  // Positional inputs in the program's order.
  std::vector<Tensor> bound;
  for (const ProgramInput& pi : p.inputs)
    bound.push_back(ops->tensors[static_cast<std::size_t>(std::stoul(pi.name.substr(1)))]);
  const RunInputs inputs(bound);
  Tensor warm = rt.run_compiled(p, inputs)[0];  // run plan, first touch of pages
  {
    EinsumCache cache;
    Tensor e = einsum(inst.spec, ops->tensors, cpu, opts, &cache);
    const double diff = max_abs(sub(warm, e, cpu));
    state.counters["rel_diff_vs_eager"] = diff / std::max(max_abs(e), 1e-300);
    if (!(diff <= 1e-8 * std::max(max_abs(e), 1e-300))) state.SkipWithError("traced result differs from eager");
  }
  warm = Tensor();
  for (auto _ : state) {
    std::vector<Tensor> r = rt.run_compiled(p, inputs);
    benchmark::DoNotOptimize(r[0].data_ptr());
  }
  state.counters["trace_ms"] = std::chrono::duration<double, std::milli>(t1 - t0).count();
  state.counters["compile_ms"] = std::chrono::duration<double, std::milli>(t2 - t1).count();
  state.counters["instructions"] = static_cast<double>(p.code.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::string selection = kDefaultInstances;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--instances=", 12) == 0) selection = argv[i] + 12;
    else rest.push_back(argv[i]);
  }
  set_num_threads(1);
  static std::vector<EinsumInstance> all = load_instances(TENFERRO_INSTANCES_DIR);
  std::stringstream ss(selection);
  std::string name;
  while (std::getline(ss, name, ',')) {
    const EinsumInstance* inst = nullptr;
    for (const EinsumInstance& i : all)
      if (i.name == name) inst = &i;
    if (inst == nullptr) {
      std::cerr << "bench_einsum_traced: no einsum instance named '" << name << "' in " << TENFERRO_INSTANCES_DIR
                << "\n";
      return 2;
    }
    auto ops = std::make_shared<std::shared_ptr<Operands>>();  // generated on first use
    auto get = [inst, ops]() {
      if (!*ops) *ops = operands_of(*inst);
      return *ops;
    };
    benchmark::RegisterBenchmark((name + "/eager").c_str(), [inst, get](benchmark::State& st) {
      bench_eager(st, *inst, get());
    })->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark((name + "/traced").c_str(), [inst, get](benchmark::State& st) {
      bench_traced(st, *inst, get());
    })->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

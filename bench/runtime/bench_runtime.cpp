// Traced-runtime benchmarks (issue 5): per-instruction run overhead of a
// 100-op elementwise program on 2x2 f64 (fused and unfused) against eager
// execution, and elementwise fusion on 2048x2048 f64. bench/runtime/run.py
// adds jax.jit and PyTorch eager on the same chain and prints the tables.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "tenferro/cpu.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;

namespace {

constexpr int kChain = 100;

// The 100-op chain (the same in every mode and in the peer script):
// x -> x*1.0001, +0.5, sin, *x ... cycling through four ops.
template <class Step>
void chain(Step&& step) {
  for (int i = 0; i < kChain; ++i) step(i % 4);
}

TracedTensor traced_chain(TracedTensor x) {
  TracedTensor y = x;
  chain([&](int k) {
    switch (k) {
      case 0: y = y * 1.0001; break;
      case 1: y = y + 0.5; break;
      case 2: y = y.sin(); break;
      default: y = y * x; break;
    }
  });
  return y;
}

void BM_traced_chain(benchmark::State& st, bool fusion) {
  CpuBackend cpu(1);
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  auto x = TracedTensor::input("x", DType::f64, {Dim(2), Dim(2)});
  Program p = GraphCompiler({.fusion = fusion}).compile(traced_chain(x));
  Tensor xv = Tensor::uniform({2, 2}, DType::f64, 1);
  RunInputs in(std::vector<Tensor>{xv});
  for (auto _ : st) {
    auto out = rt.run_compiled(p, in);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
  st.counters["instructions"] = static_cast<double>(p.code.size());
  st.counters["ns_per_op"] =
      benchmark::Counter(static_cast<double>(kChain), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_eager_chain(benchmark::State& st) {
  CpuBackend cpu(1);
  Tensor x = Tensor::uniform({2, 2}, DType::f64, 1);
  for (auto _ : st) {
    Tensor y = x;
    chain([&](int k) {
      switch (k) {
        case 0: y = mul(y, Scalar(1.0001), cpu); break;
        case 1: y = add(y, Scalar(0.5), cpu); break;
        case 2: y = ops::sin(y, cpu); break;
        default: y = ops::multiply(y, x, cpu); break;
      }
    });
    benchmark::DoNotOptimize(y.data_ptr());
  }
  st.counters["ns_per_op"] =
      benchmark::Counter(static_cast<double>(kChain), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_eager_tensor_chain(benchmark::State& st) {
  CpuBackend cpu(1);
  EagerRuntime rt(cpu);
  EagerTensor x = rt.tensor(Tensor::uniform({2, 2}, DType::f64, 1));
  for (auto _ : st) {
    EagerTensor y = x;
    chain([&](int k) {
      switch (k) {
        case 0: y = y * 1.0001; break;
        case 1: y = y + 0.5; break;
        case 2: y = y.sin(); break;
        default: y = y * x; break;
      }
    });
    benchmark::DoNotOptimize(y.value().data_ptr());
  }
  st.counters["ns_per_op"] =
      benchmark::Counter(static_cast<double>(kChain), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// exp(a) * b + c on 2048 x 2048 f64: one pass over the data fused, three unfused.
void BM_fusion(benchmark::State& st, bool fusion) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  SymShape s{Dim(2048), Dim(2048)};
  auto a = TracedTensor::input("a", DType::f64, s), b = TracedTensor::input("b", DType::f64, s),
       c = TracedTensor::input("c", DType::f64, s);
  Program p = GraphCompiler({.fusion = fusion}).compile(a.exp() * b + c);
  RunInputs in(std::vector<Tensor>{Tensor::uniform({2048, 2048}, DType::f64, 1), Tensor::uniform({2048, 2048}, DType::f64, 2),
                                   Tensor::uniform({2048, 2048}, DType::f64, 3)});
  rt.run_compiled(p, in);
  for (auto _ : st) {
    auto out = rt.run_compiled(p, in);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* t = std::getenv("TENFERRO_NUM_THREADS")) set_num_threads(std::atoi(t));
  benchmark::RegisterBenchmark("chain100_2x2/traced_fused", BM_traced_chain, true);
  benchmark::RegisterBenchmark("chain100_2x2/traced_unfused", BM_traced_chain, false);
  benchmark::RegisterBenchmark("chain100_2x2/eager_tensor_ops", BM_eager_chain);
  benchmark::RegisterBenchmark("chain100_2x2/eager_runtime", BM_eager_tensor_chain);
  benchmark::RegisterBenchmark("fusion_2048/fused", BM_fusion, true)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("fusion_2048/unfused", BM_fusion, false)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Rounding and special-function kernels (docs/special_functions.md): the
// run-time-dispatched vector rounding against a scalar std::floor loop
// compiled for baseline x86-64, and the cost per element of the special
// functions. One thread, 2^22 f64 elements (the kernels allocate their output).
//   build/bench/core/bench_elementwise_math --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/ops/primitives.hpp"

using namespace tenferro;

namespace {

constexpr std::int64_t kN = 1 << 22;

Tensor input(double lo, double hi) { return Tensor::uniform({kN}, DType::f64, 1, lo, hi); }

template <class F>
void run(benchmark::State& st, F f, double lo, double hi) {
  CpuBackend cpu(1);
  Tensor x = input(lo, hi);
  for (auto _ : st) {
    Tensor y = f(x, cpu);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  st.SetItemsProcessed(st.iterations() * kN);
}

void BM_floor(benchmark::State& st) { run(st, [](const Tensor& x, Backend& b) { return ops::floor(x, b); }, -100, 100); }
void BM_round_nearest_even(benchmark::State& st) {
  run(st, [](const Tensor& x, Backend& b) { return ops::round_nearest_even(x, b); }, -100, 100);
}
void BM_floor_scalar_loop(benchmark::State& st) {
  Tensor x = input(-100, 100);
  std::vector<double> xs = x.to_vec_col_major<double>(), ys(kN);
  for (auto _ : st) {
    for (std::int64_t i = 0; i < kN; ++i) ys[i] = std::floor(xs[i]);
    benchmark::DoNotOptimize(ys.data());
  }
  st.SetItemsProcessed(st.iterations() * kN);
}
void BM_erf(benchmark::State& st) { run(st, [](const Tensor& x, Backend& b) { return ops::erf(x, b); }, -5, 5); }
void BM_lgamma(benchmark::State& st) { run(st, [](const Tensor& x, Backend& b) { return ops::lgamma(x, b); }, 0.1, 50); }
void BM_digamma(benchmark::State& st) { run(st, [](const Tensor& x, Backend& b) { return ops::digamma(x, b); }, 0.1, 50); }
void BM_i0e(benchmark::State& st) { run(st, [](const Tensor& x, Backend& b) { return ops::i0e(x, b); }, -50, 50); }
void BM_ndtri(benchmark::State& st) { run(st, [](const Tensor& x, Backend& b) { return ops::ndtri(x, b); }, 0.001, 0.999); }

}  // namespace

BENCHMARK(BM_floor)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_round_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_floor_scalar_loop)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_erf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lgamma)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_digamma)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_i0e)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ndtri)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();

// Google Benchmark cases for tenferro::linalg (f64): svd, qr, eigh, solve
// (1, 16 and 64 right-hand sides) and matrix_exp on batches of small
// matrices (2x2 ... 8x8, batch 16 and 64) and on single matrices of 64 ...
// 512. Inputs come from a counter-based generator (splitmix64) that
// bench/linalg/peers.py reproduces exactly, so the peers see the same
// matrices. One thread unless TENFERRO_NUM_THREADS says otherwise.
//
//   build/bench/linalg/bench_linalg
//   python3 bench/linalg/peers.py --build build     # ours + PyTorch + JAX, ratio table
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "inputs.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/linalg.hpp"

namespace {

using namespace tenferro;

using bench_inputs::input_tensor;

Tensor general(std::int64_t n, std::int64_t batch) { return input_tensor(1, n, n, batch); }
// (a + a^T) / 2, for eigh.
Tensor symmetric(std::int64_t n, std::int64_t batch) {
  Tensor a = general(n, batch);
  Tensor s = Tensor::empty(a.shape(), DType::f64);
  const std::int64_t count = batch > 0 ? batch : 1;
  const double* pa = a.data<double>();
  double* ps = s.data<double>();
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i)
        ps[b * n * n + i + j * n] = 0.5 * (pa[b * n * n + i + j * n] + pa[b * n * n + j + i * n]);
  return s;
}
// a + n I, well conditioned, for solve.
Tensor shifted(std::int64_t n, std::int64_t batch) {
  Tensor a = general(n, batch);
  const std::int64_t count = batch > 0 ? batch : 1;
  double* p = a.data<double>();
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t i = 0; i < n; ++i) p[b * n * n + i + i * n] += static_cast<double>(n);
  return a;
}

CpuBackend& cpu() {
  static CpuBackend backend;
  return backend;
}

void set_counters(benchmark::State& state, std::int64_t batch) {
  state.counters["batch"] = static_cast<double>(batch);
}

void BM_svd(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = state.range(1);
  Tensor a = general(n, batch);
  for (auto _ : state) benchmark::DoNotOptimize(linalg::svd(a, cpu()));
  set_counters(state, batch);
}

void BM_qr(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = state.range(1);
  Tensor a = general(n, batch);
  for (auto _ : state) benchmark::DoNotOptimize(linalg::qr(a, cpu()));
  set_counters(state, batch);
}

void BM_eigh(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = state.range(1);
  Tensor a = symmetric(n, batch);
  for (auto _ : state) benchmark::DoNotOptimize(linalg::eigh(a, cpu()));
  set_counters(state, batch);
}

void BM_solve(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = state.range(1), nrhs = state.range(2);
  Tensor a = shifted(n, batch);
  Tensor b = input_tensor(2, n, nrhs, batch);
  for (auto _ : state) benchmark::DoNotOptimize(linalg::solve(a, b, cpu()));
  set_counters(state, batch);
}

void BM_matrix_exp(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = state.range(1);
  Tensor a = general(n, batch);
  for (auto _ : state) benchmark::DoNotOptimize(linalg::matrix_exp(a, cpu()));
  set_counters(state, batch);
}

// (n, batch): batches of small matrices, then single large ones (batch 0).
void small_and_large(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {2, 4, 8})
    for (std::int64_t batch : {16, 64}) b->Args({n, batch});
  for (std::int64_t n : {64, 128, 256, 512}) b->Args({n, 0});
  b->ArgNames({"n", "batch"});
}

void solve_cases(benchmark::internal::Benchmark* b) {
  for (std::int64_t nrhs : {1, 16, 64}) {
    for (std::int64_t n : {2, 4, 8})
      for (std::int64_t batch : {16, 64}) b->Args({n, batch, nrhs});
    for (std::int64_t n : {64, 128, 256, 512}) b->Args({n, 0, nrhs});
  }
  b->ArgNames({"n", "batch", "rhs"});
}

BENCHMARK(BM_svd)->Apply(small_and_large)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_qr)->Apply(small_and_large)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_eigh)->Apply(small_and_large)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_solve)->Apply(solve_cases)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matrix_exp)->Apply(small_and_large)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("TENFERRO_NUM_THREADS");
  tenferro::set_num_threads(env != nullptr ? std::atoi(env) : 1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// FFT benchmarks (issue 7): 1-D complex and real transforms of 2^10, 2^16,
// 2^20, 3^10 and 1000003 (prime) points, 2-D 1024 x 1024, and 64-point
// transforms of a [64, 4096] batch along axis 0, in f64 and f32, one thread.
//
//   ./bench_fft                 # ours alone
//   /usr/bin/python3 bench/fft/peers.py --bench ./bench_fft   # with NumPy, SciPy, torch
//
// "steady/..." times a call whose plan is cached; "first/..." times the first
// call of a shape (the plan cache is cleared before each timed call), i.e.
// planning plus one execution. Inputs are the hash values of
// tests/fft/gen_reference.py (same in peers.py), column-major.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/fft.hpp"

using namespace tenferro;

namespace {

// tests/fft/gen_reference.py's `values`: multiples of 1/1000 in [-1, 1].
Tensor hash_input(const Shape& shape, DType dtype) {
  const std::int64_t n = shape_numel(shape) * (is_complex(dtype) ? 2 : 1);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) {
    std::uint64_t h = (static_cast<std::uint64_t>(j) * 2654435761ull + 40503ull + 12345ull) & 0xFFFFFFFFull;
    h = ((h ^ (h >> 13)) * 1274126177ull) & 0xFFFFFFFFull;
    v[static_cast<std::size_t>(j)] = (static_cast<double>(h % 2001) - 1000.0) / 1000.0;
  }
  Tensor t = Tensor::empty(shape, dtype);
  visit_dtype<kFloatDTypes>(dtype, "bench", [&]<class T>() {
    auto d = t.host_data<T>();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if constexpr (is_complex_v<T>)
        d[i] = T(static_cast<real_t<T>>(v[2 * i]), static_cast<real_t<T>>(v[2 * i + 1]));
      else
        d[i] = static_cast<T>(v[i]);
    }
  });
  return t;
}

struct Case {
  std::string name;  // kind/dtype/shape, as peers.py spells it
  bool real;         // r2c (rfft, rfft2) instead of c2c (fft, fft2)
  DType dtype;       // real dtype of the data
  Shape shape;
  bool two_d;        // fft2/rfft2 over axes {0, 1}; else along axis 0
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (DType d : {DType::f64, DType::f32})
    for (bool real : {false, true}) {
      std::string kind = std::string(real ? "r2c" : "c2c") + "/" + dtype_name(d) + "/";
      for (std::int64_t n : {1024, 65536, 1048576, 59049, 1000003})
        out.push_back({kind + std::to_string(n), real, d, {n}, false});
      out.push_back({kind + "1024x1024", real, d, {1024, 1024}, true});
      out.push_back({kind + "64x4096", real, d, {64, 4096}, false});
    }
  return out;
}

Tensor run(const Case& c, const Tensor& x, Backend& b) {
  if (c.two_d) return c.real ? fft::rfft2(x, b) : fft::fft2(x, b);
  return c.real ? fft::rfft(x, b) : fft::fft(x, b);
}

void steady(benchmark::State& state, const Case& c) {
  CpuBackend cpu;
  Tensor x = hash_input(c.shape, c.real ? c.dtype : complex_dtype(c.dtype));
  benchmark::DoNotOptimize(run(c, x, cpu));  // plans
  for (auto _ : state) benchmark::DoNotOptimize(run(c, x, cpu));
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void first_call(benchmark::State& state, const Case& c) {
  CpuBackend cpu;
  Tensor x = hash_input(c.shape, c.real ? c.dtype : complex_dtype(c.dtype));
  for (auto _ : state) {
    state.PauseTiming();
    fft::clear_plan_cache();
    state.ResumeTiming();
    benchmark::DoNotOptimize(run(c, x, cpu));
  }
}

}  // namespace

int main(int argc, char** argv) {
  set_num_threads(1);
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("steady/" + c.name).c_str(), steady, c)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("first/" + c.name).c_str(), first_call, c)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime()
        ->Iterations(c.shape.size() == 1 && c.shape[0] >= 1000003 ? 3 : 10);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("fft_provider", std::string(fft::provider_name()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

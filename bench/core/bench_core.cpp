// Core benchmarks (issue 2): dot_general vs direct BLAS dgemm, permutation vs
// memcpy, and eager per-op overhead. Run through bench/core/run.py, which adds
// the PyTorch eager timings and prints the ratio tables.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "tenferro/cpu.hpp"

using namespace tenferro;

extern "C" void dgemm_(const char*, const char*, const int*, const int*, const int*,
                       const double*, const double*, const int*, const double*, const int*,
                       const double*, double*, const int*, std::size_t, std::size_t);

namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream f(std::string(TENFERRO_INSTANCES_DIR) + "/" + name);
  return nlohmann::json::parse(f);
}

// ---- dot_general on the GEMM-shaped instances ------------------------------------
// Column-major forms: matmul "ji,kj->ki" is C[k,i] = sum_j B[k,j] A[j,i];
// batched "jib,kjb->kib" is the same per batch b.
struct GemmCase {
  std::string name;
  std::int64_t m, n, k, batch;
};

std::vector<GemmCase> gemm_cases() {
  std::vector<GemmCase> out;
  for (const char* f : {"bin_matmul_256.json", "bin_matmul_1024.json",
                        "bin_batched_matmul_b32_m64_n64_k64.json",
                        "bin_batched_matmul_b32_m128_n128_k128.json"}) {
    auto j = load(f);
    auto s = j["shapes_colmajor"];
    // A = s[0] = [j, i(, b)], B = s[1] = [k, j(, b)]; C = B A is [k, i(, b)].
    std::int64_t kk = s[0][0], i = s[0][1], m = s[1][0];
    std::int64_t b = s[0].size() > 2 ? std::int64_t(s[0][2]) : 1;
    out.push_back({j["name"], m, i, kk, b});
  }
  return out;
}

void BM_dot_general(benchmark::State& st, GemmCase c) {
  CpuBackend cpu;
  Shape as{c.k, c.n}, bs{c.m, c.k};
  DotGeneralAttrs dims{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  if (c.batch > 1) {
    as.push_back(c.batch);
    bs.push_back(c.batch);
    dims.lhs_batching_dimensions = {2};
    dims.rhs_batching_dimensions = {2};
  }
  Tensor a = Tensor::uniform(as, DType::f64, 1), b = Tensor::uniform(bs, DType::f64, 2);
  const Tensor in[] = {b, a};
  TensorMeta om = infer(OpKind::dot_general, dims, std::vector<TensorMeta>{{DType::f64, bs}, {DType::f64, as}});
  Tensor out = cpu.empty_strided(DType::f64, om.shape, ops::preferred_strides(OpKind::dot_general, dims, om.shape));
  cpu.execute(OpKind::dot_general, dims, in, out);  // warm-up: touches the output
  for (auto _ : st) {
    cpu.execute(OpKind::dot_general, dims, in, out);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  st.counters["flops"] = benchmark::Counter(2.0 * c.m * c.n * c.k * c.batch, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_dgemm_direct(benchmark::State& st, GemmCase c) {
  std::vector<double> a(static_cast<std::size_t>(c.k * c.n * c.batch)), b(static_cast<std::size_t>(c.m * c.k * c.batch)),
      out(static_cast<std::size_t>(c.m * c.n * c.batch));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = double(i % 17) / 17.0;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = double(i % 13) / 13.0;
  int m = int(c.m), n = int(c.n), k = int(c.k);
  double one = 1, zero = 0;
  for (auto _ : st) {
    for (std::int64_t p = 0; p < c.batch; ++p)
      dgemm_("N", "N", &m, &n, &k, &one, b.data() + p * c.m * c.k, &m, a.data() + p * c.k * c.n, &k, &zero,
             out.data() + p * c.m * c.n, &m, 1, 1);
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["flops"] = benchmark::Counter(2.0 * c.m * c.n * c.k * c.batch, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- permutations vs memcpy ------------------------------------------------------
// Pattern semantics: out[i_0..i_k] = src[i_perm0..i_permk], i.e. src axis j is
// out axis perm[j]; out = src.permute(inverse(perm)) in tenferro's convention.
struct PermCase {
  std::string id;
  Shape shape;
  DimVec perm;
  Strides src_strides;  // empty: column-major
};

std::vector<PermCase> perm_cases() {
  std::vector<PermCase> out;
  auto j = load("permutation_patterns.json");
  for (auto& p : j["patterns"]) {
    PermCase c{p["id"], {}, {}, {}};
    for (auto e : p["shape"]) c.shape.push_back(e);
    for (auto e : p["perm"]) c.perm.push_back(e);
    if (p["src_layout"]["kind"] == "explicit_strides")
      for (auto e : p["src_layout"]["strides"]) c.src_strides.push_back(e);
    out.push_back(c);
  }
  return out;
}

void BM_permute(benchmark::State& st, PermCase c) {
  CpuBackend cpu;
  std::int64_t n = shape_numel(c.shape);
  Tensor buf = Tensor::uniform({n}, DType::f64, 3);
  Strides ss = c.src_strides.empty() ? col_major_strides(c.shape) : c.src_strides;
  Tensor src(buf.storage(), DType::f64, c.shape, ss, 0);
  DimVec inv(c.perm.size());
  for (std::size_t i = 0; i < c.perm.size(); ++i) inv[static_cast<std::size_t>(c.perm[i])] = std::int64_t(i);
  PermutationAttrs attrs{inv};
  Shape os;
  for (auto a : inv) os.push_back(c.shape[static_cast<std::size_t>(a)]);
  Tensor out = Tensor::zeros(os, DType::f64);  // touched: no page faults in the timed loop
  const Tensor in[] = {src};
  for (auto _ : st) {
    cpu.execute(OpKind::transpose, attrs, in, out);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  st.SetBytesProcessed(st.iterations() * n * 8);
}

// The memcpy baselines copy between tensors' buffers, so both sides of the
// ratio use the same memory (tenferro's allocator: 2 MiB-aligned, offered to
// transparent huge pages; Note [Huge pages] in src/tensor/core.cpp). On
// 4 KiB pages memcpy runs at about half the speed on a VM, which made the
// ratio look better than it is.
void BM_memcpy(benchmark::State& st, std::int64_t n) {
  Tensor a = Tensor::uniform({n}, DType::f64, 1), b = Tensor::zeros({n}, DType::f64);
  const double* pa = a.host_data<double>().data();
  double* pb = b.host_data<double>().data();
  for (auto _ : st) {
    std::memcpy(pb, pa, static_cast<std::size_t>(n) * 8);
    benchmark::DoNotOptimize(pb);
  }
  st.SetBytesProcessed(st.iterations() * n * 8);
}

// memcpy split over the configured threads (the bandwidth ceiling for the
// two-thread permutation runs).
void BM_memcpy_threads(benchmark::State& st, std::int64_t n) {
  Tensor a = Tensor::uniform({n}, DType::f64, 1), b = Tensor::zeros({n}, DType::f64);
  const double* pa = a.host_data<double>().data();
  double* pb = b.host_data<double>().data();
  int nt = get_num_threads();
  for (auto _ : st) {
#pragma omp parallel num_threads(nt)
    {
      std::int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
      std::int64_t lo = n * t / T, hi = n * (t + 1) / T;
      std::memcpy(pb + lo, pa + lo, static_cast<std::size_t>(hi - lo) * 8);
    }
    benchmark::DoNotOptimize(pb);
  }
  st.SetBytesProcessed(st.iterations() * n * 8);
}

// ---- eager per-op overhead ---------------------------------------------------------
void BM_eager_add_2x2(benchmark::State& st) {
  CpuBackend cpu;
  Tensor a = Tensor::uniform({2, 2}, DType::f64, 1), b = Tensor::uniform({2, 2}, DType::f64, 2);
  for (auto _ : st) {
    Tensor c = add(a, b, cpu);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void BM_eager_matmul_2x2(benchmark::State& st) {
  CpuBackend cpu;
  Tensor a = Tensor::uniform({2, 2}, DType::f64, 1), b = Tensor::uniform({2, 2}, DType::f64, 2);
  for (auto _ : st) {
    Tensor c = matmul(a, b, cpu);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

// Permutations whose destination run is short before or after the source's
// unit axis (Note [Gathered rows], Note [Interleaved rows] in
// src/tensor/strided_copy.cpp) or that keep a first axis of 24 in place;
// not in the report's pattern file. `dst` lists the source axis of each
// destination axis. Buffers of 64 MiB or more (the [3]^16 ones are 344
// MiB) start on 4 KiB pages (Note [Huge pages]).
std::vector<PermCase> short_run_cases() {
  const std::vector<std::tuple<std::string, Shape, DimVec>> cases{
      {"cube3_unit_behind_9", Shape(16, 3), {11, 12, 0, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 13, 14, 15}},
      {"cube3_scattered", Shape(16, 3), {6, 14, 1, 13, 0, 11, 7, 9, 2, 12, 10, 8, 3, 15, 4, 5}},
      {"cube3_unit_after_9", Shape(16, 3), {10, 5, 0, 1, 9, 4, 6, 2, 3, 12, 11, 14, 8, 13, 7, 15}},
      {"swap_12x10", {12, 10, 100, 100, 10}, {1, 0, 2, 3, 4}},
      {"swap_9x12", {9, 12, 100, 100, 10}, {1, 0, 2, 3, 4}},
      {"keep_first_24", {24, 6, 7, 24, 20, 30}, {0, 4, 5, 3, 1, 2}},
      {"swap_9x12_scattered", {12, 50, 20, 9, 7, 6}, {3, 0, 2, 4, 5, 1}}};
  std::vector<PermCase> out;
  for (const auto& [id, shape, dst] : cases) {
    PermCase c{id, shape, DimVec(dst.size()), {}};
    for (std::size_t i = 0; i < dst.size(); ++i) c.perm[static_cast<std::size_t>(dst[i])] = std::int64_t(i);
    out.push_back(c);
  }
  return out;
}

int register_all() {
  for (const GemmCase& c : gemm_cases()) {
    benchmark::RegisterBenchmark(("dot_general/" + c.name).c_str(), BM_dot_general, c)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("dgemm_direct/" + c.name).c_str(), BM_dgemm_direct, c)->Unit(benchmark::kMillisecond);
  }
  for (const PermCase& c : perm_cases()) {
    std::int64_t n = shape_numel(c.shape);
    benchmark::RegisterBenchmark(("permute/" + c.id).c_str(), BM_permute, c)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("memcpy/" + c.id).c_str(), BM_memcpy, n)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("memcpy_threads/" + c.id).c_str(), BM_memcpy_threads, n)->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  for (const PermCase& c : short_run_cases()) {
    benchmark::RegisterBenchmark(("permute_short_runs/" + c.id).c_str(), BM_permute, c)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("memcpy_short_runs/" + c.id).c_str(), BM_memcpy, shape_numel(c.shape))->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::RegisterBenchmark("eager/add_2x2", BM_eager_add_2x2);
  benchmark::RegisterBenchmark("eager/matmul_2x2", BM_eager_matmul_2x2);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* t = std::getenv("TENFERRO_NUM_THREADS")) set_num_threads(std::atoi(t));
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

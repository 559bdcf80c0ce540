// Benchmark of the tropical GEMM: the blocked vectorised kernel (each
// instruction-set variant this CPU runs) against the naive triple loop and
// against tenferro's (+, x) matmul of the same size (BLAS GEMM, the limit),
// in one run, same inputs, same thread count. Prints a table of times and
// ratios.
//
//   tropical_bench [--threads N] [--sizes 256,512,1024] [--reps R]
//   tropical_bench --check      (small sizes: every variant equals the naive loop; exit 1 otherwise)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <tenferro/cpu.hpp>
#include <tenferro/tensor.hpp>
#include <tropical/tropical.hpp>

namespace {

using namespace tenferro;
using Clock = std::chrono::steady_clock;

double best_seconds(int reps, const std::function<void()>& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

std::vector<std::string> variants() {
  std::vector<std::string> out;
  for (const char* isa : {"baseline", "avx2", "avx512"}) {
    try {
      tropical::set_cpu_kernel_isa(isa);
      out.push_back(isa);
    } catch (const ValueError&) {
    }
  }
  tropical::set_cpu_kernel_isa("auto");
  return out;
}

Tensor random(std::int64_t m, std::int64_t n, DType d, std::uint64_t seed) {
  Tensor f = Tensor::uniform({m, n}, DType::f64, seed, -100.0, 100.0);
  CpuBackend cpu;
  return d == DType::f64 ? f : convert(f, d, cpu);
}

bool equal(const Tensor& a, const Tensor& b) {
  bool same = a.shape() == b.shape();
  visit_dtype<kRealDTypes>(a.dtype(), "bench", [&]<class T>() {
    same = same && a.to_vec_col_major<T>() == b.to_vec_col_major<T>();
  });
  return same;
}

int check() {
  CpuBackend cpu;
  int failures = 0;
  for (DType d : {DType::f32, DType::f64, DType::i32, DType::i64})
    for (std::int64_t n : {1, 17, 70, 301})
      for (auto s : {tropical::Semiring::max_plus, tropical::Semiring::min_plus}) {
        Tensor a = random(n, n + 3, d, 1), b = random(n + 3, n, d, 2);
        const tropical::DotAttrs attrs{s, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}};
        const Tensor want = tropical::dot_general_naive(a, b, attrs);
        for (const std::string& isa : variants()) {
          tropical::set_cpu_kernel_isa(isa);
          if (!equal(tropical::dot_general(a, b, attrs, cpu), want)) {
            std::printf("MISMATCH %s %s n=%lld %s\n", isa.c_str(), dtype_name(d), static_cast<long long>(n),
                        tropical::semiring_name(s));
            ++failures;
          }
        }
        tropical::set_cpu_kernel_isa("auto");
      }
  std::printf("check: %s\n", failures ? "FAILED" : "every variant equals the naive loop");
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 3;
  std::vector<std::int64_t> sizes{256, 512, 1024};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") return check();
    if (a == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::stringstream ss(argv[++i]);
      std::string tok;
      while (std::getline(ss, tok, ',')) sizes.push_back(std::atoll(tok.c_str()));
    } else {
      std::fprintf(stderr, "usage: tropical_bench [--threads N] [--sizes a,b,c] [--reps R] | --check\n");
      return 2;
    }
  }
  set_num_threads(threads);
  CpuBackend cpu;
  const std::vector<std::string> isas = variants();
  std::printf("threads %d, best of %d; kernel chosen at run time: %s\n", threads, reps, tropical::cpu_kernel_isa());
  std::printf("%-5s %6s %-9s %11s %11s %11s %9s %9s\n", "dtype", "n", "kernel", "tropical_s", "gemm_s",
              "naive_s", "trop/gemm", "naive/trop");
  for (DType d : {DType::f32, DType::f64, DType::i32})
    for (std::int64_t n : sizes) {
      Tensor a = random(n, n, d, 3), b = random(n, n, d, 4);
      const tropical::DotAttrs attrs{tropical::Semiring::max_plus,
                                     {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}};
      // (+, x) GEMM of the same size and dtype (integers: tenferro's own loop, no BLAS).
      const double gemm = best_seconds(reps, [&] { (void)matmul(a, b, cpu); });
      // The naive loop costs about a nanosecond per term: skip it beyond 512.
      const double naive = n <= 512 ? best_seconds(1, [&] { (void)tropical::dot_general_naive(a, b, attrs); }) : 0;
      for (const std::string& isa : isas) {
        tropical::set_cpu_kernel_isa(isa);
        const double trop = best_seconds(reps, [&] { (void)tropical::dot_general(a, b, attrs, cpu); });
        char naive_s[32] = "-", ratio[32] = "-";
        if (naive > 0) {
          std::snprintf(naive_s, sizeof naive_s, "%.4f", naive);
          std::snprintf(ratio, sizeof ratio, "%.1f", naive / trop);
        }
        std::printf("%-5s %6lld %-9s %11.4f %11.4f %11s %9.2f %9s\n", dtype_name(d), static_cast<long long>(n),
                    isa.c_str(), trop, gemm, naive_s, trop / gemm, ratio);
      }
      tropical::set_cpu_kernel_isa("auto");
    }
  return 0;
}

// sparse.coo_matmul against tenferro's dense matmul of the same matrix, in
// one process, on the same inputs, with one thread count.
//
//   sparse_bench [--m M] [--k K] [--n N] [--density D] [--threads T] [--reps R]
//                [--dtype f32|f64] [--dump DIR] [--check]
//
// A is m x k with round(density * m * k) nonzeros at uniformly random
// coordinates (unsorted; repeats allowed and summed), values uniform in
// [-1, 1); B is k x n. Prints the median of R timed runs (after one warm-up)
// of y = coo_matmul(A, B) and of y = matmul(dense(A), B) and their ratio,
// then the same for the values' cotangent of a random ct [m, n]:
// sddmm(ct, B) against the dense route (ct B^T, then gather the nonzeros).
// --dump DIR writes the inputs (rows.i64, cols.i64, values.<dtype>,
// dense.<dtype> in column-major order, meta.txt) for bench/scipy_peer.py.
// --check runs small sizes and exits 1 unless both products agree.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <tenferro/cpu.hpp>
#include <tenferro/ops/sugar.hpp>
#include <tenferro/tensor.hpp>
#include <sparse/sparse.hpp>

namespace {

using namespace tenferro;

struct Options {
  std::int64_t m = 4096, k = 4096, n = 64;
  double density = 0.01;
  int threads = 1, reps = 11;
  std::string dtype = "f64", dump;
  bool check = false;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: sparse_bench [--m M] [--k K] [--n N] [--density D] [--threads T] [--reps R] "
               "[--dtype f32|f64] [--dump DIR] [--check]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--m") o.m = std::stoll(next());
    else if (a == "--k") o.k = std::stoll(next());
    else if (a == "--n") o.n = std::stoll(next());
    else if (a == "--density") o.density = std::stod(next());
    else if (a == "--threads") o.threads = std::stoi(next());
    else if (a == "--reps") o.reps = std::stoi(next());
    else if (a == "--dtype") o.dtype = next();
    else if (a == "--dump") o.dump = next();
    else if (a == "--check") o.check = true;
    else usage();
  }
  if (o.m < 1 || o.k < 1 || o.n < 1 || o.density <= 0 || o.density > 1 || o.threads < 1 || o.reps < 1 ||
      (o.dtype != "f32" && o.dtype != "f64"))
    usage();
  return o;
}

struct Problem {
  Tensor values, rows, cols, dense, a_dense;
};

template <class T>
Problem make_problem(const Options& o, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  const auto nnz = std::max<std::int64_t>(1, std::llround(o.density * static_cast<double>(o.m * o.k)));
  std::vector<std::int64_t> r(static_cast<std::size_t>(nnz)), c(static_cast<std::size_t>(nnz));
  std::vector<T> v(static_cast<std::size_t>(nnz)), a(static_cast<std::size_t>(o.m * o.k), T(0));
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t p = 0; p < r.size(); ++p) {
    r[p] = std::uniform_int_distribution<std::int64_t>(0, o.m - 1)(gen);
    c[p] = std::uniform_int_distribution<std::int64_t>(0, o.k - 1)(gen);
    v[p] = static_cast<T>(u(gen));
    a[static_cast<std::size_t>(r[p] + o.m * c[p])] += v[p];   // duplicates sum
  }
  std::vector<T> b(static_cast<std::size_t>(o.k * o.n));
  for (auto& x : b) x = static_cast<T>(u(gen));
  return {Tensor::from_vec_col_major<T>({nnz}, v), Tensor::from_vec_col_major<std::int64_t>({nnz}, r),
          Tensor::from_vec_col_major<std::int64_t>({nnz}, c), Tensor::from_vec_col_major<T>({o.k, o.n}, b),
          Tensor::from_vec_col_major<T>({o.m, o.k}, a)};
}

template <class F>
double median_seconds(int reps, F&& f) {
  f();   // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
double max_abs_diff(const Tensor& x, const Tensor& y) {
  const auto a = x.to_vec_col_major<T>(), b = y.to_vec_col_major<T>();
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::abs(a[i] - b[i])));
  return m;
}

template <class T>
void write_raw(const std::string& path, const Tensor& t) {
  const auto v = t.to_vec_col_major<T>();
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  if (!f) {
    std::fprintf(stderr, "sparse_bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

template <class T>
int run(const Options& o) {
  CpuBackend cpu(o.threads);
  if (o.check) {
    double worst = 0;
    std::uint64_t seed = 1;
    for (auto [m, k, n, d] : {std::tuple{37, 29, 5, 0.1}, std::tuple{64, 80, 33, 0.05}, std::tuple{9, 9, 1, 0.5}}) {
      Options s = o;
      s.m = m;
      s.k = k;
      s.n = n;
      s.density = d;
      Problem p = make_problem<T>(s, seed++);
      Tensor ys = sparse::coo_matmul(p.values, p.rows, p.cols, p.dense, s.m, cpu);
      Tensor yd = matmul(p.a_dense, p.dense, cpu);
      worst = std::max(worst, max_abs_diff<T>(ys, yd));
    }
    const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
    std::printf("check: max |coo_matmul - dense matmul| = %.3g (tolerance %.1g): %s\n", worst, tol,
                worst <= tol ? "ok" : "FAILED");
    return worst <= tol ? 0 : 1;
  }
  Problem p = make_problem<T>(o, 42);
  if (!o.dump.empty()) {
    write_raw<std::int64_t>(o.dump + "/rows.i64", p.rows);
    write_raw<std::int64_t>(o.dump + "/cols.i64", p.cols);
    write_raw<T>(o.dump + "/values." + o.dtype, p.values);
    write_raw<T>(o.dump + "/dense." + o.dtype, p.dense);
    std::ofstream meta(o.dump + "/meta.txt");
    meta << o.m << " " << o.k << " " << o.n << " " << p.values.numel() << " " << o.dtype << "\n";
  }
  Tensor ys, yd;
  const double ts = median_seconds(o.reps, [&] { ys = sparse::coo_matmul(p.values, p.rows, p.cols, p.dense, o.m, cpu); });
  const double td = median_seconds(o.reps, [&] { yd = matmul(p.a_dense, p.dense, cpu); });
  std::printf("m=%lld k=%lld n=%lld nnz=%lld (density %.4g) %s threads=%d reps=%d\n", static_cast<long long>(o.m),
              static_cast<long long>(o.k), static_cast<long long>(o.n), static_cast<long long>(p.values.numel()),
              o.density, o.dtype.c_str(), o.threads, o.reps);
  std::printf("sparse.coo_matmul      %10.3f ms\n", ts * 1e3);
  std::printf("tenferro dense matmul  %10.3f ms\n", td * 1e3);
  std::printf("ratio dense / sparse   %10.2f\n", td / ts);
  std::printf("max |difference|       %10.3g\n", max_abs_diff<T>(ys, yd));
  // The values' cotangent (the backward pass): sddmm against the dense
  // route, G = ct B^T [m, k] then G[rows[p], cols[p]].
  Tensor ct = Tensor::uniform({o.m, o.n}, p.dense.dtype(), 7, -1.0, 1.0);
  Tensor ss, sd = Tensor::zeros({p.values.numel()}, p.dense.dtype());
  const auto rv = p.rows.to_vec_col_major<std::int64_t>(), cv = p.cols.to_vec_col_major<std::int64_t>();
  const double tss = median_seconds(o.reps, [&] { ss = sparse::sddmm(ct, p.dense, p.rows, p.cols, cpu); });
  const double tsd = median_seconds(o.reps, [&] {
    Tensor g = matmul(ct, p.dense.transpose(), cpu).contiguous();
    const T* gp = g.data<T>();
    T* out = sd.data<T>();
    for (std::size_t q = 0; q < rv.size(); ++q) out[q] = gp[rv[q] + o.m * cv[q]];
  });
  std::printf("sparse.sddmm           %10.3f ms\n", tss * 1e3);
  std::printf("dense ct B^T + gather  %10.3f ms\n", tsd * 1e3);
  std::printf("ratio dense / sparse   %10.2f\n", tsd / tss);
  std::printf("max |difference|       %10.3g\n", max_abs_diff<T>(ss, sd));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    return o.dtype == "f32" ? run<float>(o) : run<double>(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sparse_bench: %s\n", e.what());
    return 1;
  }
}

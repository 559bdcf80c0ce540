// The example of README.md and sparse/sparse.hpp, run as a test
// (sparse_example): the eager product of a small COO matrix, then a traced
// program with nnz as a symbol, compiled once and run for two matrices, its
// gradient checked by hand.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tenferro/ad.hpp>
#include <tenferro/cpu.hpp>
#include <tenferro/runtime.hpp>
#include <sparse/sparse.hpp>

using namespace tenferro;

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "sparse_example: check failed: %s\n", what);
    std::exit(1);
  }
}

}  // namespace

int main() {
  CpuBackend cpu;
  // A = [[0, 2], [3, 0], [0, 0]] (m = 3, k = 2) times B = [[1, 1], [10, 20]]
  Tensor v = Tensor::from_vec_col_major<double>({2}, {2, 3});
  Tensor r = Tensor::from_vec_col_major<std::int64_t>({2}, {0, 1});
  Tensor c = Tensor::from_vec_col_major<std::int64_t>({2}, {1, 0});
  Tensor b = Tensor::from_vec_col_major<double>({2, 2}, {1, 10, 1, 20});
  Tensor y = sparse::coo_matmul(v, r, c, b, 3, cpu);   // [[20, 40], [3, 3], [0, 0]]
  check(y.to_vec_col_major<double>() == std::vector<double>{20, 3, 0, 40, 3, 0}, "eager product");

  // Traced: nnz is a symbol; one program for any number of nonzeros.
  auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
  auto tr = TracedTensor::input("r", DType::i64, {Dim("nnz")});
  auto tc = TracedTensor::input("c", DType::i64, {Dim("nnz")});
  auto tb = TracedTensor::input("b", DType::f64, {Dim("k"), Dim("n")});
  auto loss = sparse::coo_matmul(tv, tr, tc, tb, 3).sum();
  auto g = grad(loss, std::vector<TracedTensor>{tv, tb});
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(sparse::family()).build();
  Program p = GraphCompiler().compile({loss, g[0], g[1]});

  // loss = sum_p v[p] * sum_j B[c[p], j]: d loss / d v[p] = row sum of B at c[p];
  // d loss / d B[i, j] = sum of the values in column i of A.
  auto out = rt.run_compiled(p, {{"v", v}, {"r", r}, {"c", c}, {"b", b}});
  check(out[0].item().to<double>() == 66, "loss, 2 nonzeros");
  check(out[1].to_vec_col_major<double>() == std::vector<double>{30, 2}, "d loss / d values, 2 nonzeros");
  check(out[2].to_vec_col_major<double>() == std::vector<double>{3, 2, 3, 2}, "d loss / d B, 2 nonzeros");
  // Three nonzeros, one of them repeating (2, 1): A = [[0, 2], [3, 0], [0, 1 + 4]].
  Tensor v3 = Tensor::from_vec_col_major<double>({4}, {2, 3, 1, 4});
  Tensor r3 = Tensor::from_vec_col_major<std::int64_t>({4}, {0, 1, 2, 2});
  Tensor c3 = Tensor::from_vec_col_major<std::int64_t>({4}, {1, 0, 1, 1});
  out = rt.run_compiled(p, {{"v", v3}, {"r", r3}, {"c", c3}, {"b", b}});
  check(out[0].item().to<double>() == 66 + 5 * 30, "loss, 4 nonzeros");
  check(out[1].to_vec_col_major<double>() == std::vector<double>{30, 2, 30, 30}, "d loss / d values, 4 nonzeros");
  check(out[2].to_vec_col_major<double>() == std::vector<double>{3, 7, 3, 7}, "d loss / d B, 4 nonzeros");
  std::printf("sparse_example: ok (A B = [[20, 40], [3, 3], [0, 0]]; one program, 2 and 4 nonzeros)\n");
  return 0;
}

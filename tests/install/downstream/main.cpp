// Uses the installed package: a 2x3 by 3x2 product checked by hand.
#include <tenferro/cpu.hpp>
#include <tenferro/tensor.hpp>

#include <cstdio>

int main() {
  using namespace tenferro;
  CpuBackend cpu;
  auto a = TypedTensor<double>::from_vec_col_major({2, 3}, {1, 2, 3, 4, 5, 6});  // [[1,3,5],[2,4,6]]
  auto b = TypedTensor<double>::from_vec_col_major({3, 2}, {1, 0, 1, 0, 1, 0});  // [[1,0],[0,1],[1,0]]
  auto c = matmul(a, b, cpu);                                                    // [[6,3],[8,4]]
  std::vector<double> expected{6, 8, 3, 4};
  if (c.to_vec_col_major() != expected) {
    std::printf("downstream: wrong product\n");
    return 1;
  }
  std::printf("downstream: ok\n");
  return 0;
}

#include <tenferro/cpu.hpp>
#include <tenferro/tensor.hpp>
#include <cassert>
int main() {
  using namespace tenferro;
  CpuBackend backend;
  auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {3.0, 0.0, 0.0, 1.0});
  auto identity = TypedTensor<double>::from_vec_col_major({2, 2}, {1.0, 0.0, 0.0, 1.0});
  auto product = a.matmul(identity, backend);
  assert((product.shape() == Shape{2, 2}));
  assert(product.host_data()[0] == 3.0);
  Tensor dynamic = product;                 // runtime-dtype handle to the same storage
  assert(dynamic.dtype() == DType::f64);
}

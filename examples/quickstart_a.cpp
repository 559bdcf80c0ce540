#include <tenferro/cpu.hpp>
#include <tenferro/linalg.hpp>
#include <tenferro/tensor.hpp>
#include <cassert>
#include <cmath>
int main() {
  using namespace tenferro;
  CpuBackend backend;
  auto a = TypedTensor<double>::from_vec_col_major({2, 2}, {2.0, 1.0, 1.0, 2.0});
  auto identity = TypedTensor<double>::from_vec_col_major({2, 2}, {1.0, 0.0, 0.0, 1.0});
  auto product = matmul(a, identity, backend);   // free functions compute; TypedTensor in, TypedTensor out
  assert((product.shape() == Shape{2, 2}));
  auto [u, s, vh] = linalg::svd(product, backend);   // product = u diag(s) vh
  assert(std::abs(s.at({0}) - 3.0) < 1e-12 && std::abs(s.at({1}) - 1.0) < 1e-12);
  Tensor dynamic = product;                 // runtime-dtype handle to the same storage
  assert(dynamic.dtype() == DType::f64);
}

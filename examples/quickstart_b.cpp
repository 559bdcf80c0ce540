#include <tenferro/ad.hpp>
#include <tenferro/cpu.hpp>
#include <tenferro/runtime.hpp>
#include <iostream>
int main() {
  using namespace tenferro;
  auto x = TracedTensor::from_vec_col_major({3}, std::vector<double>{1.0, 2.0, 3.0});
  auto y = (x * x).reduce_sum({0});
  auto dy = grad(y, x);
  auto tangent = TracedTensor::from_vec_col_major({3}, std::vector<double>{0.1, 1.0, -2.0});
  auto directional = jvp(y, x, tangent);
  CpuBackend backend;
  auto runtime = Runtime::builder().register_engine(cpu_engine(backend)).build();
  auto out = runtime.run_compiled(GraphCompiler().compile({y, dy, directional}), {});
  std::cout << out[0].item() << "\n";                     // 14
  auto g = out[1].to_vec_col_major<double>();
  std::cout << "[" << g[0] << ", " << g[1] << ", " << g[2] << "]\n";  // [2, 4, 6]
  std::cout << out[2].item() << "\n";                     // -7.8
}

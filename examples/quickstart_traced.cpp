#include <tenferro/cpu.hpp>
#include <tenferro/runtime.hpp>
#include <cassert>
#include <iostream>
int main() {
  using namespace tenferro;
  auto x = TracedTensor::from_vec_col_major({3}, std::vector<double>{1.0, 2.0, 3.0});
  auto y = (x * x).reduce_sum({0});
  GraphCompiler compiler;
  auto program = compiler.compile(y);
  CpuBackend backend;
  auto runtime = Runtime::builder().register_engine(cpu_engine(backend)).build();
  auto outputs = runtime.run_compiled(program, {});
  assert(outputs[0].shape() == Shape{});
  assert(outputs[0].item().to<double>() == 14.0);
  std::cout << program.to_text() << outputs[0] << "\n";
}

// Whole programs through PJRT against the CPU runtime, and the refusals.
#include "xla_test_util.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

TEST(XlaSmoke, ElementwiseAndReduce) {
  TF_REQUIRE_PJRT(pjrt);
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
  Program p = GraphCompiler().compile((exp(x) * x).sum());
  Tensor a = Tensor::normal({5, 3}, DType::f64, 7);
  std::cout << xla::to_stablehlo(p, {{"x", a}});
  EXPECT_TRUE(same_results(pjrt->run_compiled(p, {{"x", a}}), cpu_runtime().run_compiled(p, {{"x", a}})));
}

}  // namespace

// Einsum in traced programs whose extents come from data: the ranks of a
// truncated SVD (the tensor renormalization group pattern), bound only when
// the SVD runs, flow into einsum, including traces over them.
#include <cmath>

#include "einsum_reference.hpp"
#include "tenferro/linalg.hpp"
#include "tenferro/runtime.hpp"

using namespace tenferro;
using namespace tenferro::testing;

TEST(EinsumTraced, DataDependentRankFromTruncatedSvd) {
  // The TRG pattern: extents produced by a truncated SVD inside the program
  // (bound when it runs) flow into einsum, including a trace over them.
  CpuBackend cpu;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(linalg::family()).build();
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim("n")});
  const FamilyOp& op = linalg::family().op("linalg.svd_truncated");
  std::vector<Value> usv = graph::apply_family(op, FamilyAttrs::of(linalg::SvdTruncatedOptions{.max_rank = 3, .rtol = 0.0}),
                                                   {x.graph_value()});
  TracedTensor u(usv[0]), s(usv[1]), vh(usv[2]);
  TracedTensor approx = einsum("ir,r,rj->ij", {u, s, vh});        // rank-3 approximation [n, n]
  TracedTensor gram = einsum("ir,is->rs", {u, u});                 // identity [r, r]
  TracedTensor tr = einsum("rs,sr->", {gram, gram});               // r
  TracedTensor tr2 = einsum("rr->", {gram});                       // r, diagonal of a data-dependent extent
  TracedTensor loss = einsum("ij,ij->", {approx, approx});         // sum of the 3 largest s^2
  Program p = GraphCompiler().compile({approx, tr, loss, tr2});
  for (std::int64_t n : {5, 7}) {
    Tensor xv = random_tensor({n, n}, DType::f64, static_cast<std::uint64_t>(n));
    std::vector<Tensor> out = rt.run_compiled(p, {{"x", xv}});
    auto ref = linalg::svd_truncated(xv, cpu, {.max_rank = 3});
    Tensor expect = einsum("ir,r,rj->ij", {ref.u, ref.s, ref.vh}, cpu);
    EXPECT_TRUE(tensors_close(out[0], expect, 1e-12, 1e-12)) << n;
    EXPECT_NEAR(value_at(out[1], {}).real(), 3.0, 1e-12) << n;
    EXPECT_NEAR(value_at(out[3], {}).real(), 3.0, 1e-12) << n;
    double s2 = 0;
    for (std::int64_t i = 0; i < 3; ++i) s2 += std::pow(value_at(ref.s, {i}).real(), 2);
    EXPECT_NEAR(value_at(out[2], {}).real(), s2, 1e-10 * s2) << n;
  }
}


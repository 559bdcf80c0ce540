// tenferro::dist under mpirun -np 1, 2 and 4 (tests/dist/CMakeLists.txt):
// every rank runs every test. Results and gradients are compared with the
// single-process einsum and vjp (and a naive loop); the memory limit is
// proved by a host memory budget that the unsliced contraction exceeds;
// errors must reach every rank.
#include <gtest/gtest.h>

#include <tenferro/ad.hpp>
#include <tenferro/cpu.hpp>
#include <tenferro/dist.hpp>
#include <tenferro/einsum.hpp>
#include <tenferro/tensor/storage.hpp>

#include "einsum/einsum_reference.hpp"
#include "support/test_support.hpp"

namespace tenferro {
namespace {

dist::Session* g_session = nullptr;
const dist::Session& session() { return *g_session; }

using testing::random_tensor;
using testing::tensors_close;

std::vector<Tensor> random_operands(const std::vector<Shape>& shapes, DType dtype, std::uint64_t seed) {
  std::vector<Tensor> out;
  for (std::size_t k = 0; k < shapes.size(); ++k) out.push_back(random_tensor(shapes[k], dtype, seed + k));
  return out;
}

std::vector<DType> dtypes_of(const std::vector<Tensor>& ts) {
  std::vector<DType> d;
  for (const Tensor& t : ts) d.push_back(t.dtype());
  return d;
}

// The single-process value and cotangents through the eager AD.
std::pair<Tensor, std::vector<Tensor>> local_vjp(std::string_view subscripts, const std::vector<Tensor>& ops,
                                                 const Tensor& cot, CpuBackend& cpu) {
  EagerRuntime rt(cpu);
  std::vector<EagerTensor> leaves;
  for (const Tensor& t : ops) leaves.push_back(rt.tensor(t));
  EagerFunction f = [&](const std::vector<EagerTensor>& v) {
    return std::vector<EagerTensor>{einsum(subscripts, v)};
  };
  auto [outs, cts] = vjp(rt, f, leaves, {rt.tensor(cot)});
  std::vector<Tensor> g;
  for (const EagerTensor& c : cts) g.push_back(c.value());
  return {outs[0].value(), g};
}

struct Case {
  const char* subscripts;
  std::vector<Shape> shapes;
  DType dtype;
  std::size_t limit;  // bytes per rank
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c{
      {"abcd,cdef,efgh,ghab->", {{5, 4, 6, 3}, {6, 3, 5, 4}, {5, 4, 3, 6}, {3, 6, 5, 4}}, DType::f64, 4096},
      {"xab,bcy,cda,dz->xyz", {{3, 5, 4}, {4, 6, 2}, {6, 5, 5}, {5, 3}}, DType::f64, 2048},
      {"xab,bcy,cda,dz->xyz", {{3, 5, 4}, {4, 6, 2}, {6, 5, 5}, {5, 3}}, DType::c128, 4096},
      {"ab,bc,ca->", {{7, 6}, {6, 8}, {8, 7}}, DType::f32, 160},
  };
  return c;
}

TEST(Dist, EinsumEqualsSingleProcessAndNaiveLoop) {
  CpuBackend cpu;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.subscripts);
    const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 11);
    const dist::Options o{.memory_limit_bytes = c.limit};
    const dist::Plan p = dist::plan(c.subscripts, c.shapes, dtypes_of(ops), session().size(), o);
    EXPECT_GT(p.num_slices, 1);                   // the limit forces slicing
    EXPECT_GE(p.num_slices, session().size());    // every rank has work
    EXPECT_LE(p.peak_bytes_per_rank, static_cast<double>(c.limit));
    EXPECT_GT(p.unsliced_peak_bytes, static_cast<double>(c.limit));
    const Tensor r = dist::einsum(c.subscripts, ops, cpu, session(), o);
    const Tensor single = einsum(c.subscripts, ops, cpu);
    const double tol = c.dtype == DType::f32 ? 1e-4 : 1e-12;
    EXPECT_TRUE(tensors_close(r, single.contiguous(), tol, tol));
    std::vector<std::int64_t> ranks;
    for (const Shape& s : c.shapes) ranks.push_back(static_cast<std::int64_t>(s.size()));
    const Tensor naive = testing::naive_einsum(parse_einsum(c.subscripts, ranks), ops, c.dtype);
    EXPECT_TRUE(tensors_close(r, naive, tol, tol));
  }
}

TEST(Dist, OperandsFromRootResultOnRoot) {
  CpuBackend cpu;
  const Case& c = cases()[1];
  const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 21);
  const bool root = session().rank() == session().size() - 1;
  // Only the root (the last rank) gives operands; the others pass nothing.
  const dist::Options o{.memory_limit_bytes = c.limit,
                        .operands = dist::Placement::root,
                        .result = dist::Placement::root,
                        .root = session().size() - 1};
  const Tensor r = dist::einsum(c.subscripts, root ? ops : std::vector<Tensor>{}, cpu, session(), o);
  if (root) {
    EXPECT_TRUE(tensors_close(r, einsum(c.subscripts, ops, cpu).contiguous(), 1e-12, 1e-12));
  } else {
    EXPECT_FALSE(r.defined());
  }
}

TEST(Dist, VjpEqualsSingleProcessAndNaiveLoop) {
  CpuBackend cpu;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.subscripts);
    const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 31);
    const Shape out_shape = einsum(c.subscripts, ops, cpu).shape();
    const Tensor cot = random_tensor(out_shape, c.dtype, 99);
    const dist::VjpResult g =
        dist::einsum_vjp(c.subscripts, ops, cot, cpu, session(), {.memory_limit_bytes = c.limit});
    auto [value, grads] = local_vjp(c.subscripts, ops, cot, cpu);
    const double tol = c.dtype == DType::f32 ? 1e-4 : 1e-12;
    EXPECT_TRUE(tensors_close(g.value, value.contiguous(), tol, tol));
    ASSERT_EQ(g.grads.size(), ops.size());
    for (std::size_t k = 0; k < ops.size(); ++k)
      EXPECT_TRUE(tensors_close(g.grads[k], grads[k].contiguous(), tol, tol)) << "operand " << k;
  }
  // "ab,bc,ca->" with cotangent w: d/da[i, j] = w * sum_k b[j, k] c[k, i], by loops.
  const std::vector<Tensor> ops = random_operands({{4, 5}, {5, 6}, {6, 4}}, DType::f64, 41);
  const Tensor w = testing::tensor_from_values({}, DType::f64, {1.5});
  const dist::VjpResult g = dist::einsum_vjp("ab,bc,ca->", ops, w, cpu, session(), {.memory_limit_bytes = 256});
  std::vector<std::complex<double>> expect;
  for (std::int64_t j = 0; j < 5; ++j)
    for (std::int64_t i = 0; i < 4; ++i) {
      std::complex<double> s = 0;
      for (std::int64_t k = 0; k < 6; ++k) s += testing::value_at(ops[1], {j, k}) * testing::value_at(ops[2], {k, i});
      expect.push_back(1.5 * s);
    }
  // expect is in (i fastest) column-major order of a [4, 5] tensor
  EXPECT_TRUE(tensors_close(g.grads[0], testing::tensor_from_values({4, 5}, DType::f64, expect), 1e-12, 1e-12));
}

TEST(Dist, VjpOperandsFromRoot) {
  CpuBackend cpu;
  const Case& c = cases()[1];
  const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 51);
  const Tensor cot = random_tensor(einsum(c.subscripts, ops, cpu).shape(), c.dtype, 7);
  const bool root = session().rank() == 0;
  const dist::VjpResult g = dist::einsum_vjp(c.subscripts, root ? ops : std::vector<Tensor>{},
                                             root ? cot : Tensor{}, cpu, session(),
                                             {.memory_limit_bytes = c.limit, .operands = dist::Placement::root});
  auto [value, grads] = local_vjp(c.subscripts, ops, cot, cpu);
  for (std::size_t k = 0; k < ops.size(); ++k)
    EXPECT_TRUE(tensors_close(g.grads[k], grads[k].contiguous(), 1e-12, 1e-12)) << "operand " << k;
}

// The limit holds for what each rank allocates: with a host memory budget
// of (memory in use) + limit, the distributed contraction runs and the
// unsliced single-process one is refused.
TEST(Dist, MemoryLimitHoldsUnderBudget) {
  CpuBackend cpu;
  const std::vector<Shape> shapes{{12, 12, 12, 12}, {12, 12, 12, 12}, {12, 12, 12, 12}};
  const std::vector<Tensor> ops = random_operands(shapes, DType::f64, 61);
  const char* spec = "abcd,cdef,efab->";
  const std::size_t limit = 32 << 10;
  const dist::Options o{.memory_limit_bytes = limit};
  const dist::Plan p = dist::plan(spec, shapes, dtypes_of(ops), session().size(), o);
  EXPECT_GT(p.unsliced_peak_bytes, 4.0 * limit);
  const Tensor expected = einsum(spec, ops, cpu);  // before the budget
  const std::size_t base = host_memory_in_use();
  set_host_memory_limit(base + limit);
  Tensor r;
  EXPECT_NO_THROW(r = dist::einsum(spec, ops, cpu, session(), o));
  CpuBackend fresh;  // no cached buffers (Note [Buffer cache]) from the runs above
  EXPECT_THROW(einsum(spec, ops, fresh), MemoryError);
  set_host_memory_limit(0);
  EXPECT_TRUE(tensors_close(r, expected.contiguous(), 1e-10, 1e-10));
}

// The second call of the same contraction reuses the session's plan; the
// stats hold every rank's times.
TEST(Dist, StatsAndPlanReuse) {
  CpuBackend cpu;
  const Case& c = cases()[0];
  const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 5);
  dist::Stats first, second;
  // a limit no other test uses, so that the first call plans
  const Tensor a = dist::einsum(c.subscripts, ops, cpu, session(), {.memory_limit_bytes = c.limit - 8, .stats = &first});
  const Tensor b = dist::einsum(c.subscripts, ops, cpu, session(), {.memory_limit_bytes = c.limit - 8, .stats = &second});
  EXPECT_GT(first.plan_seconds, 0);
  EXPECT_EQ(second.plan_seconds, 0);
  EXPECT_TRUE(testing::tensors_equal(a, b));
  ASSERT_EQ(second.contract_seconds_per_rank.size(), static_cast<std::size_t>(session().size()));
  EXPECT_EQ(second.contract_seconds_per_rank[static_cast<std::size_t>(session().rank())], second.contract_seconds);
  for (double t : second.contract_seconds_per_rank) EXPECT_GT(t, 0);
}

TEST(Dist, MismatchedShapesReportedOnEveryRank) {
  if (session().size() == 1) GTEST_SKIP() << "needs two ranks";
  CpuBackend cpu;
  const Case& c = cases()[0];
  std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 71);
  if (session().rank() == 1) ops[2] = random_tensor({5, 4, 3, 7}, c.dtype, 1);
  EXPECT_TRUE(testing::throws_with<ValueError>(
      [&] { dist::einsum(c.subscripts, ops, cpu, session(), {.memory_limit_bytes = c.limit}); },
      {"rank 1 of", "operands differ between ranks", "f64[5, 4, 3, 7]", "f64[5, 4, 3, 6]"}));
}

TEST(Dist, MismatchedDataReportedOnEveryRank) {
  if (session().size() == 1) GTEST_SKIP() << "needs two ranks";
  CpuBackend cpu;
  const Case& c = cases()[0];
  const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, session().rank() == 1 ? 5 : 81);
  EXPECT_TRUE(testing::throws_with<ValueError>(
      [&] { dist::einsum(c.subscripts, ops, cpu, session(), {.memory_limit_bytes = c.limit}); },
      {"rank 1 of", "the data of operand 0"}));
}

// The last rank runs out of memory while contracting: every rank gets the
// MemoryError (no rank waits in the reduction), and the session still works.
TEST(Dist, RankThatThrowsReportsOnEveryRank) {
  CpuBackend cpu;
  const Case& c = cases()[0];
  const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 91);
  const int last = session().size() - 1;
  if (session().rank() == last) set_host_memory_limit(host_memory_in_use() + 64);
  EXPECT_TRUE(testing::throws_with<MemoryError>(
      [&] { dist::einsum(c.subscripts, ops, cpu, session(), {.memory_limit_bytes = c.limit}); },
      {"rank " + std::to_string(last) + " of", "contracting its slices"}));
  set_host_memory_limit(0);
  const Tensor r = dist::einsum(c.subscripts, ops, cpu, session(), {.memory_limit_bytes = c.limit});
  EXPECT_TRUE(tensors_close(r, einsum(c.subscripts, ops, cpu).contiguous(), 1e-12, 1e-12));
}

TEST(Dist, BadOptionsAndUnmeetableLimit) {
  CpuBackend cpu;
  const Case& c = cases()[0];
  const std::vector<Tensor> ops = random_operands(c.shapes, c.dtype, 3);
  EXPECT_TRUE(testing::throws_with<ValueError>(
      [&] { dist::einsum(c.subscripts, ops, cpu, session(), {.root = session().size()}); },
      {"root " + std::to_string(session().size()) + " is not a rank"}));
  // The result alone (a scalar: 8 bytes) and a running sum do not fit in 8 bytes.
  EXPECT_TRUE(testing::throws_with<ValueError>(
      [&] { dist::einsum(c.subscripts, ops, cpu, session(), {.memory_limit_bytes = 8}); },
      {"memory_limit_bytes = 8", "rank 0 of"}));
  EXPECT_TRUE(testing::throws_with<ValueError>([&] { dist::plan(c.subscripts, c.shapes, dtypes_of(ops), 0); },
                                               {"ranks must be >= 1, got 0"}));
}

// The cost model for many ranks: balanced blocks, enough slices, the
// busiest rank's share of the flops.
TEST(Dist, PlanForManyRanks) {
  const std::vector<Shape> shapes(6, Shape{8, 8, 8, 8});
  const std::vector<DType> dt(6, DType::f64);
  for (int ranks : {3, 64, 1024}) {
    const dist::Plan p =
        dist::plan("abcd,cdef,efgh,ghij,ijkl,klab->", shapes, dt, ranks, {.memory_limit_bytes = 1 << 16});
    ASSERT_EQ(p.slice_begin.size(), static_cast<std::size_t>(ranks) + 1);
    EXPECT_EQ(p.slice_begin.front(), 0);
    EXPECT_EQ(p.slice_begin.back(), p.num_slices);
    std::int64_t lo = p.num_slices, hi = 0;
    for (int r = 0; r < ranks; ++r) {
      const std::int64_t n = p.slice_begin[static_cast<std::size_t>(r) + 1] - p.slice_begin[static_cast<std::size_t>(r)];
      lo = std::min(lo, n);
      hi = std::max(hi, n);
    }
    EXPECT_LE(hi - lo, 1);
    EXPECT_GE(p.num_slices, ranks);
    EXPECT_LE(p.peak_bytes_per_rank, 1 << 16);
    EXPECT_DOUBLE_EQ(p.max_rank_flops, p.flops_per_slice * static_cast<double>(hi));
    EXPECT_NEAR(p.total_flops, p.flops_per_slice * static_cast<double>(p.num_slices), 1e-9 * p.total_flops);
    EXPECT_LE(p.predicted_speedup(), ranks);
    EXPECT_NE(p.to_string().find(std::to_string(ranks) + " rank(s)"), std::string::npos);
  }
}

}  // namespace
}  // namespace tenferro

int main(int argc, char** argv) {
  tenferro::dist::Session session(argc, argv);
  tenferro::g_session = &session;
  tenferro::set_num_threads(1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

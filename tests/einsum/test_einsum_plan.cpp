// Plans: program contents, the layout model, memory (intermediates freed at
// their last use, measured through a counting backend), the plan cache.
#include <algorithm>
#include <thread>

#include "einsum_reference.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// A CPU backend that counts the bytes alive in the storages it hands out.
class CountingBackend final : public Backend {
 public:
  std::string_view name() const override { return "counting-cpu"; }
  Device device() const override { return Device::cpu(); }
  std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) override {
    std::shared_ptr<Storage> s = cpu_.allocate_storage(nbytes);
    ++allocations_;
    live_ += nbytes;
    peak_ = std::max(peak_, live_);
    Storage* raw = s.get();
    return std::shared_ptr<Storage>(raw, [this, s, nbytes](Storage*) mutable {
      live_ -= nbytes;
      s.reset();
    });
  }
  void execute(OpKind kind, const Attrs& attrs, std::span<const Tensor> in, const Tensor& out) override {
    cpu_.execute(kind, attrs, in, out);
  }
  std::size_t live() const { return live_; }
  std::int64_t allocations() const { return allocations_; }
  std::size_t peak() const { return peak_; }
  void reset_peak() { peak_ = live_; }

 private:
  CpuBackend cpu_;
  std::size_t live_ = 0, peak_ = 0;
  std::int64_t allocations_ = 0;
};

EinsumPlan plan_for(const char* sub, const std::vector<Shape>& shapes, DType d = DType::f64,
                    const PathOptions& o = {}) {
  std::vector<std::int64_t> ranks;
  for (const Shape& s : shapes) ranks.push_back(static_cast<std::int64_t>(s.size()));
  EinsumSpec spec = parse_einsum(sub, ranks);
  return EinsumPlan::build(spec, shapes, std::vector<DType>(shapes.size(), d), einsum_path(spec, shapes, o));
}

bool has_op(const std::vector<EinsumInstr>& code, EinsumOp op) {
  return std::any_of(code.begin(), code.end(), [&](const EinsumInstr& i) { return i.op == op; });
}

}  // namespace

TEST(EinsumPlan, PrologueSteps) {
  EXPECT_TRUE(has_op(plan_for("ii->i", {{3, 3}}).prologue(), EinsumOp::diagonal));
  EXPECT_TRUE(has_op(plan_for("ijk,kl->il", {{2, 3, 4}, {4, 5}}).prologue(), EinsumOp::reduce_sum));
  EXPECT_TRUE(has_op(plan_for("ij,jk->ik", {{3, 1}, {4, 5}}).prologue(), EinsumOp::reshape));
  EinsumSpec spec = parse_einsum("ij,jk->ik", {2, 2});
  EinsumPlan mixed = EinsumPlan::build(spec, {{2, 3}, {3, 4}}, {DType::f32, DType::c128},
                                       einsum_path(spec, {{2, 3}, {3, 4}}));
  EXPECT_TRUE(has_op(mixed.prologue(), EinsumOp::convert));
  EXPECT_EQ(mixed.dtype(), DType::c128);
  EXPECT_EQ(mixed.output_shape(), (Shape{2, 4}));
}

TEST(EinsumPlan, OneDotPerStepAndMultiplyWithoutSums) {
  EinsumPlan chain = plan_for("ab,bc,cd,de->ae", {{2, 3}, {3, 4}, {4, 5}, {5, 6}});
  EXPECT_EQ(std::count_if(chain.body().begin(), chain.body().end(),
                          [](const EinsumInstr& i) { return i.op == EinsumOp::dot_general; }),
            3);
  EinsumPlan had = plan_for("ij,ij->ij", {{3, 4}, {3, 4}});
  EXPECT_FALSE(has_op(had.body(), EinsumOp::dot_general));
  EXPECT_TRUE(has_op(had.body(), EinsumOp::multiply));
  EXPECT_NE(chain.to_string().find("dot_general"), std::string::npos);
}

TEST(EinsumPlan, SmallProductsAndBatchedMatvecs) {
  // 16 multiply-adds per batch with the contracted axis first in the left
  // operand: the plan transposes it to [free, contracted, batch] first.
  EinsumPlan small = plan_for("aib,ajb->ijb", {{4, 2, 500}, {4, 2, 500}});
  EXPECT_TRUE(has_op(small.body(), EinsumOp::transpose)) << small.to_string();
  EXPECT_EQ(small.predicted_copy_elements(), 0);
  // One side without free axes and little work per batch: multiply +
  // reduce_sum, unless the sums are short (16 terms or fewer): dot_general.
  EinsumPlan mv = plan_for("kb,kjb->jb", {{40, 300}, {40, 16, 300}});
  EXPECT_FALSE(has_op(mv.body(), EinsumOp::dot_general)) << mv.to_string();
  EXPECT_TRUE(has_op(mv.body(), EinsumOp::reduce_sum));
  EinsumPlan short_mv = plan_for("kb,kjb->jb", {{7, 300}, {7, 16, 300}});
  EXPECT_TRUE(has_op(short_mv.body(), EinsumOp::dot_general)) << short_mv.to_string();
  EXPECT_FALSE(has_op(short_mv.body(), EinsumOp::reduce_sum));
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    for (const EinsumPlan* p : {&small, &mv, &short_mv}) {
      std::vector<Tensor> ops;
      for (std::size_t k = 0; k < p->input_shapes().size(); ++k)
        ops.push_back(random_tensor(p->input_shapes()[k], d, 90 + k));
      EinsumPlan typed = EinsumPlan::build(p->spec(), p->input_shapes(), {d, d}, p->path());
      EXPECT_TRUE(tensors_close(run_einsum_plan(typed, ops, cpu), naive_einsum(p->spec(), ops, d), 50 * dtype_eps(d) * 8,
                                50 * dtype_eps(d) * 8))
          << p->spec().text << " " << d;
    }
  }
}

TEST(EinsumPlan, BroadcastProductsPutTheSmallOperandsLabelsAfterTheLargeOnesLeadingBlock) {
  // C[j,k,o,t] = A[k,j,t] B[o,t]: the product runs in the order k j o t, so
  // each 256-element column A[:, :, t] is read once for all o (in the order
  // k j t o the kernel streamed all of A again for every o).
  EinsumPlan p = plan_for("kjt,ot->jkot", {{16, 16, 64}, {64, 64}});
  const EinsumInstr* mul = nullptr;
  std::vector<const EinsumInstr*> bcasts;
  for (const EinsumInstr& in : p.body()) {
    if (in.op == EinsumOp::multiply) mul = &in;
    if (in.op == EinsumOp::broadcast_in_dim) bcasts.push_back(&in);
  }
  ASSERT_NE(mul, nullptr) << p.to_string();
  ASSERT_EQ(bcasts.size(), 2u) << p.to_string();
  EXPECT_EQ(bcasts[0]->axes, (DimVec{0, 1, 3})) << p.to_string();  // A's k, j, t
  EXPECT_EQ(bcasts[1]->axes, (DimVec{2, 3})) << p.to_string();     // B's o, t
  // A leading block shorter than 256 elements takes the next axis too; the
  // small operand's labels still go after it. Values against the naive sum.
  CpuBackend cpu;
  for (const char* spec : {"kjt,ot->jkot", "jt,ot->jot", "kjt,ot->otjk"}) {
    EinsumPlan q = spec[1] == 't' ? plan_for(spec, {{300, 5}, {4, 5}}) : plan_for(spec, {{16, 16, 6}, {7, 6}});
    for (DType d : float_dtypes()) {
      std::vector<Tensor> ops;
      for (std::size_t k = 0; k < q.input_shapes().size(); ++k)
        ops.push_back(random_tensor(q.input_shapes()[k], d, 40 + k));
      EinsumPlan typed = EinsumPlan::build(q.spec(), q.input_shapes(), {d, d}, q.path());
      EXPECT_TRUE(tensors_close(run_einsum_plan(typed, ops, cpu), naive_einsum(q.spec(), ops, d), 8 * dtype_eps(d),
                                8 * dtype_eps(d)))
          << spec << " " << d;
    }
  }
}

TEST(EinsumPlan, LayoutModelPredictsCopies) {
  // Column-major chains feed GEMM directly (transpose flags, no copies).
  EXPECT_EQ(plan_for("ab,bc,cd,de->ae", {{20, 30}, {30, 40}, {40, 50}, {50, 60}}).predicted_copy_elements(), 0);
  EXPECT_EQ(plan_for("ij,kj->ik", {{20, 30}, {40, 30}}).predicted_copy_elements(), 0);
  EXPECT_EQ(plan_for("ji,jk->ik", {{30, 20}, {30, 40}}).predicted_copy_elements(), 0);
  // Batched products: trailing batch axes are free; a leading (fastest)
  // batch axis leaves no unit stride for GEMM, so both operands are copied.
  EXPECT_EQ(plan_for("ijb,jkb->ikb", {{20, 30, 4}, {30, 40, 4}}).predicted_copy_elements(), 0);
  EXPECT_EQ(plan_for("bij,bjk->bik", {{4, 20, 30}, {4, 30, 40}}).predicted_copy_elements(), 4 * 20 * 30 + 4 * 30 * 40);
  // Contracting axes in different orders: one operand must be copied.
  EXPECT_EQ(plan_for("ijk,jik->", {{40, 50, 6}, {50, 40, 6}}).predicted_copy_elements(), 12000);
  // Free axes split by a contracting axis: copied.
  EXPECT_EQ(plan_for("ajb,jc->abc", {{40, 50, 6}, {50, 70}}).predicted_copy_elements(), 12000);
  // The same small: the plan transposes instead, the kernel copies nothing.
  EinsumPlan small = plan_for("ijk,jik->", {{4, 5, 6}, {5, 4, 6}});
  EXPECT_EQ(small.predicted_copy_elements(), 0);
  EXPECT_TRUE(has_op(small.body(), EinsumOp::transpose));
  // The intermediate of a three-step product is laid out for its consumer:
  // (AB) has axes (a, c) and meets C on c.
  EXPECT_EQ(plan_for("ab,bc,dc->ad", {{20, 30}, {30, 40}, {50, 40}}, DType::f64,
                     {.path = {{0, 1}, {0, 1}}})
                .predicted_copy_elements(),
            0);
}

// Note [Einsum layouts]: (XY) has axes (a, b, c | d) in either operand
// order, and its consumer sums b against Z, which no order of the output
// blocks reads in place; X transposed to (b, a, c, x) first (630 elements)
// gives (b, a, c, d), read in place, instead of the kernel copying (XY)
// (1680 elements).
TEST(EinsumPlan, AnOperandIsTransposedWhenThatSparesCopyingTheResult) {
  EinsumPlan p = plan_for("abcx,xd,be->acde", {{5, 6, 7, 3}, {3, 8}, {6, 4}}, DType::f64,
                          {.path = {{0, 1}, {0, 1}}});
  EXPECT_EQ(p.predicted_copy_elements(), 5 * 6 * 7 * 3) << p.to_string();
  ASSERT_FALSE(p.body().empty());
  EXPECT_EQ(p.body().front().op, EinsumOp::transpose) << p.to_string();
  EXPECT_EQ(p.body().front().axes, (DimVec{1, 0, 2, 3})) << p.to_string();
  CpuBackend cpu;
  for (DType d : float_dtypes()) {
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < p.input_shapes().size(); ++k)
      ops.push_back(random_tensor(p.input_shapes()[k], d, 60 + k));
    EinsumPlan typed = EinsumPlan::build(p.spec(), p.input_shapes(), {d, d, d}, p.path());
    EXPECT_TRUE(tensors_close(run_einsum_plan(typed, ops, cpu), naive_einsum(p.spec(), ops, d), 8 * dtype_eps(d),
                              8 * dtype_eps(d)))
        << d;
  }
}

TEST(EinsumPlan, IntermediatesAreFreedAfterTheirLastUse) {
  CountingBackend counting;
  std::vector<Shape> shapes(6, Shape{50, 50});
  const char* sub = "ab,bc,cd,de,ef,fg->ag";
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < shapes.size(); ++k) ops.push_back(random_tensor(shapes[k], DType::f64, 10 + k));
  EinsumPlan plan = plan_for(sub, shapes, DType::f64, {.path = {{0, 1}, {0, 4}, {0, 3}, {0, 2}, {0, 1}}});
  counting.reset_peak();
  const std::size_t before = counting.live();
  Tensor out = run_einsum_plan(plan, ops, counting);
  // One intermediate and the next one alive at a time: 2 * 2500 elements.
  EXPECT_EQ(counting.peak() - before, 2 * 2500 * sizeof(double));
  EXPECT_EQ(plan.peak_live_elements(), 2 * 2500);
  EXPECT_EQ(counting.live() - before, 2500 * sizeof(double));  // only the result is left
  Tensor expected = ops[0];
  for (std::size_t k = 1; k < ops.size(); ++k) expected = matmul(expected, ops[k], counting);
  EXPECT_TRUE(tensors_close(out, expected, 1e-10, 1e-10));
}

TEST(EinsumPlan, PeakModelMatchesMeasuredPeak) {
  struct C {
    const char* sub;
    std::vector<Shape> shapes;
    DType dtype;
  };
  const std::vector<C> cs = {
      {"ab,bc,cd->ad", {{30, 40}, {40, 5}, {5, 60}}, DType::f64},
      {"abc,bcd,de->ae", {{6, 7, 8}, {7, 8, 9}, {9, 5}}, DType::c64},
      {"ijk,kl,lm->mij", {{5, 6, 7}, {7, 8}, {8, 9}}, DType::f32},
      {"ij,ij->ij", {{30, 40}, {30, 40}}, DType::c128},
      {"ijk,jk->i", {{6, 5, 7}, {5, 7}}, DType::f64},
  };
  for (const C& c : cs) {
    CountingBackend counting;
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < c.shapes.size(); ++k) ops.push_back(random_tensor(c.shapes[k], c.dtype, 30 + k));
    EinsumPlan plan = plan_for(c.sub, c.shapes, c.dtype);
    ASSERT_EQ(plan.predicted_copy_elements(), 0) << c.sub;  // kernel scratch is not counted by the backend
    counting.reset_peak();
    const std::size_t before = counting.live();
    Tensor out = run_einsum_plan(plan, ops, counting);
    EXPECT_EQ(static_cast<double>(counting.peak() - before) / static_cast<double>(dtype_size(c.dtype)),
              plan.peak_live_elements())
        << c.sub << "\n"
        << plan.to_string();
    EXPECT_TRUE(tensors_close(out, naive_einsum(plan.spec(), ops, c.dtype), 1e-4, 1e-4)) << c.sub;
  }
}

TEST(EinsumPlan, SlicedPlanSumsSlices) {
  const char* sub = "ab,bc,cd,da->";
  std::vector<Shape> shapes(4, Shape{6, 6});
  EinsumPlan plan = plan_for(sub, shapes, DType::f64, {.optimizer = PathOptimizer::optimal, .memory_limit = 6});
  EXPECT_GT(plan.num_slices(), 1);
  EXPECT_TRUE(has_op(plan.body(), EinsumOp::slice));
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < 4; ++k) ops.push_back(random_tensor(shapes[k], DType::f64, 50 + k));
  CountingBackend counting;
  Tensor out = run_einsum_plan(plan, ops, counting);
  EXPECT_TRUE(tensors_close(out, naive_einsum(plan.spec(), ops, DType::f64), 1e-12, 1e-12));
}

TEST(EinsumPlan, RunPlanChecksOperands) {
  CpuBackend cpu;
  EinsumPlan plan = plan_for("ij,jk->ik", {{2, 3}, {3, 4}});
  Tensor a = random_tensor({2, 3}, DType::f64, 1);
  EXPECT_TRUE(throws_with<ShapeError>([&] { run_einsum_plan(plan, {a, random_tensor({3, 5}, DType::f64, 2)}, cpu); },
                                      {"operand 1 is f64[3, 5] but the plan for \"ij,jk->ik\" was built for f64[3, 4]"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { run_einsum_plan(plan, {a}, cpu); }, {"takes 2 operands, got 1"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        EinsumSpec spec = parse_einsum("ij,jk->ik", {2, 2});
        ContractionPath p = einsum_path(spec, {{2, 3}, {3, 4}});
        p.sliced_labels = {0};
        EinsumPlan::build(spec, {{2, 3}, {3, 4}}, {DType::f64, DType::f64}, p);
      },
      {"sliced label 'i' is an output label"}));
}

TEST(EinsumCache, RecyclesBuffersAcrossCalls) {
  CountingBackend counting;
  Tensor a = random_tensor({40, 50}, DType::f64, 1), b = random_tensor({50, 60}, DType::f64, 2),
         c = random_tensor({60, 30}, DType::f64, 3);
  EinsumCache cache;
  Tensor first = einsum("ij,jk,kl->il", {a, b, c}, counting, {}, &cache).contiguous();
  const std::int64_t per_call = counting.allocations();
  EXPECT_GT(per_call, 0);
  EXPECT_GT(cache.pooled_bytes(), 0u);  // the intermediate came back
  for (int i = 0; i < 3; ++i) {
    Tensor r = einsum("ij,jk,kl->il", {a, b, c}, counting, {}, &cache);
    EXPECT_TRUE(tensors_equal(r, first));
  }
  // After the first call the result's buffer is recycled too: at most the
  // result of the first call (still alive as `first`'s source) is new.
  EXPECT_LE(counting.allocations(), per_call + 1);
  const std::size_t before = counting.live();
  cache.clear();
  EXPECT_EQ(cache.pooled_bytes(), 0u);
  EXPECT_LT(counting.live(), before);
  // A zero budget pools nothing.
  EinsumCache none(16, 0);
  const std::int64_t n0 = counting.allocations();
  for (int i = 0; i < 2; ++i) einsum("ij,jk,kl->il", {a, b, c}, counting, {}, &none);
  EXPECT_EQ(counting.allocations() - n0, 2 * per_call);
  EXPECT_EQ(none.pooled_bytes(), 0u);
}

TEST(EinsumCache, RepeatedCallsDoNotPlanAgain) {
  CpuBackend cpu;
  EinsumCache cache(4);
  Tensor a = random_tensor({5, 6}, DType::f64, 1), b = random_tensor({6, 7}, DType::f64, 2);
  Tensor first = einsum("ij,jk->ik", {a, b}, cpu, {}, &cache);
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(tensors_equal(einsum("ij,jk->ik", {a, b}, cpu, {}, &cache), first));
  EXPECT_EQ(cache.misses(), 1);
  EXPECT_EQ(cache.hits(), 9);
  // Same subscripts, other shapes, dtypes, layouts or options: new plans.
  einsum("ij,jk->ik", {a, random_tensor({6, 3}, DType::f64, 3)}, cpu, {}, &cache);
  einsum("ij,jk->ik", {a, random_tensor({6, 7}, DType::f32, 4)}, cpu, {}, &cache);
  einsum("ij,jk->ik", {a, b}, cpu, {.optimizer = PathOptimizer::greedy}, &cache);
  EXPECT_EQ(cache.misses(), 4);
  EXPECT_EQ(cache.size(), 4u);
  einsum("ij,jk->ik", {a, b.duplicate()}, cpu, {}, &cache);  // same shapes and layout
  EXPECT_EQ(cache.hits(), 10);
  // A row-major b is viewed in memory order (Note [Einsum layouts]): another plan.
  Tensor b_rows = b.permute({1, 0}).contiguous().permute({1, 0});
  EXPECT_TRUE(tensors_equal(einsum("ij,jk->ik", {a, b_rows}, cpu, {}, &cache), first));
  EXPECT_EQ(cache.misses(), 5);
  // Capacity 4: the least recently used plans were evicted.
  EXPECT_EQ(cache.size(), 4u);
  einsum("i,i->", {random_tensor({3}, DType::f64, 5), random_tensor({3}, DType::f64, 6)}, cpu, {}, &cache);
  EXPECT_EQ(cache.size(), 4u);
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.hits(), 0);
}

// The cache is documented thread-safe: several threads share one cache and
// one backend, with repeated and distinct specs, while evictions happen
// (capacity 3 for 4 specs). Every result is right and every call is counted
// once. (Also run under ThreadSanitizer by the test command.)
TEST(EinsumCache, SharedByThreads) {
  CpuBackend cpu;
  EinsumCache cache(3);
  Tensor a = random_tensor({6, 5}, DType::f64, 1), b = random_tensor({5, 4}, DType::f64, 2);
  const char* specs[] = {"ij,jk->ik", "ij,jk->ki", "ij,jk->", "ij,jk->j"};
  std::vector<Tensor> want;
  for (const char* s : specs) want.push_back(einsum(s, {a, b}, cpu));
  constexpr int kThreads = 4, kCalls = 50;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        std::size_t k = static_cast<std::size_t>((t + i) % 4);
        Tensor got = einsum(specs[k], {a, b}, cpu, {}, &cache);
        if (!tensors_close(got, want[k], 1e-14, 1e-14)) ++wrong[static_cast<std::size_t>(t)];
      }
    });
  for (auto& w : workers) w.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[static_cast<std::size_t>(t)], 0) << "thread " << t;
  EXPECT_EQ(cache.hits() + cache.misses(), kThreads * kCalls);
  EXPECT_LE(cache.size(), 3u);
}

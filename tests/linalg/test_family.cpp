// The linalg family as a table: every op is present with inference and a
// CPU kernel, inference agrees with what the kernel returns, and the eager
// functions are the family ops (same results as call_family).
#include <set>

#include "linalg_test_util.hpp"

namespace tenferro {
namespace {

using namespace linalg_testing;

const std::vector<std::string> kOpNames{"linalg.svd",
                                        "linalg.svdvals",
                                        "linalg.svd_truncated",
                                        "linalg.qr",
                                        "linalg.lu",
                                        "linalg.lu_factor",
                                        "linalg.lu_solve",
                                        "linalg.cholesky",
                                        "linalg.eigh",
                                        "linalg.eig",
                                        "linalg.eigvals",
                                        "linalg.solve",
                                        "linalg.triangular_solve",
                                        "linalg.inv",
                                        "linalg.det",
                                        "linalg.slogdet",
                                        "linalg.lstsq",
                                        "linalg.pinv",
                                        "linalg.matrix_exp",
                                        "linalg.matrix_rank",
                                        "linalg.vector_norm",
                                        "linalg.matrix_norm",
                                        "linalg.cond",
                                        // used by the derivative rules (tenferro/linalg/traced.hpp)
                                        "linalg.band",
                                        "linalg.matrix_exp_frechet"};

TEST(LinalgFamily, EveryOpIsPresentOnce) {
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  EXPECT_EQ(f.name, "linalg");
  EXPECT_EQ(&f, &linalg::family()) << "built once";
  std::set<std::string> names;
  for (const FamilyOp& op : f.ops) {
    EXPECT_TRUE(names.insert(op.name).second) << "duplicate " << op.name;
    EXPECT_TRUE(static_cast<bool>(op.infer)) << op.name;
    EXPECT_EQ(op.family, &f) << op.name;
    EXPECT_EQ(cpu.kernels().provider_names(op, DeviceKind::cpu), std::vector<std::string>{"linalg"}) << op.name;
    EXPECT_TRUE(cpu.kernels().provider_names(op, DeviceKind::cuda).empty()) << op.name;
  }
  EXPECT_EQ(names, std::set<std::string>(kOpNames.begin(), kOpNames.end()));
}

// Sample operands for each op (f64 and c64, batched [.., .., 2]).
std::vector<Tensor> sample_inputs(const std::string& name, DType d) {
  Tensor sq = to_tensor({random_hpd(4, is_complex(d), 1), random_hpd(4, is_complex(d), 2)}, {2}, d);
  Tensor rect =
      to_tensor({random_mat(5, 3, is_complex(d), 3), random_mat(5, 3, is_complex(d), 4)}, {2}, d);
  if (name == "linalg.solve" || name == "linalg.triangular_solve")
    return {sq, testing::random_tensor({4, 2, 2}, d, 5)};
  if (name == "linalg.lstsq") return {rect, testing::random_tensor({5, 2, 2}, d, 6)};
  if (name == "linalg.lu_solve") {
    CpuBackend cpu;
    auto [lu, piv] = linalg::lu_factor(sq, cpu);
    return {lu, piv, testing::random_tensor({4, 3, 2}, d, 7)};
  }
  if (name == "linalg.vector_norm") return {testing::random_tensor({6, 2}, d, 8)};
  if (name == "linalg.matrix_exp_frechet") return {sq, testing::random_tensor({4, 4, 2}, d, 9)};
  const std::set<std::string> square{"linalg.cholesky", "linalg.eigh",      "linalg.eig",
                                     "linalg.eigvals",  "linalg.inv",       "linalg.det",
                                     "linalg.slogdet",  "linalg.matrix_exp"};
  return {square.count(name) ? sq : rect};
}

TEST(LinalgFamily, InferenceMatchesKernelOutputs) {
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  for (DType d : {DType::f64, DType::c64})
    for (const FamilyOp& op : f.ops) {
      SCOPED_TRACE(op.name + " " + dtype_name(d));
      std::vector<Tensor> in = sample_inputs(op.name, d);
      ASSERT_EQ(static_cast<int>(in.size()), op.num_inputs);
      std::vector<TensorMeta> metas;
      for (const Tensor& t : in) metas.push_back({t.dtype(), t.shape()});
      std::vector<TensorMeta> inferred = op.infer({}, metas);
      std::vector<Tensor> out = call_family(op, {}, in, cpu);
      ASSERT_EQ(out.size(), inferred.size());
      EXPECT_EQ(static_cast<int>(out.size()), op.num_outputs);
      for (std::size_t i = 0; i < out.size(); ++i) {
        EXPECT_EQ(out[i].dtype(), inferred[i].dtype);
        ASSERT_EQ(out[i].ndim(), static_cast<std::int64_t>(inferred[i].shape.size()));
        for (std::size_t k = 0; k < inferred[i].shape.size(); ++k)
          if (inferred[i].shape[k] != kDynamicDim) {
            EXPECT_EQ(out[i].shape()[k], inferred[i].shape[k]);
          }
        EXPECT_TRUE(out[i].is_contiguous()) << "outputs are column-major";
      }
    }
}

TEST(LinalgFamily, EmptyBatchesRunEveryOp) {
  // A batch axis of extent 0: every op returns outputs with that axis and no error.
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  for (const FamilyOp& op : f.ops) {
    SCOPED_TRACE(op.name);
    std::vector<Tensor> in = sample_inputs(op.name, DType::f64);
    for (Tensor& t : in) {
      Shape s = t.shape();
      s.back() = 0;  // [.., .., 2] -> [.., .., 0]
      t = Tensor::zeros(s, t.dtype());
    }
    std::vector<Tensor> out = call_family(op, {}, in, cpu);
    for (const Tensor& o : out) {
      if (o.ndim() > 0) {
        EXPECT_EQ(o.shape().back(), 0);
      }
    }
  }
}

TEST(LinalgFamily, TruncatedRankIsDynamic) {
  const FamilyOp& op = linalg::family().op("linalg.svd_truncated");
  std::vector<TensorMeta> in{{DType::f64, {6, 4, 3}}};
  std::vector<TensorMeta> out = op.infer({{"max_rank", std::int64_t{2}}}, in);
  EXPECT_EQ(out[0].shape, (Shape{6, kDynamicDim, 3}));
  EXPECT_EQ(out[1].shape, (Shape{kDynamicDim, 3}));
  EXPECT_EQ(out[2].shape, (Shape{kDynamicDim, 4, 3}));
}

TEST(LinalgFamily, EagerFunctionsAreTheFamilyOps) {
  CpuBackend cpu;
  const OpFamily& f = linalg::family();
  Tensor a = testing::random_tensor({5, 4, 3}, DType::c128, 11);
  auto eager = linalg::svd(a, cpu, {.full_matrices = true});
  std::vector<Tensor> in{a};
  auto direct = call_family(f.op("linalg.svd"), {{"full_matrices", true}}, in, cpu);
  EXPECT_TRUE(testing::tensors_equal(eager.u, direct[0]));
  EXPECT_TRUE(testing::tensors_equal(eager.s, direct[1]));
  EXPECT_TRUE(testing::tensors_equal(eager.vh, direct[2]));
  Tensor h = to_tensor({random_hpd(3, false, 1)}, {}, DType::f64);
  std::vector<Tensor> hin{h};
  auto w = call_family(f.op("linalg.eigh"), {{"lower", false}}, hin, cpu);
  EXPECT_TRUE(testing::tensors_equal(linalg::eigh(h, cpu, {.lower = false}).eigenvalues, w[0]));
}

}  // namespace
}  // namespace tenferro

// Every einsum instance of tenferro's tests/data/instances along its stored
// opt_flops path: each dot_general the einsum runs is computed by BLIS (into
// a scratch tensor of the output's layout) and by the base provider, and the
// two agree. The einsum runs once, on the base results (a provider tried
// first does both and passes the base's on), so the operations around the
// contractions are not run twice.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "common.hpp"
#include "instances.hpp"

using namespace tenferro;
using namespace tfblis_test;

namespace {

std::string instances_dir() {
  if (const char* env = std::getenv("TENFERRO_TEST_DATA_DIR"))
    return std::string(env) + "/instances";
  const std::string dir = TFBLIS_DATA_DIR;
  return dir.empty() ? std::string() : dir + "/instances";
}

const std::vector<Instance>& instances() {
  static const std::vector<Instance> v =
      instances_dir().empty() ? std::vector<Instance>{} : load_instances(instances_dir());
  return v;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& i : instances()) out.push_back(i.name);
  if (out.empty()) out.push_back("none");
  return out;
}

class BlisInstances : public ::testing::TestWithParam<std::string> {};

}  // namespace

// Largest |x - y| over the elements of two f64 tensors of one dense layout,
// and the largest |y|.
void compare_dense(const Tensor& x, const Tensor& y, double& diff, double& scale) {
  const double* a = static_cast<const double*>(x.data_ptr());
  const double* b = static_cast<const double*>(y.data_ptr());
  for (std::int64_t i = 0; i < y.numel(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::abs(b[i]));
  }
}

TEST_P(BlisInstances, EveryDotGeneralAgreesWithTheBaseProvider) {
  if (GetParam() == "none")
    GTEST_SKIP() << "no instances: configure with -DTENFERRO_TEST_DATA_DIR=<tests/data>";
  const Instance* inst = nullptr;
  for (const auto& i : instances())
    if (i.name == GetParam()) inst = &i;
  ASSERT_NE(inst, nullptr);
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < inst->shapes.size(); ++k)
    ops.push_back(instance_operand(*inst, k, DType::f64));
  CpuBackend cpu;
  int calls = 0, taken = 0;
  double worst = 0;
  cpu.kernels().add(
      OpKind::dot_general, DeviceKind::cpu, "both",
      [&](OpKind op, const Attrs& a, std::span<const Tensor> in, const Tensor& out, Backend& b) {
        ++calls;
        const Tensor mine = b.empty_strided(out.dtype(), out.shape(), out.strides());
        const bool took =
            tenferro_blis::dot_general(std::get<DotGeneralAttrs>(a), in[0], in[1], mine);
        b.kernels().providers(op, DeviceKind::cpu).back().kernel(op, a, in, out, b);  // "cpu"
        if (took) {
          ++taken;
          double diff = 0, scale = 0;
          compare_dense(mine, out, diff, scale);
          worst = std::max(worst, diff / (scale > 0 ? scale : 1.0));
        }
        return true;
      });
  ASSERT_EQ(cpu.kernels().provider_names(OpKind::dot_general, DeviceKind::cpu),
            (std::vector<std::string>{"both", "cpu"}));
  const Tensor result = einsum(inst->spec, ops, cpu, {.path = inst->opt_flops});
  EXPECT_TRUE(result.defined());
  EXPECT_LE(worst, 1e-12);
  std::printf("  %-56s dot_general %3d, BLIS took %3d, largest rel. difference %.1e\n",
              inst->name.c_str(), calls, taken, worst);
  // The GEMM-shaped instances are one dot_general each, all BLIS's.
  if (inst->name.starts_with("bin_matmul") || inst->name.starts_with("bin_batched_matmul")) {
    EXPECT_GT(taken, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(All, BlisInstances, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string s = p.param;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

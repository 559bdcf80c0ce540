// Every einsum instance of tenferro's tests/data/instances along its stored
// opt_flops path, with and without the BLIS provider: the results agree,
// and BLIS took part of the dot_generals (counted by two providers that
// decline: one tried before BLIS sees every call, one after it sees BLIS's
// declines).
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
  if (const char* env = std::getenv("TENFERRO_TEST_DATA_DIR")) return std::string(env) + "/instances";
  const std::string dir = TFBLIS_DATA_DIR;
  return dir.empty() ? std::string() : dir + "/instances";
}

const std::vector<Instance>& instances() {
  static const std::vector<Instance> v = instances_dir().empty() ? std::vector<Instance>{}
                                                                 : load_instances(instances_dir());
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

TEST_P(BlisInstances, AgreesWithTheBaseProvider) {
  if (GetParam() == "none") GTEST_SKIP() << "no instances: configure with -DTENFERRO_TEST_DATA_DIR=<tests/data>";
  const Instance* inst = nullptr;
  for (const auto& i : instances())
    if (i.name == GetParam()) inst = &i;
  ASSERT_NE(inst, nullptr);
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < inst->shapes.size(); ++k) ops.push_back(instance_operand(*inst, k, DType::f64));
  CpuBackend base;
  const Tensor want = einsum(inst->spec, ops, base, {.path = inst->opt_flops});

  CpuBackend with_blis;
  Counter declined, all;
  declined.add_to(with_blis);
  tenferro_blis::register_provider(with_blis);
  all.add_to(with_blis);
  const Tensor got = einsum(inst->spec, ops, with_blis, {.path = inst->opt_flops});
  const double err = rel_diff(got, want);
  EXPECT_LE(err, 1e-10);
  const int taken = all.count() - declined.count();
  // The GEMM-shaped instances are one dot_general each, all BLIS's.
  if (inst->name.starts_with("bin_matmul") || inst->name.starts_with("bin_batched_matmul")) {
    EXPECT_GT(taken, 0);
  }
  std::printf("  %-56s dot_general %3d, BLIS took %3d, rel. difference %.1e\n", inst->name.c_str(), all.count(),
              taken, err);
}

INSTANTIATE_TEST_SUITE_P(All, BlisInstances, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string s = p.param;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

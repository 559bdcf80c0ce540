// The benchmark instances of tests/data/instances/: results against
// NumPy's einsum (reference values from make_instance_reference.py) along
// both stored paths and our own, and our optimizer against the stored paths.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "instances.hpp"
#include "support/test_support.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

const std::vector<EinsumInstance>& instances() {
  static const std::vector<EinsumInstance> v =
      load_instances(data_path("TENFERRO_INSTANCES_DIR", TENFERRO_INSTANCES_DIR));
  return v;
}

const nlohmann::json& reference() {
  static const nlohmann::json j = [] {
    std::ifstream in(data_path("TENFERRO_EINSUM_REFERENCE", TENFERRO_EINSUM_REFERENCE));
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& i : instances()) out.push_back(i.name);
  return out;
}

// The names of the instances the sweep keeps (all unless TENFERRO_TEST_STRIDE is set).
std::vector<std::string> swept_names() {
  std::vector<std::string> out;
  for (const EinsumInstance* i : swept(instances())) out.push_back(i->name);
  return out;
}

const EinsumInstance& find(const std::string& name) {
  for (const auto& i : instances())
    if (i.name == name) return i;
  throw std::runtime_error("no instance " + name);
}

// The element at a flat column-major position of `t`'s shape.
double at_flat(const Tensor& t, std::int64_t flat) {
  DimVec idx;
  for (std::int64_t n : t.shape()) {
    idx.push_back(flat % n);
    flat /= n;
  }
  return t.at<double>(idx);
}

class EinsumInstanceTest : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(EinsumInstanceTest, MatchesNumPyAlongStoredAndOwnPaths) {
  const EinsumInstance& inst = find(GetParam());
  const nlohmann::json& ref = reference().at("instances").at(inst.name);
  std::vector<Tensor> ops;
  for (std::size_t k = 0; k < inst.shapes.size(); ++k) ops.push_back(instance_operand(inst, k));
  const double max_abs = ref.at("max_abs").get<double>();
  ASSERT_GT(max_abs, 0);
  ASSERT_TRUE(std::isfinite(max_abs));
  CpuBackend cpu;
  const ContractionPath ours = einsum_path(inst.spec, inst.shapes, {.optimizer = PathOptimizer::annealing});
  const std::vector<std::pair<const char*, std::vector<std::pair<int, int>>>> paths = {
      {"opt_flops", inst.opt_flops}, {"opt_size", inst.opt_size}, {"ours", ours.pairs}};
  for (const auto& [label, pairs] : paths) {
    Tensor r = einsum(inst.spec, ops, cpu, {.path = pairs});
    ASSERT_EQ(shape_numel(r.shape()), ref.at("numel").get<std::int64_t>());
    double err = 0;
    const auto& idx = ref.at("indices");
    const auto& val = ref.at("values");
    for (std::size_t i = 0; i < idx.size(); ++i)
      err = std::max(err, std::abs(at_flat(r, idx[i].get<std::int64_t>()) - val[i].get<double>()));
    EXPECT_LE(err / max_abs, 1e-10) << inst.name << " along " << label;
    std::printf("  %-50s %-9s max rel. error %.2e\n", inst.name.c_str(), label, err / max_abs);
  }
}

INSTANTIATE_TEST_SUITE_P(Instances, EinsumInstanceTest, ::testing::ValuesIn(swept_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

// The data directory (tests/data/instances, or the override) holds exactly
// the instances the NumPy reference was made from, so a missing or partial
// copy fails here instead of silently running fewer instances.
TEST(EinsumInstanceData, MatchesTheReferenceInstanceList) {
  std::vector<std::string> loaded = names(), referenced;
  for (const auto& [name, value] : reference().at("instances").items()) referenced.push_back(name);
  std::sort(loaded.begin(), loaded.end());
  std::sort(referenced.begin(), referenced.end());
  EXPECT_FALSE(referenced.empty());
  EXPECT_EQ(loaded, referenced);
}

// The criterion, per instance: the annealer (effort 2, flops
// objective) finds a path with no more flops than the stored opt_flops path
// and, given the opt_size path's largest intermediate as its memory limit, a
// path without slicing whose largest intermediate is no larger. Under the
// default objective (Note [Executor cost model]) and effort 3 its path costs
// no more than the better stored path. All are printed.
TEST(EinsumInstancePaths, AnnealingMeetsTheStoredPaths) {
  std::printf("  %-46s | %-29s | %-40s\n", "", "log10 flops: ours / opt_flops", "largest (log2): ours / opt_size (ours' flops)");
  for (const EinsumInstance* instp : swept(instances())) {
    const EinsumInstance& inst = *instp;
    const ContractionCost f = contraction_cost(inst.spec, inst.shapes, inst.opt_flops);
    const ContractionCost s = contraction_cost(inst.spec, inst.shapes, inst.opt_size);
    const PathOptions o{.optimizer = PathOptimizer::annealing, .objective = PathObjective::flops, .effort = 2};
    ContractionPath pf = einsum_path(inst.spec, inst.shapes, o);
    PathOptions capped = o;
    capped.memory_limit = s.largest_intermediate;
    ContractionPath ps = einsum_path(inst.spec, inst.shapes, capped);
    std::printf("  %-46s | %8.4f / %8.4f  %6.2fs | %7.3f / %7.3f (%.4f)  %6.2fs\n", inst.name.c_str(),
                std::log10(pf.cost.flops), std::log10(f.flops), pf.planning_seconds,
                std::log2(ps.cost.largest_intermediate), std::log2(s.largest_intermediate),
                std::log10(ps.cost.flops), ps.planning_seconds);
    EXPECT_LE(pf.cost.flops, f.flops * (1 + 1e-12)) << inst.name;
    EXPECT_EQ(ps.num_slices, 1) << inst.name;
    EXPECT_LE(ps.cost.largest_intermediate, s.largest_intermediate) << inst.name;
    const ContractionPath pe = einsum_path(inst.spec, inst.shapes, {.optimizer = PathOptimizer::annealing, .effort = 3});
    const double stored = std::min(objective_value(f, PathObjective::executor), objective_value(s, PathObjective::executor));
    const double ours = objective_value(pe.cost, PathObjective::executor);
    std::printf("  %-46s | executor objective: ours / better stored %.4e / %.4e  %6.2fs\n", "", ours, stored,
                pe.planning_seconds);
    EXPECT_LE(ours, stored * (1 + 1e-12)) << inst.name;
  }
}

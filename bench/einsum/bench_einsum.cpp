// Einsum on every instance of tests/data/instances/ along the stored
// opt_flops and opt_size paths and along our annealing path, one thread.
// Execution only is timed (the plan comes from an EinsumCache); planning
// time is reported separately as counters.
//
//   bench_einsum [--effort=E] [--paths-out=FILE] [google benchmark flags]
//
// --paths-out writes our paths, their costs and planning times as JSON
// (bench/einsum/run_einsum_bench.py gives them to the peers).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>

#include "../../tests/einsum/instances.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/einsum.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

struct Case {
  const EinsumInstance* inst;
  std::string path_name;
  std::vector<std::pair<int, int>> pairs;
};

void run_case(benchmark::State& state, const Case& c, std::shared_ptr<std::vector<Tensor>> ops) {
  CpuBackend cpu;
  EinsumCache cache;
  const PathOptions opts{.path = c.pairs};
  const auto t0 = std::chrono::steady_clock::now();
  auto plan = cache.plan(c.inst->spec, c.inst->shapes, std::vector<DType>(ops->size(), DType::f64), opts);
  const double planning = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Tensor warm = einsum(c.inst->spec, *ops, cpu, opts, &cache);  // first run: page faults, BLAS init
  benchmark::DoNotOptimize(warm.data_ptr());
  warm = Tensor();
  for (auto _ : state) {
    Tensor r = einsum(c.inst->spec, *ops, cpu, opts, &cache);
    benchmark::DoNotOptimize(r.data_ptr());
  }
  state.counters["plan_build_s"] = planning;
  state.counters["log10_flops"] = std::log10(plan->path().cost.flops);
  state.counters["log2_size"] = std::log2(plan->path().cost.largest_intermediate);
  state.counters["copies"] = plan->predicted_copy_elements();
  state.counters["peak_elements"] = plan->peak_live_elements();
}

}  // namespace

int main(int argc, char** argv) {
  double effort = 1.0;
  std::string paths_out;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--effort=", 9) == 0) effort = std::atof(argv[i] + 9);
    else if (std::strncmp(argv[i], "--paths-out=", 12) == 0) paths_out = argv[i] + 12;
    else rest.push_back(argv[i]);
  }
  set_num_threads(1);
  static std::vector<EinsumInstance> instances = load_instances(TENFERRO_INSTANCES_DIR);
  static std::vector<Case> cases;
  nlohmann::json dump = nlohmann::json::object();
  for (const EinsumInstance& inst : instances) {
    ContractionPath ours = einsum_path(inst.spec, inst.shapes, {.optimizer = PathOptimizer::annealing, .effort = effort});
    cases.push_back({&inst, "opt_flops", inst.opt_flops});
    cases.push_back({&inst, "opt_size", inst.opt_size});
    cases.push_back({&inst, "ours", ours.pairs});
    nlohmann::json j;
    j["path"] = nlohmann::json::array();
    for (auto [a, b] : ours.pairs) j["path"].push_back({a, b});
    auto cost = [&](const std::vector<std::pair<int, int>>& p) {
      ContractionCost c = contraction_cost(inst.spec, inst.shapes, p);
      return nlohmann::json{
          {"log10_flops", std::log10(c.flops)},
          {"log2_size", std::log2(c.largest_intermediate)},
          {"total_intermediate", c.total_intermediate},
          {"log10_objective", std::log10(objective_value(c, PathObjective::executor))}};
    };
    j["ours"] = cost(ours.pairs);
    j["opt_flops"] = cost(inst.opt_flops);
    j["opt_size"] = cost(inst.opt_size);
    j["planning_seconds"] = ours.planning_seconds;
    dump[inst.name] = j;
  }
  if (!paths_out.empty()) std::ofstream(paths_out) << dump.dump(1) << "\n";
  for (const Case& c : cases) {
    auto ops = std::make_shared<std::vector<Tensor>>();
    // Operands are generated once per case, when the case runs.
    benchmark::RegisterBenchmark((c.inst->name + "/" + c.path_name).c_str(), [&c, ops](benchmark::State& st) {
      if (ops->empty())
        for (std::size_t k = 0; k < c.inst->shapes.size(); ++k) ops->push_back(instance_operand(*c.inst, k));
      run_case(st, c, ops);
    })->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

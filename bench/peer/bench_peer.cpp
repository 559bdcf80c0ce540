// tenferro's side of the peer benchmark report (scripts/bench.sh,
// bench/peer/report.py): einsum on every instance of
// tests/data/instances/ along the stored opt_flops / opt_size paths and
// our optimizer's path, and primal linalg (svd, qr, eigh, cholesky, solve,
// lu, inv, det) on one 256x256 matrix and on 64 batches of 16x16. Timings
// follow bench/peer/timing.hpp (the rule bench/peer/peers.py applies to the
// peers) and are written as JSON.
//
//   bench_peer --mode=einsum --threads=N --paths=FILE [--budget=S] [--cap=S] [--filter=SUB]
//              [--objective=executor|flops] --out=FILE
//   bench_peer --mode=linalg --threads=N [--budget=S] [--cap=S] --out=FILE
//
// --paths: our optimizer's paths (annealing, effort 1, --objective, default
// executor) with their costs and planning times; computed and written when
// FILE does not exist, read otherwise, so that every thread count and every
// peer uses the same path. --filter: only instances (or cases,
// "instance/opt_flops") whose name contains SUB.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "../../tests/einsum/instances.hpp"
#include "inputs.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/linalg.hpp"
#include "timing.hpp"

using namespace tenferro;
using namespace tenferro::bench_peer;
using json = nlohmann::ordered_json;

namespace {

struct Args {
  std::string mode, paths, out, filter;
  int threads = 1;
  PathObjective objective = PathObjective::executor;
  TimingRule rule;
};

json timing_json(const Timing& t) {
  json j{{"warmup_ms", t.warmup_ms}};
  j["ms"] = t.median_ms;
  j["reps"] = t.reps;
  if (t.first_call) j["first_call"] = true;
  return j;
}

json path_json(const std::vector<std::pair<int, int>>& p) {
  json a = json::array();
  for (auto [x, y] : p) a.push_back({x, y});
  return a;
}

json cost_json(const testing::EinsumInstance& inst, const std::vector<std::pair<int, int>>& p) {
  ContractionCost c = contraction_cost(inst.spec, inst.shapes, p);
  return {{"log10_flops", std::log10(c.flops)},
          {"log2_size", std::log2(c.largest_intermediate)},
          {"log10_objective", std::log10(objective_value(c, PathObjective::executor))}};
}

json run_einsum(const Args& args) {
  CpuBackend cpu;
  std::vector<testing::EinsumInstance> instances = testing::load_instances(TENFERRO_INSTANCES_DIR);
  json paths = json::object();
  const bool have_paths = std::filesystem::exists(args.paths);
  if (have_paths) paths = json::parse(std::ifstream(args.paths));
  json results = json::object();
  for (const testing::EinsumInstance& inst : instances) {
    const auto wanted = [&](const std::string& key) {
      return args.filter.empty() || key.find(args.filter) != std::string::npos;
    };
    if (!wanted(inst.name) && !args.filter.starts_with(inst.name + "/")) continue;
    if (!have_paths) {
      ContractionPath ours =
          einsum_path(inst.spec, inst.shapes,
                      {.optimizer = PathOptimizer::annealing, .objective = args.objective, .effort = 1.0});
      paths[inst.name] = {{"path", path_json(ours.pairs)},
                          {"planning_s", ours.planning_seconds},
                          {"ours", cost_json(inst, ours.pairs)},
                          {"opt_flops", cost_json(inst, inst.opt_flops)},
                          {"opt_size", cost_json(inst, inst.opt_size)}};
    }
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < inst.shapes.size(); ++k) ops.push_back(testing::instance_operand(inst, k));
    const std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> cases{
        {"opt_flops", inst.opt_flops},
        {"opt_size", inst.opt_size},
        {"ours", testing::read_pairs(paths.at(inst.name).at("path"))}};
    for (const auto& [pname, pairs] : cases) {
      if (!wanted(inst.name + "/" + pname)) continue;
      EinsumCache cache;
      const PathOptions opts{.path = pairs};
      Timing t = measure(
          [&] {
            Tensor r = einsum(inst.spec, ops, cpu, opts, &cache);
            if (r.numel() > 0 && r.data_ptr() == nullptr) std::abort();
          },
          args.rule);
      const std::string key = inst.name + "/" + pname;
      results[key] = timing_json(t);
      std::cerr << "  tenferro " << args.threads << "t " << key << " " << results[key].dump() << "\n";
    }
  }
  if (!have_paths) std::ofstream(args.paths) << paths.dump(1) << "\n";
  return results;
}

json run_linalg(const Args& args) {
  CpuBackend cpu;
  json results = json::object();
  for (const LinalgCase& c : linalg_cases()) {
    if (!args.filter.empty() && c.key().find(args.filter) == std::string::npos) continue;
    const Tensor a = linalg_operand(c);
    const Tensor b = input_tensor(2, c.n, 1, c.batch);
    std::function<void()> fn;
    if (c.op == "svd") fn = [&] { (void)linalg::svd(a, cpu); };
    else if (c.op == "qr") fn = [&] { (void)linalg::qr(a, cpu); };
    else if (c.op == "eigh") fn = [&] { (void)linalg::eigh(a, cpu); };
    else if (c.op == "cholesky") fn = [&] { (void)linalg::cholesky(a, cpu); };
    else if (c.op == "solve") fn = [&] { (void)linalg::solve(a, b, cpu); };
    else if (c.op == "lu") fn = [&] { (void)linalg::lu(a, cpu); };
    else if (c.op == "inv") fn = [&] { (void)linalg::inv(a, cpu); };
    else if (c.op == "det") fn = [&] { (void)linalg::det(a, cpu); };
    results[c.key()] = timing_json(measure(fn, args.rule));
    std::cerr << "  tenferro " << args.threads << "t " << c.key() << " " << results[c.key()].dump() << "\n";
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&](const char* flag) -> const char* {
      const std::size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = val("--mode=")) args.mode = v;
    else if (const char* v = val("--threads=")) args.threads = std::atoi(v);
    else if (const char* v = val("--paths=")) args.paths = v;
    else if (const char* v = val("--out=")) args.out = v;
    else if (const char* v = val("--filter=")) args.filter = v;
    else if (const char* v = val("--objective=")) {
      if (std::strcmp(v, "flops") != 0 && std::strcmp(v, "executor") != 0) {
        std::cerr << "bench_peer: --objective must be executor or flops, got " << v << "\n";
        return 2;
      }
      args.objective = std::strcmp(v, "flops") == 0 ? PathObjective::flops : PathObjective::executor;
    } else if (const char* v = val("--budget=")) args.rule.budget_s = std::atof(v);
    else if (const char* v = val("--cap=")) args.rule.cap_s = std::atof(v);
    else {
      std::cerr << "bench_peer: unknown argument " << a << "\n";
      return 2;
    }
  }
  if (args.out.empty() || (args.mode == "einsum" && args.paths.empty()) ||
      (args.mode != "einsum" && args.mode != "linalg")) {
    std::cerr << "usage: bench_peer --mode=einsum|linalg --threads=N --out=FILE [--paths=FILE] "
                 "[--budget=S] [--cap=S] [--filter=SUB] [--objective=executor|flops]\n";
    return 2;
  }
  set_num_threads(args.threads);
  json out{{"framework", "tenferro"},
           {"threads", args.threads},
           {"budget_s", args.rule.budget_s},
           {"cap_s", args.rule.cap_s},
           {"blas", blas_info()}};
  out["results"] = args.mode == "einsum" ? run_einsum(args) : run_linalg(args);
  std::ofstream(args.out) << out.dump(1) << "\n";
  return 0;
}

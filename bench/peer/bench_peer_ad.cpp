// Linalg AD of the peer benchmark report (scripts/bench.sh): value and
// gradient of a scalar through svd (sum of singular values), eigh (sum of
// eigenvalues), solve (sum of solve(a, b), one right-hand side) and
// cholesky (sum of the factor), on one 256x256 matrix and on 64 batches of
// 16x16 (the operands of bench_peer's linalg mode, bench/peer/inputs.hpp).
// Each function is traced once with TracedTensor (tenferro/linalg/traced.hpp),
// differentiated with grad, compiled once (GraphCompiler) into one program
// with outputs {f(a), grad f(a)}; the timed call is Runtime::run_compiled.
//
//   bench_peer_ad --threads=N --out=FILE [--budget=S] [--cap=S] [--filter=SUB]
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "inputs.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/linalg.hpp"
#include "tenferro/linalg/family.hpp"
#include "tenferro/linalg/traced.hpp"
#include "tenferro/runtime.hpp"
#include "timing.hpp"

using namespace tenferro;
using namespace tenferro::bench_peer;
using json = nlohmann::ordered_json;

namespace {

TracedTensor objective(const std::string& op, const TracedTensor& a, const TracedTensor& b) {
  if (op == "svd") return linalg::svd(a).s.sum();
  if (op == "eigh") return linalg::eigh(a).eigenvalues.sum();
  if (op == "solve") return linalg::solve(a, b).sum();
  return linalg::cholesky(a).sum();
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path, filter;
  int threads = 1;
  TimingRule rule;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&](const char* flag) -> const char* {
      const std::size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = val("--threads=")) threads = std::atoi(v);
    else if (const char* v = val("--out=")) out_path = v;
    else if (const char* v = val("--filter=")) filter = v;
    else if (const char* v = val("--budget=")) rule.budget_s = std::atof(v);
    else if (const char* v = val("--cap=")) rule.cap_s = std::atof(v);
    else {
      std::cerr << "usage: bench_peer_ad --threads=N --out=FILE [--budget=S] [--cap=S] [--filter=SUB]\n";
      return 2;
    }
  }
  if (out_path.empty()) {
    std::cerr << "bench_peer_ad: --out=FILE is required\n";
    return 2;
  }
  set_num_threads(threads);
  CpuBackend cpu;
  const Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(linalg::family()).build();
  json results = json::object();
  for (const char* op : {"svd", "eigh", "solve", "cholesky"}) {
    for (auto [n, batch] : {std::pair<std::int64_t, std::int64_t>{256, 0}, {16, 64}}) {
      const LinalgCase c{op, n, batch};
      const std::string key = "grad_" + c.key();
      if (!filter.empty() && key.find(filter) == std::string::npos) continue;
      try {
        const Tensor av = linalg_operand(c);
        const Tensor bv = input_tensor(2, n, 1, batch);
        SymShape shape{Dim(n), Dim(n)};
        if (batch > 0) shape.push_back(Dim(batch));
        const TracedTensor a = TracedTensor::input("a", DType::f64, shape);
        const TracedTensor y = objective(op, a, TracedTensor::constant(bv));
        const TracedTensor g = grad(y, a);
        const Program p = GraphCompiler().compile(std::vector<TracedTensor>{y, g});
        const RunInputs in(std::vector<Tensor>{av});
        const Timing t = measure(
            [&] {
              std::vector<Tensor> r = rt.run_compiled(p, in);
              if (r.size() != 2) std::abort();
            },
            rule);
        json j{{"warmup_ms", t.warmup_ms}};
        j["ms"] = t.median_ms;
        j["reps"] = t.reps;
        if (t.first_call) j["first_call"] = true;
        results[key] = j;
      } catch (const std::exception& e) {
        results[key] = {{"error", std::string(e.what()).substr(0, 200)}};
      }
      std::cerr << "  tenferro " << threads << "t " << key << " " << results[key].dump() << "\n";
    }
  }
  json out{{"framework", "tenferro"}, {"threads", threads}, {"results", results}};
  std::ofstream(out_path) << out.dump(1) << "\n";
  return 0;
}

// Linalg AD of the peer benchmark report (scripts/bench.sh): value and
// gradient of a scalar through svd (sum of singular values), eigh (sum of
// eigenvalues), solve (sum of solve(a, b), one right-hand side) and
// cholesky (sum of the factor), on one 256x256 matrix and on 64 batches of
// 16x16 (the operands of bench_peer's linalg mode, bench/peer/inputs.hpp).
// Each function is traced once with TracedTensor (tenferro/linalg/traced.hpp),
// differentiated with grad, compiled once (GraphCompiler) into one program
// with outputs {f(a), grad f(a)}; the timed call is Runtime::run_compiled.
//
// --mode=jvp_vjp (the report's "AD: JVP and VJP" section): for svdvals (sum of
// the singular values), qr (sum(q) + sum(r)), eigh (sum of the
// eigenvalues), lu (sum(l) + sum(u)), solve (sum(solve(a, b)), one
// right-hand side) and lstsq (sum of the solution of a tall 2n x n problem,
// one right-hand side) at n = 4, 64, 256, 512, two programs each:
// {f(a), jvp(f, a, t)} ("jvp_") and {f(a), vjp(f, a, 1)} ("vjp_"), compiled
// once, Runtime::run_compiled timed. Operands as ad_operands below (the
// twin of bench/peer/peers.py's ad_operands).
//
//   bench_peer_ad [--mode=grad|jvp_vjp] --threads=N --out=FILE [--budget=S] [--cap=S] [--filter=SUB]
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

// ---- --mode=jvp_vjp --------------------------------------------------------------------

TracedTensor ad_objective(const std::string& op, const TracedTensor& a, const TracedTensor& b) {
  if (op == "svd") return linalg::svdvals(a).sum();  // as the peers: svdvals
  if (op == "qr") {
    auto [q, r] = linalg::qr(a);
    return q.sum() + r.sum();
  }
  if (op == "eigh") return linalg::eigh(a).eigenvalues.sum();
  if (op == "lu") {
    auto f = linalg::lu(a);
    return f.l.sum() + f.u.sum();
  }
  if (op == "solve") return linalg::solve(a, b).sum();
  return linalg::lstsq(a, b).solution.sum();
}

// (a, b, tangent of a): a general (svd, qr, lu), symmetric (eigh; its
// tangent too), a + n I (solve), tall 2n x n (lstsq); b one column.
std::vector<Tensor> ad_operands(const std::string& op, std::int64_t n) {
  const std::int64_t rows = op == "lstsq" ? 2 * n : n;
  Tensor a = input_tensor(1, rows, n, 0), b = input_tensor(2, rows, 1, 0),
         t = input_tensor(3, rows, n, 0);
  auto sym = [n](Tensor& x) {
    Tensor s = Tensor::empty(x.shape(), DType::f64);
    const double* p = x.data<double>();
    double* q = s.data<double>();
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < n; ++i) q[i + j * n] = 0.5 * (p[i + j * n] + p[j + i * n]);
    x = s;
  };
  if (op == "eigh") {
    sym(a);
    sym(t);
  }
  if (op == "solve")
    for (std::int64_t i = 0; i < n; ++i) a.data<double>()[i + i * n] += static_cast<double>(n);
  return {a, b, t};
}

json run_jvp_vjp(const Runtime& rt, const TimingRule& rule, const std::string& filter,
                 int threads) {
  json results = json::object();
  for (const char* op : {"svd", "qr", "eigh", "lu", "solve", "lstsq"}) {
    for (std::int64_t n : {4, 64, 256, 512}) {
      for (const char* mode : {"jvp", "vjp"}) {
        const std::string key = std::string(mode) + "_" + op + "/" + std::to_string(n);
        if (!filter.empty() && key.find(filter) == std::string::npos) continue;
        try {
          const std::vector<Tensor> v = ad_operands(op, n);
          const TracedTensor a =
              TracedTensor::input("a", DType::f64, {Dim(v[0].shape()[0]), Dim(n)});
          const TracedTensor t =
              TracedTensor::input("t", DType::f64, {Dim(v[0].shape()[0]), Dim(n)});
          const TracedTensor y = ad_objective(op, a, TracedTensor::constant(v[1]));
          const bool forward = std::string(mode) == "jvp";
          const TracedTensor one =
              TracedTensor::constant(Tensor::full({}, Scalar(1.0), DType::f64));
          const TracedTensor d = forward ? jvp(y, a, t) : vjp(y, a, one);
          const Program p = GraphCompiler().compile(std::vector<TracedTensor>{y, d});
          const RunInputs in =
              forward ? RunInputs({{"a", v[0]}, {"t", v[2]}}) : RunInputs({{"a", v[0]}});
          const Timing tm = measure(
              [&] {
                std::vector<Tensor> r = rt.run_compiled(p, in);
                if (r.size() != 2) std::abort();
              },
              rule);
          json j{{"warmup_ms", tm.warmup_ms}};
          j["ms"] = tm.median_ms;
          j["reps"] = tm.reps;
          if (tm.first_call) j["first_call"] = true;
          results[key] = j;
        } catch (const std::exception& e) {
          results[key] = {{"error", std::string(e.what()).substr(0, 200)}};
        }
        std::cerr << "  tenferro " << threads << "t " << key << " " << results[key].dump() << "\n";
      }
    }
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path, filter, mode = "grad";
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
    else if (const char* v = val("--mode="))
      mode = v;
    else if (const char* v = val("--budget=")) rule.budget_s = std::atof(v);
    else if (const char* v = val("--cap=")) rule.cap_s = std::atof(v);
    else {
      std::cerr << "usage: bench_peer_ad [--mode=grad|jvp_vjp] --threads=N --out=FILE [--budget=S] "
                   "[--cap=S] [--filter=SUB]\n";
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
  if (mode == "jvp_vjp") {
    json out{{"framework", "tenferro"},
             {"threads", threads},
             {"results", run_jvp_vjp(rt, rule, filter, threads)}};
    std::ofstream(out_path) << out.dump(1) << "\n";
    return 0;
  }
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

// dist_contract: the norm <psi|psi> of a random L x L PEPS (bond dimension
// D, physical dimension 2), contracted as a sliced einsum over MPI ranks.
// Each site's double-layer tensor (bond D^2 per edge) is built on every rank
// from the same seed; the L*L-operand network is then contracted with
// tenferro::dist::einsum under a per-rank memory limit. The root prints the
// plan (cost model), the norm and the time.
//
//   mpirun -np 2 dist_contract --L 5 --D 3 --limit-bytes 65536 [--check] [--repeat 3]
//   dist_contract --L 8 --D 3 --limit-bytes 1073741824 --plan-only 1024 --flops-per-second 2.5e10
//
// --check also contracts on the root alone without a limit and compares.
// Ranks hold tenferro's host memory to (memory in use) + limit while the
// distributed contraction runs, so a plan that overstepped the limit would
// fail with a MemoryError.
#include <tenferro/cpu.hpp>
#include <tenferro/dist.hpp>
#include <tenferro/einsum.hpp>
#include <tenferro/tensor/storage.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

// Label id -> one UTF-8 code point (U+0100 + id), so any number of labels fits the string form.
std::string label(int id) {
  const unsigned cp = 0x100u + static_cast<unsigned>(id);
  std::string s;
  if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

int usage() {
  std::cerr << "usage: dist_contract [--L n] [--D n] [--limit-bytes n] [--check] [--repeat n] [--plan-only ranks]\n"
               "                     [--flops-per-second x (cost model, with --plan-only)]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tenferro;
  dist::Session session(argc, argv);
  int L = 4, D = 2, repeat = 1, plan_only = 0;
  double flop_rate = 1e10;
  std::size_t limit = 1 << 16;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--check") {
      check = true;
    } else if ((a == "--L" || a == "--D" || a == "--limit-bytes" || a == "--repeat" || a == "--plan-only" ||
                a == "--flops-per-second") &&
               (v = next()) != nullptr) {
      const long long n = std::atoll(v);
      if (n < 1) return usage();
      if (a == "--flops-per-second") flop_rate = std::atof(v);
      if (a == "--L") L = static_cast<int>(n);
      if (a == "--D") D = static_cast<int>(n);
      if (a == "--limit-bytes") limit = static_cast<std::size_t>(n);
      if (a == "--repeat") repeat = static_cast<int>(n);
      if (a == "--plan-only") plan_only = static_cast<int>(n);
    } else {
      return usage();
    }
  }
  set_num_threads(1);
  CpuBackend cpu;
  // Edge labels: horizontal (r, c)-(r, c+1) and vertical (r, c)-(r+1, c).
  auto h = [&](int r, int c) { return r * (L - 1) + c; };
  auto v = [&](int r, int c) { return L * (L - 1) + r * L + c; };
  std::string subscripts;
  std::vector<Tensor> sites;
  std::vector<Shape> shapes;
  const std::int64_t chi = static_cast<std::int64_t>(D) * D;
  for (int r = 0; r < L; ++r)
    for (int c = 0; c < L; ++c) {
      std::string term;
      Shape bond;
      if (c > 0) term += label(h(r, c - 1)), bond.push_back(D);
      if (c + 1 < L) term += label(h(r, c)), bond.push_back(D);
      if (r > 0) term += label(v(r - 1, c)), bond.push_back(D);
      if (r + 1 < L) term += label(v(r, c)), bond.push_back(D);
      subscripts += (subscripts.empty() ? "" : ",") + term;
      shapes.push_back({});
      for (std::size_t k = 0; k < bond.size(); ++k) shapes.back().push_back(chi);
      if (plan_only > 0) continue;
      // T[p, bonds...] and the double layer sum_p T (x) T with each bond pair merged.
      Shape ts{2};
      for (auto b : bond) ts.push_back(b);
      const Tensor t = Tensor::uniform(ts, DType::f64, static_cast<std::uint64_t>(1 + r * L + c));
      std::string in = "p", in2 = "p", out;
      const char* a1 = "abcd";
      const char* a2 = "efgh";
      for (std::size_t k = 0; k < bond.size(); ++k) in += a1[k], in2 += a2[k], out += a1[k], out += a2[k];
      const Tensor e = einsum(in + "," + in2 + "->" + out, {t, t}, cpu).contiguous();
      sites.push_back(e.reshape(shapes.back()));
    }
  subscripts += "->";
  dist::Stats stats, best_stats;
  const dist::Options options{.memory_limit_bytes = limit, .stats = &stats};
  if (plan_only > 0) {
    // The cost model for `plan_only` ranks, without contracting.
    if (session.rank() == 0)
      std::cout << dist::plan(subscripts, shapes, std::vector<DType>(shapes.size(), DType::f64), plan_only, options)
                       .to_string({.flops_per_second = flop_rate});
    return 0;
  }
  if (session.rank() == 0)
    std::cout << "PEPS " << L << "x" << L << ", D = " << D << ", " << session.size() << " rank(s), limit " << limit
              << " bytes per rank\n"
              << dist::plan(subscripts, shapes, std::vector<DType>(shapes.size(), DType::f64), session.size(),
                            options)
                     .to_string();
  // The first call plans (every rank, the same plan); later calls reuse it.
  Tensor norm;
  double best = 1e300, first = 0;
  for (int it = 0; it <= repeat; ++it) {
    set_host_memory_limit(host_memory_in_use() + limit);
    session.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    norm = dist::einsum(subscripts, sites, cpu, session, options);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    set_host_memory_limit(0);
    if (it == 0) {
      first = s;
    } else if (s < best) {
      best = s;
      best_stats = stats;
    }
  }
  if (session.rank() == 0) {
    std::cout.precision(15);
    std::cout << "norm = " << norm.at<double>({}) << "\nseconds = " << best << " (best of " << repeat
              << " planned calls; the first call, planning included: " << first << ")\n";
    for (std::size_t r = 0; r < best_stats.contract_seconds_per_rank.size(); ++r)
      std::cout << "rank " << r << ": slices " << best_stats.contract_seconds_per_rank[r] << " s wall, "
                << best_stats.contract_cpu_seconds_per_rank[r] << " s CPU\n";
    if (check) {
      const auto t0 = std::chrono::steady_clock::now();
      const double single = einsum(subscripts, sites, cpu).at<double>({});
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double rel = std::abs(single - norm.at<double>({})) / std::abs(single);
      std::cout << "single-process norm = " << single << ", relative difference " << rel
                << "\nsingle-process seconds = " << s << " (unsliced, no limit, planning included)\n";
      if (rel > 1e-10) return 1;
    }
  }
  return 0;
}

// tropical_viterbi: Viterbi decoding of a hidden Markov model as a max-plus
// tensor network, with the most likely state path read off the gradient.
//
//   tropical_viterbi [--states K] [--steps T] [--symbols M] [--seed S]
//
// A random HMM (initial distribution pi, transitions A[i, j] = P(j | i),
// emissions B[k, symbol]) is drawn from the seed, an observation sequence
// is sampled from it, and the log-probability of the best state path
//   max over z of  log pi[z0] + sum_t log A[z(t-1), z(t)] + sum_t E[z(t), t],
//   E[k, t] = log B[k, obs(t)],
// is one max-plus einsum over 2T operands (log pi, the T columns of E and
// T - 1 copies of log A; state labels 0 .. T-1), contracted along the path
// from tenferro's contraction-order optimiser. Its gradient with respect to
// E is the indicator of the best path: column t holds a single 1, at the
// state z*(t). The program prints that path, checks it and the score
// against the classic dynamic programme with back-pointers, and exits 0
// when they agree (1 when not; 2 for bad arguments).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <tenferro/ad.hpp>
#include <tenferro/cpu.hpp>
#include <tenferro/runtime.hpp>
#include <tropical/tropical.hpp>

namespace {

using namespace tenferro;

struct Hmm {
  std::int64_t k = 0, m = 0;
  std::vector<double> log_pi;               // [k]
  std::vector<std::vector<double>> log_a;   // [k][k]
  std::vector<std::vector<double>> log_b;   // [k][m]
};

std::vector<double> random_distribution(std::int64_t n, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  std::vector<double> p(static_cast<std::size_t>(n));
  double total = 0;
  for (auto& x : p) total += (x = u(gen));
  for (auto& x : p) x /= total;
  return p;
}

std::int64_t draw(const std::vector<double>& log_p, std::mt19937_64& gen) {
  double r = std::uniform_real_distribution<double>(0.0, 1.0)(gen);
  for (std::size_t i = 0; i < log_p.size(); ++i) {
    r -= std::exp(log_p[i]);
    if (r <= 0) return static_cast<std::int64_t>(i);
  }
  return static_cast<std::int64_t>(log_p.size()) - 1;
}

std::vector<double> logs(std::vector<double> p) {
  for (auto& x : p) x = std::log(x);
  return p;
}

// The textbook dynamic programme: best score and path by back-pointers.
std::pair<double, std::vector<std::int64_t>> viterbi_dp(const Hmm& h, const std::vector<std::int64_t>& obs) {
  const std::size_t k = static_cast<std::size_t>(h.k), t_len = obs.size();
  std::vector<std::vector<double>> score(t_len, std::vector<double>(k));
  std::vector<std::vector<std::size_t>> back(t_len, std::vector<std::size_t>(k, 0));
  for (std::size_t s = 0; s < k; ++s) score[0][s] = h.log_pi[s] + h.log_b[s][static_cast<std::size_t>(obs[0])];
  for (std::size_t t = 1; t < t_len; ++t)
    for (std::size_t s = 0; s < k; ++s) {
      double best = -INFINITY;
      for (std::size_t r = 0; r < k; ++r) {
        const double v = score[t - 1][r] + h.log_a[r][s];
        if (v > best) {
          best = v;
          back[t][s] = r;
        }
      }
      score[t][s] = best + h.log_b[s][static_cast<std::size_t>(obs[t])];
    }
  std::size_t last = 0;
  for (std::size_t s = 1; s < k; ++s)
    if (score[t_len - 1][s] > score[t_len - 1][last]) last = s;
  std::vector<std::int64_t> path(t_len);
  path[t_len - 1] = static_cast<std::int64_t>(last);
  for (std::size_t t = t_len - 1; t > 0; --t)
    path[t - 1] = static_cast<std::int64_t>(back[t][static_cast<std::size_t>(path[t])]);
  return {score[t_len - 1][last], path};
}

bool parse_flag(int argc, char** argv, int& i, const char* name, std::int64_t& out) {
  if (std::string(argv[i]) != name) return false;
  if (i + 1 >= argc) throw std::invalid_argument(std::string(name) + " needs a value");
  char* end = nullptr;
  out = std::strtoll(argv[++i], &end, 10);
  if (*end != '\0' || out < 1) throw std::invalid_argument(std::string(name) + " takes an integer >= 1");
  return true;
}

int run(int argc, char** argv) {
  std::int64_t k = 4, t_len = 12, m = 5, seed = 1;
  for (int i = 1; i < argc; ++i)
    if (!parse_flag(argc, argv, i, "--states", k) && !parse_flag(argc, argv, i, "--steps", t_len) &&
        !parse_flag(argc, argv, i, "--symbols", m) && !parse_flag(argc, argv, i, "--seed", seed))
      throw std::invalid_argument(std::string("unknown argument '") + argv[i] + "'");

  std::mt19937_64 gen(static_cast<std::uint64_t>(seed));
  Hmm h{k, m, logs(random_distribution(k, gen)), {}, {}};
  for (std::int64_t s = 0; s < k; ++s) h.log_a.push_back(logs(random_distribution(k, gen)));
  for (std::int64_t s = 0; s < k; ++s) h.log_b.push_back(logs(random_distribution(m, gen)));
  std::vector<std::int64_t> obs;
  std::int64_t z = draw(h.log_pi, gen);
  for (std::int64_t t = 0; t < t_len; ++t) {
    obs.push_back(draw(h.log_b[static_cast<std::size_t>(z)], gen));
    z = draw(h.log_a[static_cast<std::size_t>(z)], gen);
  }

  // The network: labels 0 .. T-1 are the states; column t of E is [k, 1] with
  // a label T + t of its own for the axis of extent 1.
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  Tensor pi = Tensor::empty({k}, DType::f64), a = Tensor::empty({k, k}, DType::f64),
         e = Tensor::empty({k, t_len}, DType::f64);
  for (std::int64_t i = 0; i < k; ++i) {
    pi.set<double>({i}, h.log_pi[static_cast<std::size_t>(i)]);
    for (std::int64_t j = 0; j < k; ++j)
      a.set<double>({i, j}, h.log_a[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
    for (std::int64_t t = 0; t < t_len; ++t)
      e.set<double>({i, t}, h.log_b[static_cast<std::size_t>(i)][static_cast<std::size_t>(obs[static_cast<std::size_t>(t)])]);
  }
  EagerTensor emissions = rt.tensor(e).requires_grad();
  EagerTensor transitions = rt.tensor(a);
  std::vector<EagerTensor> operands{rt.tensor(pi)};
  std::vector<std::vector<std::int64_t>> labels{{0}};
  for (std::int64_t t = 0; t < t_len; ++t) {
    operands.push_back(emissions.slice(1, Dim(t), Dim(t + 1)));
    labels.push_back({t, t_len + t});
    if (t > 0) {
      operands.push_back(transitions);
      labels.push_back({t - 1, t});
    }
  }
  const EinsumSpec spec = einsum_spec(labels, {});
  EagerTensor score = tropical::einsum(tropical::Semiring::max_plus, spec, operands);
  backward(score);

  const Tensor g = emissions.grad().value();
  std::vector<std::int64_t> path;
  bool one_hot = true;
  for (std::int64_t t = 0; t < t_len; ++t) {
    std::int64_t best = 0;
    double total = 0;
    for (std::int64_t s = 0; s < k; ++s) {
      total += g.at<double>({s, t});
      if (g.at<double>({s, t}) > g.at<double>({best, t})) best = s;
    }
    one_hot = one_hot && std::abs(total - 1) < 1e-12 && std::abs(g.at<double>({best, t}) - 1) < 1e-12;
    path.push_back(best);
  }
  const auto [dp_score, dp_path] = viterbi_dp(h, obs);
  const double net_score = score.value().item().to<double>();
  auto print_path = [&](const char* what, const std::vector<std::int64_t>& p) {
    std::printf("%-26s", what);
    for (auto s : p) std::printf(" %lld", static_cast<long long>(s));
    std::printf("\n");
  };
  std::printf("HMM: %lld states, %lld symbols, %lld steps, seed %lld; network of %zu operands\n",
              static_cast<long long>(k), static_cast<long long>(m), static_cast<long long>(t_len),
              static_cast<long long>(seed), operands.size());
  print_path("observations", obs);
  print_path("path from the gradient", path);
  print_path("path by back-pointers", dp_path);
  std::printf("log-probability: network %.12f, dynamic programme %.12f\n", net_score, dp_score);
  const bool ok = one_hot && path == dp_path && std::abs(net_score - dp_score) < 1e-9 * (1 + std::abs(dp_score));
  std::printf("%s\n", ok ? "paths agree" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tropical_viterbi: %s\nusage: tropical_viterbi [--states K] [--steps T] [--symbols M] [--seed S]\n",
                 e.what());
    return 2;
  } catch (const tenferro::Error& e) {
    std::fprintf(stderr, "tropical_viterbi: %s\n", e.what());
    return 1;
  }
}

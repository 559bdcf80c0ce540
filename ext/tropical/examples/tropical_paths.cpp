// tropical_paths: all-pairs shortest paths by repeated min-plus squaring,
// with the derivative of one distance with respect to every edge weight.
//
//   tropical_paths [--grad S T] < graph
//
// Input (standard input): the first line holds the vertex count n, every
// further line one directed edge "u v w" (0-based vertices u, v < n, a
// finite weight w; negative weights are fine, negative cycles are not).
// Blank lines and lines starting with '#' are skipped.
// Output: n lines of n distances (dist[u][v] in row u, "inf" where v is
// unreachable from u). With --grad S T, one more line per edge line, in
// input order, holding d dist[S][T] / d w of that edge: 1 on the unique
// shortest path from S to T, 0 elsewhere (tied shortest paths share it
// evenly; an unreachable T gives 0).
// Malformed input or arguments: a message naming the line on standard
// error, exit status 2.
//
// How: the weights are one vector w[e]. With the 0 / inf incidence matrices
// U[e, u] (0 where edge e leaves u) and V[e, v] (0 where it enters v), the
// min-plus network "eu,e,ev->uv" puts min over parallel edges of w into
// D[u, v]; min with the 0-diagonal gives paths of at most one edge, and
// each min-plus squaring D <- D (x) D doubles the path length, so
// ceil(log2(n - 1)) squarings give all shortest paths. One more squaring
// shows a negative cycle as a negative diagonal entry. Everything runs on eager
// tensors through the tropical family, so backward() gives the gradient.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <tenferro/ad.hpp>
#include <tenferro/cpu.hpp>
#include <tenferro/runtime.hpp>
#include <tropical/tropical.hpp>

namespace {

using namespace tenferro;

struct InputError {
  std::string message;
};

struct Edge {
  std::int64_t u, v;
  double w;
};

struct Graph {
  std::int64_t n = 0;
  std::vector<Edge> edges;
};

bool parse_int(const std::string& s, std::int64_t& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

bool parse_double(const std::string& s, double& out) {
  const char* begin = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);   // from_chars takes no '+'
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(begin, end, out);
  return ec == std::errc() && p == end;
}

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

std::string at_line(std::int64_t line) { return "line " + std::to_string(line) + ": "; }

Graph read_graph(std::istream& in) {
  Graph g;
  std::string line;
  std::int64_t number = 0;
  bool have_n = false;
  while (std::getline(in, line)) {
    ++number;
    const std::vector<std::string> t = tokens(line);
    if (t.empty() || t[0][0] == '#') continue;
    if (!have_n) {
      if (t.size() != 1 || !parse_int(t[0], g.n) || g.n < 0)
        throw InputError{at_line(number) + "expected the vertex count n (an integer >= 0), got '" + line + "'"};
      have_n = true;
      continue;
    }
    if (t.size() != 3) throw InputError{at_line(number) + "expected an edge 'u v w', got '" + line + "'"};
    Edge e{};
    for (int k = 0; k < 2; ++k) {
      std::int64_t& x = k == 0 ? e.u : e.v;
      if (!parse_int(t[static_cast<std::size_t>(k)], x))
        throw InputError{at_line(number) + "vertex '" + t[static_cast<std::size_t>(k)] + "' is not an integer"};
      if (x < 0 || x >= g.n)
        throw InputError{at_line(number) + "vertex " + std::to_string(x) + " is out of range [0, " +
                         std::to_string(g.n) + ")"};
    }
    if (!parse_double(t[2], e.w) || !std::isfinite(e.w))
      throw InputError{at_line(number) + "weight '" + t[2] + "' is not a finite number"};
    g.edges.push_back(e);
  }
  if (!have_n) throw InputError{at_line(number + 1) + "expected the vertex count n, got the end of the input"};
  return g;
}

std::string format(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return "0";
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, x);
  (void)ec;
  return std::string(buf, p);
}

void print_matrix(const Tensor& d, std::int64_t n) {
  for (std::int64_t u = 0; u < n; ++u) {
    std::string row;
    for (std::int64_t v = 0; v < n; ++v) {
      if (v) row += ' ';
      row += format(d.at<double>({u, v}));
    }
    std::cout << row << '\n';
  }
}

int run(int argc, char** argv) {
  bool want_grad = false;
  std::int64_t s = 0, t = 0;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "--grad") {
    if (!parse_int(args[1], s) || !parse_int(args[2], t))
      throw InputError{"--grad takes two vertex numbers S T, got '" + args[1] + "' '" + args[2] + "'"};
    want_grad = true;
  } else if (!args.empty()) {
    throw InputError{"usage: tropical_paths [--grad S T] < graph"};
  }
  const Graph g = read_graph(std::cin);
  const std::int64_t n = g.n, m = static_cast<std::int64_t>(g.edges.size());
  if (want_grad && (s < 0 || s >= n || t < 0 || t >= n))
    throw InputError{"--grad " + std::to_string(s) + " " + std::to_string(t) + ": vertices must lie in [0, " +
                     std::to_string(n) + ")"};
  if (n == 0) return 0;

  const double inf = std::numeric_limits<double>::infinity();
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  Tensor weights = Tensor::zeros({m}), U = Tensor::full({m, n}, inf, DType::f64), V = Tensor::full({m, n}, inf, DType::f64);
  for (std::int64_t e = 0; e < m; ++e) {
    const Edge& edge = g.edges[static_cast<std::size_t>(e)];
    weights.set<double>({e}, edge.w);
    U.set<double>({e, edge.u}, 0.0);
    V.set<double>({e, edge.v}, 0.0);
  }
  Tensor diag = Tensor::full({n, n}, inf, DType::f64);
  for (std::int64_t u = 0; u < n; ++u) diag.set<double>({u, u}, 0.0);

  using tropical::Semiring;
  EagerTensor w = rt.tensor(weights).requires_grad();
  EagerTensor d = rt.tensor(diag);
  if (m > 0) d = tropical::einsum(Semiring::min_plus, "eu,e,ev->uv", {rt.tensor(U), w, rt.tensor(V)}).minimum(d);
  for (std::int64_t len = 1; len < n - 1; len *= 2)
    d = tropical::einsum(Semiring::min_plus, "ij,jk->ik", {d, d});
  // One more squaring covers every walk of up to 2 (n - 1) >= n edges, so a
  // negative cycle through u shows as a negative diagonal entry (beyond the
  // rounding of the sums: the tolerance scales with the total weight).
  const Tensor check = tropical::matmul(Semiring::min_plus, d.value(), d.value(), cpu);
  double total = 0;
  for (const Edge& e : g.edges) total += std::abs(e.w);
  for (std::int64_t u = 0; u < n; ++u)
    if (check.at<double>({u, u}) < -1e-12 * (1 + total))
      throw InputError{"the graph has a negative cycle (through vertex " + std::to_string(u) +
                       "); shortest paths are undefined"};
  print_matrix(d.value(), n);
  if (want_grad) {
    if (m > 0) {
      backward(d.slice(0, Dim(s), Dim(s + 1)).slice(1, Dim(t), Dim(t + 1)).sum());
      const Tensor gw = w.grad().value();
      // 12 digits: tied terms of one path split and re-add their share in
      // rounded arithmetic, which may leave 1 - 1e-16 where the value is 1.
      for (std::int64_t e = 0; e < m; ++e) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.12g", gw.at<double>({e}) + 0.0);
        std::cout << buf << '\n';
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const InputError& e) {
    std::cerr << "tropical_paths: " << e.message << '\n';
    return 2;
  } catch (const tenferro::Error& e) {
    std::cerr << "tropical_paths: " << e.what() << '\n';
    return 1;
  }
}

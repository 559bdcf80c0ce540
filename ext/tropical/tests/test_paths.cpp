// The tropical_paths example, run as a program: distances against an
// independent Floyd-Warshall on random graphs (negative weights without
// negative cycles, unreachable pairs), --grad against the edge indicator of
// the shortest path, and malformed input (message with the line number,
// exit status 2).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs the example on `input` with `args`.
Result run_paths(const std::string& input, const std::string& args = "") {
  const std::string dir = ::testing::TempDir();
  const std::string in = dir + "tropical_paths_in.txt", out = dir + "tropical_paths_out.txt",
                    err = dir + "tropical_paths_err.txt";
  std::ofstream(in) << input;
  const std::string cmd = std::string(TROPICAL_PATHS_EXE) + " " + args + " < " + in + " > " + out + " 2> " + err;
  Result r;
  const int raw = std::system(cmd.c_str());
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::vector<std::vector<double>> parse_rows(const std::string& text) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::vector<double> row;
    std::string tok;
    while (l >> tok) row.push_back(tok == "inf" ? std::numeric_limits<double>::infinity() : std::stod(tok));
    rows.push_back(row);
  }
  return rows;
}

struct Edge {
  int u, v;
  double w;
};

struct RandomGraph {
  int n;
  std::vector<Edge> edges;
  std::string text;
};

// Weights base + p[u] - p[v] with base > 0: negative weights, no negative cycle.
RandomGraph random_graph(int n, double density, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> base(0.1, 10.0), pot(0.0, 6.0), coin(0.0, 1.0);
  std::vector<double> p(static_cast<std::size_t>(n));
  for (auto& x : p) x = pot(gen);
  RandomGraph g{n, {}, std::to_string(n) + "\n# a comment line\n"};
  for (int u = 0; u < n; ++u)
    for (int v = 0; v < n; ++v)
      if (coin(gen) < density) {
        const int copies = coin(gen) < 0.1 ? 2 : 1;  // some parallel edges
        for (int c = 0; c < copies; ++c) {
          Edge e{u, v, base(gen) + p[static_cast<std::size_t>(u)] - p[static_cast<std::size_t>(v)]};
          g.edges.push_back(e);
          char buf[64];
          std::snprintf(buf, sizeof buf, "%d %d %.17g\n", u, v, e.w);
          g.text += buf;
        }
      }
  return g;
}

struct Apsp {
  std::vector<std::vector<double>> dist;
  std::vector<std::vector<int>> via;  // the edge index taken first on a shortest path u -> v, -1 if none
};

// Floyd-Warshall with the first edge of each shortest path (u != v).
Apsp floyd_warshall(const RandomGraph& g) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto n = static_cast<std::size_t>(g.n);
  Apsp a{std::vector<std::vector<double>>(n, std::vector<double>(n, inf)),
         std::vector<std::vector<int>>(n, std::vector<int>(n, -1))};
  for (std::size_t u = 0; u < n; ++u) a.dist[u][u] = 0;
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const auto u = static_cast<std::size_t>(g.edges[e].u), v = static_cast<std::size_t>(g.edges[e].v);
    if (g.edges[e].w < a.dist[u][v]) {
      a.dist[u][v] = g.edges[e].w;
      a.via[u][v] = static_cast<int>(e);
    }
  }
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (a.dist[i][k] + a.dist[k][j] < a.dist[i][j]) {
          a.dist[i][j] = a.dist[i][k] + a.dist[k][j];
          a.via[i][j] = a.via[i][k];
        }
  return a;
}

TEST(TropicalPaths, DistancesAndGradientsMatchFloydWarshall) {
  unsigned seed = 1;
  for (auto [n, density] : std::vector<std::pair<int, double>>{{1, 0.5}, {2, 0.6}, {5, 0.4}, {9, 0.25}, {17, 0.12}, {33, 0.08}}) {
    const RandomGraph g = random_graph(n, density, seed++);
    const Apsp ref = floyd_warshall(g);
    std::mt19937 pick(seed);
    for (int trial = 0; trial < 3; ++trial) {
      const int s = static_cast<int>(pick() % static_cast<unsigned>(n)), t = static_cast<int>(pick() % static_cast<unsigned>(n));
      const Result r = run_paths(g.text, "--grad " + std::to_string(s) + " " + std::to_string(t));
      ASSERT_EQ(r.status, 0) << r.err;
      const auto rows = parse_rows(r.out);
      ASSERT_EQ(rows.size(), static_cast<std::size_t>(n) + g.edges.size()) << r.out;
      int unreachable = 0;
      for (std::size_t u = 0; u < static_cast<std::size_t>(n); ++u) {
        ASSERT_EQ(rows[u].size(), static_cast<std::size_t>(n));
        for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) {
          const double want = ref.dist[u][v];
          if (std::isinf(want)) {
            ++unreachable;
            EXPECT_TRUE(std::isinf(rows[u][v]) && rows[u][v] > 0) << u << "->" << v;
          } else {
            EXPECT_NEAR(rows[u][v], want, 1e-9 * (1 + std::abs(want))) << u << "->" << v << " n=" << n;
          }
        }
      }
      // The edge indicator of the shortest path s -> t (empty when s == t or unreachable).
      std::vector<double> indicator(g.edges.size(), 0.0);
      if (s != t && !std::isinf(ref.dist[static_cast<std::size_t>(s)][static_cast<std::size_t>(t)])) {
        int u = s;
        while (u != t) {
          const int e = ref.via[static_cast<std::size_t>(u)][static_cast<std::size_t>(t)];
          ASSERT_GE(e, 0);
          indicator[static_cast<std::size_t>(e)] = 1.0;
          u = g.edges[static_cast<std::size_t>(e)].v;
        }
      }
      for (std::size_t e = 0; e < g.edges.size(); ++e) {
        ASSERT_EQ(rows[static_cast<std::size_t>(n) + e].size(), 1u);
        EXPECT_EQ(rows[static_cast<std::size_t>(n) + e][0], indicator[e]) << "edge line " << e << " n=" << n << " s=" << s
                                                                           << " t=" << t;
      }
      if (n >= 17) {
        EXPECT_GT(unreachable, 0) << "the sparse graphs should have unreachable pairs";
      }
    }
  }
}

TEST(TropicalPaths, LongPathGradient) {
  // A chain 0 -> 1 -> ... -> 9 of weight 1 per edge and shortcuts 0 -> 5 (4.5), 5 -> 9 (3.75):
  // the shortest 0 -> 9 path takes both shortcuts (8.25 against the chain's 9), which needs
  // several squarings to find (paths of up to 9 edges).
  std::string text = "10\n";
  for (int u = 0; u < 9; ++u) text += std::to_string(u) + " " + std::to_string(u + 1) + " 1\n";
  text += "0 5 4.5\n5 9 3.75\n";
  const Result r = run_paths(text, "--grad 0 9");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = parse_rows(r.out);
  ASSERT_EQ(rows.size(), 10u + 11u);
  EXPECT_EQ(rows[0][9], 8.25);  // 4.5 + 3.75 beats the chain (9)
  // chain edges 0..8 -> 0, then the two shortcuts -> 1
  for (int e = 0; e < 9; ++e) EXPECT_EQ(rows[static_cast<std::size_t>(10 + e)][0], 0.0) << e;
  EXPECT_EQ(rows[19][0], 1.0);
  EXPECT_EQ(rows[20][0], 1.0);
}

TEST(TropicalPaths, NumberFormatsParallelEdgesAndUnreachable) {
  // '+' and exponents parse; the cheaper of two parallel edges wins; 2 is unreachable.
  const Result r = run_paths("3\n0 1 +2.5\n1 0 1e1\n1 0 -0.5\n", "--grad 1 0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0 2.5 inf\n-0.5 0 inf\ninf inf 0\n0\n0\n1\n");
  const Result none = run_paths("2\n", "--grad 0 1");
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(none.out, "0 inf\ninf 0\n");
}

TEST(TropicalPaths, MalformedInputNamesTheLineAndExitsWith2) {
  struct Bad {
    std::string input, args, needle;
  };
  const std::vector<Bad> cases{
      {"", "", "line 1: expected the vertex count n"},
      {"abc\n", "", "line 1: expected the vertex count"},
      {"-3\n", "", "line 1"},
      {"3\n0 1\n", "", "line 2: expected an edge 'u v w'"},
      {"3\n\n0 5 1\n", "", "line 3: vertex 5 is out of range [0, 3)"},
      {"3\n0 1 1\n-1 1 1\n", "", "line 3: vertex -1 is out of range"},
      {"3\n0 x 1\n", "", "line 2: vertex 'x' is not an integer"},
      {"3\n0 1 nan\n", "", "line 2: weight 'nan' is not a finite number"},
      {"3\n0 1 inf\n", "", "line 2: weight 'inf'"},
      {"3\n0 1 1 7\n", "", "line 2: expected an edge"},
      {"3\n0 1 1\n", "--grad 0 3", "vertices must lie in [0, 3)"},
      {"3\n0 1 1\n", "--grad 0", "usage"},
      {"3\n0 1 1\n", "--grad a b", "--grad takes two vertex numbers"},
      {"2\n0 1 1\n1 0 -1.5\n", "", "negative cycle"},
  };
  for (const Bad& b : cases) {
    const Result r = run_paths(b.input, b.args);
    EXPECT_EQ(r.status, 2) << b.input << " | " << r.err;
    EXPECT_NE(r.err.find(b.needle), std::string::npos) << "input '" << b.input << "': " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace

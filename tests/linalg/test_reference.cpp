// Values against NumPy/SciPy: reference/linalg_reference.json, written by
// reference/gen_reference.py from the same (stored) inputs. Each case names
// the op, the dtype, the inputs and the expected outputs in tenferro's
// layout ([m, n, batch], column-major), and kappa, the largest 2-norm
// condition number of its matrices, which scales the tolerance where the
// result's accuracy depends on it.
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "linalg_test_util.hpp"

namespace tenferro {
namespace {

using namespace linalg_testing;
using nlohmann::json;

const json& reference() {
  static const json data = [] {
    std::ifstream in(TENFERRO_LINALG_REFERENCE);
    EXPECT_TRUE(in.good()) << "cannot open " << TENFERRO_LINALG_REFERENCE;
    return json::parse(in);
  }();
  return data;
}

DType dtype_from(const std::string& name) {
  for (DType d : float_dtypes())
    if (name == dtype_name(d)) return d;
  ADD_FAILURE() << "unknown dtype " << name;
  return DType::f64;
}

// A stored tensor, in dtype d.
Tensor decode(const json& j, DType d) {
  Shape shape;
  for (auto e : j.at("shape")) shape.push_back(e.get<std::int64_t>());
  const auto& re = j.at("re");
  std::vector<cd> v(re.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = cd(re[i].get<double>(), j.contains("im") ? j.at("im")[i].get<double>() : 0.0);
  Tensor t = Tensor::empty(shape, d);
  visit_dtype<kFloatDTypes>(d, "decode", [&]<class T>() {
    T* p = t.data<T>();
    for (std::size_t i = 0; i < v.size(); ++i) {
      if constexpr (is_complex_v<T>)
        p[i] = T(static_cast<real_t<T>>(v[i].real()), static_cast<real_t<T>>(v[i].imag()));
      else
        p[i] = static_cast<T>(v[i].real());
    }
  });
  return t;
}

// The expected values (complex<double>, column-major) and shape.
struct Expected {
  Shape shape;
  std::vector<cd> v;
};
Expected expected(const json& c, const char* key) {
  const json& j = c.at("expected").at(key);
  Expected e;
  for (auto x : j.at("shape")) e.shape.push_back(x.get<std::int64_t>());
  const auto& re = j.at("re");
  for (std::size_t i = 0; i < re.size(); ++i)
    e.v.emplace_back(re[i].get<double>(), j.contains("im") ? j.at("im")[i].get<double>() : 0.0);
  return e;
}

// |got - expected| <= tol * scale elementwise, scale = max |expected| (or 1).
void expect_close(const Tensor& got, const Expected& e, double tol, const std::string& what) {
  ASSERT_EQ(got.shape(), e.shape) << what;
  std::vector<cd> g = snapshot(got);
  double scale = 0;
  for (cd x : e.v) scale = std::max(scale, std::abs(x));
  scale = std::max(scale, 1e-300);
  for (std::size_t i = 0; i < g.size(); ++i)
    EXPECT_LE(std::abs(g[i] - e.v[i]), tol * scale)
        << what << " entry " << i << ": got " << g[i] << ", expected " << e.v[i];
}

// Each matrix's values compared as a multiset (eig's order is LAPACK's).
void expect_same_multiset(const Tensor& got, const Expected& e, double tol,
                          const std::string& what) {
  ASSERT_EQ(got.shape(), e.shape) << what;
  const std::int64_t n = e.shape[0],
                     count = static_cast<std::int64_t>(e.v.size()) / std::max<std::int64_t>(n, 1);
  for (std::int64_t b = 0; b < count; ++b) {
    std::vector<cd> g = vector_of(got, b);
    std::vector<bool> used(g.size(), false);
    double scale = 1e-300;
    for (std::int64_t i = 0; i < n; ++i)
      scale = std::max(scale, std::abs(e.v[static_cast<std::size_t>(b * n + i)]));
    for (std::int64_t i = 0; i < n; ++i) {
      const cd x = e.v[static_cast<std::size_t>(b * n + i)];
      std::size_t best = 0;
      double dist = 1e300;
      for (std::size_t k = 0; k < g.size(); ++k)
        if (!used[k] && std::abs(g[k] - x) < dist) dist = std::abs(g[k] - x), best = k;
      used[best] = true;
      EXPECT_LE(dist, tol * scale) << what << " matrix " << b << " eigenvalue " << x;
    }
  }
}

TEST(LinalgReference, MatchesNumpyAndScipy) {
  CpuBackend cpu;
  const json& ref = reference();
  std::map<std::string, int> seen;
  for (const json& c : ref.at("cases")) {
    const std::string op = c.at("op");
    const DType d = dtype_from(c.at("dtype"));
    Tensor a = testing::with_random_layout(decode(c.at("inputs").at("a"), d), seen[op]);
    const std::int64_t n = std::max(a.shape()[0], a.shape()[1]);
    const double kappa = c.at("kappa").get<double>();
    const double tol = 50 * eps(d) * static_cast<double>(n);
    const std::string what = op + " " + dtype_name(d) + " #" + std::to_string(seen[op]++);
    SCOPED_TRACE(what);
    if (op == "svdvals") {
      expect_close(linalg::svdvals(a, cpu), expected(c, "s"), tol, what);
      expect_close(linalg::svd(a, cpu).s, expected(c, "s"), tol, what + " (svd)");
    } else if (op == "eigvalsh") {
      expect_close(linalg::eigh(a, cpu).eigenvalues, expected(c, "w"), tol, what);
    } else if (op == "eigvals") {
      expect_same_multiset(linalg::eigvals(a, cpu), expected(c, "w"), 20 * tol * kappa, what);
      expect_same_multiset(linalg::eig(a, cpu).eigenvalues, expected(c, "w"), 20 * tol * kappa,
                           what);
    } else if (op == "det") {
      expect_close(linalg::det(a, cpu), expected(c, "det"), tol * kappa, what);
      auto [sign, logabs] = linalg::slogdet(a, cpu);
      expect_close(sign, expected(c, "sign"), tol * kappa, what + " sign");
      // logabsdet: absolute error (relative error of |det|).
      Expected le = expected(c, "logabsdet");
      std::vector<cd> g = snapshot(logabs);
      for (std::size_t i = 0; i < g.size(); ++i)
        EXPECT_NEAR(g[i].real(), le.v[i].real(), tol * kappa);
    } else if (op == "lstsq") {
      Tensor b = testing::with_random_layout(decode(c.at("inputs").at("b"), d), 1);
      auto [x, res, rank, s] = linalg::lstsq(a, b, cpu);
      expect_close(x, expected(c, "x"), tol * kappa, what + " x");
      expect_close(res, expected(c, "residuals"), tol * kappa, what + " residuals");
      expect_close(s, expected(c, "s"), tol, what + " s");
      Expected r = expected(c, "rank");
      EXPECT_EQ(scalar_of(rank, 0).real(), r.v[0].real());
    } else if (op == "matrix_exp") {
      double norm1 = tenferro::max(linalg::matrix_norm(a, cpu, 1), cpu).item().to<double>();
      expect_close(linalg::matrix_exp(a, cpu), expected(c, "e"), 2 * tol * std::max(1.0, norm1),
                   what);
    } else if (op == "inv") {
      expect_close(linalg::inv(a, cpu), expected(c, "inv"), tol * kappa, what);
    } else if (op == "solve") {
      Tensor b = testing::with_random_layout(decode(c.at("inputs").at("b"), d), 2);
      expect_close(linalg::solve(a, b, cpu), expected(c, "x"), tol * kappa, what);
    } else if (op == "pinv") {
      expect_close(linalg::pinv(a, cpu, {.rtol = 1e-4}), expected(c, "pinv"), tol * kappa, what);
    } else if (op == "matrix_norm") {
      const std::string ord = c.at("attrs").at("ord");
      linalg::NormOrder o = ord == "fro" || ord == "nuc" ? linalg::NormOrder(ord.c_str())
                            : ord == "inf"               ? linalg::NormOrder(linalg::kInf)
                            : ord == "-inf"              ? linalg::NormOrder(-linalg::kInf)
                                                         : linalg::NormOrder(std::stod(ord));
      expect_close(linalg::matrix_norm(a, cpu, o), expected(c, "norm"), tol, what + " norm");
      expect_close(linalg::cond(a, cpu, o), expected(c, "cond"), tol * kappa, what + " cond");
    } else {
      ADD_FAILURE() << "unknown op " << op;
    }
  }
  // Every op family in the file was exercised.
  for (const char* op : {"svdvals", "eigvalsh", "eigvals", "det", "lstsq", "matrix_exp", "inv",
                         "solve", "pinv", "matrix_norm"})
    EXPECT_GT(seen[op], 0) << op;
}

}  // namespace
}  // namespace tenferro

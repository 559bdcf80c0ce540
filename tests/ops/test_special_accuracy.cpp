// Accuracy of the special-function primitives against SciPy and mpmath.
//
// tests/ops/gen_special_reference.py evaluated SciPy (float64) and mpmath (40
// digits) on a grid over each function's domain, tails included, for f64
// and f32 arguments (tests/ops/data/special_reference.txt). Here every
// point runs through the primitive on the CPU backend, and the error is
// measured in ulps of the dtype at the reference value. Each function and
// dtype must stay within its stated bound (kBounds, the table of
// docs/special_functions.md); points where a reference is not finite are
// only compared for agreement in kind (both inf of one sign, or both NaN).
// TENFERRO_SPECIAL_TABLE=<path> writes the measured table (markdown).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tenferro/cpu.hpp"
#include "tenferro/ops/primitives.hpp"

using namespace tenferro;

namespace {

struct Point {
  double x, scipy, mpmath;
};
using Key = std::pair<std::string, std::string>;  // function, dtype

std::map<Key, std::vector<Point>> load() {
  std::ifstream f(TENFERRO_SPECIAL_REFERENCE);
  EXPECT_TRUE(f.good()) << "cannot read " << TENFERRO_SPECIAL_REFERENCE;
  std::map<Key, std::vector<Point>> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    std::string fn, dt, xs, ss, ms;
    is >> fn >> dt >> xs >> ss >> ms;
    out[{fn, dt}].push_back({std::strtod(xs.c_str(), nullptr), std::strtod(ss.c_str(), nullptr),
                             std::strtod(ms.c_str(), nullptr)});
  }
  return out;
}

Tensor apply(const std::string& fn, const Tensor& x, Backend& be) {
  if (fn == "erf") return ops::erf(x, be);
  if (fn == "erfc") return ops::erfc(x, be);
  if (fn == "erfinv") return ops::erfinv(x, be);
  if (fn == "erfcx") return ops::erfcx(x, be);
  if (fn == "lgamma") return ops::lgamma(x, be);
  if (fn == "digamma") return ops::digamma(x, be);
  if (fn == "i0") return ops::i0(x, be);
  if (fn == "i0e") return ops::i0e(x, be);
  if (fn == "i1") return ops::i1(x, be);
  if (fn == "i1e") return ops::i1e(x, be);
  if (fn == "ndtr") return ops::ndtr(x, be);
  if (fn == "ndtri") return ops::ndtri(x, be);
  if (fn == "log_ndtr") return ops::log_ndtr(x, be);
  if (fn.rfind("polygamma", 0) == 0) return ops::polygamma(std::stoll(fn.substr(9)), x, be);
  ADD_FAILURE() << "unknown function " << fn;
  return x;
}

// The spacing of the dtype's numbers at |v|.
template <class T>
double ulp_at(double v) {
  T a = static_cast<T>(std::fabs(v));
  if (!std::isfinite(a)) a = std::numeric_limits<T>::max();
  T next = std::nextafter(a, std::numeric_limits<T>::infinity());
  return static_cast<double>(next) - static_cast<double>(a);
}

struct Errors {
  double vs_scipy = 0, vs_mpmath = 0;
  double x_scipy = 0, x_mpmath = 0;  // where the maxima are
  int points = 0, kind_mismatches = 0, subnormal = 0;
  std::string first_mismatch;
};

template <class T>
Errors measure(const std::string& fn, const std::vector<Point>& pts, Backend& be) {
  std::vector<T> xs;
  for (const Point& p : pts) xs.push_back(static_cast<T>(p.x));
  Tensor x = Tensor::from_vec_col_major<T>({static_cast<std::int64_t>(xs.size())}, xs);
  std::vector<T> got = apply(fn, x, be).template to_vec_col_major<T>();
  Errors e;
  const double tiny = static_cast<double>(std::numeric_limits<T>::min());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    // Results below the normal range (erfc, ndtr, i0e ... deep in a tail)
    // carry fewer digits, and SciPy flushes some of them to zero early
    // (erfc above x = 26.64): they are checked to an absolute error of one
    // smallest normal number against mpmath, not in ulps.
    if (std::fabs(pts[i].mpmath) < tiny) {
      if (!(std::fabs(g - pts[i].mpmath) <= tiny) && e.kind_mismatches++ == 0)
        e.first_mismatch = std::to_string(pts[i].x) + ": subnormal result off by more than the smallest normal";
      ++e.subnormal;
      ++e.points;
      continue;
    }
    auto err = [&](double ref, double& worst, double& where, bool check_kind) {
      if (std::isnan(ref)) return;
      const double r = static_cast<double>(static_cast<T>(ref));  // the reference in the dtype
      if (!std::isfinite(r)) {
        // Only mpmath decides where a result overflows: SciPy's i0 and i1
        // overflow early (exp(x) times a series), which is not an error of ours.
        if (!check_kind) return;
        if (g != r && e.kind_mismatches++ == 0)
          e.first_mismatch = std::to_string(pts[i].x) + ": got " + std::to_string(g) + ", want " + std::to_string(r);
        return;
      }
      double u = std::isfinite(g) ? std::fabs(g - ref) / ulp_at<T>(ref) : std::numeric_limits<double>::infinity();
      if (u > worst) {
        worst = u;
        where = pts[i].x;
      }
    };
    err(pts[i].scipy, e.vs_scipy, e.x_scipy, false);
    err(pts[i].mpmath, e.vs_mpmath, e.x_mpmath, true);
    ++e.points;
  }
  return e;
}

// Max ulps allowed, against SciPy and against mpmath, per function and dtype.
// The f32 results are the double computation rounded once (<= 1 ulp against
// an exact value; SciPy's own float64 error is far below an f32 ulp).
// Where the SciPy bound is far above the mpmath one, SciPy (Cephes) is the
// less accurate of the two, by the measured amount: its erfc, erfcx, ndtr
// and log_ndtr lose ~x^2 ulp in the tails (exp(-x^2) of a rounded x^2, or
// erfc of a rounded x / sqrt 2), its gammaln ~400 ulp next to the root at 1.
// The mpmath column is the accuracy.
struct Bound {
  double scipy, mpmath;
};
const std::map<Key, Bound>& bounds() {
  static const std::map<Key, Bound> b{
      {{"erf", "f64"}, {2, 2}},          {{"erf", "f32"}, {1, 1}},
      {{"erfc", "f64"}, {512, 4}},       {{"erfc", "f32"}, {1, 1}},
      {{"erfinv", "f64"}, {2, 2}},       {{"erfinv", "f32"}, {1, 1}},
      {{"erfcx", "f64"}, {512, 4}},      {{"erfcx", "f32"}, {1, 1}},
      {{"lgamma", "f64"}, {512, 4}},     {{"lgamma", "f32"}, {1, 1}},
      {{"digamma", "f64"}, {4, 4}},      {{"digamma", "f32"}, {1, 1}},
      {{"i0", "f64"}, {12, 12}},         {{"i0", "f32"}, {1, 1}},
      {{"i0e", "f64"}, {12, 12}},        {{"i0e", "f32"}, {1, 1}},
      {{"i1", "f64"}, {12, 12}},         {{"i1", "f32"}, {1, 1}},
      {{"i1e", "f64"}, {12, 12}},        {{"i1e", "f32"}, {1, 1}},
      {{"ndtr", "f64"}, {2048, 4}},      {{"ndtr", "f32"}, {1, 1}},
      {{"ndtri", "f64"}, {8, 2}},        {{"ndtri", "f32"}, {1, 1}},
      {{"log_ndtr", "f64"}, {2048, 4}},  {{"log_ndtr", "f32"}, {1, 1}},
      {{"polygamma1", "f64"}, {8, 4}},   {{"polygamma1", "f32"}, {1, 1}},
      {{"polygamma2", "f64"}, {8, 4}},   {{"polygamma2", "f32"}, {1, 1}},
      {{"polygamma3", "f64"}, {8, 4}},   {{"polygamma3", "f32"}, {1, 1}},
      {{"polygamma4", "f64"}, {8, 4}},   {{"polygamma4", "f32"}, {1, 1}},
  };
  return b;
}

TEST(SpecialFunctions, UlpErrorAgainstScipyAndMpmath) {
  CpuBackend cpu;
  auto data = load();
  ASSERT_FALSE(data.empty());
  std::ostringstream table;
  table << "| function | dtype | points | max ulp vs SciPy | at x | max ulp vs mpmath | at x | bound (SciPy / mpmath) |\n"
        << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& [key, pts] : data) {
    const auto& [fn, dt] = key;
    Errors e = dt == "f64" ? measure<double>(fn, pts, cpu) : measure<float>(fn, pts, cpu);
    auto it = bounds().find(key);
    ASSERT_NE(it, bounds().end()) << fn << " " << dt << " has no stated bound";
    EXPECT_LE(e.vs_scipy, it->second.scipy) << fn << " " << dt << " vs SciPy, worst at x = " << e.x_scipy;
    EXPECT_LE(e.vs_mpmath, it->second.mpmath) << fn << " " << dt << " vs mpmath, worst at x = " << e.x_mpmath;
    EXPECT_EQ(e.kind_mismatches, 0) << fn << " " << dt << ": non-finite results differ, first " << e.first_mismatch;
    char buf[400];
    std::snprintf(buf, sizeof buf, "| `%s` | %s | %d | %.2f | %.6g | %.2f | %.6g | %g / %g |\n", fn.c_str(), dt.c_str(),
                  e.points, e.vs_scipy, e.x_scipy, e.vs_mpmath, e.x_mpmath, it->second.scipy, it->second.mpmath);
    table << buf;
  }
  std::printf("%s", table.str().c_str());
  if (const char* path = std::getenv("TENFERRO_SPECIAL_TABLE")) std::ofstream(path) << table.str();
}

}  // namespace

// Replay of the PyTorch AD oracle database vendored in tests/data/ad-oracles
// (schema in schema/case.schema.json; source, version and licence in its
// README.md; the environment variable TENFERRO_AD_ORACLES_DIR overrides the
// path) against tenferro's AD rules.
//
// Every record holds the inputs of one PyTorch op (row-major data), an
// observable of its outputs, and probes: a direction u with the reference
// JVP J u, an output cotangent c with the reference VJP J^H c (PyTorch's
// complex convention, which is ours: Note [Complex gradients] in
// tenferro/ad.hpp), and, for second-order families, the reference HVP: the
// derivative along u of x -> J(x)^H c (forward over reverse). The op table
// below maps the oracle op names (and the observables of svd/eigh) to
// functions on graph Values; the replay runs them eagerly (Note [Eager
// evaluation] in ops/graph.hpp) and compares with the record's tolerances
// (torch.allclose: |got - ref| <= atol + rtol |ref| elementwise).
//
// One test per oracle op (parameterised), so a failure names the op, and
// its message names the case_id and probe. Ops without a mapping are
// skipped and listed (unmapped_reason). Known convention differences would
// be listed in known_difference() and reported, not failed (none at
// present: PyTorch splits max/min ties equally, as tenferro and JAX do).
// Cases where tenferro raises UnimplementedError (no derivative rule for
// that op or shape) are listed, not failed. Expected-error records
// (gauge-ill-defined svd/eigh losses, which PyTorch rejects) are counted,
// not replayed: tenferro returns the gauge-fixed derivative instead.
// Hermitian-input families: see hermitian_wrapped(). All conventions are
// written out at the top of docs/ad_coverage.md.
//
// With TENFERRO_AD_COVERAGE=<path> the binary writes the coverage table
// (docs/ad_coverage.md) after the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/runtime.hpp"
#include "tenferro/runtime/value_ops.hpp"

#if __has_include("tenferro/linalg/traced.hpp") && defined(TENFERRO_ORACLE_LINALG)
#include "tenferro/linalg/traced.hpp"
#define TENFERRO_ORACLE_HAVE_LINALG 1
#else
#define TENFERRO_ORACLE_HAVE_LINALG 0
#endif

#ifndef TENFERRO_AD_ORACLES_DIR
#error "TENFERRO_AD_ORACLES_DIR must point at the oracle database"
#endif

using namespace tenferro;
using namespace tenferro::testing;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---- reading records ---------------------------------------------------------------

// Python's json writes NaN, Infinity and -Infinity as bare tokens, which
// nlohmann rejects: they become the strings "nan", "inf", "-inf" (outside strings).
std::string quote_nonfinite(const std::string& line) {
  std::string out;
  out.reserve(line.size() + 16);
  bool in_str = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (in_str) {
      out += ch;
      if (ch == '\\' && i + 1 < line.size()) out += line[++i];
      else if (ch == '"') in_str = false;
      continue;
    }
    if (ch == '"') {
      in_str = true;
      out += ch;
    } else if (line.compare(i, 9, "-Infinity") == 0) {
      out += "\"-inf\"";
      i += 8;
    } else if (line.compare(i, 8, "Infinity") == 0) {
      out += "\"inf\"";
      i += 7;
    } else if (line.compare(i, 3, "NaN") == 0) {
      out += "\"nan\"";
      i += 2;
    } else {
      out += ch;
    }
  }
  return out;
}

double num(const json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    throw std::runtime_error("not a number: " + s);
  }
  if (j.is_boolean()) return j.get<bool>() ? 1.0 : 0.0;
  return j.get<double>();
}
DType dtype_named(const std::string& s) {
  if (s == "float32") return DType::f32;
  if (s == "float64") return DType::f64;
  if (s == "complex64") return DType::c64;
  if (s == "complex128") return DType::c128;
  throw std::runtime_error("unknown dtype " + s);
}

Shape shape_of(const json& t) {
  Shape s;
  for (const auto& e : t.at("shape")) s.push_back(e.get<std::int64_t>());
  return s;
}

// Elements of a serialized tensor in row-major order.
std::vector<std::complex<double>> elements(const json& t) {
  std::vector<std::complex<double>> v;
  for (const auto& e : t.at("data")) {
    if (e.is_array()) v.emplace_back(num(e[0]), num(e[1]));
    else v.emplace_back(num(e), 0.0);
  }
  return v;
}

template <class T>
std::vector<T> cast_elements(const std::vector<std::complex<double>>& v) {
  std::vector<T> out;
  out.reserve(v.size());
  for (const auto& z : v) {
    if constexpr (is_complex_v<T>) out.emplace_back(static_cast<typename T::value_type>(z.real()),
                                                    static_cast<typename T::value_type>(z.imag()));
    else out.push_back(static_cast<T>(z.real()));
  }
  return out;
}

// A serialized (row-major) tensor as one of ours (column-major storage, same logical shape).
Tensor to_tensor(const json& t) {
  Shape s = shape_of(t);
  auto v = elements(t);
  switch (dtype_named(t.at("dtype").get<std::string>())) {
    case DType::f32: return Tensor::from_vec_row_major<float>(s, cast_elements<float>(v));
    case DType::f64: return Tensor::from_vec_row_major<double>(s, cast_elements<double>(v));
    case DType::c64: return Tensor::from_vec_row_major<std::complex<float>>(s, cast_elements<std::complex<float>>(v));
    case DType::c128: return Tensor::from_vec_row_major<std::complex<double>>(s, cast_elements<std::complex<double>>(v));
    default: throw std::runtime_error("bad dtype");
  }
}

// Our tensor's elements in row-major order.
std::vector<std::complex<double>> row_major(const Tensor& t) {
  std::vector<std::complex<double>> out;
  const Shape& s = t.shape();
  std::int64_t n = 1;
  for (auto e : s) n *= e;
  out.reserve(static_cast<std::size_t>(n));
  DimVec idx(s.size(), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    out.push_back(value_at(t, idx));
    for (std::size_t a = s.size(); a-- > 0;) {
      if (++idx[a] < s[a]) break;
      idx[a] = 0;
    }
  }
  return out;
}

std::string shape_str(const Shape& s) {
  std::ostringstream o;
  o << "[";
  for (std::size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << "]";
  return o.str();
}

// torch.allclose(got, ref): |got - ref| <= atol + rtol |ref|; NaNs must agree.
bool allclose(const Tensor& got, const json& ref, double rtol, double atol, std::string& why) {
  Shape rs = shape_of(ref);
  if (got.shape() != rs) {
    why = "shape " + shape_str(got.shape()) + " vs reference " + shape_str(rs);
    return false;
  }
  auto g = row_major(got);
  auto r = elements(ref);
  double worst = 0;
  std::size_t worst_i = 0;
  bool ok = true;
  for (std::size_t i = 0; i < r.size(); ++i) {
    bool gn = std::isnan(g[i].real()) || std::isnan(g[i].imag());
    bool rn = std::isnan(r[i].real()) || std::isnan(r[i].imag());
    if (gn || rn) {
      if (gn != rn) {
        ok = false;
        worst_i = i;
        worst = std::numeric_limits<double>::infinity();
      }
      continue;
    }
    if (g[i] == r[i]) continue;  // also equal infinities
    double err = std::abs(g[i] - r[i]);
    double excess = err - (atol + rtol * std::abs(r[i]));
    if (!(excess <= 0)) {
      ok = false;
      if (!(err <= worst)) {
        worst = err;
        worst_i = i;
      }
    }
  }
  if (!ok) {
    std::ostringstream o;
    o << "element " << worst_i << " (row-major): got " << g[worst_i] << ", reference " << r[worst_i]
      << " (rtol " << rtol << ", atol " << atol << ")";
    why = o.str();
  }
  return ok;
}

// ---- the op table --------------------------------------------------------------------

// A case the mapping cannot express (reason in what()).
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Call {
  const json& args;    // op_args (array, maybe empty)
  const json& kwargs;  // op_kwargs (object, maybe empty)
  // lu_solve: the pivots tried for the record (tenferro's [n, batch...], 0-based),
  // which the database does not store (replay_lu_solve).
  const Tensor* pivots = nullptr;
  bool has(const char* k) const { return kwargs.contains(k) && !kwargs.at(k).is_null(); }
  const json& kw(const char* k) const { return kwargs.at(k); }
  bool has_arg(std::size_t i) const { return args.size() > i && !args[i].is_null(); }
};

using Outputs = std::vector<std::pair<std::string, Value>>;
using OpFn = std::function<Outputs(const std::vector<Value>&, const Call&)>;

struct OpSpec {
  OpFn fn;
  std::string how;  // the tenferro expression, for the coverage table
};

Outputs one(Value v) { return {{"value", std::move(v)}}; }

Value cst(double v, const Value& like) { return vops::scalar(Scalar(v), like.dtype()); }
Value rcst(double v, const Value& like) { return vops::scalar(Scalar(v), real_dtype(like.dtype())); }
Value cmp(const Value& a, const Value& b, ComparisonDirection d) { return vops::compare(a, b, d); }
Value cmp0(const Value& a, ComparisonDirection d) { return vops::compare(a, cst(0.0, a), d); }
using CD = ComparisonDirection;

std::int64_t norm_axis(std::int64_t a, std::int64_t rank) {
  std::int64_t r = std::max<std::int64_t>(rank, 1);
  if (a < 0) a += r;
  if (a < 0 || a >= r) throw Unsupported("axis out of range");
  return a;
}

// PyTorch's `dim` (int, list or null/[] = all axes) as sorted axes of a rank-r tensor.
DimVec axes_of(const json* dim, std::int64_t rank) {
  DimVec ax;
  if (rank == 0) return ax;
  if (dim == nullptr || dim->is_null() || (dim->is_array() && dim->empty())) {
    for (std::int64_t i = 0; i < rank; ++i) ax.push_back(i);
    return ax;
  }
  if (dim->is_array()) {
    for (const auto& d : *dim) ax.push_back(norm_axis(d.get<std::int64_t>(), rank));
  } else {
    ax.push_back(norm_axis(dim->get<std::int64_t>(), rank));
  }
  std::sort(ax.begin(), ax.end());
  DimVec uniq;
  for (auto a : ax)
    if (uniq.empty() || uniq.back() != a) uniq.push_back(a);
  return uniq;
}

// Reinserts unit extents at the reduced axes (keepdim=True).
Value keep(const Value& y, const Value& x, const DimVec& ax, bool keepdim) {
  if (!keepdim || x.ndim() == 0) return y;
  SymShape s;
  for (std::int64_t i = 0; i < x.ndim(); ++i)
    s.push_back(std::find(ax.begin(), ax.end(), i) != ax.end() ? Dim(1) : x.shape()[static_cast<std::size_t>(i)]);
  return vops::reshape(y, s);
}

bool kw_bool(const Call& c, const char* k, bool dflt) { return c.has(k) ? c.kw(k).get<bool>() : dflt; }
double kw_num(const Call& c, const char* k, double dflt) { return c.has(k) ? num(c.kw(k)) : dflt; }

std::int64_t numel_of(const Value& x, const DimVec& ax) {
  std::int64_t n = 1;
  for (auto a : ax) n *= *x.shape()[static_cast<std::size_t>(a)].try_value();
  return n;
}

Value sum_ax(const Value& x, const DimVec& ax) { return ax.empty() ? x : vops::sum(x, ax); }

// sum |x - mean|^2 / (N - correction) over `ax`.
Value variance(const Value& x, const DimVec& ax, double correction) {
  DimVec kept;
  for (std::int64_t i = 0; i < x.ndim(); ++i)
    if (std::find(ax.begin(), ax.end(), i) == ax.end()) kept.push_back(i);
  std::int64_t n = numel_of(x, ax);
  Value m = ax.empty() ? x : vops::mean(x, ax);
  Value mb = ax.empty() ? m : vops::broadcast_in_dim(m, x.shape(), kept);
  Value dev = vops::sub(x, mb);
  Value sq = is_complex(x.dtype()) ? vops::real(vops::mul(vops::conj(dev), dev)) : vops::square(dev);
  return vops::div(sum_ax(sq, ax), rcst(static_cast<double>(n) - correction, sq));
}

Value softplus(const Value& x, double beta, double threshold) {
  Value bx = vops::mul(x, Scalar(beta));
  // log1p(exp(-|bx|)) + max(bx, 0) is overflow-free; above the threshold PyTorch returns x.
  Value sp = vops::div(vops::add(vops::log1p(vops::exp(vops::neg(vops::abs(bx)))), vops::maximum(bx, cst(0, bx))),
                       cst(beta, bx));
  return vops::where(cmp(bx, cst(threshold, bx), CD::GT), x, sp);
}

Value sigmoid(const Value& x) { return vops::div(cst(1, x), vops::add(vops::exp(vops::neg(x)), Scalar(1.0))); }

// |x|^p summed (p finite, nonzero) -> (sum)^(1/p).
Value pnorm(const Value& x, const DimVec& ax, double p) {
  Value a = vops::abs(x);
  if (ax.empty() && x.ndim() > 0) throw Unsupported("empty axes");
  if (std::isinf(p)) return p > 0 ? (ax.empty() ? a : vops::max(a, ax)) : (ax.empty() ? a : vops::min(a, ax));
  if (p == 0) return vops::mul(sum_ax(vops::convert(cmp0(a, CD::NE), a.dtype()), ax), Scalar(1.0)) ;
  if (p == 2) {
    return vops::sqrt(sum_ax(vops::square(a), ax));
  }
  if (p == 1) return sum_ax(a, ax);
  return vops::pow(sum_ax(vops::pow(a, rcst(p, a)), ax), rcst(1.0 / p, a));
}

// Moves PyTorch's trailing matrix axes to tenferro's leading ones and back.
Value to_tf(const Value& x) {
  std::int64_t r = x.ndim();
  if (r <= 2) return x;
  DimVec perm{r - 2, r - 1};
  for (std::int64_t i = 0; i < r - 2; ++i) perm.push_back(i);
  return vops::transpose(x, perm);
}
Value from_tf(const Value& x) {
  std::int64_t r = x.ndim();
  if (r <= 2) return x;
  DimVec perm;
  for (std::int64_t i = 2; i < r; ++i) perm.push_back(i);
  perm.push_back(0);
  perm.push_back(1);
  return vops::transpose(x, perm);
}

std::int64_t ext(const Value& x, std::int64_t a) { return *x.shape()[static_cast<std::size_t>(a)].try_value(); }

SymShape broadcast_shapes(const Value& a, const Value& b) {
  std::int64_t r = std::max(a.ndim(), b.ndim());
  SymShape s(static_cast<std::size_t>(r), Dim(1));
  for (std::int64_t i = 0; i < r; ++i) {
    std::int64_t ea = i < r - a.ndim() ? 1 : ext(a, i - (r - a.ndim()));
    std::int64_t eb = i < r - b.ndim() ? 1 : ext(b, i - (r - b.ndim()));
    s[static_cast<std::size_t>(i)] = Dim(ea == 1 ? eb : ea);
  }
  return s;
}

// PyTorch's diagonal(x, offset, dim1, dim2): the diagonal becomes the last axis.
Value diagonal_of(const Value& x, std::int64_t offset, std::int64_t d1, std::int64_t d2) {
  std::int64_t r = x.ndim();
  d1 = norm_axis(d1, r);
  d2 = norm_axis(d2, r);
  DimVec perm;
  for (std::int64_t i = 0; i < r; ++i)
    if (i != d1 && i != d2) perm.push_back(i);
  perm.push_back(d1);
  perm.push_back(d2);
  Value y = vops::transpose(x, perm);
  std::int64_t m = ext(y, r - 2), n = ext(y, r - 1);
  std::int64_t r0 = offset < 0 ? -offset : 0, c0 = offset > 0 ? offset : 0;
  std::int64_t len = std::max<std::int64_t>(0, std::min(m - r0, n - c0));
  if (len == 0) throw Unsupported("empty diagonal");
  y = vops::slice_axis(y, r - 2, Dim(r0), Dim(r0 + len));
  y = vops::slice_axis(y, r - 1, Dim(c0), Dim(c0 + len));
  return vops::diagonal(y, r - 2, r - 1);
}

Value matmul_t(const Value& a, const Value& b) { return from_tf(vops::matmul(to_tf(a), to_tf(b))); }

Value eye_like(const Value& x) {
  std::int64_t n = ext(x, x.ndim() - 1);
  Tensor e = Tensor::eye(n, x.dtype());
  return vops::broadcast_to(graph::constant(e), x.shape());
}

#if TENFERRO_ORACLE_HAVE_LINALG
// tenferro's [n, B...] vector result as PyTorch's [B..., n].
Value vec_from_tf(const Value& x) {
  std::int64_t r = x.ndim();
  if (r <= 1) return x;
  DimVec perm;
  for (std::int64_t i = 1; i < r; ++i) perm.push_back(i);
  perm.push_back(0);
  return vops::transpose(x, perm);
}
// Swaps the matrix axes (0, 1) of tenferro's layout; `adjoint` also conjugates.
Value mT(const Value& x, bool adjoint) {
  DimVec perm{1, 0};
  for (std::int64_t i = 2; i < x.ndim(); ++i) perm.push_back(i);
  Value y = vops::transpose(x, perm);
  return adjoint ? vops::conj(y) : y;
}
DimVec reversed_axes(std::int64_t r) {
  DimVec p;
  for (std::int64_t i = r - 1; i >= 0; --i) p.push_back(i);
  return p;
}
// PyTorch's (row-major) reshape: column-major reshape of the reversed axes.
Value rm_reshape(const Value& x, const Shape& s) {
  SymShape rs;
  for (std::size_t i = s.size(); i-- > 0;) rs.push_back(Dim(s[i]));
  Value y = vops::reshape(vops::transpose(x, reversed_axes(x.ndim())), rs);
  return vops::transpose(y, reversed_axes(static_cast<std::int64_t>(s.size())));
}
linalg::NormOrder norm_order(const json& o) {
  if (o.is_string() && (o.get<std::string>() == "fro" || o.get<std::string>() == "nuc"))
    return linalg::NormOrder(o.get<std::string>() == "fro" ? "fro" : "nuc");
  return linalg::NormOrder(num(o));
}
// Matrix norm over PyTorch axes (d0, d1) (rows, columns), keepdim as PyTorch.
Value matrix_norm_of(const Value& x, const json& ord, std::int64_t d0, std::int64_t d1, bool keepdim) {
  std::int64_t r = x.ndim();
  d0 = norm_axis(d0, r);
  d1 = norm_axis(d1, r);
  DimVec perm{d0, d1};
  for (std::int64_t i = 0; i < r; ++i)
    if (i != d0 && i != d1) perm.push_back(i);
  DimVec ax{std::min(d0, d1), std::max(d0, d1)};
  bool named = ord.is_string() && (ord.get<std::string>() == "fro" || ord.get<std::string>() == "nuc");
  if (!named && (std::abs(num(ord)) == 1 || std::isinf(num(ord)))) {
    // Max/min absolute column (1) or row (inf) sum: primitives (linalg's rule covers fro, nuc, +-2).
    double p = num(ord);
    std::int64_t sum_axis = std::isinf(p) ? d1 : d0, ext_axis = std::isinf(p) ? d0 : d1;
    Value sums = vops::sum(vops::abs(x), {sum_axis});
    DimVec e{ext_axis - (ext_axis > sum_axis ? 1 : 0)};
    Value y = p > 0 ? vops::max(sums, e) : vops::min(sums, e);
    return keep(y, x, ax, keepdim);
  }
  Value y = linalg::matrix_norm(vops::transpose(x, perm), norm_order(ord));
  return keep(y, x, ax, keepdim);
}

void add_linalg(std::map<std::string, OpSpec>& t) {
  auto mat = [&](const char* name, std::function<Value(const Value&)> f, std::string how) {
    t[name] = {[f](const std::vector<Value>& x, const Call&) { return one(from_tf(f(to_tf(x[0])))); }, std::move(how)};
  };
  auto first = [&](const char* name, std::function<Value(const Value&)> f, std::string how) {
    t[name] = {[f](const std::vector<Value>& x, const Call&) {
                 return Outputs{{"output_0", from_tf(f(to_tf(x[0])))}};
               },
               std::move(how)};
  };
  mat("inv", [](const Value& a) { return linalg::inv(a); }, "linalg::inv");
  first("inv_ex", [](const Value& a) { return linalg::inv(a); }, "linalg::inv");
  mat("matrix_exp", [](const Value& a) { return linalg::matrix_exp(a); }, "linalg::matrix_exp");
  t["det"] = {[](const std::vector<Value>& x, const Call&) { return one(linalg::det(to_tf(x[0]))); }, "linalg::det"};
  t["slogdet"] = {[](const std::vector<Value>& x, const Call&) {
                    auto r = linalg::slogdet(to_tf(x[0]));
                    return Outputs{{"output_0", r.sign}, {"output_1", r.logabsdet}};
                  },
                  "linalg::slogdet"};
  t["cond"] = {[](const std::vector<Value>& x, const Call&) { return one(linalg::cond(to_tf(x[0]), 2)); },
               "linalg::cond(a, 2)"};
  auto chol = [](const std::vector<Value>& x, const Call& c) {
    return from_tf(linalg::cholesky(to_tf(x[0]), {.lower = !kw_bool(c, "upper", false)}));
  };
  t["cholesky"] = {[chol](const std::vector<Value>& x, const Call& c) { return one(chol(x, c)); },
                   "linalg::cholesky (upper: lower = false)"};
  t["cholesky_ex"] = {[chol](const std::vector<Value>& x, const Call& c) { return Outputs{{"output_0", chol(x, c)}}; },
                      "linalg::cholesky"};
  auto solve = [](const std::vector<Value>& x, const Call&) {
    const Value &a = x[0], &b = x[1];
    if (b.ndim() == 1 && a.ndim() == 2) return linalg::solve(a, b);
    if (b.ndim() == a.ndim() - 1) {  // batched vectors
      SymShape s = b.shape();
      s.push_back(Dim(1));
      Value r = from_tf(linalg::solve(to_tf(a), to_tf(vops::reshape(b, s))));
      return vops::reshape(r, b.shape());
    }
    if (b.ndim() != a.ndim()) throw Unsupported("broadcast batch in solve");
    return from_tf(linalg::solve(to_tf(a), to_tf(b)));
  };
  t["solve"] = {[solve](const std::vector<Value>& x, const Call& c) { return one(solve(x, c)); }, "linalg::solve"};
  t["solve_ex"] = {[solve](const std::vector<Value>& x, const Call& c) { return Outputs{{"output_0", solve(x, c)}}; },
                   "linalg::solve"};
  t["qr"] = {[](const std::vector<Value>& x, const Call&) {
               auto r = linalg::qr(to_tf(x[0]));
               return Outputs{{"output_0", from_tf(r.q)}, {"output_1", from_tf(r.r)}};
             },
             "linalg::qr (reduced)"};
  t["lu"] = {[](const std::vector<Value>& x, const Call&) {
               auto r = linalg::lu(to_tf(x[0]));
               return Outputs{{"output_1", from_tf(r.l)}, {"output_2", from_tf(r.u)}};
             },
             "linalg::lu (l, u)"};
  auto luf = [](const std::vector<Value>& x, const Call&) {
    return Outputs{{"output_0", from_tf(linalg::lu_factor(to_tf(x[0])).lu)}};
  };
  t["lu_factor"] = {luf, "linalg::lu_factor (packed lu)"};
  t["lu_factor_ex"] = {luf, "linalg::lu_factor (packed lu)"};
  // lu_solve(LU, pivots, B, adjoint, left): the records differentiate with respect to
  // the packed factor and B; their pivots are not stored (replay_lu_solve tries
  // each pivot vector getrf could have produced).
  t["lu_solve"] = {
      [](const std::vector<Value>& x, const Call& c) {
        if (c.pivots == nullptr) throw Unsupported("no pivots");
        const bool adjoint = kw_bool(c, "adjoint", false), left = kw_bool(c, "left", true);
        Value f = to_tf(x[0]), b = to_tf(x[1]), piv = graph::constant(*c.pivots);
        if (left)
          return one(from_tf(linalg::lu_solve(
              f, piv, b, adjoint ? linalg::Transpose::adjoint : linalg::Transpose::none)));
        // x a = b: a^T x^T = b^T;  x a^H = b: conj(a) x^T = b^T.
        Value bt = mT(b, false);
        Value xt = adjoint ? vops::conj(linalg::lu_solve(f, piv, vops::conj(bt)))
                           : linalg::lu_solve(f, piv, bt, linalg::Transpose::transpose);
        return one(from_tf(mT(xt, false)));
      },
      "linalg::lu_solve (right: transposed), pivots of lu_factor's kind (see Conventions)"};
  t["householder_product"] = {
      [](const std::vector<Value>& x, const Call&) {
        // tau [B..., k] -> [k, B...]
        const Value& tau = x[1];
        DimVec perm{tau.ndim() - 1};
        for (std::int64_t i = 0; i + 1 < tau.ndim(); ++i) perm.push_back(i);
        return one(from_tf(linalg::householder_product(to_tf(x[0]), vops::transpose(tau, perm))));
      },
      "linalg::householder_product"};
  t["svdvals"] = {[](const std::vector<Value>& x, const Call&) { return one(vec_from_tf(linalg::svdvals(to_tf(x[0])))); },
                  "linalg::svdvals"};
  t["svd"] = {[](const std::vector<Value>&, const Call&) -> Outputs {
                throw Unsupported("observable chosen per record");
              },
              "linalg::svd (reduced): s; abs(u); s, abs(vh); u vh, s"};
  t["eigvalsh"] = {[](const std::vector<Value>& x, const Call& c) {
                     bool lower = !(c.has("UPLO") && c.kw("UPLO").get<std::string>() == "U");
                     return one(vec_from_tf(linalg::eigh(to_tf(x[0]), {.lower = lower}).eigenvalues));
                   },
                   "linalg::eigh eigenvalues"};
  t["eigh"] = {[](const std::vector<Value>& x, const Call& c) {
                 bool lower = !(c.has("UPLO") && c.kw("UPLO").get<std::string>() == "U");
                 auto r = linalg::eigh(to_tf(x[0]), {.lower = lower});
                 return Outputs{{"values", vec_from_tf(r.eigenvalues)}, {"vectors", from_tf(vops::abs(r.eigenvectors))}};
               },
               "linalg::eigh: values, abs(vectors)"};
  t["eigvals"] = {[](const std::vector<Value>& x, const Call&) { return one(vec_from_tf(linalg::eigvals(to_tf(x[0])))); },
                  "linalg::eigvals"};
  t["eig"] = {[](const std::vector<Value>& x, const Call&) {
                auto r = linalg::eig(to_tf(x[0]));
                return Outputs{{"values", vec_from_tf(r.eigenvalues)}, {"vectors", from_tf(vops::abs(r.eigenvectors))}};
              },
              "linalg::eig: values, abs(vectors)"};
  auto pinv = [](const std::vector<Value>& x, const Call& c) {
    linalg::RankTolerance tol;
    if (c.has("rtol")) tol.rtol = num(c.kw("rtol"));
    return one(from_tf(linalg::pinv(to_tf(x[0]), tol)));
  };
  t["pinv"] = {pinv, "linalg::pinv"};
  t["pinv_hermitian"] = {pinv, "linalg::pinv (general SVD path)"};
  t["matrix_norm"] = {[](const std::vector<Value>& x, const Call& c) {
                        json ord = c.has_arg(0) ? c.args[0] : (c.has("ord") ? c.kw("ord") : json("fro"));
                        std::int64_t d0 = -2, d1 = -1;
                        const json* dim = c.has_arg(1) ? &c.args[1] : (c.has("dim") ? &c.kw("dim") : nullptr);
                        if (dim != nullptr) {
                          d0 = (*dim)[0].get<std::int64_t>();
                          d1 = (*dim)[1].get<std::int64_t>();
                        }
                        bool kd = c.has_arg(2) ? c.args[2].get<bool>() : kw_bool(c, "keepdim", false);
                        return one(matrix_norm_of(x[0], ord, d0, d1, kd));
                      },
                      "linalg::matrix_norm for fro, nuc, +-2 (axes moved to the front); max/min of abs sums for +-1, +-inf"};
  t["norm"] = {[](const std::vector<Value>& x, const Call& c) {
                 const Value& a = x[0];
                 json ord = c.has_arg(0) ? c.args[0] : (c.has("ord") ? c.kw("ord") : json());
                 bool kd = kw_bool(c, "keepdim", false);
                 const json* dim = c.has("dim") ? &c.kw("dim") : nullptr;
                 bool matrix = (dim != nullptr && dim->is_array() && dim->size() == 2) ||
                               (dim == nullptr && !ord.is_null() && a.ndim() == 2);
                 if (matrix) {
                   std::int64_t d0 = dim ? (*dim)[0].get<std::int64_t>() : 0, d1 = dim ? (*dim)[1].get<std::int64_t>() : 1;
                   return one(matrix_norm_of(a, ord, d0, d1, kd));
                 }
                 if (ord.is_string()) throw Unsupported("named vector norm");
                 double p = ord.is_null() ? 2.0 : num(ord);
                 DimVec ax = axes_of(dim, a.ndim());
                 bool all = static_cast<std::int64_t>(ax.size()) == a.ndim();
                 if (all && p >= 1 && !std::isinf(p)) {
                   // linalg::vector_norm of the flattened tensor (its rule covers finite ord >= 1).
                   Value flat = a.ndim() == 1 ? a : vops::reshape(a, SymShape{Dim(-1)});
                   return one(keep(linalg::vector_norm(flat, p), a, ax, kd));
                 }
                 return one(keep(pnorm(a, ax, p), a, ax, kd));
               },
               "linalg::vector_norm (all axes, finite ord >= 1), matrix_norm as above (2-D with ord), else (sum |x|^p)^(1/p)"};
  t["tensorinv"] = {[](const std::vector<Value>& x, const Call& c) {
                      std::int64_t ind = c.has("ind") ? c.kw("ind").get<std::int64_t>() : 2;
                      const Value& a = x[0];
                      Shape s;
                      for (std::int64_t i = 0; i < a.ndim(); ++i) s.push_back(ext(a, i));
                      std::int64_t rows = 1, cols = 1;
                      for (std::int64_t i = 0; i < a.ndim(); ++i) (i < ind ? rows : cols) *= s[static_cast<std::size_t>(i)];
                      Value m = rm_reshape(a, Shape{rows, cols});
                      Shape out;
                      for (std::int64_t i = ind; i < a.ndim(); ++i) out.push_back(s[static_cast<std::size_t>(i)]);
                      for (std::int64_t i = 0; i < ind; ++i) out.push_back(s[static_cast<std::size_t>(i)]);
                      return one(rm_reshape(linalg::inv(m), out));
                    },
                    "row-major reshape + linalg::inv"};
  t["tensorsolve"] = {[](const std::vector<Value>& x, const Call& c) {
                        Value a = x[0];
                        const Value& b = x[1];
                        if (c.has("dims")) {  // those axes of a move to the end
                          DimVec moved, perm;
                          for (const auto& d : c.kw("dims")) moved.push_back(norm_axis(d.get<std::int64_t>(), a.ndim()));
                          for (std::int64_t i = 0; i < a.ndim(); ++i)
                            if (std::find(moved.begin(), moved.end(), i) == moved.end()) perm.push_back(i);
                          for (auto m : moved) perm.push_back(m);
                          a = vops::transpose(a, perm);
                        }
                        std::int64_t rows = 1, cols = 1;
                        for (std::int64_t i = 0; i < b.ndim(); ++i) rows *= ext(b, i);
                        Shape out;
                        for (std::int64_t i = b.ndim(); i < a.ndim(); ++i) {
                          out.push_back(ext(a, i));
                          cols *= ext(a, i);
                        }
                        Value r = linalg::solve(rm_reshape(a, Shape{rows, cols}), rm_reshape(b, Shape{rows}));
                        return one(rm_reshape(r, out));
                      },
                      "row-major reshape + linalg::solve"};
  t["lstsq_grad_oriented"] = {
      [](const std::vector<Value>& x, const Call& c) {
        if (x[1].ndim() != x[0].ndim()) throw Unsupported("vector or broadcast rhs");
        auto r = linalg::lstsq(to_tf(x[0]), to_tf(x[1]));
        Value res = vec_from_tf(r.residuals);
        // PyTorch's residuals are [0] (unbatched) when they are empty,
        // and always empty with driver gelsy (it does not compute them).
        const bool gelsy = c.has("driver") && c.kw("driver").get<std::string>() == "gelsy";
        if (gelsy)
          res = graph::constant(Tensor::zeros({0}, real_dtype(x[0].dtype())));
        else if (ext(r.residuals, 0) == 0)
          res = vops::reshape(res, SymShape{Dim(0)});
        return Outputs{{"output_0", from_tf(r.solution)}, {"output_1", res}};
      },
      "linalg::lstsq: solution, residuals (any driver; none for gelsy, as PyTorch)"};
  t["matrix_power"].fn = [old = t["matrix_power"].fn](const std::vector<Value>& x, const Call& c) {
    std::int64_t n = c.args.at(0).get<std::int64_t>();
    if (n >= 0) return old(x, c);
    Value ai = from_tf(linalg::inv(to_tf(x[0])));
    Value y = ai;
    for (std::int64_t k = 1; k < -n; ++k) y = matmul_t(y, ai);
    return one(y);
  };
  t["matrix_power"].how = "repeated matmul (of linalg::inv for n < 0)";
}

// The f64 and c128 records of the Hermitian-input families evaluate
// op(a + a^H) (PyTorch's gradcheck_wrapper_hermitian_input); the f32 and
// c64 records apply op to the stored (Hermitian) input. Found from the
// references: without the wrapper the f64/c128 eigenvalue JVPs are half of
// PyTorch's, cholesky's 1/sqrt(2).
bool hermitian_wrapped(const json& rec) {
  static const std::set<std::string> ops{"eigh", "eigvalsh", "cholesky", "cholesky_ex", "pinv_hermitian"};
  const std::string d = rec.at("dtype").get<std::string>();
  return ops.count(rec.at("op").get<std::string>()) > 0 && (d == "float64" || d == "complex128");
}

// The svd observables (svd_s, svd_u_abs, svd_vh_abs, svd_uvh_product) of the reduced SVD.
Outputs svd_observable(const Value& a, const std::string& kind) {
  auto r = linalg::svd(to_tf(a));
  Value s = vec_from_tf(r.s);
  if (kind == "svd_s") return {{"s", s}};
  if (kind == "svd_u_abs") return {{"u", from_tf(vops::abs(r.u))}};
  if (kind == "svd_vh_abs") return {{"s", s}, {"vh", from_tf(vops::abs(r.vh))}};
  if (kind == "svd_uvh_product") return {{"s", s}, {"uvh", from_tf(vops::matmul(r.u, r.vh))}};
  throw Unsupported("svd observable " + kind);
}
#endif

std::map<std::string, OpSpec> build_table() {
  std::map<std::string, OpSpec> t;
  auto unary = [&](const char* name, std::function<Value(const Value&)> f, std::string how) {
    t[name] = {[f](const std::vector<Value>& x, const Call&) { return one(f(x[0])); }, std::move(how)};
  };
  auto binary = [&](const char* name, std::function<Value(const Value&, const Value&)> f, std::string how) {
    t[name] = {[f](const std::vector<Value>& x, const Call&) {
                 if (x.size() != 2) throw Unsupported("needs two tensor inputs");
                 return one(f(x[0], x[1]));
               },
               std::move(how)};
  };
  const double ln2 = std::numbers::ln2, ln10 = std::numbers::ln10, pi = std::numbers::pi;

  // ---- elementwise unary ----
  unary("abs", [](const Value& x) { return vops::abs(x); }, "abs");
  unary("neg", [](const Value& x) { return vops::neg(x); }, "neg");
  unary("positive", [](const Value& x) { return x; }, "identity");
  unary("conj", [](const Value& x) { return vops::conj(x); }, "conj");
  unary("conj_physical", [](const Value& x) { return vops::conj(x); }, "conj");
  unary("real", [](const Value& x) { return vops::real(x); }, "real");
  unary("imag", [](const Value& x) { return vops::imag(x); }, "imag");
  unary("exp", [](const Value& x) { return vops::exp(x); }, "exp");
  unary("exp2", [ln2](const Value& x) { return vops::exp(vops::mul(x, Scalar(ln2))); }, "exp(x ln 2)");
  unary("expm1", [](const Value& x) { return vops::expm1(x); }, "expm1");
  unary("log", [](const Value& x) { return vops::log(x); }, "log");
  unary("log2", [ln2](const Value& x) { return vops::mul(vops::log(x), Scalar(1 / ln2)); }, "log(x) / ln 2");
  unary("log10", [ln10](const Value& x) { return vops::mul(vops::log(x), Scalar(1 / ln10)); }, "log(x) / ln 10");
  unary("log1p", [](const Value& x) { return vops::log1p(x); }, "log1p");
  unary("sin", [](const Value& x) { return vops::sin(x); }, "sin");
  unary("cos", [](const Value& x) { return vops::cos(x); }, "cos");
  unary("tan", [](const Value& x) { return vops::div(vops::sin(x), vops::cos(x)); }, "sin / cos");
  unary("tanh", [](const Value& x) { return vops::tanh(x); }, "tanh");
  unary("sinh", [](const Value& x) { return vops::mul(vops::sub(vops::exp(x), vops::exp(vops::neg(x))), Scalar(0.5)); },
        "(exp(x) - exp(-x)) / 2");
  unary("cosh", [](const Value& x) { return vops::mul(vops::add(vops::exp(x), vops::exp(vops::neg(x))), Scalar(0.5)); },
        "(exp(x) + exp(-x)) / 2");
  unary("asinh",
        [](const Value& x) { return vops::log(vops::add(x, vops::sqrt(vops::add(vops::square(x), Scalar(1.0))))); },
        "log(x + sqrt(x^2 + 1))");
  unary("acosh",
        [](const Value& x) {
          return vops::log(vops::add(x, vops::mul(vops::sqrt(vops::add(x, Scalar(1.0))), vops::sqrt(vops::add(x, Scalar(-1.0))))));
        },
        "log(x + sqrt(x + 1) sqrt(x - 1))");
  unary("atanh",
        [](const Value& x) { return vops::mul(vops::sub(vops::log1p(x), vops::log1p(vops::neg(x))), Scalar(0.5)); },
        "(log1p(x) - log1p(-x)) / 2");
  unary("sqrt", [](const Value& x) { return vops::sqrt(x); }, "sqrt");
  // Inverse trigonometric functions through the complex logarithm (real inputs
  // go through complex and back: the rules of convert, log, sqrt, real, imag).
  auto I = Scalar(std::complex<double>(0, 1));
  auto cplx = [](const Value& x) { return is_complex(x.dtype()) ? x : vops::convert(x, complex_dtype(x.dtype())); };
  auto back = [](const Value& z, const Value& like) { return is_complex(like.dtype()) ? z : vops::real(z); };
  auto asin_c = [I](const Value& z) {  // -i log(i z + sqrt(1 - z^2))
    Value w = vops::add(vops::mul(z, I), vops::sqrt(vops::add(vops::neg(vops::square(z)), Scalar(1.0))));
    return vops::mul(vops::log(w), Scalar(std::complex<double>(0, -1)));
  };
  unary("asin", [=](const Value& x) { return back(asin_c(cplx(x)), x); }, "-i log(i z + sqrt(1 - z^2))");
  unary("acos", [=](const Value& x) { return back(vops::add(vops::neg(asin_c(cplx(x))), Scalar(pi / 2)), x); },
        "pi/2 - asin(z)");
  unary("atan",
        [=](const Value& x) {
          if (!is_complex(x.dtype())) return vops::imag(vops::log(vops::complex(vops::ones_like(x), x)));
          Value iz = vops::mul(x, I);
          Value d = vops::sub(vops::log(vops::add(vops::neg(iz), Scalar(1.0))), vops::log(vops::add(iz, Scalar(1.0))));
          return vops::mul(d, Scalar(std::complex<double>(0, 0.5)));
        },
        "imag(log(1 + i x)) (real), (i/2)(log(1 - iz) - log(1 + iz)) (complex)");
  unary("angle",
        [pi](const Value& x) {
          if (is_complex(x.dtype())) return vops::imag(vops::log(x));
          return vops::add(vops::mul(x, Scalar(0.0)), vops::mul(vops::convert(cmp0(x, CD::LT), x.dtype()), Scalar(pi)));
        },
        "imag(log z) (complex), 0 x + pi [x < 0] (real)");

  unary("rsqrt", [](const Value& x) { return vops::rsqrt(x); }, "rsqrt");
  unary("square", [](const Value& x) { return vops::square(x); }, "square");
  unary("reciprocal", [](const Value& x) { return vops::div(cst(1, x), x); }, "1 / x");
  unary("sigmoid", sigmoid, "1 / (1 + exp(-x))");
  unary("sign", [](const Value& x) { return vops::sign(x); }, "sign");
  unary("sgn",
        [](const Value& x) {
          if (!is_complex(x.dtype())) return vops::sign(x);
          Value a = vops::abs(x);
          Value nz = cmp0(a, CD::GT);
          Value safe = vops::where(nz, a, vops::ones_like(a));
          return vops::where(nz, vops::div(x, vops::convert(safe, x.dtype())), vops::zeros_like(x));
        },
        "sign (real), x / |x| (complex)");
  unary("deg2rad", [pi](const Value& x) { return vops::mul(x, Scalar(pi / 180)); }, "x pi / 180");
  unary("rad2deg", [pi](const Value& x) { return vops::mul(x, Scalar(180 / pi)); }, "x 180 / pi");
  unary("double", [](const Value& x) { return vops::convert(x, DType::f64); }, "convert f64");
  unary("cdouble", [](const Value& x) { return vops::convert(x, DType::c128); }, "convert c128");
  unary("sinc",
        [pi](const Value& x) {
          Value z = cmp0(x, CD::EQ);
          Value px = vops::mul(vops::where(z, vops::ones_like(x), x), Scalar(pi));
          return vops::where(z, vops::ones_like(x), vops::div(vops::sin(px), px));
        },
        "sin(pi x) / (pi x), 1 at 0");
  unary("nan_to_num",
        [](const Value& x) { return vops::where(vops::is_finite(x), x, vops::zeros_like(x)); },
        "where(is_finite, x, 0) (derivative only)");
  t["fill"] = {[](const std::vector<Value>& x, const Call& c) {
                 double v = c.has("value") ? num(c.kw("value")) : 0.0;
                 return one(vops::add(vops::mul(x[0], Scalar(0.0)), Scalar(v)));
               },
               "0 x + value"};

  // ---- nn.functional ----
  unary("nn_functional_relu", [](const Value& x) { return vops::maximum(x, cst(0, x)); }, "maximum(x, 0)");
  unary("nn_functional_relu6", [](const Value& x) { return vops::clamp(cst(0, x), x, cst(6, x)); }, "clamp(0, x, 6)");
  t["nn_functional_hardtanh"] = {[](const std::vector<Value>& x, const Call& c) {
                                   double lo = kw_num(c, "min_val", -1), hi = kw_num(c, "max_val", 1);
                                   return one(vops::clamp(cst(lo, x[0]), x[0], cst(hi, x[0])));
                                 },
                                 "clamp(min_val, x, max_val)"};
  unary("nn_functional_hardsigmoid",
        [](const Value& x) { return vops::clamp(cst(0, x), vops::add(vops::mul(x, Scalar(1.0 / 6)), Scalar(0.5)), cst(1, x)); },
        "clamp(0, x / 6 + 1/2, 1)");
  unary("nn_functional_softsign",
        [](const Value& x) {
          Value d = vops::add(vops::abs(x), Scalar(1.0));
          return vops::div(x, vops::convert(d, x.dtype()));
        },
        "x / (1 + |x|)");
  unary("nn_functional_tanhshrink", [](const Value& x) { return vops::sub(x, vops::tanh(x)); }, "x - tanh(x)");
  unary("nn_functional_silu", [](const Value& x) { return vops::mul(x, sigmoid(x)); }, "x sigmoid(x)");
  unary("nn_functional_mish", [](const Value& x) { return vops::mul(x, vops::tanh(softplus(x, 1, 20))); },
        "x tanh(softplus(x))");
  unary("nn_functional_logsigmoid",
        [](const Value& x) {
          return vops::sub(vops::minimum(x, cst(0, x)), vops::log1p(vops::exp(vops::neg(vops::abs(x)))));
        },
        "min(x, 0) - log1p(exp(-|x|))");
  t["nn_functional_softplus"] = {[](const std::vector<Value>& x, const Call& c) {
                                   return one(softplus(x[0], kw_num(c, "beta", 1), kw_num(c, "threshold", 20)));
                                 },
                                 "where(beta x > threshold, x, log1p(exp(beta x)) / beta)"};
  auto elu_like = [](double alpha, double scale, bool celu) {
    return [=](const std::vector<Value>& x, const Call& c) {
      double a = kw_num(c, "alpha", alpha);
      Value xx = x[0];
      Value neg = vops::mul(vops::expm1(celu ? vops::mul(xx, Scalar(1 / a)) : xx), Scalar(a));
      Value pos_x = vops::where(cmp0(xx, CD::GT), xx, vops::zeros_like(xx));  // expm1 branch only below 0
      Value y = vops::where(cmp0(xx, CD::GT), pos_x, neg);
      return one(scale == 1 ? y : vops::mul(y, Scalar(scale)));
    };
  };
  t["nn_functional_elu"] = {elu_like(1.0, 1.0, false), "where(x > 0, x, alpha expm1(x))"};
  t["nn_functional_celu"] = {elu_like(1.0, 1.0, true), "where(x > 0, x, alpha expm1(x / alpha))"};
  t["nn_functional_selu"] = {elu_like(1.6732632423543772848170429916717, 1.0507009873554804934193349852946, false),
                             "scale where(x > 0, x, alpha expm1(x))"};
  t["nn_functional_threshold"] = {[](const std::vector<Value>& x, const Call& c) {
                                    if (!c.has_arg(1)) throw Unsupported("threshold needs (threshold, value)");
                                    double th = num(c.args[0]), v = num(c.args[1]);
                                    return one(vops::where(cmp(x[0], cst(th, x[0]), CD::GT), x[0],
                                                           vops::full(x[0].shape(), Scalar(v), x[0].dtype())));
                                  },
                                  "where(x > threshold, x, value)"};
  t["nn_functional_hardshrink"] = {[](const std::vector<Value>& x, const Call& c) {
                                     double l = kw_num(c, "lambd", 0.5);
                                     return one(vops::where(cmp(vops::abs(x[0]), cst(l, x[0]), CD::GT), x[0],
                                                            vops::zeros_like(x[0])));
                                   },
                                   "where(|x| > lambd, x, 0)"};
  t["nn_functional_softshrink"] = {[](const std::vector<Value>& x, const Call& c) {
                                     double l = kw_num(c, "lambd", 0.5);
                                     const Value& v = x[0];
                                     Value inner = vops::where(cmp(v, cst(-l, v), CD::LT), vops::add(v, Scalar(l)),
                                                               vops::zeros_like(v));
                                     return one(vops::where(cmp(v, cst(l, v), CD::GT), vops::add(v, Scalar(-l)), inner));
                                   },
                                   "x - lambd / x + lambd / 0 by region"};
  t["nn_functional_prelu"] = {[](const std::vector<Value>& x, const Call&) {
                                if (x.size() != 2) throw Unsupported("needs weight");
                                const Value& a = x[0];
                                Value w = x[1];
                                std::int64_t wn = w.ndim() == 0 ? 1 : ext(w, 0);
                                if (wn == 1) {
                                  w = vops::reshape(w, SymShape{});
                                } else {
                                  SymShape s{Dim(wn)};
                                  for (std::int64_t i = 2; i < a.ndim(); ++i) s.push_back(Dim(1));
                                  w = vops::reshape(w, s);
                                }
                                return one(vops::where(cmp0(a, CD::GE), a, vops::mul(w, a)));
                              },
                              "where(x >= 0, x, w x), w along axis 1"};
  t["nn_functional_rrelu"] = {[](const std::vector<Value>& x, const Call& c) {
                                if (kw_bool(c, "training", false)) throw Unsupported("training=True is random");
                                double lo = kw_num(c, "lower", 1.0 / 8), hi = kw_num(c, "upper", 1.0 / 3);
                                const Value& v = x[0];
                                return one(vops::where(cmp0(v, CD::GE), v, vops::mul(v, Scalar((lo + hi) / 2))));
                              },
                              "leaky relu with slope (lower + upper) / 2 (training=False only)"};
  t["logit"] = {[](const std::vector<Value>& x, const Call& c) {
                  Value z = x[0];
                  if (c.has_arg(0)) {
                    double eps = num(c.args[0]);
                    z = vops::clamp(cst(eps, z), z, cst(1 - eps, z));
                  }
                  return one(vops::log(vops::div(z, vops::sub(cst(1, z), z))));
                },
                "log(z / (1 - z)), z = clamp(eps, x, 1 - eps)"};
  unary("special_entr",
        [](const Value& x) {
          Value z = cmp0(x, CD::EQ);
          Value safe = vops::where(z, vops::ones_like(x), x);
          return vops::where(z, vops::zeros_like(x), vops::neg(vops::mul(x, vops::log(safe))));
        },
        "-x log x");

  // ---- elementwise binary ----
  auto alpha_of = [](const Call& c) { return kw_num(c, "alpha", 1.0); };
  t["add"] = {[alpha_of](const std::vector<Value>& x, const Call& c) {
                if (x.size() != 2) throw Unsupported("scalar other");
                return one(vops::add(x[0], vops::mul(x[1], Scalar(alpha_of(c)))));
              },
              "a + alpha b"};
  t["sub"] = {[alpha_of](const std::vector<Value>& x, const Call& c) {
                if (x.size() != 2) throw Unsupported("scalar other");
                return one(vops::sub(x[0], vops::mul(x[1], Scalar(alpha_of(c)))));
              },
              "a - alpha b"};
  t["rsub"] = {[alpha_of](const std::vector<Value>& x, const Call& c) {
                 if (x.size() != 2) throw Unsupported("scalar other");
                 return one(vops::sub(x[1], vops::mul(x[0], Scalar(alpha_of(c)))));
               },
               "b - alpha a"};
  binary("mul", [](const Value& a, const Value& b) { return vops::mul(a, b); }, "a b");
  binary("div_no_rounding_mode", [](const Value& a, const Value& b) { return vops::div(a, b); }, "a / b");
  binary("true_divide", [](const Value& a, const Value& b) { return vops::div(a, b); }, "a / b");
  binary("pow", [](const Value& a, const Value& b) { return vops::pow(a, b); }, "pow(a, b)");
  binary("float_power",
         [](const Value& a, const Value& b) {
           DType d = is_complex(a.dtype()) || is_complex(b.dtype()) ? DType::c128 : DType::f64;
           return vops::pow(vops::convert(a, d), vops::convert(b, d));
         },
         "pow in f64/c128");
  binary("__radd__", [](const Value& a, const Value& b) { return vops::add(b, a); }, "b + a");
  binary("__rsub__", [](const Value& a, const Value& b) { return vops::sub(b, a); }, "b - a");
  binary("__rmul__", [](const Value& a, const Value& b) { return vops::mul(b, a); }, "b a");
  binary("__rdiv__", [](const Value& a, const Value& b) { return vops::div(b, a); }, "b / a");
  binary("__rpow__", [](const Value& a, const Value& b) { return vops::pow(b, a); }, "pow(b, a)");
  binary("maximum", [](const Value& a, const Value& b) { return vops::maximum(a, b); }, "maximum");
  binary("minimum", [](const Value& a, const Value& b) { return vops::minimum(a, b); }, "minimum");
  binary("max_binary", [](const Value& a, const Value& b) { return vops::maximum(a, b); }, "maximum");
  binary("min_binary", [](const Value& a, const Value& b) { return vops::minimum(a, b); }, "minimum");
  binary("fmax", [](const Value& a, const Value& b) { return vops::maximum(a, b); }, "maximum (no NaN inputs)");
  binary("fmin", [](const Value& a, const Value& b) { return vops::minimum(a, b); }, "minimum (no NaN inputs)");
  binary("clamp_max", [](const Value& a, const Value& b) { return vops::minimum(a, b); }, "minimum(a, b)");
  binary("clamp_min", [](const Value& a, const Value& b) { return vops::maximum(a, b); }, "maximum(a, b)");
  binary("complex", [](const Value& a, const Value& b) { return vops::complex(a, b); }, "complex(re, im)");
  binary("polar",
         [](const Value& r, const Value& th) {
           return vops::complex(vops::mul(r, vops::cos(th)), vops::mul(r, vops::sin(th)));
         },
         "complex(r cos th, r sin th)");
  binary("atan2", [](const Value& a, const Value& b) { return vops::imag(vops::log(vops::complex(b, a))); },
         "imag(log(b + i a))");
  binary("hypot", [](const Value& a, const Value& b) { return vops::sqrt(vops::add(vops::square(a), vops::square(b))); },
         "sqrt(a^2 + b^2)");
  binary("xlogy",
         [](const Value& a, const Value& b) {
           return vops::where(cmp0(a, CD::EQ), vops::zeros_like(a), vops::mul(a, vops::log(b)));
         },
         "where(a == 0, 0, a log b)");
  binary("special_xlog1py",
         [](const Value& a, const Value& b) {
           return vops::where(cmp0(a, CD::EQ), vops::zeros_like(a), vops::mul(a, vops::log1p(b)));
         },
         "where(a == 0, 0, a log1p b)");
  binary("logaddexp",
         [](const Value& a, const Value& b) {
           if (is_complex(a.dtype())) return vops::log(vops::add(vops::exp(a), vops::exp(b)));
           Value m = vops::maximum(a, b);
           return vops::add(m, vops::log(vops::add(vops::exp(vops::sub(a, m)), vops::exp(vops::sub(b, m)))));
         },
         "m + log(exp(a - m) + exp(b - m)) (complex: log(exp a + exp b))");
  binary("ldexp",
         [ln2](const Value& a, const Value& b) {
           if (is_complex(a.dtype()) || is_complex(b.dtype())) return vops::mul(a, vops::exp(vops::mul(b, Scalar(ln2))));
           return vops::ldexp(a, b);
         },
         "ldexp (complex: a exp(b ln 2))");

  // ---- rounding, remainders, binary exponents ----
  unary("floor", [](const Value& x) { return vops::floor(x); }, "floor");
  unary("ceil", [](const Value& x) { return vops::ceil(x); }, "ceil");
  unary("trunc", [](const Value& x) { return vops::trunc(x); }, "trunc");
  unary("round", [](const Value& x) { return vops::round(x); }, "round (half to even)");
  for (const char* name : {"round_decimals_0", "round_decimals_3", "round_decimals_neg_3"})
    t[name] = {[](const std::vector<Value>& x, const Call& c) {
                 std::int64_t dec = c.has("decimals") ? c.kw("decimals").get<std::int64_t>() : 0;
                 return one(vops::round(x[0], dec));
               },
               "round(x, decimals)"};
  unary("frac", [](const Value& x) { return vops::sub(x, vops::trunc(x)); }, "x - trunc(x)");
  t["frexp"] = {[](const std::vector<Value>& x, const Call&) { return Outputs{{"output_0", vops::frexp(x[0]).first}}; },
                "frexp (the mantissa; the exponent is an integer)"};
  // ---- special functions ----
  unary("erf", [](const Value& x) { return vops::erf(x); }, "erf");
  unary("erfc", [](const Value& x) { return vops::erfc(x); }, "erfc");
  unary("erfinv", [](const Value& x) { return vops::erfinv(x); }, "erfinv");
  unary("special_erfcx", [](const Value& x) { return vops::erfcx(x); }, "erfcx");
  unary("lgamma", [](const Value& x) { return vops::lgamma(x); }, "lgamma");
  unary("digamma", [](const Value& x) { return vops::digamma(x); }, "digamma");
  unary("i0", [](const Value& x) { return vops::i0(x); }, "i0");
  unary("special_i0e", [](const Value& x) { return vops::i0e(x); }, "i0e");
  unary("special_i1", [](const Value& x) { return vops::i1(x); }, "i1");
  unary("special_i1e", [](const Value& x) { return vops::i1e(x); }, "i1e");
  unary("special_ndtr", [](const Value& x) { return vops::ndtr(x); }, "ndtr");
  unary("special_ndtri", [](const Value& x) { return vops::ndtri(x); }, "ndtri");
  unary("special_log_ndtr", [](const Value& x) { return vops::log_ndtr(x); }, "log_ndtr");
  // The order n and the dimension p of each record are its op_args[0]
  // (found from the references: they vary within a variant, whose name
  // only labels the OpInfo it was sampled from).
  auto int_arg = [](const Call& c, std::int64_t dflt) { return c.has_arg(0) ? c.args[0].get<std::int64_t>() : dflt; };
  for (std::int64_t n = 0; n <= 4; ++n)
    t[detail::str("polygamma_polygamma_n_", n)] = {
        [n, int_arg](const std::vector<Value>& x, const Call& c) { return one(vops::polygamma(int_arg(c, n), x[0])); },
        "polygamma(n, x), n = op_args[0]"};
  t["special_polygamma_special_polygamma_n_0"] = {
      [int_arg](const std::vector<Value>& x, const Call& c) { return one(vops::polygamma(int_arg(c, 0), x[0])); },
      "polygamma(n, x), n = op_args[0]"};
  for (std::int64_t p : {1, 3, 5})
    t[detail::str("mvlgamma_mvlgamma_p_", p)] = {
        [p, int_arg](const std::vector<Value>& x, const Call& c) { return one(vops::mvlgamma(x[0], int_arg(c, p))); },
        "mvlgamma(x, p), p = op_args[0]"};
  t["__rmod__"] = {[](const std::vector<Value>& x, const Call& c) {
                     Value other = x.size() > 1 ? x[1] : cst(c.has_arg(0) ? num(c.args[0]) : 1.0, x[0]);
                     return one(vops::remainder(other, x[0]));
                   },
                   "remainder(other, self)"};
  t["copysign"] = {[](const std::vector<Value>& x, const Call& c) {
                     const Value& a = x[0];
                     Value b = x.size() > 1 ? x[1] : cst(c.has_arg(0) ? num(c.args[0]) : 1.0, a);
                     Value s = vops::sub(vops::mul(vops::convert(cmp0(b, CD::GE), a.dtype()), Scalar(2.0)), cst(1, a));
                     return one(vops::mul(vops::abs(a), s));
                   },
                   "|a| (b >= 0 ? 1 : -1)"};

  // ---- reductions ----
  auto reduction = [&](const char* name, std::function<Value(const Value&, const DimVec&)> f, std::string how) {
    t[name] = {[f](const std::vector<Value>& x, const Call& c) {
                 DimVec ax = axes_of(c.has("dim") ? &c.kw("dim") : nullptr, x[0].ndim());
                 return one(keep(f(x[0], ax), x[0], ax, kw_bool(c, "keepdim", false)));
               },
               std::move(how)};
  };
  reduction("sum", sum_ax, "sum");
  reduction("mean", [](const Value& x, const DimVec& ax) { return ax.empty() ? x : vops::mean(x, ax); }, "mean");
  reduction("amax", [](const Value& x, const DimVec& ax) { return ax.empty() ? x : vops::max(x, ax); }, "max");
  reduction("amin", [](const Value& x, const DimVec& ax) { return ax.empty() ? x : vops::min(x, ax); }, "min");
  reduction("nansum",
            [](const Value& x, const DimVec& ax) {
              return sum_ax(vops::where(cmp(x, x, CD::NE), vops::zeros_like(x), x), ax);
            },
            "sum(where(isnan, 0, x))");
  reduction("nanmean",
            [](const Value& x, const DimVec& ax) {
              Value nan = cmp(x, x, CD::NE);
              Value s = sum_ax(vops::where(nan, vops::zeros_like(x), x), ax);
              Value n = sum_ax(vops::convert(vops::compare(x, x, CD::EQ), x.dtype()), ax);
              return vops::div(s, n);
            },
            "sum(where(isnan, 0, x)) / count(not nan)");
  t["prod"] = {[](const std::vector<Value>& x, const Call& c) {
                 Value v = x[0];
                 if (c.has("dtype")) v = vops::convert(v, dtype_named(c.kw("dtype").get<std::string>()));
                 const json* dim = c.has_arg(0) ? &c.args[0] : (c.has("dim") ? &c.kw("dim") : nullptr);
                 DimVec ax = axes_of(dim, v.ndim());
                 Value y = ax.empty() ? v : vops::prod(v, ax);
                 return one(keep(y, v, ax, kw_bool(c, "keepdim", false)));
               },
               "prod"};
  auto var_like = [](bool is_std, bool unbiased_arg) {
    return [=](const std::vector<Value>& x, const Call& c) {
      double corr = 1;
      if (unbiased_arg && c.has_arg(0)) corr = c.args[0].get<bool>() ? 1 : 0;
      if (c.has("unbiased")) corr = c.kw("unbiased").get<bool>() ? 1 : 0;
      if (c.has("correction")) corr = num(c.kw("correction"));
      DimVec ax = axes_of(c.has("dim") ? &c.kw("dim") : nullptr, x[0].ndim());
      Value v = variance(x[0], ax, corr);
      if (is_std) v = vops::sqrt(v);
      return one(keep(v, x[0], ax, kw_bool(c, "keepdim", false)));
    };
  };
  t["var"] = {var_like(false, false), "sum |x - mean|^2 / (N - correction)"};
  t["std"] = {var_like(true, false), "sqrt(var)"};
  t["var_unbiased"] = {var_like(false, true), "sum |x - mean|^2 / (N - unbiased)"};
  t["std_unbiased"] = {var_like(true, true), "sqrt(var)"};
  t["vector_norm"] = {[](const std::vector<Value>& x, const Call& c) {
                        double p = c.has("ord") ? num(c.kw("ord")) : 2.0;
                        DimVec ax = axes_of(c.has("dim") ? &c.kw("dim") : nullptr, x[0].ndim());
                        Value y = pnorm(x[0], ax, p);
                        return one(keep(y, x[0], ax, kw_bool(c, "keepdim", false)));
                      },
                      "(sum |x|^p)^(1/p); max/min |x| for +-inf; sqrt(sum |x|^2) for 2"};
  t["vecdot"] = {[](const std::vector<Value>& x, const Call& c) {
                   std::int64_t d = c.has("dim") ? c.kw("dim").get<std::int64_t>() : -1;
                   Value p = vops::mul(vops::conj(x[0]), x[1]);
                   return one(vops::sum(p, {norm_axis(d, p.ndim())}));
                 },
                 "sum(conj(a) b, dim)"};

  // ---- structural / matrix products ----
  t["diagonal"] = {[](const std::vector<Value>& x, const Call& c) {
                     std::int64_t off = c.has("offset") ? c.kw("offset").get<std::int64_t>() : 0;
                     std::int64_t d1 = c.has("dim1") ? c.kw("dim1").get<std::int64_t>() : 0;
                     std::int64_t d2 = c.has("dim2") ? c.kw("dim2").get<std::int64_t>() : 1;
                     return one(diagonal_of(x[0], off, d1, d2));
                   },
                   "transpose + slice + diagonal (gather)"};
  t["cross"] = {[](const std::vector<Value>& x, const Call& c) {
                  std::int64_t d = c.has("dim") ? c.kw("dim").get<std::int64_t>() : -1;
                  SymShape s = broadcast_shapes(x[0], x[1]);
                  Value a = vops::broadcast_to(x[0], s), b = vops::broadcast_to(x[1], s);
                  std::int64_t ax = norm_axis(d, a.ndim());
                  auto comp = [&](const Value& v, std::int64_t i) { return vops::slice_axis(v, ax, Dim(i), Dim(i + 1)); };
                  auto part = [&](int i, int j) {
                    return vops::sub(vops::mul(comp(a, i), comp(b, j)), vops::mul(comp(a, j), comp(b, i)));
                  };
                  return one(vops::concatenate({part(1, 2), part(2, 0), part(0, 1)}, ax));
                },
                "slices, products, concatenate"};
  t["vander"] = {[](const std::vector<Value>& x, const Call& c) {
                   Value v = x[0];
                   if (v.ndim() == 0) v = vops::reshape(v, SymShape{Dim(1)});
                   std::int64_t n = c.has("N") ? c.kw("N").get<std::int64_t>() : ext(v, v.ndim() - 1);
                   SymShape col = v.shape();
                   col.push_back(Dim(1));
                   std::vector<Value> cols;
                   Value pw = vops::ones_like(v);
                   for (std::int64_t k = 0; k < n; ++k) {
                     cols.push_back(vops::reshape(pw, col));
                     pw = vops::mul(pw, v);
                   }
                   return one(vops::concatenate(cols, v.ndim()));
                 },
                 "columns x^k by repeated products, concatenate"};
  t["multi_dot"] = {[](const std::vector<Value>& x, const Call&) {
                      std::vector<Value> ms = x;
                      bool first_vec = ms.front().ndim() == 1, last_vec = ms.back().ndim() == 1;
                      if (first_vec) ms.front() = vops::reshape(ms.front(), SymShape{Dim(1), ms.front().shape()[0]});
                      if (last_vec) ms.back() = vops::reshape(ms.back(), SymShape{ms.back().shape()[0], Dim(1)});
                      Value y = ms[0];
                      for (std::size_t i = 1; i < ms.size(); ++i) y = vops::matmul(y, ms[i]);
                      if (first_vec && last_vec) y = vops::reshape(y, SymShape{});
                      else if (first_vec) y = vops::reshape(y, SymShape{y.shape()[1]});
                      else if (last_vec) y = vops::reshape(y, SymShape{y.shape()[0]});
                      return one(y);
                    },
                    "matmul chain"};
  t["matrix_power"] = {[](const std::vector<Value>& x, const Call& c) {
                         std::int64_t n = c.args.at(0).get<std::int64_t>();
                         if (n < 0) throw Unsupported("negative power needs inv");
                         if (n == 0) return one(vops::add(vops::mul(x[0], Scalar(0.0)), eye_like(x[0])));
                         Value y = x[0];
                         for (std::int64_t k = 1; k < n; ++k) y = matmul_t(y, x[0]);
                         return one(y);
                       },
                       "repeated matmul (n >= 0)"};
#if TENFERRO_ORACLE_HAVE_LINALG
  add_linalg(t);
#endif
  return t;
}

const std::map<std::string, OpSpec>& table() {
  static const std::map<std::string, OpSpec> t = build_table();
  return t;
}

// Records whose mismatch is a documented convention difference (reported, not failed).
std::optional<std::string> known_difference(const std::string& /*op*/, const std::string& /*case_id*/) {
  return std::nullopt;
}

// ---- replay ----------------------------------------------------------------------------

struct ProbeCounts {
  int probes = 0;  // probes whose JVP and VJP were compared
  int hvps = 0;    // of which the HVP was compared too
};

// An error message with its extents and numbers elided, for grouping.
std::string generic(const std::string& m) {
  std::string o;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i] == '[') {
      std::size_t j = m.find(']', i);
      if (j != std::string::npos) {
        o += "[...]";
        i = j;
        continue;
      }
    }
    o += m[i];
  }
  return o;
}

struct OpStats {
  bool mapped = false;
  std::string how;
  int records = 0;      // lines in the database
  int replayed = 0;     // records run (mapped, supported)
  int passed = 0;       // all probes within tolerance
  int known = 0;        // documented convention differences
  int error_cases = 0;  // expected_behavior == "error"
  int skipped = 0;      // mapped op, unsupported arguments
  int unimplemented = 0;  // tenferro raised UnimplementedError (no derivative for the case)
  ProbeCounts counts;    // comparisons made (passing probes)
  std::set<std::string> skip_reasons;
  int permuted = 0;  // lu_solve: records that matched with non-identity pivots only
  std::vector<std::string> failures;
};

// Why an oracle op has no mapping.
std::string unmapped_reason(const std::string& op) {
  static const std::map<std::string, std::string> r{};
  auto it = r.find(op);
  if (it != r.end()) return it->second;
  return "special function, not a tenferro primitive";
}

std::mutex g_mutex;
std::map<std::string, OpStats>& stats() {
  static std::map<std::string, OpStats> s;
  return s;
}

CpuBackend& cpu() {
  static CpuBackend b;
  return b;
}

Value leaf(const json& t, bool requires_grad) { return graph::eager_leaf(to_tensor(t), cpu(), requires_grad); }

Tensor value_or_zeros(const Value& v, const Value& like) {
  if (v.defined()) return v.value();
  CpuBackend& b = cpu();
  (void)b;
  return Tensor::zeros(like.value().shape(), like.dtype());
}

// Runs every probe of a success record; returns "" when all agree, else the first disagreement.
std::string replay_success(const json& rec, const OpSpec& spec, const Call& call, ProbeCounts* counts = nullptr) {
  std::vector<std::string> names;
  std::vector<Value> xs;
  graph::EagerScope scope(cpu());
  for (const auto& [name, tj] : rec.at("inputs").items()) {
    names.push_back(name);
    xs.push_back(leaf(tj, true));
  }
  const std::string kind = rec.at("observable").at("kind").get<std::string>();
#if TENFERRO_ORACLE_HAVE_LINALG
  std::vector<Value> args = xs;
  if (hermitian_wrapped(rec)) args[0] = vops::add(xs[0], from_tf(mT(to_tf(xs[0]), true)));
  Outputs outs = kind.rfind("svd_", 0) == 0 ? svd_observable(args[0], kind) : spec.fn(args, call);
#else
  (void)kind;
  Outputs outs = spec.fn(xs, call);
#endif
  const json& cmp1 = rec.at("comparison").at("first_order");
  const double rtol = cmp1.at("rtol").get<double>(), atol = cmp1.at("atol").get<double>();
  std::string why;
  for (const auto& probe : rec.at("probes")) {
    const std::string pid = probe.at("probe_id").get<std::string>();
    const json& ref = probe.at("pytorch_ref");
    // Output order and lookup by observable name.
    std::vector<Value> ys;
    std::vector<std::string> ynames;
    for (const auto& [n, v] : outs) {
      ynames.push_back(n);
      ys.push_back(v);
    }
    auto find_out = [&](const std::string& n) -> std::optional<std::size_t> {
      for (std::size_t i = 0; i < ynames.size(); ++i)
        if (ynames[i] == n) return i;
      return std::nullopt;
    };
    // ---- JVP ----
    std::vector<Value> us;
    for (const auto& n : names) us.push_back(leaf(probe.at("direction").at(n), false));
    std::vector<Value> jy = ad::jvp(ys, xs, us);
    for (const auto& [n, r] : ref.at("jvp").items()) {
      auto k = find_out(n);
      if (!k) return pid + ": observable '" + n + "' not produced by the mapping";
      Tensor got = value_or_zeros(jy[*k], ys[*k]);
      if (!allclose(got, r, rtol, atol, why)) return pid + ": JVP of '" + n + "': " + why;
    }
    // ---- VJP ----
    std::vector<Value> cts(ys.size());
    for (const auto& [n, cj] : probe.at("cotangent").items()) {
      auto k = find_out(n);
      if (!k) return pid + ": cotangent for unknown observable '" + n + "'";
      cts[*k] = leaf(cj, false);
    }
    for (std::size_t k = 0; k < ys.size(); ++k)
      if (!cts[k].defined()) cts[k] = vops::zeros_like(ys[k]);
    std::vector<Value> g = ad::vjp(ys, cts, xs);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!ref.at("vjp").contains(names[i])) continue;
      if (!allclose(value_or_zeros(g[i], xs[i]), ref.at("vjp").at(names[i]), rtol, atol, why))
        return pid + ": VJP of input '" + names[i] + "': " + why;
    }
    // ---- HVP: d/du of J(x)^H c (the gradient above kept its history) ----
    if (ref.contains("hvp") && rec.at("comparison").contains("second_order")) {
      const json& cmp2 = rec.at("comparison").at("second_order");
      const double rtol2 = cmp2.at("rtol").get<double>(), atol2 = cmp2.at("atol").get<double>();
      std::vector<Value> gd;
      for (std::size_t i = 0; i < g.size(); ++i) gd.push_back(g[i].defined() ? g[i] : vops::zeros_like(xs[i]));
      std::vector<Value> h = ad::jvp(gd, xs, us);
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!ref.at("hvp").contains(names[i])) continue;
        if (!allclose(value_or_zeros(h[i], xs[i]), ref.at("hvp").at(names[i]), rtol2, atol2, why))
          return pid + ": HVP of input '" + names[i] + "': " + why;
      }
      if (counts) ++counts->hvps;
    }
    if (counts) ++counts->probes;
  }
  return "";
}

// The pivots of an lu_solve record are not stored (PyTorch's sample makes
// LU, pivots = lu_factor(A) and records only LU): every pivot vector getrf could
// have produced for a's shape (pivots[i] in [i, n) for each matrix of the
// batch, identity first) is tried, and the record passes when one of them
// matches every JVP, VJP and HVP of the record. The pivots cannot be read off
// LU: any row permutation P gives A = P L U whose partial-pivoting LU is this L, U.
std::string replay_lu_solve(const json& rec, const OpSpec& spec, const Call& call,
                            ProbeCounts* counts, int* permuted) {
  const std::vector<std::int64_t> s =
      rec.at("inputs").at("a").at("shape").get<std::vector<std::int64_t>>();
  const std::int64_t n = s.back();
  std::int64_t count = 1, per = 1, total = 1;
  Shape tf_shape{n};
  for (std::size_t i = 0; i + 2 < s.size(); ++i) {
    count *= s[i];
    tf_shape.push_back(s[i]);
  }
  for (std::int64_t i = 2; i <= n; ++i) per *= i;
  for (std::int64_t b = 0; b < count; ++b) total *= per;
  if (total > 4096) throw Unsupported("too many pivot vectors to try");
  std::string first;
  for (std::int64_t c = 0; c < total; ++c) {
    std::vector<std::int64_t> piv(static_cast<std::size_t>(n * count));
    std::int64_t code = c;
    for (std::int64_t b = 0; b < count; ++b) {
      std::int64_t m = code % per;
      code /= per;
      for (std::int64_t i = 0; i < n; ++i) {
        piv[static_cast<std::size_t>(b * n + i)] = i + m % (n - i);
        m /= n - i;
      }
    }
    const Tensor pt = Tensor::from_vec_col_major<std::int64_t>(tf_shape, piv);
    Call with{call.args, call.kwargs, &pt};
    ProbeCounts pc;
    std::string r = replay_success(rec, spec, with, &pc);
    if (r.empty()) {
      if (counts) {
        counts->probes += pc.probes;
        counts->hvps += pc.hvps;
      }
      if (c > 0) ++*permuted;
      return "";
    }
    if (first.empty()) first = r + " (with identity pivots; no pivot vector matched)";
  }
  return first;
}

std::string db_dir() { return data_path("TENFERRO_AD_ORACLES_DIR", TENFERRO_AD_ORACLES_DIR); }

std::vector<std::string> oracle_ops() {
  std::vector<std::string> ops;
  fs::path cases = fs::path(db_dir()) / "cases";
  if (!fs::exists(cases)) return ops;
  for (const auto& e : fs::directory_iterator(cases))
    if (e.is_directory()) ops.push_back(e.path().filename().string());
  std::sort(ops.begin(), ops.end());
  return ops;
}

void replay_op(const std::string& op) {
  OpStats st;
  auto it = table().find(op);
  st.mapped = it != table().end();
  if (st.mapped) st.how = it->second.how;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(db_dir()) / "cases" / op))
    if (e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const json empty_array = json::array(), empty_object = json::object();
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      ++st.records;
      if (!st.mapped) continue;
      json rec = json::parse(quote_nonfinite(line));
      const std::string cid = rec.at("case_id").get<std::string>();
      const json& args = rec.contains("op_args") ? rec.at("op_args") : empty_array;
      const json& kwargs = rec.contains("op_kwargs") ? rec.at("op_kwargs") : empty_object;
      Call call{args, kwargs};
      if (rec.at("expected_behavior") == "error") {
        // Expected errors (gauge-ill-defined spectral observables) are counted, not
        // replayed: tenferro's svd/eigh rules do not detect gauge dependence.
        ++st.error_cases;
        st.skip_reasons.insert("expected-error record (" +
                               rec.at("comparison").at("reason_code").get<std::string>() + ") not replayed");
        continue;
      }
      std::string result;
      try {
        result = op == "lu_solve" ? replay_lu_solve(rec, it->second, call, &st.counts, &st.permuted)
                                  : replay_success(rec, it->second, call, &st.counts);
      } catch (const Unsupported& u) {
        ++st.skipped;
        st.skip_reasons.insert(u.what());
        continue;
      } catch (const UnimplementedError& u) {
        // tenferro has no derivative for this case: listed, not failed.
        ++st.replayed;
        ++st.unimplemented;
        st.skip_reasons.insert("no tenferro derivative: " + generic(u.what()));
        continue;
      } catch (const std::exception& e) {
        result = std::string("threw: ") + e.what();
      }
      ++st.replayed;
      if (result.empty()) {
        ++st.passed;
      } else if (auto why = known_difference(op, cid)) {
        ++st.known;
      } else {
        st.failures.push_back(cid + " (" + rec.at("dtype").get<std::string>() + "): " + result);
      }
    }
  }
  for (const auto& fmsg : st.failures) ADD_FAILURE() << op << ": " << fmsg;
  std::lock_guard<std::mutex> lock(g_mutex);
  stats()[op] = std::move(st);
}

class AdOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(AdOracle, MatchesPyTorch) {
  const std::string op = GetParam();
  if (!table().count(op)) {
    replay_op(op);  // counts the records for the coverage table
    GTEST_SKIP() << "no tenferro mapping for oracle op " << op;
  }
  replay_op(op);
  const OpStats& st = stats()[op];
  RecordProperty("replayed", st.replayed);
  RecordProperty("passed", st.passed);
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s;
  for (char ch : info.param) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Ops, AdOracle, ::testing::ValuesIn(oracle_ops()), param_name);
// A missing database fails IsPresentAndEveryMappingNamesAnOracleOp below, not gtest's own check.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AdOracle);

// The replay must notice a wrong derivative: exp's records replayed with sin fail.
TEST(AdOracleDatabase, ReplayDetectsAWrongRule) {
  OpSpec wrong{[](const std::vector<Value>& x, const Call&) { return one(vops::sin(x[0])); }, "sin"};
  std::ifstream in(fs::path(db_dir()) / "cases" / "exp" / "identity.jsonl");
  std::string line;
  int checked = 0;
  const json empty_array = json::array(), empty_object = json::object();
  while (std::getline(in, line)) {
    json rec = json::parse(quote_nonfinite(line));
    // Non-empty f64/c128 records (the f32/c64 tolerances are loose: atol up to 1e3).
    const std::string d = rec.at("dtype").get<std::string>();
    if (rec.at("inputs").at("a").at("data").empty() || (d != "float64" && d != "complex128")) continue;
    Call call{empty_array, empty_object};
    ++checked;
    EXPECT_FALSE(replay_success(rec, wrong, call).empty()) << rec.at("case_id");
  }
  EXPECT_EQ(checked, 4);
}

#if TENFERRO_ORACLE_HAVE_LINALG
// Trying every pivot vector must not let a wrong lu_solve pass: the f64 records
// with a 3 x 3 factor, adjoint = true and left = true, replayed as if adjoint were
// false, match for none of the 6 (or 36, batched) pivot vectors.
TEST(AdOracleDatabase, LuSolvePivotSearchDetectsAWrongMapping) {
  const OpSpec& right = table().at("lu_solve");
  OpSpec wrong{[&right](const std::vector<Value>& x, const Call& c) {
                 json kw = c.kwargs;
                 kw["adjoint"] = false;
                 return right.fn(x, Call{c.args, kw, c.pivots});
               },
               "lu_solve without adjoint"};
  std::ifstream in(fs::path(db_dir()) / "cases" / "lu_solve" / "identity.jsonl");
  std::string line;
  int checked = 0, passed_right = 0;
  const json empty_array = json::array();
  while (std::getline(in, line)) {
    json rec = json::parse(quote_nonfinite(line));
    const json& kw = rec.at("op_kwargs");
    const auto& as = rec.at("inputs").at("a").at("shape");
    const auto& bs = rec.at("inputs").at("b").at("shape");
    if (rec.at("dtype") != "float64" || !kw.at("adjoint").get<bool>() ||
        !kw.at("left").get<bool>() || as.back().get<std::int64_t>() != 3 ||
        bs.back().get<std::int64_t>() == 0 || (as.size() == 3 && as[0].get<std::int64_t>() == 0))
      continue;
    ++checked;
    Call call{empty_array, kw};
    int permuted = 0;
    EXPECT_FALSE(replay_lu_solve(rec, wrong, call, nullptr, &permuted).empty())
        << rec.at("case_id");
    if (replay_lu_solve(rec, right, call, nullptr, &permuted).empty()) ++passed_right;
  }
  EXPECT_GE(checked, 8);
  EXPECT_EQ(passed_right, checked);
}
#endif

// The rule fix found by the replay: reduce_prod's JVP, VJP and HVP are exact
// where the input has zeros (one zero, two zeros), on the analytic values.
TEST(AdOracleDatabase, ProdDerivativesAtZeros) {
  graph::EagerScope scope(cpu());
  for (std::vector<double> xs : {std::vector<double>{2.0, 0.0, 3.0, 5.0}, std::vector<double>{0.0, 4.0, 0.0, 7.0}}) {
    Value x = graph::eager_leaf(Tensor::from_vec_col_major<double>({4}, xs), cpu(), true);
    Value u = graph::eager_leaf(Tensor::from_vec_col_major<double>({4}, {1.0, 2.0, 3.0, 4.0}), cpu(), false);
    Value y = vops::prod(x, {0});
    // Exclusive products prod_{j != i} x_j.
    std::vector<double> others(4, 1.0);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        if (j != i) others[static_cast<std::size_t>(i)] *= xs[static_cast<std::size_t>(j)];
    std::vector<Value> ys{y}, xv{x}, uv{u};
    double jvp = 0;
    for (int i = 0; i < 4; ++i) jvp += others[static_cast<std::size_t>(i)] * (i + 1.0);
    Tensor jt = ad::jvp(ys, xv, uv)[0].value();
    EXPECT_DOUBLE_EQ(jt.item().to<double>(), jvp);
    std::vector<Value> ct{vops::scalar(Scalar(1.0), DType::f64)};
    std::vector<Value> g = ad::vjp(ys, ct, xv);
    Tensor gt = g[0].value();
    for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(gt.at<double>({i}), others[static_cast<std::size_t>(i)]) << i;
    // H u: (H u)_i = sum_{k != i} u_k prod_{j != i, k} x_j.
    std::vector<Value> gv{g[0]};
    Tensor ht = ad::jvp(gv, xv, uv)[0].value();
    for (int i = 0; i < 4; ++i) {
      double h = 0;
      for (int k = 0; k < 4; ++k) {
        if (k == i) continue;
        double p = 1;
        for (int j = 0; j < 4; ++j)
          if (j != i && j != k) p *= xs[static_cast<std::size_t>(j)];
        h += (k + 1.0) * p;
      }
      EXPECT_DOUBLE_EQ(ht.at<double>({i}), h) << i;
    }
  }
}

TEST(AdOracleDatabase, IsPresentAndEveryMappingNamesAnOracleOp) {
  auto ops = oracle_ops();
  ASSERT_GT(ops.size(), 100u) << "oracle database not found under " << db_dir();
  for (const auto& [name, spec] : table())
    EXPECT_TRUE(std::find(ops.begin(), ops.end(), name) != ops.end()) << "mapping for unknown op " << name;
}

std::string md(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += '\\';
    o += ch;
  }
  return o;
}

// Writes the coverage table (Markdown) to $TENFERRO_AD_COVERAGE after all tests.
class CoverageWriter : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* path = std::getenv("TENFERRO_AD_COVERAGE");
    if (path == nullptr || *path == 0) return;
    std::ofstream o(path);
    int rec = 0, rep = 0, pass = 0, known = 0, mapped = 0, mapped_rec = 0, unimpl = 0, fail = 0, probes = 0, hvps = 0;
    for (const auto& [op, s] : stats()) {
      rec += s.records;
      rep += s.replayed;
      pass += s.passed;
      known += s.known;
      unimpl += s.unimplemented;
      probes += s.counts.probes;
      hvps += s.counts.hvps;
      fail += static_cast<int>(s.failures.size());
      if (s.mapped) {
        ++mapped;
        mapped_rec += s.records;
      }
    }
    o << "# AD oracle replay coverage\n\n"
      << "Generated by `tests/ad/test_ad_oracles.cpp` from the PyTorch oracle database in\n"
      << "`tests/data/ad-oracles` (PyTorch 2.10 references; source, version and licence in its\n"
      << "README.md). Regenerate with\n\n"
      << "```sh\n"
      << "cmake --build <build> --target test_ad_oracles\n"
      << "TENFERRO_AD_COVERAGE=$PWD/docs/ad_coverage.md <build>/tests/ad/test_ad_oracles\n"
      << "```\n\n"
      << "The test runs in CI (ctest label `ad`, a few seconds); only writing this file needs the\n"
      << "environment variable. Mapped ops are replayed in every dtype of the database\n"
      << "(f32, f64, c64, c128); a mismatch fails the op's test "
         "`Ops/AdOracle.MatchesPyTorch/<op>`\n"
      << "with the case_id and probe.\n\n"
      << "## What is compared\n\n"
      << "For every probe of a success record: tenferro's JVP along `direction` against\n"
      << "`pytorch_ref.jvp`, the VJP of `cotangent` against `pytorch_ref.vjp`, and, where the\n"
      << "record has one (f64/c128 of second-order families), the HVP against\n"
      << "`pytorch_ref.hvp`: the derivative along `direction` of x -> J(x)^H cotangent\n"
      << "(forward over reverse), with the record's `first_order` / `second_order`\n"
      << "tolerances and `torch.allclose` semantics (|got - ref| <= atol + rtol |ref|).\n"
      << "Records run eagerly through `tenferro::ad::jvp` / `vjp` on graph values\n"
      << "(ops/graph.hpp, Note [Eager evaluation]). Primal values are not compared.\n\n"
      << "## Conventions\n\n"
      << "- Data are row-major in the records; tensors are built with\n"
      << "  `Tensor::from_vec_row_major` (same logical shape) and results read back in\n"
      << "  row-major order. PyTorch's batched matrices [B..., m, n] are moved to tenferro's\n"
      << "  [m, n, B...] around linalg calls and back.\n"
      << "- Complex gradients: PyTorch's `.grad` convention is tenferro's (ad.hpp, Note\n"
      << "  [Complex gradients]); no conjugation is applied anywhere in the replay.\n"
      << "- Ties of max/min: PyTorch splits the gradient equally among tied elements for\n"
      << "  `amax`/`amin` and `maximum`/`minimum`, as JAX and tenferro do; no record differs.\n"
      << "- Hermitian-input families (`eigh`, `eigvalsh`, `cholesky`, `cholesky_ex`,\n"
      << "  `pinv_hermitian`): the f64 and c128 records evaluate op(a + a^H) (PyTorch's\n"
      << "  `gradcheck_wrapper_hermitian_input`), the f32 and c64 records op(a) on the stored\n"
      << "  Hermitian input; this was read off the references (without the wrapper the f64/c128\n"
      << "  eigenvalue JVPs are exactly half of PyTorch's).\n"
      << "- SVD observables (`s`, `u_abs`, `vh_abs`, `uvh_product`) and eig/eigh's\n"
      << "  `values_vectors_abs` are built from tenferro's reduced factors (the observables\n"
      << "  keep only the first k = min(m, n) vectors, so `full_matrices` does not matter).\n"
      << "- Expected-error records (`svd`/`eigh` `gauge_ill_defined`: a loss that depends on\n"
      << "  the phase of complex singular/eigen vectors, which PyTorch rejects) are counted\n"
      << "  but not replayed: tenferro's rules do not detect gauge dependence (they return\n"
      << "  the gauge-fixed derivative).\n"
      << "- f32/c64 records carry loose tolerances (e.g. `exp`: atol 10 in f32, 1e3 in c64),\n"
      << "  so they mainly check shapes and that the f32 paths run; the f64/c128 records are\n"
      << "  the real check.\n"
      << "- `lu_solve` records hold PyTorch's packed factor LU of lu_factor(A) but not its\n"
      << "  pivots, which LU does not determine (any row permutation P gives an A = P L U\n"
      << "  with these factors). The replay tries every pivot vector getrf could return for\n"
      << "  the shape (pivots[i] in [i, n) per matrix; identity first; at most 6^2 for the\n"
      << "  [2, 3, 3] records) and a record passes when one of them matches all of its JVP,\n"
      << "  VJP and HVP references; the pivots are constants (not differentiated).\n"
      << "- Composite mappings (the `mapped as` column) are tenferro expressions of the\n"
      << "  PyTorch op; they check the primitive rules they are built from.\n\n"
      << "## Columns\n\n"
      << "*records*: lines in the database; *replayed*: records run; *passed*: records\n"
      << "whose every probe matched; *no deriv*: tenferro raised UnimplementedError (no\n"
      << "derivative rule for that case: listed, not failed); *known*: documented\n"
      << "convention differences (none at present); *skipped*: arguments the mapping does\n"
      << "not express, and expected-error records.\n\n"
      << "Totals: " << stats().size() << " oracle ops, " << mapped << " mapped (" << mapped_rec
      << " of " << rec << " records); " << rep << " records replayed, " << pass << " passed, "
      << fail << " failed, " << unimpl << " without a tenferro derivative, " << known
      << " known differences; " << probes << " probes compared (JVP and VJP), " << hvps
      << " of them with an HVP.\n\n"
      << "| op | mapped as | records | replayed | passed | no deriv | known | skipped | notes |\n"
      << "|---|---|---:|---:|---:|---:|---:|---:|---|\n";
    for (const auto& [op, s] : stats()) {
      std::string notes;
      for (const auto& r : s.skip_reasons) notes += (notes.empty() ? "" : "; ") + r;
      if (s.permuted > 0)
        notes += (notes.empty() ? "" : "; ") + std::to_string(s.permuted) +
                 " records matched with non-identity pivots";
      if (!s.failures.empty()) notes += (notes.empty() ? "" : "; ") + std::to_string(s.failures.size()) + " failing";
      if (!s.mapped) notes = unmapped_reason(op);
      o << "| `" << op << "` | " << (s.mapped ? md(s.how) : "not mapped") << " | " << s.records << " | " << s.replayed
        << " | " << s.passed << " | " << s.unimplemented << " | " << s.known << " | " << (s.skipped + s.error_cases) << " | " << md(notes) << " |\n";
    }
  }
};

[[maybe_unused]] ::testing::Environment* const g_coverage = ::testing::AddGlobalTestEnvironment(new CoverageWriter);

}  // namespace

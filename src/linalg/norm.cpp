// linalg.vector_norm, linalg.matrix_norm, linalg.cond.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common.hpp"
#include "ops.hpp"
#include "tenferro/ops/backend.hpp"

namespace tenferro::linalg::detail {
namespace {

constexpr const char* kVectorNorm = "linalg.vector_norm";
constexpr const char* kMatrixNorm = "linalg.matrix_norm";
constexpr const char* kCond = "linalg.cond";

// Accumulates max / min / sums of |x| with NaN propagating.
struct Extremes {
  double max = 0, min = kInf;
  bool nan = false;
  void add(double v) {
    if (std::isnan(v)) nan = true;
    max = std::max(max, v);
    min = std::min(min, v);
  }
  double get_max() const { return nan ? std::nan("") : max; }
  double get_min() const { return nan ? std::nan("") : min; }
};

// sqrt(sum |x|^2) of a strided vector without intermediate overflow.
template <class T>
double two_norm(const T* x, std::int64_t n, std::int64_t stride) {
  Extremes e;
  for (std::int64_t i = 0; i < n; ++i) e.add(static_cast<double>(std::abs(x[i * stride])));
  const double amax = e.get_max();
  if (amax == 0 || !std::isfinite(amax)) return amax;
  double ss = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double r = static_cast<double>(std::abs(x[i * stride])) / amax;
    ss += r * r;
  }
  return amax * std::sqrt(ss);
}

// ---- linalg.vector_norm -----------------------------------------------------------

// A known-zero extent (always decided for concrete extents).
template <class D>
bool known_zero(const D& e) {
  auto v = constant_extent(e);
  return v && *v == 0;
}

double vector_ord(const VectorNormAttrs& attrs) {
  const double p = attrs.ord;
  TF_CHECK(!std::isnan(p), ValueError, kVectorNorm, "ord is NaN");
  return p;
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_vector_norm(const VectorNormAttrs& attrs,
                                                  std::span<const BasicTensorMeta<D>> in) {
  const BasicTensorMeta<D>& x = in[0];
  TF_CHECK(is_float(x.dtype), DTypeError, kVectorNorm, "operand x has dtype ", x.dtype,
           "; expected one of ", kFloatDTypes);
  TF_CHECK(!x.shape.empty(), ShapeError, kVectorNorm,
           "operand x must have rank >= 1 (vectors along axis 0), got a scalar");
  const double p = vector_ord(attrs);
  TF_CHECK(!known_zero(x.shape[0]) || p >= 0, ValueError, kVectorNorm, "ord ", p,
           " is undefined for vectors of length 0 (x ", x.shape, ")");
  return {{real_dtype(x.dtype), ExtentList<D>(x.shape.begin() + 1, x.shape.end())}};
}

template <class T>
double vector_norm_value(const T* x, std::int64_t n, std::int64_t stride, double p) {
  if (p == 2) return two_norm(x, n, stride);
  Extremes e;
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(std::abs(x[i * stride]));
    e.add(v);
    if (p == 0)
      sum += v != 0 ? 1 : 0;
    else if (p == 1)
      sum += v;
    else if (std::isfinite(p))
      sum += std::pow(v, p);
  }
  if (p == kInf) return e.get_max();
  if (p == -kInf) return e.get_min();
  if (e.nan) return std::nan("");
  if (p == 0 || p == 1) return sum;
  if (p > 0 && e.max > 0 && std::isfinite(e.max)) {
    // Scaled to avoid overflow of |x|^p.
    double scaled = 0;
    for (std::int64_t i = 0; i < n; ++i)
      scaled += std::pow(static_cast<double>(std::abs(x[i * stride])) / e.max, p);
    return e.max * std::pow(scaled, 1.0 / p);
  }
  return std::pow(sum, 1.0 / p);
}

std::vector<Tensor> vector_norm_kernel(const VectorNormAttrs& attrs, std::span<const Tensor> in,
                                       Backend& be) {
  const Tensor& x = in[0];
  const double p = vector_ord(attrs);
  Tensor out = be.empty(real_dtype(x.dtype()), Shape(x.shape().begin() + 1, x.shape().end()));
  const MatrixBatch mb = matrix_batch(x.expand_dims(1));
  visit_dtype<kFloatDTypes>(x.dtype(), kVectorNorm, [&]<class T>() {
    const T* base = ptr<T>(x);
    real_t<T>* o = ptr<real_t<T>>(out);
    for (std::int64_t b = 0; b < mb.count(); ++b)
      o[b] = static_cast<real_t<T>>(
          vector_norm_value(base + mb.offsets[static_cast<std::size_t>(b)], mb.rows, mb.rs, p));
  });
  return {out};
}

// ---- linalg.matrix_norm -----------------------------------------------------------

enum class MatOrd { fro, nuc, one, minus_one, two, minus_two, inf, minus_inf };

MatOrd matrix_ord(const char* op, const NormOrder& ord) {
  if (ord.is_named()) {
    // A numeric order may also be spelt as a name ("2", "-inf").
    const std::string& o = ord.name();
    if (o == "fro") return MatOrd::fro;
    if (o == "nuc") return MatOrd::nuc;
    if (o == "1") return MatOrd::one;
    if (o == "-1") return MatOrd::minus_one;
    if (o == "2") return MatOrd::two;
    if (o == "-2") return MatOrd::minus_two;
    if (o == "inf") return MatOrd::inf;
    if (o == "-inf") return MatOrd::minus_inf;
  } else {
    const double p = ord.p();
    if (p == 1) return MatOrd::one;
    if (p == -1) return MatOrd::minus_one;
    if (p == 2) return MatOrd::two;
    if (p == -2) return MatOrd::minus_two;
    if (p == kInf) return MatOrd::inf;
    if (p == -kInf) return MatOrd::minus_inf;
  }
  TF_THROW(
      ValueError, op, "ord \"", ord.to_string(),
      "\" is not a matrix norm order (\"fro\", \"nuc\", \"1\", \"-1\", \"2\", \"-2\", \"inf\", "
      "\"-inf\")");
}

bool uses_svd(MatOrd o) { return o == MatOrd::nuc || o == MatOrd::two || o == MatOrd::minus_two; }
bool takes_min(MatOrd o) {
  return o == MatOrd::minus_one || o == MatOrd::minus_two || o == MatOrd::minus_inf;
}

template <class D>
std::vector<BasicTensorMeta<D>> infer_matrix_norm(const MatrixNormAttrs& attrs,
                                                  std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kMatrixNorm, in[0], "a");
  const MatOrd o = matrix_ord(kMatrixNorm, attrs.ord);
  TF_CHECK(!(takes_min(o) && (known_zero(s.rows) || known_zero(s.cols))), ValueError, kMatrixNorm, "ord \"",
           attrs.ord.to_string(), "\" is undefined for the empty matrix a ",
           in[0].shape);
  return {{real_dtype(in[0].dtype), s.batch}};
}

// A norm that needs no SVD, of one strided matrix.
template <class T>
double direct_matrix_norm(MatOrd o, const T* p, std::int64_t m, std::int64_t n, std::int64_t rs,
                          std::int64_t cs) {
  if (o == MatOrd::fro) {
    if (rs == 1 && cs == m) return two_norm(p, m * n, 1);
    // Column by column, combined without overflow.
    Extremes e;
    std::vector<double> cols(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j)
      e.add(cols[static_cast<std::size_t>(j)] = two_norm(p + j * cs, m, rs));
    const double amax = e.get_max();
    if (amax == 0 || !std::isfinite(amax)) return amax;
    double ss = 0;
    for (double c : cols) ss += (c / amax) * (c / amax);
    return amax * std::sqrt(ss);
  }
  const bool by_column = o == MatOrd::one || o == MatOrd::minus_one;
  const std::int64_t outer = by_column ? n : m, inner = by_column ? m : n;
  const std::int64_t so = by_column ? cs : rs, si = by_column ? rs : cs;
  Extremes e;
  for (std::int64_t j = 0; j < outer; ++j) {
    double sum = 0;
    for (std::int64_t i = 0; i < inner; ++i)
      sum += static_cast<double>(std::abs(p[j * so + i * si]));
    e.add(sum);
  }
  return takes_min(o) ? e.get_min() : e.get_max();
}

// An SVD-based norm from the singular values (descending).
template <class R>
double svd_matrix_norm(MatOrd o, const R* s, std::int64_t k) {
  if (k == 0) return 0;
  if (o == MatOrd::two) return static_cast<double>(s[0]);
  if (o == MatOrd::minus_two) return static_cast<double>(s[k - 1]);
  double sum = 0;
  for (std::int64_t i = 0; i < k; ++i) sum += static_cast<double>(s[i]);
  return sum;
}

std::vector<Tensor> matrix_norm_kernel(const MatrixNormAttrs& attrs, std::span<const Tensor> in,
                                       Backend& be) {
  const Tensor& a = in[0];
  const MatOrd o = matrix_ord(kMatrixNorm, attrs.ord);
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t k = std::min(mb.rows, mb.cols);
  Tensor out = be.empty(real_dtype(a.dtype()), Shape(a.shape().begin() + 2, a.shape().end()));
  visit_dtype<kFloatDTypes>(a.dtype(), kMatrixNorm, [&]<class T>() {
    using R = real_t<T>;
    R* op = ptr<R>(out);
    if (uses_svd(o)) {
      Tensor s = singular_values(kMatrixNorm, a, be);
      for (std::int64_t b = 0; b < mb.count(); ++b)
        op[b] = static_cast<R>(svd_matrix_norm(o, ptr<R>(s) + b * k, k));
      return;
    }
    const T* base = ptr<T>(a);
    for (std::int64_t b = 0; b < mb.count(); ++b)
      op[b] = static_cast<R>(direct_matrix_norm(o, base + mb.offsets[static_cast<std::size_t>(b)],
                                                mb.rows, mb.cols, mb.rs, mb.cs));
  });
  return {out};
}

// ---- linalg.cond ---------------------------------------------------------------------

template <class D>
std::vector<BasicTensorMeta<D>> infer_cond(const CondAttrs& attrs, std::span<const BasicTensorMeta<D>> in) {
  BasicMatrixShape<D> s = matrix_shape(kCond, in[0], "a");
  const MatOrd o = matrix_ord(kCond, attrs.ord);
  if (o != MatOrd::two && o != MatOrd::minus_two) {
    TF_CHECK(!differs(s.rows, s.cols), ShapeError, kCond, "ord \"", attrs.ord.to_string(),
             "\" needs a square matrix, got a ", in[0].shape, " (ord 2 and -2 take any shape)");
  }
  TF_CHECK(!known_zero(s.rows) && !known_zero(s.cols), ValueError, kCond,
           "the condition number of the empty matrix a ", in[0].shape, " is undefined");
  return {{real_dtype(in[0].dtype), s.batch}};
}

std::vector<Tensor> cond_kernel(const CondAttrs& attrs, std::span<const Tensor> in, Backend& be) {
  const Tensor& a = in[0];
  const MatOrd o = matrix_ord(kCond, attrs.ord);
  const MatrixBatch mb = matrix_batch(a);
  const std::int64_t k = std::min(mb.rows, mb.cols), count = mb.count();
  Tensor out = be.empty(real_dtype(a.dtype()), Shape(a.shape().begin() + 2, a.shape().end()));
  visit_dtype<kFloatDTypes>(a.dtype(), kCond, [&]<class T>() {
    using R = real_t<T>;
    R* op = ptr<R>(out);
    if (o == MatOrd::two || o == MatOrd::minus_two || o == MatOrd::fro || o == MatOrd::nuc) {
      // All four follow from the singular values: ||A^-1|| has 1 / s_i.
      Tensor s = singular_values(kCond, a, be);
      for (std::int64_t b = 0; b < count; ++b) {
        const R* sb = ptr<R>(s) + b * k;
        const double smax = static_cast<double>(sb[0]), smin = static_cast<double>(sb[k - 1]);
        double c;
        if (o == MatOrd::two) {
          c = smin == 0 ? kInf : smax / smin;
        } else if (o == MatOrd::minus_two) {
          c = smax == 0 ? 0 : smin / smax;
        } else if (smin == 0) {
          c = kInf;
        } else {
          // ||A|| ||A^-1|| in the Frobenius or nuclear norm, scaled by s_0.
          double x = 0, y = 0;
          for (std::int64_t i = 0; i < k; ++i) {
            const double r = static_cast<double>(sb[i]) / smax;
            if (o == MatOrd::fro) {
              x += r * r;
              y += 1 / (r * r);
            } else {
              x += r;
              y += 1 / r;
            }
          }
          c = o == MatOrd::fro ? std::sqrt(x) * std::sqrt(y) : x * y;
        }
        op[b] = static_cast<R>(c);
      }
      return;
    }
    std::vector<char> singular;
    Tensor inv = inverse(kCond, a, be, &singular);
    const T* base = ptr<T>(a);
    const std::int64_t n = mb.rows;
    for (std::int64_t b = 0; b < count; ++b) {
      if (singular[static_cast<std::size_t>(b)]) {
        op[b] = std::numeric_limits<R>::infinity();
        continue;
      }
      const double na =
          direct_matrix_norm(o, base + mb.offsets[static_cast<std::size_t>(b)], n, n, mb.rs, mb.cs);
      const double ni = direct_matrix_norm(o, ptr<T>(inv) + b * n * n, n, n, 1, n);
      op[b] = static_cast<R>(na * ni);
    }
  });
  return {out};
}

}  // namespace

// ---- declarations (Note [Declaring a linalg op] in ops.hpp) ----------------------------

Declaration declare_vector_norm() {
  FamilyOp op = define_family_op<VectorNormAttrs>(
      {.name = kVectorNorm, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const VectorNormAttrs& a, auto in) { return infer_vector_norm(a, in); }, vector_norm_rules());
  return {std::move(op), typed_kernel<VectorNormAttrs>(vector_norm_kernel)};
}

Declaration declare_matrix_norm() {
  FamilyOp op = define_family_op<MatrixNormAttrs>(
      {.name = kMatrixNorm, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const MatrixNormAttrs& a, auto in) { return infer_matrix_norm(a, in); }, matrix_norm_rules());
  return {std::move(op), typed_kernel<MatrixNormAttrs>(matrix_norm_kernel)};
}

Declaration declare_cond() {
  FamilyOp op = define_family_op<CondAttrs>(
      {.name = kCond, .num_inputs = 1, .num_outputs = 1, .ad = AdKind::nonlinear},
      [](const CondAttrs& a, auto in) { return infer_cond(a, in); }, cond_rules());
  return {std::move(op), typed_kernel<CondAttrs>(cond_kernel)};
}

}  // namespace tenferro::linalg::detail

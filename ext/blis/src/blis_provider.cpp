// The BLIS dot_general provider (Note [BLIS mapping] in
// tenferro_blis/blis_provider.hpp): a metadata-only mapping of the call onto
// general-stride GEMMs, then one bli_?gemm_ex per batch element.
#include "tenferro_blis/blis_provider.hpp"

#include <blis.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <span>
#include <sstream>
#include <type_traits>
#include <variant>
#include <vector>

#include <tenferro/cpu/cpu_backend.hpp>
#include <tenferro/ops/dot_plan.hpp>
#include <tenferro/ops/infer.hpp>
#include <tenferro/tensor/error.hpp>

namespace tenferro_blis {
namespace {

using namespace tenferro;

// One matrix as BLIS reads it.
struct Matrix {
  std::int64_t rows = 0, cols = 0, rs = 1, cs = 1;
};

// The mapping of one call (Note [BLIS mapping]).
struct Mapping {
  Matrix a, b, c;  // A[m, k], B[k, n], C[m, n]
  std::int64_t m = 1, n = 1, k = 1;
  Shape batch_shape;
  Strides lhs_batch, rhs_batch, out_batch;
  std::int64_t batch_count = 1;
};

// A decline's reason, formatted only when asked (`explain`): the kernel
// path declines without building strings.
template <class... Parts>
std::string text(bool explain, const Parts&... parts) {
  if (!explain) return {};
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

bool supported(DType d) {
  return d == DType::f32 || d == DType::f64 || d == DType::c64 || d == DType::c128;
}

// The axes of `x` at positions `order` of `axes`.
DimVec pick(const DimVec& axes, const std::vector<std::size_t>& order) {
  DimVec out;
  for (std::size_t i : order) out.push_back(axes[i]);
  return out;
}

// Positions 0..n-1 sorted stably by the magnitude of `strides[axes[i]]`.
std::vector<std::size_t> order_by_strides(const DimVec& axes, const Strides& strides) {
  std::vector<std::size_t> order(axes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    return std::llabs(strides[static_cast<std::size_t>(axes[i])]) <
           std::llabs(strides[static_cast<std::size_t>(axes[j])]);
  });
  return order;
}

// The one stride of each of two tensors' groups of paired axes (`xa[i]` of
// x pairs with `ya[i]` of y), under the first of three orders that makes
// both regular: as given, sorted by x's strides, sorted by y's.
bool pair_groups(const Tensor& x, const DimVec& xa, const Tensor& y, const DimVec& ya,
                 ops::AxisGroup& gx, ops::AxisGroup& gy) {
  std::vector<std::size_t> given(xa.size());
  std::iota(given.begin(), given.end(), std::size_t{0});
  for (const auto& order :
       {given, order_by_strides(xa, x.strides()), order_by_strides(ya, y.strides())}) {
    gx = ops::merge_axes(x.shape(), x.strides(), pick(xa, order));
    gy = ops::merge_axes(y.shape(), y.strides(), pick(ya, order));
    if (gx.regular && gy.regular) return true;
  }
  return false;
}

// BLIS's own stride check for a non-empty rows x cols matrix (its
// bli_check_matrix_strides, restated): BLIS aborts the process on a
// failure, so a call that would fail is declined instead.
bool blis_accepts(const Matrix& x) {
  if (x.rows == 0 || x.cols == 0) return true;
  const std::int64_t rs = x.rs, cs = x.cs;
  if (rs <= 0 || cs <= 0) return false;
  if (rs != 1 && cs != 1) {
    if (rs == cs) return x.rows == 1 || x.cols == 1;
    if (rs < cs) return x.rows * rs <= cs;
    return x.cols * cs <= rs;
  }
  if (rs == 1 && cs == 1) return x.rows == 1 || x.cols == 1;
  if (rs == 1) return cs >= x.rows;
  return rs >= x.cols;
}

// A matrix from its groups; the stride of an index of extent 1 is never
// used, so it is set to one BLIS accepts (the other index's span).
std::optional<std::string> make_matrix(const char* what, const ops::AxisGroup& r,
                                       const ops::AxisGroup& c, Matrix& x, bool explain) {
  x = {r.extent, c.extent, r.stride, c.stride};
  if (x.rows == 0 || x.cols == 0) return std::nullopt;
  for (const auto* g : {&r, &c})
    if (g->extent > 1 && g->stride <= 0)
      return text(explain, what, ": an index of ", g->extent, " elements has stride ", g->stride,
                  " (BLIS takes positive strides only)");
  if (x.rows == 1 && x.cols == 1)
    x.rs = x.cs = 1;
  else if (x.rows == 1)
    x.rs = x.cols * x.cs;
  else if (x.cols == 1)
    x.cs = x.rows * x.rs;
  if (!blis_accepts(x))
    return text(explain, what, ": a ", x.rows, " x ", x.cols, " matrix with row stride ", x.rs,
                " and column stride ", x.cs,
                " interleaves its rows and columns, which BLIS rejects");
  return std::nullopt;
}

// The mapping, or why the provider declines.
std::variant<Mapping, std::string> map_call(const DotGeneralAttrs& attrs, const Tensor& lhs,
                                            const Tensor& rhs, const Tensor& out,
                                            const Options& options, bool explain) {
  if (!supported(out.dtype()) || lhs.dtype() != out.dtype() || rhs.dtype() != out.dtype())
    return text(explain, "dtypes ", lhs.dtype(), ", ", rhs.dtype(), " -> ", out.dtype(),
                ": BLIS takes f32, f64, c64 and c128 alike");
  for (const Tensor* t : {&lhs, &rhs, &out})
    if (!t->device().is_cpu())
      return text(explain, "a tensor on ", t->device(), ": BLIS runs on the CPU");
  const ops::DotRoles roles = ops::dot_roles(attrs, lhs.ndim(), rhs.ndim());
  const std::int64_t nb = static_cast<std::int64_t>(roles.lhs.batch.size());
  const std::int64_t nm = static_cast<std::int64_t>(roles.lhs.free.size());
  const std::int64_t nn = static_cast<std::int64_t>(roles.rhs.free.size());
  DimVec out_m, out_n;
  for (std::int64_t i = 0; i < nm; ++i) out_m.push_back(nb + i);
  for (std::int64_t i = 0; i < nn; ++i) out_n.push_back(nb + nm + i);

  Mapping p;
  ops::AxisGroup lm, om, rn, on, lk, rk;
  if (!pair_groups(lhs, roles.lhs.free, out, out_m, lm, om))
    return text(explain, "the lhs free axes ", roles.lhs.free, " (strides ", lhs.strides(),
                ") and the output's (strides ", out.strides(),
                ") are not one stride in any common order");
  if (!pair_groups(rhs, roles.rhs.free, out, out_n, rn, on))
    return text(explain, "the rhs free axes ", roles.rhs.free, " (strides ", rhs.strides(),
                ") and the output's (strides ", out.strides(),
                ") are not one stride in any common order");
  if (!pair_groups(lhs, roles.lhs.contracting, rhs, roles.rhs.contracting, lk, rk))
    return text(explain, "the contracting axes ", roles.lhs.contracting, " of the lhs (strides ",
                lhs.strides(), ") and ", roles.rhs.contracting, " of the rhs (strides ",
                rhs.strides(), ") are not one stride in any common order");
  p.m = lm.extent;
  p.n = rn.extent;
  p.k = lk.extent;
  if (auto why = make_matrix("lhs", lm, lk, p.a, explain)) return *why;
  if (auto why = make_matrix("rhs", rk, rn, p.b, explain)) return *why;
  if (auto why = make_matrix("output", om, on, p.c, explain)) return *why;
  if (p.m * p.n * p.k < options.min_work)
    return text(explain, "m n k = ", p.m * p.n * p.k, " is below min_work = ", options.min_work);
  for (std::int64_t i = 0; i < nb; ++i) {
    const auto la = static_cast<std::size_t>(roles.lhs.batch[static_cast<std::size_t>(i)]);
    const auto ra = static_cast<std::size_t>(roles.rhs.batch[static_cast<std::size_t>(i)]);
    p.batch_shape.push_back(lhs.shape()[la]);
    p.lhs_batch.push_back(lhs.strides()[la]);
    p.rhs_batch.push_back(rhs.strides()[ra]);
    p.out_batch.push_back(out.strides()[static_cast<std::size_t>(i)]);
    p.batch_count *= lhs.shape()[la];
  }
  return p;
}

template <class T>
struct BlisType;
template <>
struct BlisType<float> {
  using type = float;
  static constexpr auto gemm = bli_sgemm_ex;
};
template <>
struct BlisType<double> {
  using type = double;
  static constexpr auto gemm = bli_dgemm_ex;
};
template <>
struct BlisType<std::complex<float>> {
  using type = scomplex;
  static constexpr auto gemm = bli_cgemm_ex;
};
template <>
struct BlisType<std::complex<double>> {
  using type = dcomplex;
  static constexpr auto gemm = bli_zgemm_ex;
};

// Below this many multiply-adds per product, a batch runs one product per
// thread rather than threads inside each product.
constexpr std::int64_t kSmallProduct = std::int64_t{128} * 128 * 128;

template <class T>
void run(const Mapping& p, const Tensor& lhs, const Tensor& rhs, const Tensor& out) {
  using B = BlisType<T>;
  using U = typename B::type;
  static_assert(sizeof(U) == sizeof(T) && alignof(U) == alignof(T));
  if (p.m == 0 || p.n == 0 || p.batch_count == 0) return;
  U* A = static_cast<U*>(lhs.data_ptr());
  U* Bp = static_cast<U*>(rhs.data_ptr());
  U* C = static_cast<U*>(out.data_ptr());
  T one_t(1), zero_t(0);
  U one, zero;
  std::memcpy(&one, &one_t, sizeof(U));
  std::memcpy(&zero, &zero_t, sizeof(U));
  const std::size_t nb = p.batch_shape.size();
  auto gemm = [&](std::int64_t b, int threads) {
    std::int64_t lo = 0, ro = 0, oo = 0, rest = b;
    for (std::size_t i = 0; i < nb; ++i) {
      const std::int64_t idx = rest % p.batch_shape[i];
      rest /= p.batch_shape[i];
      lo += idx * p.lhs_batch[i];
      ro += idx * p.rhs_batch[i];
      oo += idx * p.out_batch[i];
    }
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(threads, &rntm);
    B::gemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, p.m, p.n, p.k, &one, A + lo, p.a.rs, p.a.cs,
            Bp + ro, p.b.rs, p.b.cs, &zero, C + oo, p.c.rs, p.c.cs, nullptr, &rntm);
  };
  const int nt = omp_in_parallel() ? 1 : std::max(1, get_num_threads());
  const std::int64_t work = p.m * p.n * std::max<std::int64_t>(p.k, 1);
  if (p.batch_count > 1 && nt > 1 && work < kSmallProduct) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t b = 0; b < p.batch_count; ++b) gemm(b, 1);
  } else {
    for (std::int64_t b = 0; b < p.batch_count; ++b) gemm(b, nt);
  }
}

bool execute(const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs, const Tensor& out,
             const Options& options) {
  auto mapped = map_call(attrs, lhs, rhs, out, options, /*explain=*/false);
  const Mapping* p = std::get_if<Mapping>(&mapped);
  if (!p) return false;
  switch (out.dtype()) {
    case DType::f32:
      run<float>(*p, lhs, rhs, out);
      break;
    case DType::f64:
      run<double>(*p, lhs, rhs, out);
      break;
    case DType::c64:
      run<std::complex<float>>(*p, lhs, rhs, out);
      break;
    case DType::c128:
      run<std::complex<double>>(*p, lhs, rhs, out);
      break;
    default:
      return false;  // map_call declined it already
  }
  return true;
}

}  // namespace

void register_provider(tenferro::KernelRegistry& registry, Options options) {
  registry.add(tenferro::OpKind::dot_general, tenferro::DeviceKind::cpu, "blis",
               [options](tenferro::OpKind, const tenferro::Attrs& attrs,
                         std::span<const tenferro::Tensor> in, const tenferro::Tensor& out,
                         tenferro::Backend&) {
                 const auto* d = std::get_if<tenferro::DotGeneralAttrs>(&attrs);
                 return d && in.size() == 2 && execute(*d, in[0], in[1], out, options);
               });
}

void register_provider(tenferro::Backend& backend, Options options) {
  register_provider(backend.kernels(), options);
}

std::optional<std::string> decline_reason(const tenferro::DotGeneralAttrs& attrs,
                                          const tenferro::Tensor& lhs, const tenferro::Tensor& rhs,
                                          const tenferro::Tensor& out, Options options) {
  auto mapped = map_call(attrs, lhs, rhs, out, options, /*explain=*/true);
  if (auto* why = std::get_if<std::string>(&mapped)) return *why;
  return std::nullopt;
}

bool dot_general(const tenferro::DotGeneralAttrs& attrs, const tenferro::Tensor& lhs,
                 const tenferro::Tensor& rhs, const tenferro::Tensor& out, Options options) {
  using namespace tenferro;
  const char* op = "blis.dot_general";
  for (const Tensor* t : {&lhs, &rhs, &out})
    TF_CHECK(t->defined(), ValueError, op, "a tensor is undefined");
  const std::array<TensorMeta, 2> metas{TensorMeta{lhs.dtype(), lhs.shape()},
                                        TensorMeta{rhs.dtype(), rhs.shape()}};
  const TensorMeta expect =
      infer(OpKind::dot_general, Attrs(attrs), metas);  // the library's checks
  TF_CHECK(out.dtype() == expect.dtype, DTypeError, op, "output dtype ", out.dtype(),
           " but the operands give ", expect.dtype);
  TF_CHECK(out.shape() == expect.shape, ShapeError, op, "output shape ", out.shape(),
           " but the operands give ", expect.shape);
  return execute(attrs, lhs, rhs, out, options);
}

std::string blis_version() { return bli_info_get_version_str(); }

}  // namespace tenferro_blis

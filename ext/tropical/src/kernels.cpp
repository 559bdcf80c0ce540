// CPU kernels of the tropical family: the contraction (dispatched at run
// time to the vectorised GEMM of the best instruction set the CPU has,
// Note [Tropical GEMM] in gemm_kernel.hpp), the two derivative ops
// (Note [Tropical derivative] in family.cpp), and the naive reference.
#include <omp.h>

#include <atomic>
#include <cmath>
#include <string>
#include <type_traits>

#include <tenferro/ops/backend.hpp>
#include <tenferro/tensor/dtype.hpp>
#include <tenferro/tensor/error.hpp>

#include "internal.hpp"
#include "kernel_api.hpp"

namespace tropical {
namespace detail {

using tenferro::DimVec;
using tenferro::DType;
using tenferro::Tensor;

DimVec free_axes(std::int64_t rank, const DimVec& batch, const DimVec& contracting) {
  DimVec out;
  for (std::int64_t d = 0; d < rank; ++d) {
    bool used = false;
    for (auto x : batch) used = used || x == d;
    for (auto x : contracting) used = used || x == d;
    if (!used) out.push_back(d);
  }
  return out;
}

std::vector<std::int64_t> offsets(const Tensor& t, const DimVec& axes) {
  std::vector<std::int64_t> out{0};
  for (auto ax : axes) {
    const auto a = static_cast<std::size_t>(ax);
    const std::int64_t extent = t.shape()[a], stride = t.strides()[a];
    std::vector<std::int64_t> next;
    next.reserve(out.size() * static_cast<std::size_t>(extent));
    for (std::int64_t e = 0; e < extent; ++e)
      for (auto o : out) next.push_back(o + e * stride);
    out = std::move(next);
  }
  return out;
}

namespace {

// ---- instruction-set dispatch -----------------------------------------------------------

bool cpu_has(const std::string& isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa == "avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return isa == "baseline";
}

const GemmTable* table_for(const std::string& isa) {
#if TROPICAL_HAVE_AVX512
  static const GemmTable avx512 = gemm_table_avx512();
  if (isa == "avx512") return &avx512;
#endif
#if TROPICAL_HAVE_AVX2
  static const GemmTable avx2 = gemm_table_avx2();
  if (isa == "avx2") return &avx2;
#endif
  static const GemmTable baseline = gemm_table_baseline();
  if (isa == "baseline") return &baseline;
  return nullptr;
}

const GemmTable* best_table() {
  for (const char* isa : {"avx512", "avx2"})
    if (cpu_has(isa))
      if (const GemmTable* t = table_for(isa)) return t;
  return table_for("baseline");
}

std::atomic<const GemmTable*>& current_table() {
  static std::atomic<const GemmTable*> t{best_table()};
  return t;
}

// ---- the contraction --------------------------------------------------------------------

template <class T>
void (*gemm_fn(const GemmTable& t))(const GemmProblem<T>&) {
  if constexpr (std::is_same_v<T, float>) return t.f32;
  else if constexpr (std::is_same_v<T, double>) return t.f64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return t.i32;
  else return t.i64;
}

// Offset tables of both operands and the product's strides for `attrs`.
struct DotLayout {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  std::vector<std::int64_t> a_row, a_k, a_batch, b_k, b_col, b_batch;
};

DotLayout dot_layout(const tenferro::DotGeneralAttrs& d, const Tensor& a, const Tensor& b) {
  DotLayout l;
  const DimVec a_free = free_axes(a.ndim(), d.lhs_batching_dimensions, d.lhs_contracting_dimensions);
  const DimVec b_free = free_axes(b.ndim(), d.rhs_batching_dimensions, d.rhs_contracting_dimensions);
  l.a_row = offsets(a, a_free);
  l.a_k = offsets(a, d.lhs_contracting_dimensions);
  l.a_batch = offsets(a, d.lhs_batching_dimensions);
  l.b_k = offsets(b, d.rhs_contracting_dimensions);
  l.b_col = offsets(b, b_free);
  l.b_batch = offsets(b, d.rhs_batching_dimensions);
  l.m = static_cast<std::int64_t>(l.a_row.size());
  l.n = static_cast<std::int64_t>(l.b_col.size());
  l.k = static_cast<std::int64_t>(l.a_k.size());
  l.batch = static_cast<std::int64_t>(l.a_batch.size());
  return l;
}

template <class T>
void dot_typed(const DotAttrs& attrs, const Tensor& a, const Tensor& b, const Tensor& c) {
  const DotLayout l = dot_layout(attrs.dims, a, b);
  GemmProblem<T> g;
  g.m = l.m;
  g.n = l.n;
  g.k = l.k;
  g.batch = l.batch;
  g.a = static_cast<const T*>(a.data_ptr());
  g.a_row = l.a_row.data();
  g.a_k = l.a_k.data();
  g.a_batch = l.a_batch.data();
  g.b = static_cast<const T*>(b.data_ptr());
  g.b_k = l.b_k.data();
  g.b_col = l.b_col.data();
  g.b_batch = l.b_batch.data();
  // c is fresh and column-major over (batch..., lhs free..., rhs free...).
  g.c = static_cast<T*>(c.data_ptr());
  g.c_bs = 1;
  g.c_rs = l.batch;
  g.c_cs = l.batch * l.m;
  g.max = attrs.semiring == Semiring::max_plus;
  g.threads = tenferro::get_num_threads();
  gemm_fn<T>(*current_table().load())(g);
}

template <class T>
T semiring_zero(Semiring s) {
  const bool max = s == Semiring::max_plus;
  if constexpr (std::is_floating_point_v<T>)
    return max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  else
    return max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
}

template <class T>
T wrapping_add(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
  } else {
    return x + y;
  }
}

template <class T>
void naive_typed(const DotAttrs& attrs, const Tensor& a, const Tensor& b, const Tensor& c) {
  const DotLayout l = dot_layout(attrs.dims, a, b);
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(c.data_ptr());
  const bool max = attrs.semiring == Semiring::max_plus;
  for (std::int64_t j = 0; j < l.n; ++j)
    for (std::int64_t i = 0; i < l.m; ++i)
      for (std::int64_t bb = 0; bb < l.batch; ++bb) {
        T best = semiring_zero<T>(attrs.semiring);
        for (std::int64_t p = 0; p < l.k; ++p) {
          const auto u = static_cast<std::size_t>(p);
          const T s = wrapping_add(pa[l.a_row[static_cast<std::size_t>(i)] + l.a_k[u] + l.a_batch[static_cast<std::size_t>(bb)]],
                                   pb[l.b_k[u] + l.b_col[static_cast<std::size_t>(j)] + l.b_batch[static_cast<std::size_t>(bb)]]);
          if (max ? s > best : s < best) best = s;
        }
        pc[bb + l.batch * (i + l.m * j)] = best;
      }
}

tenferro::Shape dot_shape(const tenferro::DotGeneralAttrs& d, const Tensor& a, const Tensor& b) {
  tenferro::Shape s;
  for (auto x : d.lhs_batching_dimensions) s.push_back(a.shape()[static_cast<std::size_t>(x)]);
  for (auto x : free_axes(a.ndim(), d.lhs_batching_dimensions, d.lhs_contracting_dimensions))
    s.push_back(a.shape()[static_cast<std::size_t>(x)]);
  for (auto x : free_axes(b.ndim(), d.rhs_batching_dimensions, d.rhs_contracting_dimensions))
    s.push_back(b.shape()[static_cast<std::size_t>(x)]);
  return s;
}

// ---- derivative ops (Note [Tropical derivative]) ----------------------------------------

// One operand's view for the derivative kernels: X is the differentiated
// operand (rows r, contracted k, batch), Y the other (k, cols c, batch), C
// the product (r, c, batch) with rows and columns swapped for side rhs.
struct WinnerLayout {
  std::int64_t rows = 1, cols = 1, k = 1, batch = 1;
  std::vector<std::int64_t> x_row, x_k, x_batch, y_k, y_col, y_batch, c_row, c_col, c_batch;
};

WinnerLayout winner_layout(const WinnerAttrs& w, const Tensor& a, const Tensor& b, const Tensor& c) {
  const auto& d = w.dot.dims;
  const DimVec a_free = free_axes(a.ndim(), d.lhs_batching_dimensions, d.lhs_contracting_dimensions);
  const DimVec b_free = free_axes(b.ndim(), d.rhs_batching_dimensions, d.rhs_contracting_dimensions);
  const std::int64_t nb = static_cast<std::int64_t>(d.lhs_batching_dimensions.size());
  DimVec c_batch, c_lhs, c_rhs;
  for (std::int64_t i = 0; i < nb; ++i) c_batch.push_back(i);
  for (std::size_t i = 0; i < a_free.size(); ++i) c_lhs.push_back(nb + static_cast<std::int64_t>(i));
  for (std::size_t i = 0; i < b_free.size(); ++i)
    c_rhs.push_back(nb + static_cast<std::int64_t>(a_free.size() + i));
  WinnerLayout l;
  const bool lhs = w.side == Side::lhs;
  const Tensor& x = lhs ? a : b;
  const Tensor& y = lhs ? b : a;
  l.x_row = offsets(x, lhs ? a_free : b_free);
  l.x_k = offsets(x, lhs ? d.lhs_contracting_dimensions : d.rhs_contracting_dimensions);
  l.x_batch = offsets(x, lhs ? d.lhs_batching_dimensions : d.rhs_batching_dimensions);
  l.y_k = offsets(y, lhs ? d.rhs_contracting_dimensions : d.lhs_contracting_dimensions);
  l.y_col = offsets(y, lhs ? b_free : a_free);
  l.y_batch = offsets(y, lhs ? d.rhs_batching_dimensions : d.lhs_batching_dimensions);
  l.c_row = offsets(c, lhs ? c_lhs : c_rhs);
  l.c_col = offsets(c, lhs ? c_rhs : c_lhs);
  l.c_batch = offsets(c, c_batch);
  l.rows = static_cast<std::int64_t>(l.x_row.size());
  l.cols = static_cast<std::int64_t>(l.y_col.size());
  l.k = static_cast<std::int64_t>(l.x_k.size());
  l.batch = static_cast<std::int64_t>(l.x_batch.size());
  return l;
}

// Dense copies of one batch entry: x and t as [rows, k], y as [k, cols]
// (column-major), c as [rows, cols].
template <class T>
struct Dense {
  std::vector<T> x, y, c;
};

template <class T>
void gather_dense(const WinnerLayout& l, std::int64_t bb, const T* px, const T* py, const T* pc, Dense<T>& d) {
  const auto B = static_cast<std::size_t>(bb);
  const auto R = static_cast<std::size_t>(l.rows), K = static_cast<std::size_t>(l.k),
             C = static_cast<std::size_t>(l.cols);
  d.x.resize(R * K);
  d.y.resize(K * C);
  d.c.resize(R * C);
  for (std::size_t p = 0; p < K; ++p)
    for (std::size_t r = 0; r < R; ++r) d.x[p * R + r] = px[l.x_row[r] + l.x_k[p] + l.x_batch[B]];
  for (std::size_t j = 0; j < C; ++j)
    for (std::size_t p = 0; p < K; ++p) d.y[j * K + p] = py[l.y_k[p] + l.y_col[j] + l.y_batch[B]];
  for (std::size_t j = 0; j < C; ++j)
    for (std::size_t r = 0; r < R; ++r) d.c[j * R + r] = pc[l.c_row[r] + l.c_col[j] + l.c_batch[B]];
}

// Number of winning terms of each product entry (0 where it is not finite).
template <class T>
void count_winners(const WinnerLayout& l, const Dense<T>& d, std::vector<T>& count) {
  const auto R = static_cast<std::size_t>(l.rows), K = static_cast<std::size_t>(l.k),
             C = static_cast<std::size_t>(l.cols);
  count.assign(R * C, T(0));
  for (std::size_t j = 0; j < C; ++j) {
    T* cnt = count.data() + j * R;
    const T* cj = d.c.data() + j * R;
    for (std::size_t p = 0; p < K; ++p) {
      const T yv = d.y[j * K + p];
      const T* xp = d.x.data() + p * R;
      for (std::size_t r = 0; r < R; ++r) cnt[r] += (xp[r] + yv == cj[r]) ? T(1) : T(0);
    }
    for (std::size_t r = 0; r < R; ++r)
      if (!std::isfinite(cj[r])) cnt[r] = 0;
  }
}

template <class T>
void tangent_typed(const WinnerAttrs& w, const Tensor& t, const Tensor& a, const Tensor& b, const Tensor& c,
                   const Tensor& out) {
  const bool lhs = w.side == Side::lhs;
  const WinnerLayout l = winner_layout(w, a, b, c);
  // t has the differentiated operand's shape (any layout).
  const auto& dd = w.dot.dims;
  const DimVec& xb = lhs ? dd.lhs_batching_dimensions : dd.rhs_batching_dimensions;
  const DimVec& xk = lhs ? dd.lhs_contracting_dimensions : dd.rhs_contracting_dimensions;
  const std::vector<std::int64_t> t_row = offsets(t, free_axes(t.ndim(), xb, xk)), t_k = offsets(t, xk),
                                  t_b = offsets(t, xb);
  // out has c's shape, fresh and column-major: reuse c's axis split on it.
  const WinnerLayout lo = winner_layout(w, a, b, out);
  const T* px = static_cast<const T*>((lhs ? a : b).data_ptr());
  const T* py = static_cast<const T*>((lhs ? b : a).data_ptr());
  const T* pc = static_cast<const T*>(c.data_ptr());
  const T* pt = static_cast<const T*>(t.data_ptr());
  T* po = static_cast<T*>(out.data_ptr());
  const auto R = static_cast<std::size_t>(l.rows), K = static_cast<std::size_t>(l.k),
             C = static_cast<std::size_t>(l.cols);
  Dense<T> d;
  std::vector<T> td(R * K), acc(R), count;
  for (std::int64_t bb = 0; bb < l.batch; ++bb) {
    const auto B = static_cast<std::size_t>(bb);
    gather_dense(l, bb, px, py, pc, d);
    for (std::size_t p = 0; p < K; ++p)
      for (std::size_t r = 0; r < R; ++r) td[p * R + r] = pt[t_row[r] + t_k[p] + t_b[B]];
    count_winners(l, d, count);
    for (std::size_t j = 0; j < C; ++j) {
      std::fill(acc.begin(), acc.end(), T(0));
      const T* cj = d.c.data() + j * R;
      for (std::size_t p = 0; p < K; ++p) {
        const T yv = d.y[j * K + p];
        const T* xp = d.x.data() + p * R;
        const T* tp = td.data() + p * R;
        for (std::size_t r = 0; r < R; ++r) acc[r] += (xp[r] + yv == cj[r]) ? tp[r] : T(0);
      }
      const T* cnt = count.data() + j * R;
      for (std::size_t r = 0; r < R; ++r)
        po[lo.c_row[r] + lo.c_col[j] + lo.c_batch[B]] = cnt[r] > 0 ? acc[r] / cnt[r] : T(0);
    }
  }
}

template <class T>
void cotangent_typed(const WinnerAttrs& w, const Tensor& ct, const Tensor& a, const Tensor& b, const Tensor& c,
                     const Tensor& out) {
  const bool lhs = w.side == Side::lhs;
  const WinnerLayout l = winner_layout(w, a, b, c);
  const WinnerLayout lct = winner_layout(w, a, b, ct);   // ct has c's shape, any layout
  // out has the differentiated operand's shape, fresh: its offsets by axis group.
  const auto& d = w.dot.dims;
  const DimVec& xb = lhs ? d.lhs_batching_dimensions : d.rhs_batching_dimensions;
  const DimVec& xk = lhs ? d.lhs_contracting_dimensions : d.rhs_contracting_dimensions;
  const std::vector<std::int64_t> o_row = offsets(out, free_axes(out.ndim(), xb, xk)), o_k = offsets(out, xk),
                                  o_b = offsets(out, xb);
  const T* px = static_cast<const T*>((lhs ? a : b).data_ptr());
  const T* py = static_cast<const T*>((lhs ? b : a).data_ptr());
  const T* pc = static_cast<const T*>(c.data_ptr());
  const T* pct = static_cast<const T*>(ct.data_ptr());
  T* po = static_cast<T*>(out.data_ptr());
  const auto R = static_cast<std::size_t>(l.rows), K = static_cast<std::size_t>(l.k),
             C = static_cast<std::size_t>(l.cols);
  Dense<T> dn;
  std::vector<T> weight(R * C), od(R * K), count;
  for (std::int64_t bb = 0; bb < l.batch; ++bb) {
    const auto B = static_cast<std::size_t>(bb);
    gather_dense(l, bb, px, py, pc, dn);
    count_winners(l, dn, count);
    for (std::size_t j = 0; j < C; ++j)
      for (std::size_t r = 0; r < R; ++r) {
        const T cnt = count[j * R + r];
        weight[j * R + r] = cnt > 0 ? pct[lct.c_row[r] + lct.c_col[j] + lct.c_batch[B]] / cnt : T(0);
      }
    std::fill(od.begin(), od.end(), T(0));
    for (std::size_t p = 0; p < K; ++p) {
      T* op = od.data() + p * R;
      const T* xp = dn.x.data() + p * R;
      for (std::size_t j = 0; j < C; ++j) {
        const T yv = dn.y[j * K + p];
        const T* cj = dn.c.data() + j * R;
        const T* wj = weight.data() + j * R;
        for (std::size_t r = 0; r < R; ++r) op[r] += (xp[r] + yv == cj[r]) ? wj[r] : T(0);
      }
    }
    for (std::size_t p = 0; p < K; ++p)
      for (std::size_t r = 0; r < R; ++r) po[o_row[r] + o_k[p] + o_b[B]] = od[p * R + r];
  }
}

}  // namespace

Tensor run_dot(const DotAttrs& attrs, const Tensor& a, const Tensor& b, tenferro::Backend& backend) {
  Tensor c = backend.empty(a.dtype(), dot_shape(attrs.dims, a, b));
  if (c.numel() == 0) return c;
  tenferro::visit_dtype<kTropicalDTypes>(a.dtype(), kDotOp, [&]<class T>() { dot_typed<T>(attrs, a, b, c); });
  return c;
}

Tensor run_winner_tangent(const WinnerAttrs& attrs, const Tensor& t, const Tensor& a, const Tensor& b,
                          const Tensor& c, tenferro::Backend& backend) {
  Tensor out = backend.empty(c.dtype(), c.shape());
  if (out.numel() == 0) return out;
  tenferro::visit_dtype<kDerivativeDTypes>(c.dtype(), kTangentOp,
                                           [&]<class T>() { tangent_typed<T>(attrs, t, a, b, c, out); });
  return out;
}

Tensor run_winner_cotangent(const WinnerAttrs& attrs, const Tensor& ct, const Tensor& a, const Tensor& b,
                            const Tensor& c, tenferro::Backend& backend) {
  const Tensor& x = attrs.side == Side::lhs ? a : b;
  Tensor out = backend.empty(x.dtype(), x.shape());
  if (out.numel() == 0) return out;
  tenferro::visit_dtype<kDerivativeDTypes>(x.dtype(), kCotangentOp,
                                           [&]<class T>() { cotangent_typed<T>(attrs, ct, a, b, c, out); });
  return out;
}

}  // namespace detail

const char* cpu_kernel_isa() { return detail::current_table().load()->isa; }

void set_cpu_kernel_isa(std::string_view isa) {
  const std::string name(isa);
  if (name == "auto") {
    detail::current_table().store(detail::best_table());
    return;
  }
  const detail::GemmTable* t = detail::table_for(name);
  TF_CHECK(t != nullptr, ValueError, "tropical.set_cpu_kernel_isa", "unknown or not compiled instruction set '",
           name, "' (expected avx512, avx2, baseline or auto)");
  TF_CHECK(detail::cpu_has(name), ValueError, "tropical.set_cpu_kernel_isa", "this CPU cannot run the '", name,
           "' kernels");
  detail::current_table().store(t);
}

tenferro::Tensor dot_general_naive(const tenferro::Tensor& a, const tenferro::Tensor& b, const DotAttrs& attrs) {
  infer_dot(attrs, {a.dtype(), a.shape()}, {b.dtype(), b.shape()});
  TF_CHECK(a.device().is_cpu() && b.device().is_cpu(),
           DeviceError, "tropical.dot_general_naive", "operands must be host tensors");
  tenferro::Tensor c = tenferro::Tensor::empty(detail::dot_shape(attrs.dims, a, b), a.dtype());
  if (c.numel() == 0) return c;
  tenferro::visit_dtype<detail::kTropicalDTypes>(a.dtype(), "tropical.dot_general_naive",
                                                 [&]<class T>() { detail::naive_typed<T>(attrs, a, b, c); });
  return c;
}

}  // namespace tropical

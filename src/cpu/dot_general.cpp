// dot_general on the CPU.
//
// Note [GEMM mapping]: per batch element, dot_general is C[m, n] = A[m, k] B[k, n]
// where m groups the lhs free axes, n the rhs free axes and k the contracting
// pairs. A group of axes is one matrix index when its strides are regular
// (each axis's stride is the previous one's times its extent). BLAS then reads
// a matrix through one unit stride and one leading dimension: a column-major
// operand goes in as 'N', a row-major one as 'T', and an output whose rows are
// contiguous is computed as C^T = B^T A^T. The contracting pairs may be taken
// in any order common to both operands, so two orders are tried (sorted by
// lhs strides, then by rhs strides). Only an operand that fits neither is
// copied, into the canonical layout [free..., contracting..., batch...]; an
// output that fits neither is computed in a scratch buffer and copied once.
// Small products (m n k <= kSmallGemm) and integer dtypes use a strided loop
// instead of BLAS, which needs no copies at all, only regular groups.
#include <algorithm>
#include <optional>
#include <vector>

#include "blas.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "scalar_ops.hpp"

namespace tenferro::cpu {
namespace {

constexpr std::int64_t kSmallGemm = 4096;
constexpr std::int64_t kMaxBlasInt = 2147483647;

struct Group {
  std::int64_t extent = 1;
  std::int64_t stride = 1;
  bool regular = true;
};

Group merge(const Tensor& t, const DimVec& axes) {
  Group g;
  bool first = true;
  std::int64_t expect = 0;
  for (auto a : axes) {
    std::int64_t n = t.shape()[static_cast<std::size_t>(a)];
    std::int64_t s = t.strides()[static_cast<std::size_t>(a)];
    g.extent *= n;
    if (n == 1) continue;
    if (first) {
      g.stride = s;
      expect = s * n;
      first = false;
    } else if (s != expect) {
      g.regular = false;
    } else {
      expect *= n;
    }
  }
  return g;
}

struct MatrixLayout {
  char trans;          // 'N': column-major rows x cols; 'T': stored transposed
  std::int64_t ld;
};

// How BLAS can read a rows x cols matrix with the given index strides.
std::optional<MatrixLayout> blas_layout(const Group& r, const Group& c) {
  if (!r.regular || !c.regular) return std::nullopt;
  std::int64_t rows = std::max<std::int64_t>(r.extent, 1), cols = std::max<std::int64_t>(c.extent, 1);
  if (r.extent <= 1 || r.stride == 1) {
    std::int64_t ld = c.extent <= 1 ? rows : c.stride;
    if (ld >= rows) return MatrixLayout{'N', ld};
  }
  if (c.extent <= 1 || c.stride == 1) {
    std::int64_t ld = r.extent <= 1 ? cols : r.stride;
    if (ld >= cols) return MatrixLayout{'T', ld};
  }
  return std::nullopt;
}

struct Operands {
  Tensor lhs, rhs;
  DimVec lb, rb, lc, rc, lf, rf;
};

DimVec free_axes(std::int64_t rank, const DimVec& batch, const DimVec& contract) {
  DimVec out;
  for (std::int64_t i = 0; i < rank; ++i)
    if (std::find(batch.begin(), batch.end(), i) == batch.end() &&
        std::find(contract.begin(), contract.end(), i) == contract.end())
      out.push_back(i);
  return out;
}

// Reorders the contracting pairs by the strides of `by`'s axes.
void sort_pairs(DimVec& by, DimVec& other, const Tensor& t) {
  std::vector<std::size_t> order(by.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return std::llabs(t.strides()[static_cast<std::size_t>(by[x])]) <
           std::llabs(t.strides()[static_cast<std::size_t>(by[y])]);
  });
  DimVec b2, o2;
  for (auto i : order) {
    b2.push_back(by[i]);
    o2.push_back(other[i]);
  }
  by = b2;
  other = o2;
}

// Copies an operand into [first..., second..., batch...] column-major and
// renumbers its axis lists accordingly.
Tensor canonicalize(const Tensor& t, DimVec& first, DimVec& second, DimVec& batch) {
  DimVec perm;
  for (auto a : first) perm.push_back(a);
  for (auto a : second) perm.push_back(a);
  for (auto a : batch) perm.push_back(a);
  Tensor c = t.permute(perm);
  Tensor out = Tensor(Storage::allocate_host(static_cast<std::size_t>(c.numel()) * dtype_size(c.dtype())),
                      c.dtype(), c.shape(), col_major_strides(c.shape()), 0);
  parallel_copy(out, c);
  std::int64_t k = 0;
  for (auto& a : first) a = k++;
  for (auto& a : second) a = k++;
  for (auto& a : batch) a = k++;
  return out;
}

template <class T>
void small_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t sam,
                std::int64_t sak, const T* b, std::int64_t sbk, std::int64_t sbn, T* c,
                std::int64_t scm, std::int64_t scn) {
  if (sam == 1 && scm == 1) {
    // Column updates C(:, j) += A(:, p) B(p, j): unit-stride inner loop.
    for (std::int64_t j = 0; j < n; ++j) {
      T* cj = c + j * scn;
      for (std::int64_t i = 0; i < m; ++i) cj[i] = T(0);
      for (std::int64_t p = 0; p < k; ++p) {
        const T bpj = b[p * sbk + j * sbn];
        const T* ap = a + p * sak;
        for (std::int64_t i = 0; i < m; ++i) cj[i] = wrap_add(cj[i], wrap_mul(ap[i], bpj));
      }
    }
    return;
  }
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      T acc(0);
      for (std::int64_t p = 0; p < k; ++p)
        acc = wrap_add(acc, wrap_mul(a[i * sam + p * sak], b[p * sbk + j * sbn]));
      c[i * scm + j * scn] = acc;
    }
}

template <class T>
void run_typed(Operands& o, const Tensor& out) {
  const std::size_t nb = o.lb.size();
  DimVec out_lf, out_rf;
  for (std::size_t i = 0; i < o.lf.size(); ++i) out_lf.push_back(static_cast<std::int64_t>(nb + i));
  for (std::size_t i = 0; i < o.rf.size(); ++i)
    out_rf.push_back(static_cast<std::int64_t>(nb + o.lf.size() + i));
  Group M = merge(o.lhs, o.lf), N = merge(o.rhs, o.rf);
  Group Mo = merge(out, out_lf), No = merge(out, out_rf);
  const std::int64_t m = M.extent, n = N.extent;
  std::int64_t k = 1;
  for (auto a : o.lc) k *= o.lhs.shape()[static_cast<std::size_t>(a)];
  const bool use_blas = !std::is_integral_v<T> && m * n * k > kSmallGemm;

  // Contracting order: the one under which more operands are readable as-is.
  auto lhs_ok = [&](const Operands& x) {
    Group K = merge(x.lhs, x.lc);
    return use_blas ? blas_layout(M, K).has_value() : (M.regular && K.regular);
  };
  auto rhs_ok = [&](const Operands& x) {
    Group K = merge(x.rhs, x.rc);
    return use_blas ? blas_layout(K, N).has_value() : (K.regular && N.regular);
  };
  if (o.lc.size() > 1) {
    DimVec lc = o.lc, rc = o.rc;
    sort_pairs(o.lc, o.rc, o.lhs);
    int score_l = int(lhs_ok(o)) + int(rhs_ok(o));
    if (score_l < 2) {
      Operands by_rhs = o;
      by_rhs.lc = lc;
      by_rhs.rc = rc;
      sort_pairs(by_rhs.rc, by_rhs.lc, by_rhs.rhs);
      if (int(lhs_ok(by_rhs)) + int(rhs_ok(by_rhs)) > score_l) o = by_rhs;
    }
  }
  if (!lhs_ok(o)) {
    o.lhs = canonicalize(o.lhs, o.lf, o.lc, o.lb);
    M = merge(o.lhs, o.lf);
  }
  if (!rhs_ok(o)) {
    o.rhs = canonicalize(o.rhs, o.rc, o.rf, o.rb);
    N = merge(o.rhs, o.rf);
  }
  Group Kl = merge(o.lhs, o.lc), Kr = merge(o.rhs, o.rc);

  // Output: column-major C, or row-contiguous C computed as C^T = B^T A^T.
  bool out_ok, out_transposed = false;
  std::int64_t ldc = 0;
  if (use_blas) {
    auto lay = blas_layout(Mo, No);
    out_ok = lay.has_value();
    if (lay) {
      out_transposed = lay->trans == 'T';
      ldc = lay->ld;
    }
  } else {
    out_ok = Mo.regular && No.regular;
  }
  Tensor target = out;
  if (!out_ok) {
    // Scratch [batch..., m-axes..., n-axes...] with the batch slowest.
    Strides st(out.shape().size());
    std::int64_t acc = 1;
    for (std::size_t i = nb; i < st.size(); ++i) {
      st[i] = acc;
      acc *= std::max<std::int64_t>(out.shape()[i], 1);
    }
    for (std::size_t i = 0; i < nb; ++i) {
      st[i] = acc;
      acc *= std::max<std::int64_t>(out.shape()[i], 1);
    }
    target = Tensor(Storage::allocate_host(static_cast<std::size_t>(out.numel()) * sizeof(T)), out.dtype(),
                    out.shape(), st, 0);
    Mo = merge(target, out_lf);
    No = merge(target, out_rf);
    ldc = std::max<std::int64_t>(m, 1);
    out_transposed = false;
  }

  // Batch offsets (elements) of lhs, rhs and output for linear batch index b.
  Shape bshape;
  Strides lbs, rbs, obs;
  for (std::size_t i = 0; i < nb; ++i) {
    bshape.push_back(o.lhs.shape()[static_cast<std::size_t>(o.lb[i])]);
    lbs.push_back(o.lhs.strides()[static_cast<std::size_t>(o.lb[i])]);
    rbs.push_back(o.rhs.strides()[static_cast<std::size_t>(o.rb[i])]);
    obs.push_back(target.strides()[i]);
  }
  const std::int64_t batches = shape_numel(bshape);
  const T* A = static_cast<const T*>(o.lhs.data_ptr());
  const T* B = static_cast<const T*>(o.rhs.data_ptr());
  T* C = static_cast<T*>(target.data_ptr());
  std::optional<MatrixLayout> la, lb;
  if (use_blas) {
    la = blas_layout(M, Kl);
    lb = blas_layout(Kr, N);
    TF_INTERNAL_ASSERT(la && lb, "dot_general: operand layout after canonicalisation");
    TF_CHECK(m <= kMaxBlasInt && n <= kMaxBlasInt && k <= kMaxBlasInt && la->ld <= kMaxBlasInt &&
                 lb->ld <= kMaxBlasInt && ldc <= kMaxBlasInt,
             UnimplementedError, "dot_general", "matrix extents (m=", m, ", n=", n, ", k=", k,
             ") exceed the 32-bit BLAS interface");
  }
  auto one_batch = [&](std::int64_t b) {
    std::int64_t lo = 0, ro = 0, oo = 0, rem = b;
    for (std::size_t i = 0; i < nb; ++i) {
      std::int64_t idx = rem % bshape[i];
      rem /= bshape[i];
      lo += idx * lbs[i];
      ro += idx * rbs[i];
      oo += idx * obs[i];
    }
    const T* a = A + lo;
    const T* bb = B + ro;
    T* c = C + oo;
    if (k == 0) {
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) c[i * Mo.stride + j * No.stride] = T(0);
      return;
    }
    if (!use_blas) {
      small_gemm<T>(m, n, k, a, M.stride, Kl.stride, bb, Kr.stride, N.stride, c, Mo.stride, No.stride);
      return;
    }
    using blas::blas_int;
    if constexpr (std::is_integral_v<T>) {
      TF_INTERNAL_ASSERT(false, "dot_general: BLAS path for an integer dtype");
    } else if (!out_transposed) {
      blas::gemm<T>(la->trans, lb->trans, blas_int(m), blas_int(n), blas_int(k), a, blas_int(la->ld), bb,
                    blas_int(lb->ld), c, blas_int(ldc));
    } else {
      // C^T (n x m) = op(B)^T op(A)^T: flip each operand's transpose flag.
      char tb = lb->trans == 'N' ? 'T' : 'N', ta = la->trans == 'N' ? 'T' : 'N';
      blas::gemm<T>(tb, ta, blas_int(n), blas_int(m), blas_int(k), bb, blas_int(lb->ld), a,
                    blas_int(la->ld), c, blas_int(ldc));
    }
  };
  const std::int64_t work = m * n * std::max<std::int64_t>(k, 1);
  const int nt = max_threads();
  if (batches > 1 && nt > 1 && !omp_in_parallel() && work * batches >= kParallelGrain &&
      (!use_blas || work <= (std::int64_t{256} * 256 * 256))) {
    // Many independent products: one per thread (BLAS runs single-threaded inside).
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t b = 0; b < batches; ++b) one_batch(b);
  } else {
    for (std::int64_t b = 0; b < batches; ++b) one_batch(b);
  }
  if (!out_ok) parallel_copy(out, target);
}

}  // namespace

void dot_general(const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs, const Tensor& out) {
  Operands o{lhs,
             rhs,
             attrs.lhs_batching_dimensions,
             attrs.rhs_batching_dimensions,
             attrs.lhs_contracting_dimensions,
             attrs.rhs_contracting_dimensions,
             free_axes(lhs.ndim(), attrs.lhs_batching_dimensions, attrs.lhs_contracting_dimensions),
             free_axes(rhs.ndim(), attrs.rhs_batching_dimensions, attrs.rhs_contracting_dimensions)};
  visit_dtype<kNumericDTypes>(lhs.dtype(), "dot_general", [&]<class T>() { run_typed<T>(o, out); });
}

}  // namespace tenferro::cpu

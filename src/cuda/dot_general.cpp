// dot_general on the GPU: strided-batched GEMM through cuBLAS (s/d/c/zgemm),
// an own kernel for the integer dtypes.
//
// The mapping follows the CPU backend (Note [GEMM mapping] in
// src/cpu/dot_general.cpp): per batch element C[m, n] = A[m, k] B[k, n], each
// index a group of axes that must have regular strides; an operand is read in
// place through its transpose flag and leading dimension when it can be, and
// copied into [first..., second..., batch...] column-major otherwise; an
// output with rows contiguous is computed as C^T = B^T A^T. On top of that,
// the batch axes of each operand must form one regular group (a single batch
// stride, 0 for a broadcast batch), which cublas<t>gemmStridedBatched needs;
// an operand whose batch axes do not is copied, an output whose batch axes
// do not is computed in a scratch buffer and copied once.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "state.hpp"
#include "tenferro/ops/primitives.hpp"

namespace tenferro::cuda::detail {
namespace {

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
  cublasOperation_t op;  // N: column-major rows x cols; T: stored transposed
  std::int64_t ld;
};

std::optional<MatrixLayout> blas_layout(const Group& r, const Group& c) {
  if (!r.regular || !c.regular) return std::nullopt;
  std::int64_t rows = std::max<std::int64_t>(r.extent, 1), cols = std::max<std::int64_t>(c.extent, 1);
  if (r.extent <= 1 || r.stride == 1) {
    std::int64_t ld = c.extent <= 1 ? rows : c.stride;
    if (ld >= rows) return MatrixLayout{CUBLAS_OP_N, ld};
  }
  if (c.extent <= 1 || c.stride == 1) {
    std::int64_t ld = r.extent <= 1 ? cols : r.stride;
    if (ld >= cols) return MatrixLayout{CUBLAS_OP_T, ld};
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

// Copies an operand into [first..., second..., batch...] column-major on the
// device and renumbers its axis lists accordingly.
Tensor canonicalize(CudaBackend& be, const Tensor& t, DimVec& first, DimVec& second, DimVec& batch) {
  DimVec perm;
  for (auto a : first) perm.push_back(a);
  for (auto a : second) perm.push_back(a);
  for (auto a : batch) perm.push_back(a);
  Tensor c = t.permute(perm);
  Tensor out = be.empty(c.dtype(), c.shape());
  copy(be, out, c);
  std::int64_t k = 0;
  for (auto& a : first) a = k++;
  for (auto& a : second) a = k++;
  for (auto& a : batch) a = k++;
  return out;
}

template <class T>
cublasStatus_t gemm_strided_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                    int n, int k, const void* a, int lda, long long sa, const void* b,
                                    int ldb, long long sb, void* c, int ldc, long long sc, int batch) {
  if constexpr (std::is_same_v<T, float>) {
    const float one = 1, zero = 0;
    return cublasSgemmStridedBatched(h, ta, tb, m, n, k, &one, static_cast<const float*>(a), lda, sa,
                                     static_cast<const float*>(b), ldb, sb, &zero, static_cast<float*>(c),
                                     ldc, sc, batch);
  } else if constexpr (std::is_same_v<T, double>) {
    const double one = 1, zero = 0;
    return cublasDgemmStridedBatched(h, ta, tb, m, n, k, &one, static_cast<const double*>(a), lda, sa,
                                     static_cast<const double*>(b), ldb, sb, &zero, static_cast<double*>(c),
                                     ldc, sc, batch);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    const cuComplex one{1, 0}, zero{0, 0};
    return cublasCgemmStridedBatched(h, ta, tb, m, n, k, &one, static_cast<const cuComplex*>(a), lda, sa,
                                     static_cast<const cuComplex*>(b), ldb, sb, &zero,
                                     static_cast<cuComplex*>(c), ldc, sc, batch);
  } else {
    const cuDoubleComplex one{1, 0}, zero{0, 0};
    return cublasZgemmStridedBatched(h, ta, tb, m, n, k, &one, static_cast<const cuDoubleComplex*>(a), lda,
                                     sa, static_cast<const cuDoubleComplex*>(b), ldb, sb, &zero,
                                     static_cast<cuDoubleComplex*>(c), ldc, sc, batch);
  }
}

cublasOperation_t flip(cublasOperation_t op) { return op == CUBLAS_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N; }

void run(CudaBackend& be, Operands& o, const Tensor& out) {
  const DType dtype = out.dtype();
  const bool use_blas = is_float(dtype);
  const std::size_t nb = o.lb.size();
  DimVec out_lf, out_rf, out_b;
  for (std::size_t i = 0; i < nb; ++i) out_b.push_back(static_cast<std::int64_t>(i));
  for (std::size_t i = 0; i < o.lf.size(); ++i) out_lf.push_back(static_cast<std::int64_t>(nb + i));
  for (std::size_t i = 0; i < o.rf.size(); ++i) out_rf.push_back(static_cast<std::int64_t>(nb + o.lf.size() + i));
  std::int64_t k = 1;
  for (auto a : o.lc) k *= o.lhs.shape()[static_cast<std::size_t>(a)];
  if (k == 0) return fill_zero(be, out);

  Group M = merge(o.lhs, o.lf), N = merge(o.rhs, o.rf);
  auto lhs_ok = [&](const Operands& x) {
    Group K = merge(x.lhs, x.lc);
    return merge(x.lhs, x.lb).regular && (use_blas ? blas_layout(M, K).has_value() : (M.regular && K.regular));
  };
  auto rhs_ok = [&](const Operands& x) {
    Group K = merge(x.rhs, x.rc);
    return merge(x.rhs, x.rb).regular && (use_blas ? blas_layout(K, N).has_value() : (K.regular && N.regular));
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
    o.lhs = canonicalize(be, o.lhs, o.lf, o.lc, o.lb);
    M = merge(o.lhs, o.lf);
  }
  if (!rhs_ok(o)) {
    o.rhs = canonicalize(be, o.rhs, o.rc, o.rf, o.rb);
    N = merge(o.rhs, o.rf);
  }
  const Group Kl = merge(o.lhs, o.lc), Kr = merge(o.rhs, o.rc);
  const Group Bl = merge(o.lhs, o.lb), Br = merge(o.rhs, o.rb);
  const std::int64_t m = M.extent, n = N.extent;

  Tensor target = out;
  Group Mo = merge(target, out_lf), No = merge(target, out_rf), Bo = merge(target, out_b);
  std::optional<MatrixLayout> lc_out = use_blas ? blas_layout(Mo, No) : std::nullopt;
  bool out_ok = Bo.regular && (use_blas ? lc_out.has_value() : (Mo.regular && No.regular));
  if (!out_ok) {
    // Scratch [batch..., m-axes..., n-axes...] with the batch slowest.
    target = be.empty_strided(dtype, out.shape(), ops::preferred_strides(OpKind::dot_general,
                                                                         DotGeneralAttrs{o.lb, o.rb, {}, {}},
                                                                         out.shape()));
    Mo = merge(target, out_lf);
    No = merge(target, out_rf);
    Bo = merge(target, out_b);
    lc_out = use_blas ? blas_layout(Mo, No) : std::nullopt;
  }
  const std::int64_t batches = Bo.extent;
  const std::int64_t sbl = Bl.extent <= 1 ? 0 : Bl.stride, sbr = Br.extent <= 1 ? 0 : Br.stride;
  const std::int64_t sbo = Bo.extent <= 1 ? 0 : Bo.stride;
  cudaStream_t stream = static_cast<cudaStream_t>(be.stream());

  if (!use_blas) {
    IntGemmArgs g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.batch = batches;
    g.a_rs = M.stride;
    g.a_cs = Kl.stride;
    g.a_bs = sbl;
    g.b_rs = Kr.stride;
    g.b_cs = N.stride;
    g.b_bs = sbr;
    g.c_rs = Mo.stride;
    g.c_cs = No.stride;
    g.c_bs = sbo;
    g.a = o.lhs.data_ptr();
    g.b = o.rhs.data_ptr();
    g.c = target.data_ptr();
    launch_int_gemm(dtype, g, stream);
    check_cuda(cudaGetLastError(), "dot_general", "kernel launch");
  } else {
    const auto la = blas_layout(M, Kl), lb = blas_layout(Kr, N);
    TF_INTERNAL_ASSERT(la && lb && lc_out, "dot_general: operand layout after canonicalisation");
    const bool out_transposed = lc_out->op == CUBLAS_OP_T;
    const std::int64_t ldc = lc_out->ld;
    TF_CHECK(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX && la->ld <= INT_MAX && lb->ld <= INT_MAX &&
                 ldc <= INT_MAX,
             UnimplementedError, "dot_general", "matrix extents (m=", m, ", n=", n, ", k=", k,
             ") exceed cuBLAS's 32-bit interface");
    cublasHandle_t h = be.state().cublas_handle();
    const std::size_t es = dtype_size(dtype);
    visit_dtype<kFloatDTypes>(dtype, "dot_general", [&]<class T>() {
      for (std::int64_t b0 = 0; b0 < batches; b0 += INT_MAX) {
        const int count = static_cast<int>(std::min<std::int64_t>(batches - b0, INT_MAX));
        const char* A = static_cast<const char*>(o.lhs.data_ptr()) + b0 * sbl * static_cast<std::int64_t>(es);
        const char* B = static_cast<const char*>(o.rhs.data_ptr()) + b0 * sbr * static_cast<std::int64_t>(es);
        char* C = static_cast<char*>(target.data_ptr()) + b0 * sbo * static_cast<std::int64_t>(es);
        cublasStatus_t st;
        if (!out_transposed)
          st = gemm_strided_batched<T>(h, la->op, lb->op, int(m), int(n), int(k), A, int(la->ld), sbl, B,
                                       int(lb->ld), sbr, C, int(ldc), sbo, count);
        else  // C^T (n x m) = op(B)^T op(A)^T
          st = gemm_strided_batched<T>(h, flip(lb->op), flip(la->op), int(n), int(m), int(k), B, int(lb->ld),
                                       sbr, A, int(la->ld), sbl, C, int(ldc), sbo, count);
        check_cublas(st, "dot_general", "cublas<t>gemmStridedBatched");
      }
    });
  }
  if (!target.shares_storage_with(out)) copy(be, out, target);
}

}  // namespace

void dot_general(CudaBackend& be, const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs,
                 const Tensor& out) {
  Operands o{lhs,
             rhs,
             attrs.lhs_batching_dimensions,
             attrs.rhs_batching_dimensions,
             attrs.lhs_contracting_dimensions,
             attrs.rhs_contracting_dimensions,
             free_axes(lhs.ndim(), attrs.lhs_batching_dimensions, attrs.lhs_contracting_dimensions),
             free_axes(rhs.ndim(), attrs.rhs_batching_dimensions, attrs.rhs_contracting_dimensions)};
  run(be, o, out);
}

}  // namespace tenferro::cuda::detail

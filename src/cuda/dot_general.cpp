// dot_general on the GPU: strided-batched GEMM through cuBLAS (s/d/c/zgemm),
// an own kernel for the integer dtypes.
//
// The mapping is the metadata-only DotGeneralPlan (Note [GEMM mapping] in
// tenferro/ops/dot_plan.hpp) with `strided_batch`: each operand's batch
// axes must form one regular group (a single batch stride, 0 for a
// broadcast batch), which cublas<t>gemmStridedBatched needs; the plan
// copies an operand whose batch axes do not and computes such an output in
// a scratch tensor.
#include <algorithm>
#include <climits>

#include "state.hpp"
#include "tenferro/ops/dot_plan.hpp"

namespace tenferro::cuda::detail {
namespace {

// Copies `t` column-major with its axes in `order` (DotGeneralPlan copy).
Tensor copy_permuted(CudaBackend& be, const Tensor& t, const DimVec& order) {
  Tensor c = t.permute(order);
  Tensor out = be.empty(c.dtype(), c.shape());
  copy(be, out, c);
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

cublasOperation_t cublas_op(ops::GemmOp op) { return op == ops::GemmOp::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

void run(CudaBackend& be, const ops::DotGeneralPlan& p, const Tensor& lhs, const Tensor& rhs, const Tensor& out) {
  const DType dtype = out.dtype();
  if (p.k == 0) return fill_zero(be, out);
  TF_INTERNAL_ASSERT(p.strided_batch, "dot_general: plan without a strided batch");
  const Tensor L = p.lhs.copy ? copy_permuted(be, lhs, p.lhs.copy_order) : lhs;
  const Tensor R = p.rhs.copy ? copy_permuted(be, rhs, p.rhs.copy_order) : rhs;
  const Tensor target = p.out.copy ? be.empty_strided(dtype, out.shape(), p.out.scratch_strides) : out;
  const std::int64_t batches = p.batch_count;
  const std::int64_t sbl = p.lhs.batch_stride, sbr = p.rhs.batch_stride, sbo = p.out.batch_stride;
  cudaStream_t stream = static_cast<cudaStream_t>(be.stream());

  if (!p.blas) {
    IntGemmArgs g;
    g.m = p.m;
    g.n = p.n;
    g.k = p.k;
    g.batch = batches;
    g.a_rs = p.lhs.row_stride;
    g.a_cs = p.lhs.col_stride;
    g.a_bs = sbl;
    g.b_rs = p.rhs.row_stride;
    g.b_cs = p.rhs.col_stride;
    g.b_bs = sbr;
    g.c_rs = p.out.row_stride;
    g.c_cs = p.out.col_stride;
    g.c_bs = sbo;
    g.a = L.data_ptr();
    g.b = R.data_ptr();
    g.c = target.data_ptr();
    launch_int_gemm(dtype, g, stream);
    check_cuda(cudaGetLastError(), "dot_general", "kernel launch");
  } else {
    const ops::GemmCall g = p.gemm();
    TF_CHECK(g.max_extent() <= INT_MAX, UnimplementedError, "dot_general", "matrix extents (m=", p.m, ", n=", p.n,
             ", k=", p.k, ") exceed cuBLAS's 32-bit interface");
    cublasHandle_t h = be.state().cublas_handle();
    const auto es = static_cast<std::int64_t>(dtype_size(dtype));
    // X is the lhs unless the output is computed transposed (C^T = op(B)^T op(A)^T).
    const Tensor& X = g.swapped ? R : L;
    const Tensor& Y = g.swapped ? L : R;
    const std::int64_t sbx = g.swapped ? sbr : sbl, sby = g.swapped ? sbl : sbr;
    visit_dtype<kFloatDTypes>(dtype, "dot_general", [&]<class T>() {
      for (std::int64_t b0 = 0; b0 < batches; b0 += INT_MAX) {
        const int count = static_cast<int>(std::min<std::int64_t>(batches - b0, INT_MAX));
        const char* x = static_cast<const char*>(X.data_ptr()) + b0 * sbx * es;
        const char* y = static_cast<const char*>(Y.data_ptr()) + b0 * sby * es;
        char* c = static_cast<char*>(target.data_ptr()) + b0 * sbo * es;
        const cublasStatus_t st =
            gemm_strided_batched<T>(h, cublas_op(g.op_x), cublas_op(g.op_y), int(g.m), int(g.n), int(g.k), x,
                                    int(g.ldx), sbx, y, int(g.ldy), sby, c, int(g.ldc), sbo, count);
        check_cublas(st, "dot_general", "cublas<t>gemmStridedBatched");
      }
    });
  }
  if (!target.shares_storage_with(out)) copy(be, out, target);
}

}  // namespace

void dot_general(CudaBackend& be, const DotGeneralAttrs& attrs, const Tensor& lhs, const Tensor& rhs,
                 const Tensor& out) {
  const ops::DotGeneralPlan plan =
      ops::plan_dot_general(attrs, lhs.shape(), lhs.strides(), rhs.shape(), rhs.strides(), out.strides(),
                            {.blas = is_float(out.dtype()), .strided_batch = true});
  run(be, plan, lhs, rhs, out);
}

}  // namespace tenferro::cuda::detail

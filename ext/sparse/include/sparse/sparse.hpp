#pragma once
/// \file
/// Sparse (COO) times dense products for tenferro: an operation family that
/// lives outside the library, built against the installed package and its
/// public headers only.
///
/// A sparse matrix A of shape [m, k] in coordinate (COO) form is three
/// vectors of one length nnz: `values[p]` sits at row `rows[p]`, column
/// `cols[p]`. Coordinates may come in any order and may repeat: repeated
/// coordinates sum (A[i, j] is the sum of every values[p] with
/// (rows[p], cols[p]) = (i, j)), as in SciPy's COO format.
///
/// ```cpp
/// #include <sparse/sparse.hpp>
/// #include <tenferro/cpu.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// // A = [[0, 2], [3, 0], [0, 0]] (m = 3, k = 2), B = [[1, 1], [10, 20]]
/// Tensor v = Tensor::from_vec_col_major<double>({2}, {2, 3});
/// Tensor r = Tensor::from_vec_col_major<std::int64_t>({2}, {0, 1});
/// Tensor c = Tensor::from_vec_col_major<std::int64_t>({2}, {1, 0});
/// Tensor b = Tensor::from_vec_col_major<double>({2, 2}, {1, 10, 1, 20});
/// Tensor y = sparse::coo_matmul(v, r, c, b, 3, cpu);   // [[20, 40], [3, 3], [0, 0]]
///
/// // Traced: nnz is a symbol, compile once, run for any number of nonzeros;
/// // grad with respect to the values and the dense operand.
/// auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
/// auto tr = TracedTensor::input("r", DType::i64, {Dim("nnz")});
/// auto tc = TracedTensor::input("c", DType::i64, {Dim("nnz")});
/// auto tb = TracedTensor::input("b", DType::f64, {Dim(2), Dim("n")});
/// auto loss = sparse::coo_matmul(tv, tr, tc, tb, 3).sum();
/// auto g = grad(loss, std::vector<TracedTensor>{tv, tb});
/// auto rt = Runtime::builder().register_engine(cpu_engine(cpu))
///               .register_family(sparse::family()).build();
/// Program p = GraphCompiler().compile({loss, g[0], g[1]});
/// ```
///
/// Family "sparse" (Note [Sparse family] in src/family.cpp):
/// - `sparse.coo_matmul(values[nnz], rows[nnz], cols[nnz], dense[k, ...])
///   -> out[m, ...]`: out[i, j...] = sum over p with rows[p] = i of
///   values[p] * dense[cols[p], j...]. The dense operand's trailing axes
///   (none: a vector; one: columns; more: batches of columns) pass through.
///   Attribute `m` (CooAttrs); internally a fifth operand may give m by its
///   first extent instead (symbolic row counts in derivative programs).
/// - `sparse.sddmm(a[m, ...], b[k, ...], rows[nnz], cols[nnz]) -> out[nnz]`:
///   the sampled dense-dense product out[p] = sum over j... of
///   a[rows[p], j...] * b[cols[p], j...] (no conjugation). It is the
///   derivative of coo_matmul with respect to the values.
///
/// dtypes: values and dense f32, f64, c64 or c128 (one dtype); indices i32
/// or i64 (rows and cols alike). Indices outside [0, m) and [0, k) are an
/// IndexError naming the op, the position and the index, when the op runs.
///
/// Derivatives: both ops are linear in each float operand (bilinear), so
/// `grad`, `vjp`, `jvp`, `hvp` and eager `backward` work to any order with
/// respect to the values and the dense operands; the indices have none.
/// For complex dtypes the transposes are the adjoints for the real inner
/// product Re<u, v>, as everywhere in tenferro (tenferro/ad.hpp): the
/// cotangent of the values is sddmm(ct, conj(dense)), that of the dense
/// operand coo_matmul(conj(values), cols, rows, ct).

#include <cstdint>
#include <iosfwd>

#include <tenferro/ops/backend.hpp>
#include <tenferro/ops/dim.hpp>
#include <tenferro/ops/family.hpp>
#include <tenferro/ops/value.hpp>
#include <tenferro/runtime/eager.hpp>
#include <tenferro/runtime/traced_tensor.hpp>
#include <tenferro/tensor/tensor.hpp>

namespace sparse {

/// `CooAttrs::m` when the row count comes from the first extent of a fifth
/// operand of `sparse.coo_matmul` (whose values are not read).
inline constexpr std::int64_t kRowsFromOperand = -1;

/// Typed attributes of `sparse.coo_matmul`: the number of rows m of the
/// sparse matrix (and of the product). Printed as `m=5` (or `m=operand`).
struct CooAttrs {
  std::int64_t m = kRowsFromOperand;
  bool operator==(const CooAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const CooAttrs& a);

/// The family (ops, shape rules, AD rules, CPU kernels). A `Runtime` that
/// runs traced sparse programs is built with
/// `Runtime::builder().register_family(sparse::family())`; eager calls
/// register its kernels on the backend on first use.
const tenferro::OpFamily& family();

// ---- sparse x dense --------------------------------------------------------------------
/// Eager COO product: A [m, k] (values, rows, cols) times dense [k, ...].
///
/// ```cpp
/// Tensor y = sparse::coo_matmul(values, rows, cols, dense, m, cpu);   // [m, ...]
/// ```
tenferro::Tensor coo_matmul(const tenferro::Tensor& values, const tenferro::Tensor& rows,
                            const tenferro::Tensor& cols, const tenferro::Tensor& dense, std::int64_t m,
                            tenferro::Backend& backend);
/// On graph values (traced, or eager handles); `m` may be a symbol (one
/// that some program input's shape binds) or a constant.
tenferro::Value coo_matmul(const tenferro::Value& values, const tenferro::Value& rows, const tenferro::Value& cols,
                           const tenferro::Value& dense, const tenferro::Dim& m);
tenferro::TracedTensor coo_matmul(const tenferro::TracedTensor& values, const tenferro::TracedTensor& rows,
                                  const tenferro::TracedTensor& cols, const tenferro::TracedTensor& dense,
                                  const tenferro::Dim& m);
tenferro::EagerTensor coo_matmul(const tenferro::EagerTensor& values, const tenferro::EagerTensor& rows,
                                 const tenferro::EagerTensor& cols, const tenferro::EagerTensor& dense,
                                 std::int64_t m);

// ---- sampled dense-dense ---------------------------------------------------------------
/// Eager sampled product: out[p] = sum_j a[rows[p], j] * b[cols[p], j]
/// for a [m, ...] and b [k, ...] with equal trailing extents.
///
/// ```cpp
/// Tensor s = sparse::sddmm(a, b, rows, cols, cpu);   // [nnz]
/// ```
tenferro::Tensor sddmm(const tenferro::Tensor& a, const tenferro::Tensor& b, const tenferro::Tensor& rows,
                       const tenferro::Tensor& cols, tenferro::Backend& backend);
/// On graph values (traced, or eager handles).
tenferro::Value sddmm(const tenferro::Value& a, const tenferro::Value& b, const tenferro::Value& rows,
                      const tenferro::Value& cols);
tenferro::TracedTensor sddmm(const tenferro::TracedTensor& a, const tenferro::TracedTensor& b,
                             const tenferro::TracedTensor& rows, const tenferro::TracedTensor& cols);
tenferro::EagerTensor sddmm(const tenferro::EagerTensor& a, const tenferro::EagerTensor& b,
                            const tenferro::EagerTensor& rows, const tenferro::EagerTensor& cols);

}  // namespace sparse

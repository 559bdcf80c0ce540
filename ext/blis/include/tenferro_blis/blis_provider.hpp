#pragma once
/// \file
/// `tenferro_blis`: a provider of `dot_general` on the CPU through BLIS's
/// typed API with general strides (`bli_?gemm_ex`), registered explicitly on
/// a backend. Operands that are permuted or strided views reach BLIS without
/// a copy whenever each index group (free axes, contracting axes) of each
/// operand and of the output can be read with one stride; everything else is
/// declined, the output stays untouched and the next provider (the
/// backend's own "cpu" kernel) runs the op.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro_blis/blis_provider.hpp>
/// using namespace tenferro;
/// CpuBackend cpu;
/// tenferro_blis::register_provider(cpu);          // provider "blis", tried before "cpu"
/// Tensor x = Tensor::uniform({128, 32}, DType::f64, 1);
/// Tensor a = x.slice(0, 0, 128, 2);               // [64, 32], rows 2 apart: BLAS would copy it
/// Tensor b = Tensor::uniform({32, 48}, DType::f64, 2);
/// DotGeneralAttrs mm{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
/// Tensor c = ops::dot_general(a, b, mm, cpu);      // BLIS reads `a` in place
/// Tensor i = ops::dot_general(Tensor::ones({4, 4}, DType::i64), Tensor::ones({4, 4}, DType::i64), mm,
///                             cpu);                 // i64: declined, "cpu" runs it
/// ```
///
/// Note [BLIS mapping]: per batch element, C[m, n] = A[m, k] B[k, n] with m
/// the lhs free axes, n the rhs free axes and k the contracting pairs. BLIS
/// reads each matrix through a row stride and a column stride of any size,
/// so an index group needs only to be one stride (its axes' strides grow as
/// the running product of the extents, axes of extent 1 aside); unlike BLAS
/// it needs no unit stride, so a group read every other element, or a
/// matrix whose rows and columns are both strided, is read in place. The
/// axes of a group may be taken in any order common to the two tensors that
/// share it (lhs and output for m, rhs and output for n, lhs and rhs for k):
/// the order as given, sorted by the one's strides or by the other's is
/// tried. Batch axes are a loop with any strides. Declined: dtypes other
/// than f32, f64, c64, c128; operands off the CPU; a group that is no one
/// stride under those orders; a group of more than one element with a zero
/// or negative stride; a matrix whose strides BLIS rejects (rows and
/// columns interleaved); products below `Options::min_work`.
///
/// Threads: each call uses `tenferro::get_num_threads()` threads (BLIS's
/// own OpenMP threads inside one GEMM, or one GEMM per thread across batch
/// elements when the products are small), one thread inside a parallel
/// region.

#include <cstdint>
#include <optional>
#include <string>

#include <tenferro/ops/attrs.hpp>
#include <tenferro/ops/backend.hpp>
#include <tenferro/ops/kernels.hpp>
#include <tenferro/tensor/tensor.hpp>

namespace tenferro_blis {

/// What the provider takes.
struct Options {
  /// Declines products with m n k below this (per batch element), leaving
  /// them to the next provider; 0 takes every product it can map.
  std::int64_t min_work = 0;
};

/// Adds provider "blis" for `dot_general` on `DeviceKind::cpu` to
/// `registry`, tried before the providers already there.
void register_provider(tenferro::KernelRegistry& registry, Options options = {});
/// The same on `backend.kernels()` (shared by copies of the backend and by
/// runtimes whose engines run on it). Backends without it are unchanged.
void register_provider(tenferro::Backend& backend, Options options = {});

/// Why the provider declines this call (a sentence naming the reason), or
/// nullopt when it takes it. Reads metadata only.
std::optional<std::string> decline_reason(const tenferro::DotGeneralAttrs& attrs,
                                          const tenferro::Tensor& lhs, const tenferro::Tensor& rhs,
                                          const tenferro::Tensor& out, Options options = {});

/// Runs `out = dot_general(lhs, rhs, attrs)` through BLIS into the
/// preallocated `out` (the inferred shape and dtype, any non-overlapping
/// layout, not overlapping the operands); returns false without touching
/// `out` when it declines. Bad operands fail as the library's shape rule
/// says (ShapeError / DTypeError naming dot_general and the values); an
/// `out` of another shape or dtype is a ShapeError / DTypeError naming
/// "blis.dot_general".
bool dot_general(const tenferro::DotGeneralAttrs& attrs, const tenferro::Tensor& lhs,
                 const tenferro::Tensor& rhs, const tenferro::Tensor& out, Options options = {});

/// BLIS's version string ("0.9.0").
std::string blis_version();

}  // namespace tenferro_blis

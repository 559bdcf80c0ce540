#pragma once
/// \file
/// Eager einsum: parse, plan (through a cache when given one) and run the
/// primitive program on a backend.
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;
/// auto a = Tensor::uniform({2, 3}, DType::f64, 1);
/// auto b = Tensor::uniform({3, 4}, DType::c64, 2);
/// Tensor c = einsum("ij,jk->ik", {a, b}, cpu);          // c128 [2, 4] (promoted)
/// Tensor t = einsum("ii->", {Tensor::eye(3)}, cpu);     // trace: 3
/// Tensor d = einsum({{0, 1}, {1, 2}}, {0, 2}, {a, a.permute({1, 0})}, cpu);
///
/// EinsumCache cache;   // owned by the caller: repeated calls skip planning
/// Tensor e = einsum("ab,bc,cd->ad", {x, y, z}, cpu,
///                   {.optimizer = PathOptimizer::optimal}, &cache);
/// ```
/// The result is a view when the requested output order is only a
/// permutation of the last contraction's result (Note [Einsum plan]); call
/// `contiguous()` for column-major memory. Operands may have any layout
/// (Note [Einsum layouts]); they are never modified.

#include <string_view>
#include <vector>

#include "tenferro/einsum/path.hpp"
#include "tenferro/einsum/plan.hpp"
#include "tenferro/einsum/spec.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

/// String form (Note [Einsum notation]). Throws ValueError for malformed
/// subscripts, wrong operand counts and ranks, ShapeError for extents that
/// do not agree, DTypeError for bool operands, DeviceError for operands not
/// on `backend`'s device. Mixed dtypes promote (promote_types).
Tensor einsum(std::string_view subscripts, const std::vector<Tensor>& operands, Backend& backend,
              const PathOptions& options = {}, EinsumCache* cache = nullptr);

/// Integer-label form: `inputs[k]` labels operand k's axes, `output` the
/// result's; labels are any non-negative integers.
Tensor einsum(const std::vector<std::vector<std::int64_t>>& inputs,
              const std::vector<std::int64_t>& output, const std::vector<Tensor>& operands,
              Backend& backend, const PathOptions& options = {}, EinsumCache* cache = nullptr);

/// A parsed spec (parse_einsum / einsum_spec).
Tensor einsum(const EinsumSpec& spec, const std::vector<Tensor>& operands, Backend& backend,
              const PathOptions& options = {}, EinsumCache* cache = nullptr);

/// Runs a prepared plan (its operands' shapes and dtypes must match).
Tensor run_einsum_plan(const EinsumPlan& plan, const std::vector<Tensor>& operands, Backend& backend);

}  // namespace tenferro

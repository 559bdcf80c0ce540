#pragma once
/// \file
/// Einsum, layer 3: the execution plan, a program of primitives built from
/// metadata only (spec, shapes, dtypes, path), and `run_plan`, which
/// executes it through an *emitter*: eagerly on a backend now, by a traced
/// runtime later (which also differentiates through it, since the program
/// uses nothing but primitives).
///
/// ```cpp
/// using namespace tenferro;
/// EinsumSpec spec = parse_einsum("ij,jk->ik", {2, 2});
/// std::vector<Shape> shapes{{2, 3}, {3, 4}};
/// EinsumPlan plan = EinsumPlan::build(spec, shapes, {DType::f64, DType::f64},
///                                     einsum_path(spec, shapes));
/// CpuBackend cpu;
/// EagerEmitter emit{cpu};
/// std::vector<Tensor> in{a, b};
/// Tensor c = run_plan(plan, std::span<const Tensor>(in), emit);   // [2, 4]
/// std::cout << plan.to_string();   // the program, one primitive per line
/// ```
///
/// Note [Einsum plan]: operands first pass a prologue each: `convert` to the
/// promoted dtype, `reshape` away broadcast axes (extent 1 where the label
/// is longer elsewhere), one `diagonal` per repeated label, and `reduce_sum`
/// of labels that no other operand and not the output has. Then every path
/// step is one `dot_general` (labels in both operands are contracted, or
/// batch axes when still needed), followed by a `permute_view` that names
/// the result's axes in memory order; a step that sums nothing is a
/// `multiply` of two `broadcast_in_dim`s instead, and so is a batched
/// matrix-vector step with little work per batch, followed by a `reduce_sum`
/// of the summed labels (the product is no larger than the larger operand).
/// A `permute_view` to the requested output order ends the program (a view
/// in eager mode). Operands of small products may first be `transpose`d
/// (Note [Einsum layouts]).
///
/// Note [Einsum layouts]: the plan assumes each operand is dense in its
/// logical axis order (eager `einsum` first views every operand so that this
/// holds) and tracks the memory order of every intermediate. Which operands
/// `dot_general` copies is asked of the dot_general plan (Note [GEMM
/// mapping] in tenferro/ops/dot_plan.hpp): roughly, an operand is read in
/// place when its free axes and its contracting axes each form one
/// contiguous block of memory, one of the two blocks at stride 1, and the
/// contracting axes lie in the same order in both operands. For each
/// step the plan chooses which operand goes left and the order of the batch
/// axes (which set the result's memory order) so that the step that later
/// consumes the result meets these conditions. The result's free axes come
/// in their operand's order; when no choice meets the conditions, the plan
/// may transpose an operand first, its free axes grouped by their role in
/// the consuming step, where that copies fewer elements than the consumer's
/// copy of the result would. In
/// tensornetwork_permutation_light_415 (opt_flops path, one core) that took
/// 152-156 ms to 126-127. `predicted_copy_elements` counts those transposes
/// and the operand elements that the kernel will still have to copy.
///
/// Note [Einsum slicing]: with sliced labels (ContractionPath), the body of
/// the program (after the prologue) runs once per combination of sliced
/// indices: its `slice` instructions fix each sliced label of an operand to
/// the current index, and the results of all slices are summed with `add`.

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tenferro/einsum/path.hpp"
#include "tenferro/einsum/spec.hpp"
#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

/// The operations of an einsum program: primitives plus the two view hooks
/// (`permute_view`, `diagonal`) that an emitter may implement without
/// copying.
enum class EinsumOp : std::uint8_t {
  convert,           ///< out = convert(a, dtype)
  reshape,           ///< out = reshape(a, shape)
  diagonal,          ///< out = diagonal of axes (axes[0], axes[1]) as a new last axis
  reduce_sum,        ///< out = reduce_sum(a, axes)
  slice,             ///< out = a with axes[i] fixed to the current index of sliced label labels[i] (extent 1)
  dot_general,       ///< out = dot_general(a, b, dot)
  broadcast_in_dim,  ///< out = broadcast_in_dim(a, shape, axes)
  multiply,          ///< out = multiply(a, b)
  permute_view,      ///< out = a with axes permuted: out.shape[i] = a.shape[axes[i]] (a view when possible)
  transpose,         ///< out = transpose(a, axes), materialised (operands of small products)
};

const char* einsum_op_name(EinsumOp op);

/// One instruction: reads value slots `a` (and `b`), writes slot `out`.
struct EinsumInstr {
  EinsumOp op = EinsumOp::reshape;
  int a = -1, b = -1, out = -1;
  /// Drop the handles in `a` / `b` after this instruction (their last use).
  bool release_a = false, release_b = false;
  DType dtype = DType::f64;  ///< convert
  Shape shape{};             ///< reshape, broadcast_in_dim
  DimVec axes{};             ///< reduce axes, permutation, broadcast dims, diagonal / sliced axes
  DimVec labels{};           ///< slice: index into EinsumPlan::sliced_labels() per sliced axis
  DotGeneralAttrs dot{};     ///< dot_general
  /// The spec label id of each axis of `shape` (reshape, broadcast_in_dim,
  /// slice): `shape[i]` is the extent of label `shape_labels[i]`, which lets an
  /// emitter with symbolic extents rebuild the shape (Note [Einsum symbolic
  /// extents] in tenferro/einsum/traced.hpp).
  DimVec shape_labels{};
};

namespace detail {
class EinsumPlanBuilder;
class BufferPool;
}

/// The primitive program of one einsum (Note [Einsum plan]).
class EinsumPlan {
 public:
  /// Builds the program. `dtypes` are the operands' (they promote to one
  /// common dtype); the path comes from `einsum_path` or the user (it is
  /// checked). Throws the spec's errors for mismatched shapes, DTypeError for
  /// bool operands, ValueError for a bad path.
  static EinsumPlan build(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                          const std::vector<DType>& dtypes, const ContractionPath& path);

  const EinsumSpec& spec() const { return spec_; }
  const ContractionPath& path() const { return path_; }
  const std::vector<Shape>& input_shapes() const { return input_shapes_; }
  const std::vector<DType>& input_dtypes() const { return input_dtypes_; }
  /// Result dtype (the promoted operand dtype) and shape.
  DType dtype() const { return dtype_; }
  const Shape& output_shape() const { return output_shape_; }

  /// Slots 0 .. num_inputs()-1 hold the operands when the program starts.
  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  int num_slots() const { return num_slots_; }
  /// Runs once, before the slices.
  const std::vector<EinsumInstr>& prologue() const { return prologue_; }
  /// Runs once per slice; its result is `body_result()`.
  const std::vector<EinsumInstr>& body() const { return body_; }
  int body_result() const { return body_result_; }
  /// Runs once on the (summed) body result, which is in slot `body_result()`;
  /// leaves the output in `result()`.
  const std::vector<EinsumInstr>& epilogue() const { return epilogue_; }
  int result() const { return result_; }

  /// Label ids (spec) fixed per slice, their extents, and the slice count.
  const DimVec& sliced_labels() const { return path_.sliced_labels; }
  const Shape& sliced_extents() const { return sliced_extents_; }
  std::int64_t num_slices() const { return path_.num_slices; }

  /// Largest number of elements alive at once in eager execution (values
  /// the program allocates: intermediates, the running slice sum and the
  /// output; views and the caller's operands count zero), including the
  /// kernels' copies of operands predicted by Note [Einsum layouts]; an
  /// upper bound where the CPU kernel makes such a copy slice by slice
  /// (Note [Copies by slices] in src/cpu/dot_general.cpp).
  double peak_live_elements() const { return peak_live_elements_; }
  /// Operand elements the CPU dot_general is expected to copy (all steps,
  /// all slices), under the plan's layout model.
  double predicted_copy_elements() const { return predicted_copy_elements_; }
  /// Seconds spent building this plan (path search is in path().planning_seconds).
  double build_seconds() const { return build_seconds_; }

  /// The program as text, one instruction per line.
  std::string to_string() const;

 private:
  friend class detail::EinsumPlanBuilder;
  EinsumSpec spec_;
  ContractionPath path_;
  std::vector<Shape> input_shapes_;
  std::vector<DType> input_dtypes_;
  DType dtype_ = DType::f64;
  Shape output_shape_;
  int num_slots_ = 0;
  std::vector<EinsumInstr> prologue_, body_, epilogue_;
  int body_result_ = -1, result_ = -1;
  Shape sliced_extents_;
  double peak_live_elements_ = 0;
  double predicted_copy_elements_ = 0;
  double build_seconds_ = 0;
};

/// The gather that stands for `EinsumOp::diagonal` where no strided view
/// exists (traced programs): the diagonal of axes (axis1, axis2) of a
/// tensor of `shape` as a new last axis, like `Tensor::diagonal`. The start
/// indices are the i64 tensor [[0, 0], [1, 1], ...] of shape [n, 2].
struct DiagonalGather {
  GatherAttrs attrs;
  Shape index_shape;
  std::vector<std::int64_t> index_values;  ///< column-major
};
DiagonalGather diagonal_gather(const Shape& shape, std::int64_t axis1, std::int64_t axis2);

/// Executes `plan` on `inputs` (one value per operand, in spec order)
/// through `emitter`, which provides `using Value = ...;` and one member
/// function per `EinsumOp`:
///   convert(a, DType), reshape(a, const Shape&), diagonal(a, i64, i64),
///   reduce_sum(a, const DimVec&), slice(a, starts, limits, strides) (DimVecs),
///   dot_general(a, b, const DotGeneralAttrs&),
///   broadcast_in_dim(a, const Shape&, const DimVec&), multiply(a, b),
///   add(a, b) (the slice sum), permute_view(a, const DimVec&), transpose(a, const DimVec&),
/// each returning a `Value`. Values are released after their last use, so
/// intermediates are freed as soon as the program no longer needs them.
/// An emitter whose extents are not concrete may also provide
/// `shape_of(const EinsumInstr&)`: its result then replaces `in.shape` in
/// reshape, broadcast_in_dim and slice (whose starts and limits then have
/// that type too), e.g. a `SymShape` built from `in.shape_labels`.
template <class E>
typename E::Value run_plan(const EinsumPlan& plan, std::span<const typename E::Value> inputs,
                           E& emitter);

/// Runs the primitives of an einsum program eagerly on a backend
/// (`tenferro::ops::*`). With `views` (the default) `permute_view`,
/// `diagonal`, `reshape`, `slice` and `broadcast_in_dim` return strided views
/// (no copy); with `views = false` every instruction is a primitive that
/// materialises its result, the way a traced program runs it (`transpose`
/// for `permute_view`, `gather` for `diagonal`; host backends only).
struct EagerEmitter {
  using Value = Tensor;
  Backend& backend;
  bool views = true;

  Tensor convert(const Tensor& a, DType dtype);
  Tensor reshape(const Tensor& a, const Shape& shape);
  Tensor diagonal(const Tensor& a, std::int64_t axis1, std::int64_t axis2);
  Tensor reduce_sum(const Tensor& a, const DimVec& axes);
  Tensor slice(const Tensor& a, const DimVec& starts, const DimVec& limits, const DimVec& strides);
  Tensor dot_general(const Tensor& a, const Tensor& b, const DotGeneralAttrs& dims);
  Tensor broadcast_in_dim(const Tensor& a, const Shape& shape, const DimVec& dims);
  Tensor multiply(const Tensor& a, const Tensor& b);
  Tensor add(const Tensor& a, const Tensor& b);
  Tensor permute_view(const Tensor& a, const DimVec& perm);
  Tensor transpose(const Tensor& a, const DimVec& perm);
};

/// A bounded cache of plans keyed by (spec, shapes, dtypes, path options),
/// owned by the caller (or by the runtime that calls einsum): a repeated
/// call finds its plan without planning again. Least recently used plans
/// are evicted beyond `capacity`. Thread-safe.
///
/// Eager `einsum` calls given a cache also recycle the memory of their
/// intermediates and results through it (Note [Einsum buffer reuse] in
/// src/einsum/pool.hpp): the cache keeps up to `pool_bytes` of released
/// buffers, matched by exact size, so that repeated calls touch warm pages;
/// `clear()` releases them.
///
/// ```cpp
/// EinsumCache cache;
/// for (int it = 0; it < 100; ++it) c = einsum("ij,jk->ik", {a, b}, cpu, {}, &cache);
/// // cache.misses() == 1, cache.hits() == 99
/// ```
class EinsumCache {
 public:
  explicit EinsumCache(std::size_t capacity = 256, std::size_t pool_bytes = std::size_t{1} << 30);
  ~EinsumCache();
  /// The plan for these operands, built (path search included) on a miss.
  std::shared_ptr<const EinsumPlan> plan(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                                         const std::vector<DType>& dtypes, const PathOptions& options);
  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }
  std::int64_t hits() const;
  std::int64_t misses() const;
  /// Bytes of released buffers held for reuse.
  std::size_t pooled_bytes() const;
  /// Drops every plan and every pooled buffer.
  void clear();

 private:
  friend std::shared_ptr<detail::BufferPool> einsum_cache_pool(EinsumCache& cache);
  using Entry = std::pair<std::string, std::shared_ptr<const EinsumPlan>>;
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::int64_t hits_ = 0, misses_ = 0;
  std::shared_ptr<detail::BufferPool> pool_;
};

// ---- run_plan ----------------------------------------------------------------

namespace detail {

// The shape an instruction passes to emitter `e` (see run_plan).
template <class E>
decltype(auto) instr_shape(E& e, const EinsumInstr& in) {
  if constexpr (requires { e.shape_of(in); }) {
    return e.shape_of(in);
  } else {
    return static_cast<const Shape&>(in.shape);
  }
}

template <class E>
void run_instructions(const std::vector<EinsumInstr>& code, std::vector<typename E::Value>& slot,
                      const DimVec& slice_index, E& e) {
  using V = typename E::Value;
  for (const EinsumInstr& in : code) {
    const V& a = slot[static_cast<std::size_t>(in.a)];
    V out;
    switch (in.op) {
      case EinsumOp::convert:
        out = e.convert(a, in.dtype);
        break;
      case EinsumOp::reshape:
        out = e.reshape(a, instr_shape(e, in));
        break;
      case EinsumOp::diagonal:
        out = e.diagonal(a, in.axes[0], in.axes[1]);
        break;
      case EinsumOp::reduce_sum:
        out = e.reduce_sum(a, in.axes);
        break;
      case EinsumOp::slice: {
        const auto& s = instr_shape(e, in);  // the operand's shape
        using S = std::decay_t<decltype(s)>;
        S starts(s.size(), 0), limits(s.begin(), s.end());
        DimVec strides(s.size(), 1);
        for (std::size_t i = 0; i < in.axes.size(); ++i) {
          std::size_t ax = static_cast<std::size_t>(in.axes[i]);
          starts[ax] = slice_index[static_cast<std::size_t>(in.labels[i])];
          limits[ax] = starts[ax] + 1;
        }
        out = e.slice(a, starts, limits, strides);
        break;
      }
      case EinsumOp::dot_general:
        out = e.dot_general(a, slot[static_cast<std::size_t>(in.b)], in.dot);
        break;
      case EinsumOp::broadcast_in_dim:
        out = e.broadcast_in_dim(a, instr_shape(e, in), in.axes);
        break;
      case EinsumOp::multiply:
        out = e.multiply(a, slot[static_cast<std::size_t>(in.b)]);
        break;
      case EinsumOp::permute_view:
        out = e.permute_view(a, in.axes);
        break;
      case EinsumOp::transpose:
        out = e.transpose(a, in.axes);
        break;
    }
    if (in.release_a) slot[static_cast<std::size_t>(in.a)] = V{};
    if (in.release_b) slot[static_cast<std::size_t>(in.b)] = V{};
    slot[static_cast<std::size_t>(in.out)] = std::move(out);
  }
}

}  // namespace detail

template <class E>
typename E::Value run_plan(const EinsumPlan& plan, std::span<const typename E::Value> inputs,
                           E& emitter) {
  using V = typename E::Value;
  TF_CHECK(static_cast<int>(inputs.size()) == plan.num_inputs(), ValueError, "einsum",
           "the plan for \"", plan.spec().text, "\" takes ", plan.num_inputs(), " operands, got ",
           inputs.size());
  std::vector<V> slot(static_cast<std::size_t>(plan.num_slots()));
  for (std::size_t i = 0; i < inputs.size(); ++i) slot[i] = inputs[i];
  DimVec index(plan.sliced_labels().size(), 0);
  detail::run_instructions(plan.prologue(), slot, index, emitter);
  const std::size_t r = static_cast<std::size_t>(plan.body_result());
  if (plan.num_slices() == 1) {
    detail::run_instructions(plan.body(), slot, index, emitter);
  } else {
    V sum;
    const Shape& ext = plan.sliced_extents();
    for (std::int64_t s = 0; s < plan.num_slices(); ++s) {
      std::int64_t rem = s;
      for (std::size_t k = 0; k < ext.size(); ++k) {
        index[k] = rem % ext[k];
        rem /= ext[k];
      }
      detail::run_instructions(plan.body(), slot, index, emitter);
      sum = s == 0 ? std::move(slot[r]) : emitter.add(sum, slot[r]);
      slot[r] = V{};
    }
    slot[r] = std::move(sum);
  }
  detail::run_instructions(plan.epilogue(), slot, index, emitter);
  return std::move(slot[static_cast<std::size_t>(plan.result())]);
}

}  // namespace tenferro

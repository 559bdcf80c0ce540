#pragma once
// Checkpointed regions (tenferro::checkpoint) as reverse mode sees them.
// Note [Checkpointing] in checkpoint.cpp explains the scheme.
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "tenferro/ops/graph.hpp"

namespace tenferro::ad::detail {

/// One call of `checkpoint` reached by a reverse-mode sweep: the nodes its
/// function created (ids strictly between `lo` and `hi`), the values it
/// returned that the sweep reaches, and the values from outside that its
/// nodes read (its explicit inputs and anything the function captured).
struct RegionUse {
  std::uint64_t lo = 0, hi = 0;
  std::uint64_t serial = 0;  ///< which checkpoint call (printed in the tangent graph)
  std::vector<Value> outputs;
  std::vector<Value> free;
  bool interior(const Node* n) const { return n->id > lo && n->id < hi; }
};

/// The outermost checkpointed regions among `order` (nodes reachable from
/// a sweep's outputs), keyed by the nodes that produce their outputs.
/// Empty when no checkpoint is involved (the common case costs one
/// look-up of an empty table).
struct Regions {
  std::vector<std::shared_ptr<const RegionUse>> list;
  std::unordered_map<const Node*, const RegionUse*> by_output_node;
  bool empty() const { return list.empty(); }
  /// The region whose function created `n`, or null.
  const RegionUse* containing(const Node* n) const;
};

Regions find_regions(const std::vector<std::shared_ptr<const Node>>& order);

/// The tangents of a region's outputs as one linear node over the tangents
/// of its free inputs (undefined: zero). Its transpose recomputes the
/// region from its free inputs once the outputs' cotangents are known and
/// runs reverse mode through the recomputation.
std::vector<Value> region_tangents(const std::shared_ptr<const RegionUse>& region,
                                   std::span<const Value> free_tangents);

/// Reverse mode that treats checkpointed regions as ordinary nodes (used
/// inside a region's recomputation; transforms.cpp).
std::vector<Value> vjp_without_regions(std::span<const Value> outputs,
                                       std::span<const Value> cotangents,
                                       std::span<const Value> wrt);

}  // namespace tenferro::ad::detail

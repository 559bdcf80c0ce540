#pragma once
/// \file
/// `Value`: one output of a graph node (see tenferro/ops/graph.hpp).
///
/// ```cpp
/// tenferro::Value v = tenferro::graph::input("x", tenferro::DType::f64, {tenferro::Dim("n")});
/// const tenferro::SymShape& s = v.shape();   // [n]
/// ```

#include <cstdint>
#include <memory>

#include "tenferro/ops/infer.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

struct Node;

/// One output of a node.
struct Value {
  std::shared_ptr<const Node> node;
  int index = 0;

  bool defined() const { return node != nullptr; }
  const SymMeta& meta() const;
  DType dtype() const { return meta().dtype; }
  const SymShape& shape() const { return meta().shape; }
  std::int64_t ndim() const { return static_cast<std::int64_t>(meta().shape.size()); }
  /// True when the value is known (a constant or an eagerly evaluated node).
  bool has_value() const;
  /// The concrete value (ValueError when not known).
  const Tensor& value() const;
  bool operator==(const Value& o) const { return node == o.node && index == o.index; }
};

}  // namespace tenferro

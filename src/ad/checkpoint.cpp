// Checkpointing (rematerialisation) for traced reverse mode.
//
// Note [Checkpointing]
// `checkpoint(f, inputs)` traces `f` as usual, so forward values, forward
// mode and programs compiled from the outputs are those of `f(inputs)`. It
// remembers the call: the ids of the nodes it created (Node::id is the
// creation order, so they lie between two marker ids) and the values it
// returned, in a table keyed by the output nodes (weak references: the
// table keeps no graph alive).
//
// Reverse mode (ad::vjp, transforms.cpp) linearizes a checkpointed call as
// one linear node, "ad.checkpoint", from the tangents of the call's free
// inputs (the values from outside that its nodes read: the explicit inputs
// and anything `f` captured) to the tangents of its outputs, instead of
// linearizing the nodes inside. So no tangent coefficient refers to a value
// computed inside the call, and the forward pass keeps only what crosses
// the call's boundary. The transpose of that node, built when the
// outputs' cotangents are known, copies the call's nodes onto "barriered"
// free inputs and runs reverse mode through the copy:
//
//     keep = (s == s), s = sum(first output cotangent)    (true, or false for NaN)
//     x'   = select(keep, x, x)                            (= x exactly)
//
// The barrier does two things. It makes every recomputed instruction read
// a slot that no forward instruction reads, so common-subexpression
// elimination cannot merge the recomputation back into the forward values
// (which would keep them alive again); and it makes the recomputation
// depend on the outputs' cotangent, so any topological schedule (the
// compiler's lowering is one) runs it in the backward sweep, when that
// cotangent exists, and buffer liveness frees the recomputed values right
// after their last use there. Nodes of the call that read no barriered
// value (constants) are not copied. The price is a second forward pass of
// `f` and one copy of each free input per call.
//
// Limits: a checkpoint inside a checkpointed function is recomputed with
// the outer one (the outer region wins); a value computed inside `f` but
// not returned, used outside (captured by reference), is a ValueError at
// differentiation time; eager tensors have no checkpoint (they evaluate
// every node as it is created).
#include "checkpoint.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <unordered_set>

#include "tenferro/ad.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro {
namespace ad::detail {
namespace {

using Key = std::pair<const Node*, int>;
Key key(const Value& v) { return {v.node.get(), v.index}; }

struct Marked {
  std::uint64_t lo = 0, hi = 0, serial = 0;
  std::vector<std::pair<std::weak_ptr<const Node>, int>> outputs;
};
struct Entry {
  std::weak_ptr<const Node> node;
  std::shared_ptr<const Marked> region;
};

std::mutex table_mutex;
std::unordered_map<const Node*, Entry> table;  // guarded by table_mutex
std::size_t purge_at = 64;                     // guarded by table_mutex
std::atomic<bool> any_marked{false};
std::atomic<std::uint64_t> serials{0};

void mark(std::shared_ptr<const Marked> region) {
  std::lock_guard lock(table_mutex);
  if (table.size() >= purge_at) {
    std::erase_if(table, [](const auto& e) { return e.second.node.expired(); });
    purge_at = std::max<std::size_t>(64, 2 * table.size());
  }
  for (const auto& [node, index] : region->outputs) {
    std::shared_ptr<const Node> n = node.lock();
    table[n.get()] = Entry{n, region};  // an enclosing call re-marks: the outer region wins
  }
  any_marked.store(true, std::memory_order_release);
}

// ---- the linear node of a region ------------------------------------------------------

struct CheckpointAttrs {
  std::shared_ptr<const RegionUse> region;
  std::vector<int> free_index;  ///< which free input each operand is the tangent of
  bool operator==(const CheckpointAttrs& o) const {
    return region == o.region && free_index == o.free_index;
  }
  friend std::ostream& operator<<(std::ostream& os, const CheckpointAttrs& a) {
    return os << "region=" << a.region->serial;
  }
};

struct CheckpointInfer {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const CheckpointAttrs& a,
                                             std::span<const BasicTensorMeta<D>>) const {
    if constexpr (std::is_same_v<D, Dim>) {
      std::vector<SymMeta> out;
      for (const Value& v : a.region->outputs) out.push_back(v.meta());
      return out;
    } else {
      // Only tangent placeholders feed it, and they never carry values.
      TF_THROW(InternalError, "ad.checkpoint", "the linearized region is never evaluated");
    }
  }
};

const FamilyOp& checkpoint_op();

// Copies the region's nodes onto `map` (free inputs -> their barriered
// values), in operand-first order; nodes that read nothing remapped stay.
void recompute(const RegionUse& r, std::map<Key, Value>& map) {
  std::vector<std::pair<const Node*, std::size_t>> stack;
  std::unordered_set<const Node*> done;
  auto remapped = [&](const Value& v) {
    auto it = map.find(key(v));
    return it == map.end() ? v : it->second;
  };
  for (const Value& out : r.outputs) {
    if (done.count(out.node.get())) continue;
    stack.push_back({out.node.get(), 0});
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      if (next < n->inputs.size()) {
        const Node* c = n->inputs[next++].node.get();
        if (r.interior(c) && !done.count(c)) stack.push_back({c, 0});
        continue;
      }
      const Node* node = n;
      stack.pop_back();
      if (!done.insert(node).second) continue;
      if (node->kind == NodeKind::input || node->kind == NodeKind::constant ||
          !node->values.empty())
        continue;
      std::vector<Value> ins;
      bool changed = false;
      for (const Value& v : node->inputs) {
        ins.push_back(remapped(v));
        changed = changed || ins.back().node != v.node || ins.back().index != v.index;
      }
      if (!changed) continue;
      std::vector<Value> outs;
      if (node->kind == NodeKind::primitive)
        outs.push_back(graph::apply(node->op, node->attrs, std::move(ins)));
      else
        outs = graph::apply_family(*node->family, node->family_attrs, std::move(ins));
      for (std::size_t k = 0; k < outs.size(); ++k)
        // Any Value of `node` works as the key's owner: only its address is used.
        map[{node, static_cast<int>(k)}] = outs[k];
    }
  }
}

std::vector<Value> transpose_region(const CheckpointAttrs& a, std::span<const Value> cts) {
  const RegionUse& r = *a.region;
  Value first;
  for (const Value& c : cts)
    if (c.defined()) {
      first = c;
      break;
    }
  if (!first.defined()) return std::vector<Value>(a.free_index.size());
  Value s = vops::sum(first);
  if (is_complex(s.dtype())) s = vops::real(s);
  Value keep = vops::eq(s, s);
  std::map<Key, Value> map;
  for (const Value& x : r.free) {
    bool constant = x.node->kind == NodeKind::constant || !x.node->values.empty();
    map[key(x)] = constant ? x : vops::where(keep, x, x);
  }
  std::vector<Value> wrt;
  for (int i : a.free_index) wrt.push_back(map.at(key(r.free[static_cast<std::size_t>(i)])));
  recompute(r, map);
  std::vector<Value> outs;
  for (const Value& o : r.outputs) {
    auto it = map.find(key(o));
    outs.push_back(it == map.end() ? o : it->second);
  }
  return vjp_without_regions(outs, cts, wrt);
}

const FamilyOp& checkpoint_op() {
  static const FamilyOp op = define_family_op<CheckpointAttrs>(
      {.name = "ad.checkpoint", .num_inputs = -1, .num_outputs = -1, .ad = AdKind::linear},
      CheckpointInfer{},
      {.jvp =
           [](const CheckpointAttrs& a, std::span<const Value> in, std::span<const Value>,
              std::span<const Value> t) {
             std::vector<Value> ts;
             bool any = false;
             for (std::size_t i = 0; i < t.size(); ++i) {
               any = any || t[i].defined();
               ts.push_back(t[i].defined() ? t[i] : vops::zeros_like(in[i]));
             }
             if (!any) return std::vector<Value>(a.region->outputs.size());
             return graph::apply_family(checkpoint_op(), FamilyAttrs::of(a), std::move(ts));
           },
       .transpose = [](const CheckpointAttrs& a, std::span<const Value>, std::span<const bool>,
                       std::span<const Value> cts) { return transpose_region(a, cts); }});
  return op;
}

}  // namespace

const RegionUse* Regions::containing(const Node* n) const {
  for (const auto& r : list)
    if (r->interior(n)) return r.get();
  return nullptr;
}

Regions find_regions(const std::vector<std::shared_ptr<const Node>>& order) {
  Regions out;
  if (!any_marked.load(std::memory_order_acquire)) return out;
  std::vector<std::shared_ptr<const Marked>> marked;
  {
    std::lock_guard lock(table_mutex);
    for (const auto& n : order) {
      auto it = table.find(n.get());
      if (it == table.end() || it->second.node.lock() != n) continue;
      if (std::find(marked.begin(), marked.end(), it->second.region) == marked.end())
        marked.push_back(it->second.region);
    }
  }
  std::unordered_set<const Node*> reached;
  for (const auto& n : order) reached.insert(n.get());
  for (const auto& m : marked) {
    bool nested = std::any_of(marked.begin(), marked.end(), [&](const auto& o) {
      return o != m && o->lo < m->lo && m->hi < o->hi;
    });
    if (nested) continue;
    auto r = std::make_shared<RegionUse>();
    r->lo = m->lo;
    r->hi = m->hi;
    r->serial = m->serial;
    for (const auto& [weak, index] : m->outputs) {
      std::shared_ptr<const Node> n = weak.lock();
      if (n && reached.count(n.get())) r->outputs.push_back(Value{n, index});
    }
    if (r->outputs.empty()) continue;
    // Free inputs: operands of the region's nodes created outside it.
    std::set<Key> seen;
    std::unordered_set<const Node*> visited;
    std::vector<const Node*> stack;
    for (const Value& o : r->outputs) stack.push_back(o.node.get());
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (!visited.insert(n).second) continue;
      for (const Value& v : n->inputs) {
        if (r->interior(v.node.get())) {
          stack.push_back(v.node.get());
        } else if (seen.insert(key(v)).second) {
          r->free.push_back(v);
        }
      }
    }
    for (const Value& o : r->outputs) out.by_output_node[o.node.get()] = r.get();
    out.list.push_back(std::move(r));
  }
  return out;
}

std::vector<Value> region_tangents(const std::shared_ptr<const RegionUse>& region,
                                   std::span<const Value> free_tangents) {
  CheckpointAttrs a{region, {}};
  std::vector<Value> ins;
  for (std::size_t i = 0; i < free_tangents.size(); ++i)
    if (free_tangents[i].defined()) {
      a.free_index.push_back(static_cast<int>(i));
      ins.push_back(free_tangents[i]);
    }
  if (ins.empty()) return std::vector<Value>(region->outputs.size());
  return graph::apply_family(checkpoint_op(), FamilyAttrs::of(std::move(a)), std::move(ins));
}

}  // namespace ad::detail

std::vector<TracedTensor> checkpoint(const TracedFunction& f,
                                     const std::vector<TracedTensor>& inputs) {
  TF_CHECK(static_cast<bool>(f), ValueError, "checkpoint", "empty function");
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TF_CHECK(inputs[i].defined(), ValueError, "checkpoint", "input ", i, " is undefined");
  // Node ids are the creation order: the function's nodes lie between two markers.
  const std::uint64_t lo = graph::placeholder(DType::f64, {}).node->id;
  std::vector<TracedTensor> outs = f(inputs);
  const std::uint64_t hi = graph::placeholder(DType::f64, {}).node->id;
  auto region = std::make_shared<ad::detail::Marked>();
  region->lo = lo;
  region->hi = hi;
  region->serial = ++ad::detail::serials;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    TF_CHECK(outs[i].defined(), ValueError, "checkpoint", "the function's output ", i,
             " is undefined");
    const Value& v = outs[i].graph_value();
    // Outputs created before the call (an input passed through) need no recomputation.
    if (v.node->id > lo && v.node->id < hi) region->outputs.push_back({v.node, v.index});
  }
  if (!region->outputs.empty()) ad::detail::mark(std::move(region));
  return outs;
}

TracedTensor checkpoint(const std::function<TracedTensor(const TracedTensor&)>& f,
                        const TracedTensor& x) {
  TF_CHECK(static_cast<bool>(f), ValueError, "checkpoint", "empty function");
  return checkpoint(
      [&](const std::vector<TracedTensor>& v) { return std::vector<TracedTensor>{f(v[0])}; },
      std::vector<TracedTensor>{x})[0];
}

}  // namespace tenferro

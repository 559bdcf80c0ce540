// The AD transforms on graph values: JVP (forward sweep), VJP as
// linearize-then-transpose, and grad, vjp, jvp, hvp of TracedTensors.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <memory>

#include "checkpoint.hpp"
#include "rules.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/runtime/value_ops.hpp"

namespace tenferro {
namespace ad {
namespace {

using Key = std::pair<const Node*, int>;

Key key(const Value& v) { return {v.node.get(), v.index}; }

// Nodes reachable from `roots` in topological order (operands first), as
// owning pointers; `children(n)` lists what must come before `n`.
template <class Children>
std::vector<std::shared_ptr<const Node>> topo(std::span<const Value> roots, Children children) {
  std::vector<std::shared_ptr<const Node>> order;
  std::unordered_set<const Node*> seen;
  struct Frame {
    std::shared_ptr<const Node> node;
    const std::vector<Value>* children;
    std::size_t next;
  };
  std::vector<Frame> stack;
  for (const Value& r : roots) {
    if (!r.defined() || seen.count(r.node.get())) continue;
    seen.insert(r.node.get());
    stack.push_back({r.node, &children(*r.node), 0});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.children->size()) {
        const Value& c = (*top.children)[top.next++];
        if (!seen.count(c.node.get())) {
          seen.insert(c.node.get());
          stack.push_back({c.node, &children(*c.node), 0});
        }
      } else {
        order.push_back(top.node);
        stack.pop_back();
      }
    }
  }
  return order;
}

std::vector<std::shared_ptr<const Node>> topo(std::span<const Value> roots) {
  return topo(roots, [](const Node& n) -> const std::vector<Value>& { return n.inputs; });
}

bool differentiable(DType d) { return is_float(d); }

void check_pair(const Value& primal, const Value& tangent, const char* op, const char* what) {
  TF_CHECK(primal.defined(), ValueError, op, "undefined tensor to differentiate");
  if (!tangent.defined()) return;
  TF_CHECK(differentiable(primal.dtype()), DTypeError, op, "cannot differentiate with respect to a ", primal.dtype(),
           " tensor");
  TF_CHECK(tangent.dtype() == primal.dtype(), DTypeError, op, what, " has dtype ", tangent.dtype(),
           ", expected ", primal.dtype());
  // Extents must be equal at trace time, symbolic ones included: nothing
  // checks them when the program runs (the derivative of a linear function
  // has the tangent's shape), so [m] against [n] is rejected here.
  bool ok = tangent.shape().size() == primal.shape().size(), symbolic = false;
  for (std::size_t i = 0; ok && i < tangent.shape().size(); ++i) {
    ok = known_equal(tangent.shape()[i], primal.shape()[i]);
    symbolic = symbolic || !known_different(tangent.shape()[i], primal.shape()[i]);
  }
  TF_CHECK(ok, ShapeError, op, what, " has shape ", tangent.shape(), ", expected ", primal.shape(),
           symbolic ? " (symbolic extents must be the same expressions: declare it with the same symbols)" : "");
}

Value accumulate(const Value& a, const Value& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return graph::apply(OpKind::add, NoAttrs{}, {a, b});
}

}  // namespace

namespace {

// Forward mode. With `regions` (reverse mode's linearization), each
// checkpointed region is one linear node from its free inputs' tangents to
// its outputs' tangents (Note [Checkpointing], checkpoint.cpp), and the
// nodes inside it are not visited.
std::vector<Value> linearize(std::span<const Value> outputs, std::span<const Value> wrt,
                             std::span<const Value> tangents, const detail::Regions* regions) {
  TF_CHECK(wrt.size() == tangents.size(), ValueError, "jvp", wrt.size(), " inputs but ", tangents.size(),
           " tangents");
  std::map<Key, Value> tan;
  std::set<Key> seeded;
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    check_pair(wrt[i], tangents[i], "jvp", "tangent");
    seeded.insert(key(wrt[i]));
    if (tangents[i].defined()) tan[key(wrt[i])] = tangents[i];
  }
  std::vector<std::shared_ptr<const Node>> order;
  std::set<const detail::RegionUse*> linearized;
  if (regions == nullptr || regions->empty()) {
    order = topo(outputs);
  } else {
    auto leak_check = [&](const Value& v, const Node* user) {
      const detail::RegionUse* r = regions->containing(v.node.get());
      if (r == nullptr || (user != nullptr && r->interior(user))) return;
      bool returned = std::any_of(r->outputs.begin(), r->outputs.end(), [&](const Value& o) {
        return o.node == v.node && o.index == v.index;
      });
      TF_CHECK(returned, ValueError, "vjp",
               "a value computed inside a checkpointed function is used outside it without being "
               "returned by it ",
               "(checkpoint region ", r->serial, "); return it from the function");
    };
    for (const Value& y : outputs) leak_check(y, nullptr);
    order = topo(outputs, [&](const Node& n) -> const std::vector<Value>& {
      auto it = regions->by_output_node.find(&n);
      if (it != regions->by_output_node.end()) return it->second->free;
      for (const Value& v : n.inputs) leak_check(v, &n);
      return n.inputs;
    });
  }
  // Note [Operands without tangents] (tenferro/ops/family.hpp): the nodes
  // whose tangents something needs, from the outputs back, not through an
  // operand whose tangent its op's rules never read.
  std::set<const Node*> needed;
  for (const Value& y : outputs) needed.insert(y.node.get());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& n = **it;
    if (!needed.count(&n)) continue;
    const std::vector<Value>* ins = &n.inputs;
    if (regions != nullptr && !regions->empty()) {
      auto r = regions->by_output_node.find(&n);
      if (r != regions->by_output_node.end()) ins = &r->second->free;
    }
    for (std::size_t i = 0; i < ins->size(); ++i) {
      const bool skip = n.kind == NodeKind::family && ins == &n.inputs && n.family != nullptr &&
                        std::count(n.family->nondiff_inputs.begin(), n.family->nondiff_inputs.end(),
                                   static_cast<int>(i)) > 0;
      if (!skip) needed.insert((*ins)[i].node.get());
    }
  }
  for (const auto& node : order) {
    if (node->kind == NodeKind::input || node->kind == NodeKind::constant) continue;
    if (!needed.count(node.get())) continue;
    if (regions != nullptr && !regions->empty()) {
      auto it = regions->by_output_node.find(node.get());
      if (it != regions->by_output_node.end()) {
        const detail::RegionUse* r = it->second;
        if (!linearized.insert(r).second) continue;
        std::vector<Value> ft;
        for (const Value& x : r->free) {
          auto t = tan.find(key(x));
          ft.push_back(t == tan.end() ? Value{} : t->second);
        }
        std::shared_ptr<const detail::RegionUse> owner;
        for (const auto& p : regions->list)
          if (p.get() == r) owner = p;
        std::vector<Value> out_t = detail::region_tangents(owner, ft);
        for (std::size_t k = 0; k < out_t.size(); ++k) {
          Key kk = key(r->outputs[k]);
          if (seeded.count(kk) || !out_t[k].defined() || !differentiable(r->outputs[k].dtype()))
            continue;
          tan[kk] = out_t[k];
        }
        continue;
      }
    }
    std::vector<Value> t(node->inputs.size());
    bool any = false;
    for (std::size_t i = 0; i < node->inputs.size(); ++i) {
      auto it = tan.find(key(node->inputs[i]));
      if (it != tan.end()) {
        t[i] = it->second;
        any = true;
      }
    }
    if (!any) continue;
    std::vector<Value> out_t;
    if (node->kind == NodeKind::primitive) {
      out_t.push_back(detail::jvp_rule(*node, Value{node, 0}, t));
    } else {
      const FamilyOp& f = *node->family;
      TF_CHECK(static_cast<bool>(f.jvp), UnimplementedError, f.name, "has no derivative rule");
      std::vector<Value> outs;
      for (std::size_t k = 0; k < node->outputs.size(); ++k) outs.push_back(Value{node, static_cast<int>(k)});
      out_t = f.jvp(node->family_attrs, node->inputs, outs, t);
      TF_INTERNAL_ASSERT(out_t.size() == outs.size(), f.name, " jvp returned ", out_t.size(), " tangents");
    }
    for (std::size_t k = 0; k < out_t.size(); ++k) {
      Key kk{node.get(), static_cast<int>(k)};
      if (seeded.count(kk) || !out_t[k].defined()) continue;  // seeded values keep their tangent
      if (!differentiable(node->outputs[k].dtype)) continue;  // integer/bool results: zero
      tan[kk] = out_t[k];
    }
  }
  std::vector<Value> res;
  for (const Value& y : outputs) {
    auto it = tan.find(key(y));
    res.push_back(it == tan.end() ? Value{} : it->second);
  }
  return res;
}

std::vector<Value> vjp_impl(std::span<const Value> outputs, std::span<const Value> cotangents,
                            std::span<const Value> wrt, bool use_regions) {
  TF_CHECK(outputs.size() == cotangents.size(), ValueError, "vjp", outputs.size(), " outputs but ",
           cotangents.size(), " cotangents");
  for (std::size_t j = 0; j < outputs.size(); ++j) check_pair(outputs[j], cotangents[j], "vjp", "cotangent");
  // Linearize: tangent placeholders for the inputs, tangents of the outputs.
  std::vector<Value> place;
  std::unordered_set<const Node*> placeholders;
  for (const Value& x : wrt) {
    TF_CHECK(x.defined(), ValueError, "vjp", "undefined tensor to differentiate");
    TF_CHECK(differentiable(x.dtype()), DTypeError, "vjp", "cannot differentiate with respect to a ", x.dtype(),
             " tensor");
    Value p = graph::placeholder(x.dtype(), x.shape());
    placeholders.insert(p.node.get());
    place.push_back(p);
  }
  detail::Regions regions;
  if (use_regions) regions = detail::find_regions(topo(outputs));
  std::vector<Value> ty = linearize(outputs, wrt, place, &regions);
  // Linear nodes: those that depend on a placeholder.
  std::vector<std::shared_ptr<const Node>> order = topo(ty);
  std::unordered_set<const Node*> linear;
  for (const auto& n : order) {
    if (placeholders.count(n.get())) {
      linear.insert(n.get());
      continue;
    }
    for (const Value& in : n->inputs)
      if (linear.count(in.node.get())) {
        linear.insert(n.get());
        break;
      }
  }
  // Transpose: cotangents flow from the output tangents back to the placeholders.
  std::map<Key, Value> ct;
  for (std::size_t j = 0; j < ty.size(); ++j)
    if (ty[j].defined() && cotangents[j].defined()) ct[key(ty[j])] = accumulate(ct[key(ty[j])], cotangents[j]);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const auto& node = *it;
    if (!linear.count(node.get()) || placeholders.count(node.get())) continue;
    const std::size_t ni = node->inputs.size();
    std::unique_ptr<bool[]> lin(new bool[ni]);
    for (std::size_t i = 0; i < ni; ++i) lin[i] = linear.count(node->inputs[i].node.get()) > 0;
    std::span<const bool> lin_span(lin.get(), ni);
    std::vector<Value> in_ct;
    if (node->kind == NodeKind::primitive) {
      auto c = ct.find({node.get(), 0});
      if (c == ct.end() || !c->second.defined()) continue;
      in_ct = detail::transpose_rule(*node, c->second, lin_span);
    } else {
      const FamilyOp& f = *node->family;
      std::vector<Value> cts;
      bool any = false;
      for (std::size_t k = 0; k < node->outputs.size(); ++k) {
        auto c = ct.find({node.get(), static_cast<int>(k)});
        cts.push_back(c == ct.end() ? Value{} : c->second);
        any = any || cts.back().defined();
      }
      if (!any) continue;
      TF_CHECK(static_cast<bool>(f.transpose), InternalError, f.name,
               "appears in a tangent graph but has no transpose rule");
      in_ct = f.transpose(node->family_attrs, node->inputs, lin_span, cts);
    }
    for (std::size_t i = 0; i < ni; ++i) {
      if (!lin[i] || i >= in_ct.size() || !in_ct[i].defined()) continue;
      Value c = in_ct[i];
      DType want = node->inputs[i].dtype();
      if (c.dtype() != want) c = vops::convert(c, want);
      Key k = key(node->inputs[i]);
      ct[k] = accumulate(ct[k], c);
    }
  }
  std::vector<Value> res;
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    auto it = ct.find(key(place[i]));
    res.push_back(it == ct.end() || !it->second.defined() ? vops::zeros_like(wrt[i]) : it->second);
  }
  return res;
}

}  // namespace

std::vector<Value> jvp(std::span<const Value> outputs, std::span<const Value> wrt,
                       std::span<const Value> tangents) {
  std::vector<Value> out = linearize(outputs, wrt, tangents, nullptr);
  // An output that does not depend on wrt: zeros (linearize leaves it undefined).
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!out[i].defined()) out[i] = vops::zeros_like(outputs[i]);
  return out;
}

std::vector<Value> vjp(std::span<const Value> outputs, std::span<const Value> cotangents,
                       std::span<const Value> wrt) {
  return vjp_impl(outputs, cotangents, wrt, true);
}

std::vector<Value> detail::vjp_without_regions(std::span<const Value> outputs,
                                               std::span<const Value> cotangents,
                                               std::span<const Value> wrt) {
  return vjp_impl(outputs, cotangents, wrt, false);
}

bool has_jvp_rule(OpKind kind) { return detail::has_jvp(kind); }
bool has_transpose_rule(OpKind kind) { return detail::has_transpose(kind); }

}  // namespace ad

namespace {

void check_scalar_loss(const Value& y, const char* op) {
  TF_CHECK(y.defined(), ValueError, op, "undefined output");
  TF_CHECK(y.ndim() == 0, ValueError, op, "needs a rank-0 output, got shape ", y.shape(),
           "; use vjp with a cotangent for other outputs");
  TF_CHECK(kRealFloatDTypes.contains(y.dtype()), DTypeError, op, "needs a real float output, got ", y.dtype(),
           is_complex(y.dtype()) ? "; differentiate a real function of it (e.g. abs or real)" : "");
}

// The named inputs a traced computation involving `handles` reads or
// declares, in first-seen order: the declared inputs of a derivative, so a
// program compiled from it takes what the user traced (TracedTensor's
// declared inputs).
std::vector<Value> declared_inputs(const std::vector<const TracedTensor*>& handles) {
  std::vector<Value> roots, out;
  for (const TracedTensor* h : handles) {
    roots.push_back(h->graph_value());
    for (const Value& v : h->declared_inputs()) roots.push_back(v);
  }
  for (const auto& n : ad::topo(roots))
    if (n->kind == NodeKind::input && !n->name.empty()) out.push_back(Value{n, 0});
  return out;
}

}  // namespace

std::vector<TracedTensor> grad(const TracedTensor& y, const std::vector<TracedTensor>& wrt) {
  check_scalar_loss(y.graph_value(), "grad");
  std::vector<Value> xs;
  for (const auto& x : wrt) xs.push_back(x.graph_value());
  Value one = vops::scalar(Scalar(1.0), y.dtype());
  std::vector<Value> ys{y.graph_value()}, cts{one};
  std::vector<Value> g = ad::vjp(ys, cts, xs);
  std::vector<TracedTensor> out;
  std::vector<const TracedTensor*> handles{&y};
  for (const TracedTensor& x : wrt) handles.push_back(&x);
  std::vector<Value> declared = declared_inputs(handles);
  for (Value& v : g) out.emplace_back(std::move(v), declared);
  return out;
}

TracedTensor grad(const TracedTensor& y, const TracedTensor& wrt) {
  return grad(y, std::vector<TracedTensor>{wrt})[0];
}

TracedTensor vjp(const TracedTensor& y, const TracedTensor& wrt, const TracedTensor& cotangent) {
  std::vector<Value> ys{y.graph_value()}, cts{cotangent.graph_value()}, xs{wrt.graph_value()};
  return TracedTensor(ad::vjp(ys, cts, xs)[0], declared_inputs({&y, &wrt, &cotangent}));
}

TracedTensor jvp(const TracedTensor& y, const TracedTensor& wrt, const TracedTensor& tangent) {
  std::vector<Value> ys{y.graph_value()}, xs{wrt.graph_value()}, ts{tangent.graph_value()};
  TF_CHECK(is_float(y.dtype()), DTypeError, "jvp", "cannot differentiate a ", y.dtype(), " output");
  return TracedTensor(ad::jvp(ys, xs, ts)[0], declared_inputs({&y, &wrt, &tangent}));
}

TracedTensor hvp(const TracedTensor& y, const TracedTensor& x, const TracedTensor& v) {
  return jvp(grad(y, x), x, v);
}

}  // namespace tenferro

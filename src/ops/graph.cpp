// The graph IR: node construction, symbolic inference, eager evaluation.
#include "tenferro/ops/graph.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <unordered_set>

#include "tenferro/ops/primitives.hpp"

namespace tenferro {

const SymMeta& Value::meta() const {
  TF_CHECK(defined(), ValueError, "value", "undefined traced value");
  return node->outputs[static_cast<std::size_t>(index)];
}

bool Value::has_value() const {
  return defined() && static_cast<std::size_t>(index) < node->values.size() &&
         node->values[static_cast<std::size_t>(index)].defined();
}

const Tensor& Value::value() const {
  TF_CHECK(has_value(), ValueError, "value", "the value of a traced tensor is not known until ",
           "its program runs");
  return node->values[static_cast<std::size_t>(index)];
}

namespace graph {
namespace {

std::uint64_t next_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

SymMeta meta_of(const Tensor& t) { return {t.dtype(), to_sym_shape(t.shape())}; }

thread_local Backend* t_scope_backend = nullptr;

// The backend that evaluates a node eagerly: one operand was computed by a
// backend, or an EagerScope is active (Note [Eager evaluation]).
Backend* eager_backend(const std::vector<Value>& inputs, const char* op) {
  Backend* b = nullptr;
  for (const Value& v : inputs) {
    Backend* e = v.node->eager;
    if (e == nullptr) continue;
    TF_CHECK(b == nullptr || b == e, DeviceError, op, "operands were computed by different eager ",
             "runtimes ('", b->name(), "' and '", e->name(), "')");
    b = e;
  }
  return b != nullptr ? b : t_scope_backend;
}

// The value of `v` if it is known or computable from constants alone
// (e.g. a broadcast scalar made by the sugar), evaluated on `b`.
std::optional<Tensor> constant_value(const Value& v, Backend& b) {
  if (v.has_value()) {
    const Tensor& t = v.value();
    // Host constants (literals, seeds) join a device computation through the backend.
    if (t.device() != b.device() && t.device().is_cpu()) return b.from_host(t);
    return t;
  }
  const Node& n = *v.node;
  if (n.kind == NodeKind::input) return std::nullopt;
  std::vector<Tensor> in;
  for (const Value& x : n.inputs) {
    auto t = constant_value(x, b);
    if (!t) return std::nullopt;
    in.push_back(*t);
  }
  if (n.kind == NodeKind::family) return call_family(*n.family, n.family_attrs, in, b)[static_cast<std::size_t>(v.index)];
  auto attrs = try_constant_attrs(n.attrs);
  if (!attrs) return std::nullopt;
  return ops::call(n.op, *attrs, in, b);
}

// The operands' values when the node is to be evaluated eagerly on `b`.
std::optional<std::vector<Tensor>> eager_operands(const std::vector<Value>& inputs, Backend* b) {
  if (b == nullptr) return std::nullopt;
  std::vector<Tensor> vals;
  vals.reserve(inputs.size());
  for (const Value& v : inputs) {
    auto t = constant_value(v, *b);
    if (!t) return std::nullopt;
    vals.push_back(std::move(*t));
  }
  return vals;
}

thread_local bool t_grad_recording = true;

// Eager nodes keep their history only when some input tracks gradients.
bool keeps_history(const std::vector<Value>& inputs) {
  if (!t_grad_recording) return false;
  for (const Value& v : inputs)
    if (v.node->tracks_grad) return true;
  return false;
}

std::shared_ptr<Node> new_node(NodeKind kind) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->id = next_id();
  return n;
}

}  // namespace

bool grad_recording() { return t_grad_recording; }
EagerScope::EagerScope(Backend& backend) : previous_(t_scope_backend) { t_scope_backend = &backend; }
EagerScope::~EagerScope() { t_scope_backend = previous_; }
NoGradGuard::NoGradGuard() : previous_(t_grad_recording) { t_grad_recording = false; }
NoGradGuard::~NoGradGuard() { t_grad_recording = previous_; }

Value input(std::string name, DType dtype, SymShape shape) {
  TF_CHECK(!name.empty(), ValueError, "input", "inputs need a name");
  for (const Dim& d : shape)
    TF_CHECK(d.is_constant() || d.is_symbol(), ValueError, "input", "extent ", d, " of input '", name,
             "' must be a constant or a single symbol");
  auto n = new_node(NodeKind::input);
  n->name = std::move(name);
  n->outputs.push_back({dtype, std::move(shape)});
  return {std::move(n), 0};
}

Value placeholder(DType dtype, SymShape shape) {
  auto n = new_node(NodeKind::input);
  n->outputs.push_back({dtype, std::move(shape)});
  return {std::move(n), 0};
}

Value constant(Tensor value) {
  TF_CHECK(value.defined(), ValueError, "constant", "undefined tensor");
  auto n = new_node(NodeKind::constant);
  n->outputs.push_back(meta_of(value));
  n->values.push_back(std::move(value));
  n->tracks_grad = false;
  return {std::move(n), 0};
}

Value eager_leaf(Tensor value, Backend& backend, bool requires_grad) {
  TF_CHECK(value.defined(), ValueError, "eager", "undefined tensor");
  TF_CHECK(value.device() == backend.device(), DeviceError, "eager", "tensor on ", value.device(),
           " cannot join an eager runtime on ", backend.device());
  auto n = new_node(NodeKind::constant);
  n->outputs.push_back(meta_of(value));
  n->values.push_back(std::move(value));
  n->eager = &backend;
  n->requires_grad = requires_grad;
  n->tracks_grad = requires_grad && t_grad_recording;
  return {std::move(n), 0};
}

Value apply(OpKind kind, SymAttrs attrs, std::vector<Value> inputs) {
  const char* op = op_name(kind);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TF_CHECK(inputs[i].defined(), ValueError, op, "operand ", i, " is undefined");
  auto n = new_node(NodeKind::primitive);
  n->op = kind;
  Backend* b = eager_backend(inputs, op);
  if (auto vals_opt = eager_operands(inputs, b)) {
    std::vector<Tensor>& vals = *vals_opt;
    auto concrete = try_constant_attrs(attrs);
    TF_CHECK(concrete.has_value(), ValueError, op, "symbolic attributes ", attrs,
             " on eager operands");
    Tensor out = ops::call(kind, *concrete, vals, *b);
    n->outputs.push_back(meta_of(out));
    n->values.push_back(std::move(out));
    n->eager = b;
    if (!keeps_history(inputs)) {
      n->kind = NodeKind::constant;  // a value without history
      n->tracks_grad = false;
      return {std::move(n), 0};
    }
  } else {
    std::vector<SymMeta> metas;
    metas.reserve(inputs.size());
    for (const Value& v : inputs) metas.push_back(v.meta());
    n->outputs.push_back(infer(kind, attrs, metas));
    n->tracks_grad = std::any_of(inputs.begin(), inputs.end(), [](const Value& v) { return v.node->tracks_grad; });
  }
  n->attrs = std::move(attrs);
  n->inputs = std::move(inputs);
  return {std::move(n), 0};
}

std::vector<Value> apply_family(const FamilyOp& fop, FamilyAttrs attrs, std::vector<Value> inputs) {
  const char* op = fop.name.c_str();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    TF_CHECK(inputs[i].defined(), ValueError, op, "operand ", i, " is undefined");
  auto n = new_node(NodeKind::family);
  n->family = &fop;
  Backend* b = eager_backend(inputs, op);
  if (auto vals_opt = eager_operands(inputs, b)) {
    n->values = call_family(fop, attrs, *vals_opt, *b);
    for (const Tensor& t : n->values) n->outputs.push_back(meta_of(t));
    n->eager = b;
    if (!keeps_history(inputs)) {
      n->kind = NodeKind::constant;
      n->family = nullptr;
      n->tracks_grad = false;
      std::vector<Value> outs;
      std::shared_ptr<const Node> cn = n;
      for (std::size_t i = 0; i < n->outputs.size(); ++i) outs.push_back({cn, static_cast<int>(i)});
      return outs;
    }
  } else {
    n->tracks_grad = std::any_of(inputs.begin(), inputs.end(), [](const Value& v) { return v.node->tracks_grad; });
    std::vector<SymMeta> metas;
    for (const Value& v : inputs) metas.push_back(v.meta());
    if (fop.sym_infer) {
      n->outputs = fop.sym_infer(attrs, metas);
    } else {
      bool constant = true;
      std::vector<TensorMeta> cm;
      for (const SymMeta& m : metas) {
        auto s = try_constant_shape(m.shape);
        constant = constant && s.has_value();
        cm.push_back({m.dtype, s.value_or(Shape{})});
      }
      std::vector<TensorMeta> out;
      if (constant) out = fop.infer(attrs, cm);
      // Without symbolic rules, unknown extents become fresh symbols.
      if (constant) {
        for (const TensorMeta& m : out) {
          SymMeta sm{m.dtype, {}};
          for (std::int64_t d : m.shape) sm.shape.push_back(d == kDynamicDim ? Dim::fresh("d") : Dim(d));
          n->outputs.push_back(std::move(sm));
        }
      } else {
        TF_THROW(UnimplementedError, op, "needs symbolic shape rules (FamilyOp::sym_infer) for ",
                 "symbolic operand extents");
      }
    }
  }
  n->family_attrs = std::move(attrs);
  n->inputs = std::move(inputs);
  std::vector<Value> outs;
  std::shared_ptr<const Node> cn = n;
  for (std::size_t i = 0; i < n->outputs.size(); ++i) outs.push_back({cn, static_cast<int>(i)});
  return outs;
}

std::vector<const Node*> topological_order(std::span<const Value> roots) {
  std::vector<const Node*> order;
  std::unordered_set<const Node*> seen;
  // Iterative DFS (graphs of tensor networks can be deep).
  std::vector<std::pair<const Node*, std::size_t>> stack;
  for (const Value& r : roots) {
    if (!r.defined() || seen.count(r.node.get())) continue;
    stack.push_back({r.node.get(), 0});
    seen.insert(r.node.get());
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs.size()) {
        const Node* child = node->inputs[next++].node.get();
        if (!seen.count(child)) {
          seen.insert(child);
          stack.push_back({child, 0});
        }
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  return order;
}

}  // namespace graph
}  // namespace tenferro

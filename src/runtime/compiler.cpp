// GraphCompiler: lowering traced graphs to programs, and the optimisation passes.
#include "tenferro/runtime/compiler.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tenferro/ops/dot_plan.hpp"

namespace tenferro {

// ---- lowering ----------------------------------------------------------------------

namespace {

// The family node that introduces each data-dependent symbol: a symbol in an
// output extent that none of the node's operand extents mentions.
std::unordered_map<std::string, const Node*> symbol_definitions(const std::vector<TracedTensor>& outputs) {
  std::unordered_map<std::string, const Node*> defined_by;
  std::set<const Node*> seen;
  std::vector<const Node*> todo;
  for (const TracedTensor& t : outputs) todo.push_back(t.graph_value().node.get());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second || n->kind == NodeKind::input || !n->values.empty()) continue;
    for (const Value& v : n->inputs) todo.push_back(v.node.get());
    if (n->kind != NodeKind::family) continue;
    std::set<std::string> operand_symbols;
    for (const Value& v : n->inputs)
      for (const Dim& d : v.shape())
        for (const std::string& sym : d.symbols()) operand_symbols.insert(sym);
    for (const SymMeta& m : n->outputs)
      for (const Dim& d : m.shape)
        for (const std::string& sym : d.symbols())
          if (!operand_symbols.count(sym)) defined_by.emplace(sym, n);
  }
  return defined_by;
}

}  // namespace

Program GraphCompiler::lower(const std::vector<TracedTensor>& outputs) {
  Program p;
  TF_CHECK(!outputs.empty(), ValueError, "compile", "needs at least one output");
  std::map<std::pair<const Node*, int>, int> slot_of;
  std::map<std::string, const Node*> input_names;
  auto new_slot = [&](const SymMeta& m) {
    p.slot_meta.push_back(m);
    return p.num_slots() - 1;
  };
  // Post-order walk; nodes with known values are leaves (constants).
  std::set<const Node*> done;
  std::vector<std::pair<const Node*, std::size_t>> stack;
  auto visit = [&](const Node* n) {
    if (n->kind == NodeKind::input) {
      TF_CHECK(!n->name.empty(), ValueError, "compile",
               "the outputs depend on an unnamed input (an AD tangent placeholder)");
      auto [it, fresh] = input_names.emplace(n->name, n);
      TF_CHECK(fresh || it->second == n, ValueError, "compile", "two different inputs are named '",
               n->name, "'");
      int s = new_slot(n->outputs[0]);
      slot_of[{n, 0}] = s;
      p.inputs.push_back({n->name, s, n->outputs[0]});
      return;
    }
    if (!n->values.empty()) {
      for (std::size_t i = 0; i < n->outputs.size(); ++i) {
        int s = new_slot(n->outputs[i]);
        slot_of[{n, static_cast<int>(i)}] = s;
        p.constants.push_back({s, n->values[i]});
      }
      return;
    }
    Instruction ins;
    if (n->kind == NodeKind::primitive) {
      ins.kind = Instruction::Kind::primitive;
      ins.op = n->op;
      ins.attrs = n->attrs;
    } else {
      ins.kind = Instruction::Kind::family;
      ins.family = n->family;
      ins.family_attrs = n->family_attrs;
    }
    for (const Value& v : n->inputs) ins.inputs.push_back(slot_of.at({v.node.get(), v.index}));
    for (std::size_t i = 0; i < n->outputs.size(); ++i) {
      int s = new_slot(n->outputs[i]);
      slot_of[{n, static_cast<int>(i)}] = s;
      ins.outputs.push_back(s);
    }
    p.code.push_back(std::move(ins));
  };
  for (const TracedTensor& t : outputs)
    TF_CHECK(t.defined(), ValueError, "compile", "an output is an undefined traced tensor");
  // Note [Symbol dependencies]: an instruction whose extents mention a
  // data-dependent symbol (the rank of a truncated SVD) must run after the
  // instruction that resolves it, even without a data edge between them
  // (e.g. an AD rule that slices another factorisation to that rank).
  std::unordered_map<std::string, const Node*> defined_by = symbol_definitions(outputs);
  std::unordered_map<const Node*, std::vector<const Node*>> deps;
  auto children = [&](const Node* n) -> const std::vector<const Node*>& {
    auto [it, fresh] = deps.try_emplace(n);
    if (fresh) {
      for (const Value& v : n->inputs) it->second.push_back(v.node.get());
      for (const SymMeta& m : n->outputs)
        for (const Dim& d : m.shape)
          for (const std::string& sym : d.symbols()) {
            auto def = defined_by.find(sym);
            if (def != defined_by.end() && def->second != n) it->second.push_back(def->second);
          }
    }
    return it->second;
  };
  // Note [Output order]: outputs are lowered one after another, depth first;
  // the values of a finished output's walk that a later output reads stay
  // alive until it is lowered. Walking the output that reaches the most
  // nodes first lets the others reuse its work at once: for grad(loss, {x,
  // w}) of a deep chain, dw reaches every step's cotangent and dx only the
  // first step's, so lowering dx first would keep all cotangents alive until
  // dw. The slots of the program outputs keep the order given. (At most 16
  // outputs are ranked: the count costs one walk per output.)
  std::vector<const Node*> roots;
  for (const TracedTensor& t : outputs) roots.push_back(t.graph_value().node.get());
  const std::vector<const Node*> given = roots;
  if (roots.size() > 1 && roots.size() <= 16) {
    std::vector<std::size_t> reach(roots.size(), 0);
    for (std::size_t r = 0; r < roots.size(); ++r) {
      std::set<const Node*> seen{roots[r]};
      std::vector<const Node*> todo{roots[r]};
      while (!todo.empty()) {
        const Node* n = todo.back();
        todo.pop_back();
        if (n->kind == NodeKind::input || !n->values.empty()) continue;
        for (const Node* c : children(n))
          if (seen.insert(c).second) todo.push_back(c);
      }
      reach[r] = seen.size();
    }
    std::vector<std::size_t> order(roots.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return reach[a] > reach[b]; });
    std::vector<const Node*> sorted;
    for (std::size_t r : order) sorted.push_back(roots[r]);
    roots = std::move(sorted);
  }
  for (const Node* root : roots) {
    if (done.count(root)) continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      bool leaf = n->kind == NodeKind::input || !n->values.empty();
      if (!leaf && next < children(n).size()) {
        const Node* c = children(n)[next++];
        if (!done.count(c)) stack.push_back({c, 0});
        continue;
      }
      const Node* finished = n;
      stack.pop_back();
      if (done.insert(finished).second) visit(finished);
    }
  }
  // Note [Input order]: the inputs are listed in the order a depth-first walk
  // of the outputs as given first meets them, whatever order Note [Output
  // order] lowered them in: run_compiled binds inputs by position, and a
  // ranking of the outputs must not swap two of them. (Found by test_xla with
  // every sixth op-database sample: 9 concatenate samples were ranked, 17 or
  // more are not.)
  if (roots != given) {
    std::unordered_map<const Node*, std::size_t> rank;
    std::set<const Node*> seen;
    for (const Node* root : given) {
      std::vector<const Node*> todo{root};
      while (!todo.empty()) {
        const Node* n = todo.back();
        todo.pop_back();
        if (!seen.insert(n).second) continue;
        if (n->kind == NodeKind::input) rank.emplace(n, rank.size());
        if (n->kind == NodeKind::input || !n->values.empty()) continue;
        const std::vector<const Node*>& c = children(n);
        for (auto it = c.rbegin(); it != c.rend(); ++it) todo.push_back(*it);
      }
    }
    std::stable_sort(p.inputs.begin(), p.inputs.end(), [&](const ProgramInput& a, const ProgramInput& b) {
      return rank.at(input_names.at(a.name)) < rank.at(input_names.at(b.name));
    });
  }
  for (const TracedTensor& t : outputs) p.outputs.push_back(slot_of.at({t.graph_value().node.get(), t.graph_value().index}));
  // Declared inputs the outputs do not read (e.g. those of a function whose
  // gradient does not depend on them) stay inputs: a user binds what they traced.
  for (const TracedTensor& t : outputs)
    for (const Value& v : t.declared_inputs()) {
      const Node* n = v.node.get();
      TF_CHECK(n != nullptr && n->kind == NodeKind::input, ValueError, "compile",
               "a declared input is not an input value");
      if (done.insert(n).second) visit(n);
    }
  return p;
}

Program GraphCompiler::compile(const TracedTensor& output) const {
  return compile(std::vector<TracedTensor>{output});
}

Program GraphCompiler::compile(const std::vector<TracedTensor>& outputs) const {
  Program p = lower(outputs);
  if (options_.dot_dimension_sorting) p = passes::sort_dot_dimensions(std::move(p));
  if (options_.transpose_folding) p = passes::fold_transposes(std::move(p));
  if (options_.broadcast_dot_folding) p = passes::fold_broadcast_dots(std::move(p));
  if (options_.unit_product_folding) p = passes::fold_unit_products(std::move(p));
  if (options_.cse) p = passes::common_subexpression_elimination(std::move(p));
  if (options_.dce) p = passes::dead_code_elimination(std::move(p));
  if (options_.constant_folding) p = passes::constant_folding(std::move(p));
  if (options_.fusion) p = passes::fuse_elementwise(std::move(p));
  if (options_.dce) p = passes::dead_code_elimination(std::move(p));
  if (options_.buffer_reuse) p = passes::assign_buffers(std::move(p));
  return p;
}

namespace passes {
namespace {

// Slot -> index of the producing instruction (-1 for inputs and constants).
std::vector<int> producers(const Program& p) {
  std::vector<int> prod(static_cast<std::size_t>(p.num_slots()), -1);
  for (std::size_t i = 0; i < p.code.size(); ++i)
    for (int o : p.code[i].outputs) prod[static_cast<std::size_t>(o)] = static_cast<int>(i);
  return prod;
}

// Number of reads of every slot (instruction operands and program outputs).
std::vector<int> use_counts(const Program& p) {
  std::vector<int> uses(static_cast<std::size_t>(p.num_slots()), 0);
  for (const Instruction& ins : p.code)
    for (int s : ins.inputs) ++uses[static_cast<std::size_t>(s)];
  for (int s : p.outputs) ++uses[static_cast<std::size_t>(s)];
  return uses;
}

std::vector<int> identity(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

bool is_primitive(const Instruction& ins, OpKind k) {
  return ins.kind == Instruction::Kind::primitive && ins.op == k;
}

}  // namespace

Program dead_code_elimination(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  std::vector<bool> live(static_cast<std::size_t>(p.num_slots()), false);
  for (int s : p.outputs) live[static_cast<std::size_t>(s)] = true;
  std::vector<bool> keep(p.code.size(), false);
  for (std::size_t i = p.code.size(); i-- > 0;) {
    const Instruction& ins = p.code[i];
    bool any = false;
    for (int o : ins.outputs) any = any || live[static_cast<std::size_t>(o)];
    if (!any) continue;
    keep[i] = true;
    for (int s : ins.inputs) live[static_cast<std::size_t>(s)] = true;
  }
  std::vector<Instruction> code;
  for (std::size_t i = 0; i < p.code.size(); ++i)
    if (keep[i]) code.push_back(std::move(p.code[i]));
  p.code = std::move(code);
  std::erase_if(p.constants, [&](const auto& c) { return !live[static_cast<std::size_t>(c.first)]; });
  return p;
}

Program common_subexpression_elimination(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  std::vector<int> to = identity(p.num_slots());
  // Identical constants: same storage, layout and dtype.
  std::vector<std::pair<int, Tensor>> constants;
  for (auto& [slot, t] : p.constants) {
    bool merged = false;
    for (auto& [s2, t2] : constants)
      if (t2.storage() == t.storage() && t2.offset() == t.offset() && t2.shape() == t.shape() &&
          t2.strides() == t.strides() && t2.dtype() == t.dtype()) {
        to[static_cast<std::size_t>(slot)] = s2;
        merged = true;
        break;
      }
    if (!merged) constants.push_back({slot, t});
  }
  p.constants = std::move(constants);
  std::unordered_map<std::string, std::size_t> seen;
  std::vector<Instruction> code;
  // Note [CSE of data-dependent extents]: two identical truncated SVDs give
  // their ranks different symbols; merging them renames the duplicate's
  // symbols to the kept instruction's in everything that follows.
  std::map<std::string, std::string, std::less<>> renames;
  // Note [Output projections] (tenferro/ops/family.hpp): the instructions a
  // projecting family op may read its outputs from, by (op name, operands).
  auto operands_key = [](std::string_view name, const std::vector<int>& in) {
    std::string k(name);
    for (int s : in) k += "|" + std::to_string(s);
    return k;
  };
  std::unordered_map<std::string, std::size_t> providers;
  for (std::size_t i = 0; i < p.code.size(); ++i)
    if (p.code[i].kind == Instruction::Kind::family)
      providers.emplace(operands_key(p.code[i].name(), p.code[i].inputs), i);
  auto key_of = [](const Instruction& ins) {
    std::ostringstream key;
    key << static_cast<int>(ins.kind) << "|" << ins.name() << "|";
    if (ins.kind == Instruction::Kind::primitive) key << ins.attrs;
    if (ins.kind == Instruction::Kind::family) key << static_cast<const void*>(ins.family) << ins.family_attrs;
    for (int s : ins.inputs) key << "|" << s;
    return key.str();
  };
  std::unordered_map<std::string, std::size_t> emitted;  // family ops kept in `code`, by (name, operands)
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    Instruction& ins = p.code[i];
    const std::vector<int> raw = ins.inputs;
    for (int& s : ins.inputs) s = to[static_cast<std::size_t>(s)];
    if (ins.kind == Instruction::Kind::family && ins.family != nullptr && !ins.family->projection_of.empty()) {
      // The provider already kept, or a later one moved up to here (its
      // operands, compared before renaming, are this op's).
      std::optional<std::size_t> at;
      if (auto e = emitted.find(operands_key(ins.family->projection_of, ins.inputs)); e != emitted.end()) {
        at = e->second;
      } else if (auto pr = providers.find(operands_key(ins.family->projection_of, raw));
                 pr != providers.end() && pr->second > i) {
        Instruction provider = p.code[pr->second];
        for (int& s : provider.inputs) s = to[static_cast<std::size_t>(s)];
        auto [it, fresh] = seen.emplace(key_of(provider), code.size());
        if (fresh) {
          emitted.emplace(operands_key(provider.name(), provider.inputs), code.size());
          code.push_back(std::move(provider));
        }
        at = it->second;
      }
      bool same_meta = at.has_value();
      for (std::size_t k = 0; k < ins.outputs.size() && same_meta; ++k) {
        const std::size_t j = static_cast<std::size_t>(ins.family->projection_outputs.at(k));
        same_meta = j < code[*at].outputs.size() &&
                    p.slot_meta[static_cast<std::size_t>(ins.outputs[k])] ==
                        p.slot_meta[static_cast<std::size_t>(code[*at].outputs[j])];
      }
      if (same_meta) {
        for (std::size_t k = 0; k < ins.outputs.size(); ++k)
          to[static_cast<std::size_t>(ins.outputs[k])] =
              code[*at].outputs[static_cast<std::size_t>(ins.family->projection_outputs[k])];
        continue;
      }
    }
    if (!renames.empty()) {
      if (ins.kind == Instruction::Kind::primitive) ins.attrs = rename_symbols(ins.attrs, renames);
      for (int o : ins.outputs)
        for (Dim& d : p.slot_meta[static_cast<std::size_t>(o)].shape) d = d.renamed(renames);
    }
    auto [it, fresh] = seen.emplace(key_of(ins), code.size());
    if (fresh) {
      if (ins.kind == Instruction::Kind::family) emitted.emplace(operands_key(ins.name(), ins.inputs), code.size());
      code.push_back(std::move(ins));
      continue;
    }
    const Instruction& first = code[it->second];
    for (std::size_t k = 0; k < ins.outputs.size(); ++k) {
      to[static_cast<std::size_t>(ins.outputs[k])] = first.outputs[k];
      const SymShape& dup = p.slot_meta[static_cast<std::size_t>(ins.outputs[k])].shape;
      const SymShape& kept = p.slot_meta[static_cast<std::size_t>(first.outputs[k])].shape;
      for (std::size_t a = 0; a < dup.size() && a < kept.size(); ++a)
        if (dup[a].is_symbol() && kept[a].is_symbol() && dup[a].symbol() != kept[a].symbol())
          renames.emplace(dup[a].symbol(), kept[a].symbol());
    }
  }
  p.code = std::move(code);
  for (int& s : p.outputs) s = to[static_cast<std::size_t>(s)];
  return p;
}

Program constant_folding(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  std::vector<bool> constant(static_cast<std::size_t>(p.num_slots()), false);
  for (const auto& c : p.constants) constant[static_cast<std::size_t>(c.first)] = true;
  for (Instruction& ins : p.code) {
    bool all = !ins.inputs.empty();
    for (int s : ins.inputs) all = all && constant[static_cast<std::size_t>(s)];
    // A result whose extents are symbolic depends on the run's bindings:
    // computing it once per runtime would reuse the first run's shape.
    for (int o : ins.outputs)
      all = all && try_constant_shape(p.slot_meta[static_cast<std::size_t>(o)].shape).has_value();
    ins.hoisted = all;
    if (all)
      for (int o : ins.outputs) constant[static_cast<std::size_t>(o)] = true;
  }
  return p;
}

Program sort_dot_dimensions(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  for (Instruction& ins : p.code) {
    if (!is_primitive(ins, OpKind::dot_general)) continue;
    ins.attrs = ops::sort_dot_dimensions(std::get<DotGeneralAttrs>(ins.attrs));
  }
  return p;
}

// Note [Products with a broadcast scalar]: a dot_general one of whose
// operands is broadcast_in_dim of a rank-0 value s (ones_like, full, the
// cotangent of a sum) only sums the other operand y over the contracted
// axes: out = broadcast(sum(y) * s). Reverse-mode rules of sum(...)
// objectives build such products (ones^T U and L^T ones in the LU rule, an
// n^3 GEMM each at order n, which the rule sees only as a cotangent); the
// rewrite does about n^2 additions instead. It reorders the sum (and
// multiplies by s once instead of per term), so the result can differ in its
// last bits, like transpose folding. Measured (bench_peer_ad, one pinned
// core, 2-vCPU AMD EPYC, without / with the pass, alternating): vjp of
// sum(l) + sum(u) of lu at 512 76-80 -> 40-42 ms, of qr at 512 105-108 ->
// 87-88 ms; grad of sum(cholesky(a)) at 256 6.6-8.2 -> 4.1-4.3 ms.
Program fold_broadcast_dots(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  const std::vector<int> prod = producers(p);
  std::vector<Instruction> code;
  code.reserve(p.code.size());
  auto new_slot = [&](SymMeta m) {
    p.slot_meta.push_back(std::move(m));
    return p.num_slots() - 1;
  };
  auto prim = [](OpKind k, SymAttrs attrs, std::vector<int> in, int out) {
    Instruction i;
    i.op = k;
    i.attrs = std::move(attrs);
    i.inputs = std::move(in);
    i.outputs = {out};
    return i;
  };
  for (const Instruction& ins : p.code) {
    bool done = false;
    const auto* d = is_primitive(ins, OpKind::dot_general) ? &std::get<DotGeneralAttrs>(ins.attrs) : nullptr;
    for (int side = 0; d != nullptr && !d->lhs_contracting_dimensions.empty() && side < 2 && !done; ++side) {
      const int src = prod[static_cast<std::size_t>(ins.inputs[static_cast<std::size_t>(side)])];
      if (src < 0 || !is_primitive(p.code[static_cast<std::size_t>(src)], OpKind::broadcast_in_dim)) continue;
      const int s = p.code[static_cast<std::size_t>(src)].inputs[0];
      const int y = ins.inputs[static_cast<std::size_t>(1 - side)];
      const SymMeta sm = p.slot_meta[static_cast<std::size_t>(s)], ym = p.slot_meta[static_cast<std::size_t>(y)];
      if (!sm.shape.empty() || sm.dtype != ym.dtype) continue;
      const DimVec& yc = side == 0 ? d->rhs_contracting_dimensions : d->lhs_contracting_dimensions;
      const DimVec& yb = side == 0 ? d->rhs_batching_dimensions : d->lhs_batching_dimensions;
      // Output axes: batch, lhs free, rhs free; y's free axes follow x's
      // when y is the rhs.
      const std::int64_t nb = static_cast<std::int64_t>(yb.size());
      const std::int64_t x_free =
          static_cast<std::int64_t>(p.slot_meta[static_cast<std::size_t>(ins.inputs[static_cast<std::size_t>(side)])]
                                        .shape.size()) -
          nb - static_cast<std::int64_t>(yc.size());
      std::int64_t next_free = side == 0 ? nb + x_free : nb;
      DimVec dims;  // output axis of every axis of y that is not contracted
      for (std::int64_t ax = 0; ax < static_cast<std::int64_t>(ym.shape.size()); ++ax) {
        if (std::find(yc.begin(), yc.end(), ax) != yc.end()) continue;
        auto it = std::find(yb.begin(), yb.end(), ax);
        dims.push_back(it != yb.end() ? it - yb.begin() : next_free++);
      }
      const SymAttrs sum_attrs = AxesAttrs{.dimensions = yc};
      const SymMeta ym_in[] = {ym};
      const int r = new_slot(infer(OpKind::reduce_sum, sum_attrs, ym_in));
      const SymShape rshape = p.slot_meta[static_cast<std::size_t>(r)].shape;
      const SymAttrs scalar_attrs = BasicBroadcastInDimAttrs<Dim>{rshape, {}};
      const SymMeta sm_in[] = {sm};
      const int sb = new_slot(infer(OpKind::broadcast_in_dim, scalar_attrs, sm_in));
      const int prodslot = new_slot(p.slot_meta[static_cast<std::size_t>(r)]);
      const int out = ins.outputs[0];
      code.push_back(prim(OpKind::reduce_sum, sum_attrs, {y}, r));
      code.push_back(prim(OpKind::broadcast_in_dim, scalar_attrs, {s}, sb));
      code.push_back(prim(OpKind::multiply, NoAttrs{}, {r, sb}, prodslot));
      code.push_back(prim(OpKind::broadcast_in_dim,
                          BasicBroadcastInDimAttrs<Dim>{p.slot_meta[static_cast<std::size_t>(out)].shape, dims},
                          {prodslot}, out));
      done = true;
    }
    if (!done) code.push_back(ins);
  }
  p.code = std::move(code);
  return p;
}

// Note [Products with ones]: multiply(x, o), where o holds only ones (a
// one-element constant 1, or broadcast_in_dim of such a value), is x when
// the product has x's shape and dtype: the cotangent 1 of a sum objective
// reaches reverse rules as such a broadcast (V diag(1) V^T of eigh; the sums
// of Note [Products with a broadcast scalar]), and the product was a pass
// over n^2 elements and a buffer. Exact for real and integer dtypes only
// (in complex arithmetic (a + bi)(1 + 0i) is NaN where b is infinite); a
// product that is a program output stays, so that no output aliases an
// input or a constant.
Program fold_unit_products(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  auto is_one = [](const Tensor& t) {
    if (t.numel() != 1 || !t.device().is_cpu()) return false;
    const Scalar v = t.item();
    return !v.is_complex() && v.to<double>() == 1.0;
  };
  std::vector<bool> ones(static_cast<std::size_t>(p.num_slots()), false), is_output = ones;
  for (const auto& [slot, t] : p.constants) ones[static_cast<std::size_t>(slot)] = is_one(t);
  for (int s : p.outputs) is_output[static_cast<std::size_t>(s)] = true;
  std::vector<int> to = identity(p.num_slots());
  std::vector<Instruction> code;
  code.reserve(p.code.size());
  for (Instruction& ins : p.code) {
    for (int& s : ins.inputs) s = to[static_cast<std::size_t>(s)];
    const int out = ins.outputs.empty() ? -1 : ins.outputs[0];
    if (is_primitive(ins, OpKind::broadcast_in_dim) && ones[static_cast<std::size_t>(ins.inputs[0])])
      ones[static_cast<std::size_t>(out)] = true;
    if (is_primitive(ins, OpKind::multiply) && !is_output[static_cast<std::size_t>(out)]) {
      const SymMeta& m = p.slot_meta[static_cast<std::size_t>(out)];
      bool folded = false;
      for (int side = 0; side < 2 && !folded && !is_complex(m.dtype); ++side) {
        const int x = ins.inputs[static_cast<std::size_t>(side)], o = ins.inputs[static_cast<std::size_t>(1 - side)];
        if (ones[static_cast<std::size_t>(o)] && p.slot_meta[static_cast<std::size_t>(x)] == m) {
          to[static_cast<std::size_t>(out)] = x;
          folded = true;
        }
      }
      if (folded) continue;
    }
    code.push_back(std::move(ins));
  }
  p.code = std::move(code);
  return p;
}

Program fold_transposes(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  std::vector<int> prod = producers(p);
  for (Instruction& ins : p.code) {
    if (!is_primitive(ins, OpKind::dot_general)) continue;
    for (int side = 0; side < 2; ++side) {
      int src = prod[static_cast<std::size_t>(ins.inputs[static_cast<std::size_t>(side)])];
      if (src < 0 || !is_primitive(p.code[static_cast<std::size_t>(src)], OpKind::transpose)) continue;
      const Instruction& t = p.code[static_cast<std::size_t>(src)];
      auto& a = std::get<DotGeneralAttrs>(ins.attrs);
      auto folded = ops::fold_transpose_into_dot(a, side, std::get<PermutationAttrs>(t.attrs).permutation);
      if (!folded) continue;
      a = *folded;
      ins.inputs[static_cast<std::size_t>(side)] = t.inputs[0];
    }
  }
  return p;
}

Program fuse_elementwise(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  std::vector<int> prod = producers(p);
  std::vector<int> uses = use_counts(p);
  std::vector<bool> is_output(static_cast<std::size_t>(p.num_slots()), false);
  for (int s : p.outputs) is_output[static_cast<std::size_t>(s)] = true;
  const std::size_t n = p.code.size();
  // A convert to its operand's own dtype stays out: unfused it runs as a
  // view of the operand (ops::eager_view), so the kernels after it see the
  // operand's layout (a reversed view, say) with and without this pass;
  // fused it would write a new contiguous buffer, and a pairwise reduction,
  // which follows memory order, would then round differently (found by the
  // random-program fuzzer: reduce_prod of c64 after reverse and converts).
  auto identity_convert = [&](const Instruction& ins) {
    return ins.op == OpKind::convert &&
           std::get<ConvertAttrs>(ins.attrs).dtype == p.slot_meta[static_cast<std::size_t>(ins.inputs[0])].dtype;
  };
  auto fusable = [&](std::size_t i) {
    const Instruction& ins = p.code[i];
    return ins.kind == Instruction::Kind::primitive && is_fusable(ins.op) && !ins.hoisted && !identity_convert(ins);
  };
  // A scalar broadcast feeding an elementwise op becomes a rank-0 kernel input.
  auto scalar_broadcast = [&](int slot) -> int {
    int src = prod[static_cast<std::size_t>(slot)];
    if (src < 0 || uses[static_cast<std::size_t>(slot)] != 1 || is_output[static_cast<std::size_t>(slot)]) return -1;
    const Instruction& b = p.code[static_cast<std::size_t>(src)];
    if (!is_primitive(b, OpKind::broadcast_in_dim)) return -1;
    if (!p.slot_meta[static_cast<std::size_t>(b.inputs[0])].shape.empty()) return -1;
    return b.inputs[0];
  };
  // Note [Fusion and liveness]: fusing i into a later j keeps i's operands
  // alive until j. When i is the last reader of an operand (the operand
  // would be freed at i) and a non-elementwise instruction runs between i
  // and j (it allocates its result meanwhile), fusing would hold more
  // memory than the separate instructions: a chain of adds accumulating
  // terms that contractions produce one by one (the gradient of a
  // parameter used by every step of a deep network) would keep every term
  // alive until the end. Such pairs are not fused.
  std::vector<int> last(static_cast<std::size_t>(p.num_slots()), -1);
  for (std::size_t k = 0; k < n; ++k)
    for (int s : p.code[k].inputs) last[static_cast<std::size_t>(s)] = static_cast<int>(k);
  std::vector<bool> held(static_cast<std::size_t>(p.num_slots()),
                         false);  // never freed by the program
  for (int s : p.outputs) held[static_cast<std::size_t>(s)] = true;
  for (const auto& in : p.inputs) held[static_cast<std::size_t>(in.slot)] = true;
  for (const auto& c : p.constants) held[static_cast<std::size_t>(c.first)] = true;
  for (const Instruction& ins : p.code)
    if (ins.hoisted)
      for (int o : ins.outputs) held[static_cast<std::size_t>(o)] = true;
  std::vector<int> allocating_before(n + 1, 0);  // instructions before k that allocate a buffer
  for (std::size_t k = 0; k < n; ++k) {
    // Scalar broadcasts are absorbed into the fused kernel below: no buffer.
    bool absorbed = is_primitive(p.code[k], OpKind::broadcast_in_dim) &&
                    scalar_broadcast(p.code[k].outputs[0]) >= 0;
    allocating_before[k + 1] = allocating_before[k] + (fusable(k) || absorbed ? 0 : 1);
  }
  auto extends_liveness = [&](std::size_t i, std::size_t j) {
    if (allocating_before[j] - allocating_before[i + 1] == 0) return false;
    for (int s : p.code[i].inputs)
      if (last[static_cast<std::size_t>(s)] == static_cast<int>(i) &&
          !held[static_cast<std::size_t>(s)] && scalar_broadcast(s) < 0)
        return true;
    return false;
  };
  // group[i]: the instruction that the result of i is fused into (its only user), or -1.
  std::vector<int> into(n, -1);
  for (std::size_t j = 0; j < n; ++j) {
    if (!fusable(j)) continue;
    const Instruction& J = p.code[j];
    for (int s : J.inputs) {
      int i = prod[static_cast<std::size_t>(s)];
      if (i < 0 || !fusable(static_cast<std::size_t>(i))) continue;
      if (uses[static_cast<std::size_t>(s)] != 1 || is_output[static_cast<std::size_t>(s)]) continue;
      if (p.slot_meta[static_cast<std::size_t>(s)].shape != p.slot_meta[static_cast<std::size_t>(J.outputs[0])].shape)
        continue;
      if (extends_liveness(static_cast<std::size_t>(i), j)) continue;
      into[static_cast<std::size_t>(i)] = static_cast<int>(j);
    }
  }
  auto root_of = [&](std::size_t i) {
    while (into[i] >= 0) i = static_cast<std::size_t>(into[i]);
    return i;
  };
  // Collect members per root, in program order.
  std::map<std::size_t, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < n; ++i)
    if (fusable(i)) groups[root_of(i)].push_back(i);
  std::vector<bool> drop(n, false);
  for (auto& [root, members] : groups) {
    bool absorbs_scalar = false;
    for (std::size_t m : members)
      for (int s : p.code[m].inputs) absorbs_scalar = absorbs_scalar || scalar_broadcast(s) >= 0;
    if (members.size() < 2 && !absorbs_scalar) continue;
    Instruction f;
    f.kind = Instruction::Kind::fused;
    std::map<int, int> step_of_slot;
    std::map<int, int> input_of_slot;
    for (std::size_t m : members) {
      const Instruction& ins = p.code[m];
      FusedElementwise::Step st;
      st.op = ins.op;
      auto concrete = try_constant_attrs(ins.attrs);
      TF_INTERNAL_ASSERT(concrete.has_value(), "elementwise attributes are extent-free");
      st.attrs = *concrete;
      st.dtype = p.slot_meta[static_cast<std::size_t>(ins.outputs[0])].dtype;
      for (int s : ins.inputs) {
        if (auto it = step_of_slot.find(s); it != step_of_slot.end()) {
          st.args.push_back(it->second);
          continue;
        }
        int src = s;
        if (int sc = scalar_broadcast(s); sc >= 0) {
          src = sc;
          drop[static_cast<std::size_t>(prod[static_cast<std::size_t>(s)])] = true;
        }
        auto [it, fresh] = input_of_slot.emplace(src, static_cast<int>(f.inputs.size()));
        if (fresh) f.inputs.push_back(src);
        st.args.push_back(-1 - it->second);
      }
      step_of_slot[ins.outputs[0]] = static_cast<int>(f.fused.steps.size());
      f.fused.steps.push_back(std::move(st));
      if (m != root) drop[m] = true;
    }
    f.fused.num_inputs = static_cast<int>(f.inputs.size());
    f.outputs = p.code[root].outputs;
    p.code[root] = std::move(f);
  }
  std::vector<Instruction> code;
  for (std::size_t i = 0; i < n; ++i)
    if (!drop[i]) code.push_back(std::move(p.code[i]));
  p.code = std::move(code);
  return p;
}

Program assign_buffers(Program p) {
  p.renew_identity();  // caches keyed by the old identity describe the old code
  std::vector<int> last(static_cast<std::size_t>(p.num_slots()), -1);
  for (std::size_t i = 0; i < p.code.size(); ++i)
    for (int s : p.code[i].inputs) last[static_cast<std::size_t>(s)] = static_cast<int>(i);
  std::vector<bool> keep(static_cast<std::size_t>(p.num_slots()), false);
  for (int s : p.outputs) keep[static_cast<std::size_t>(s)] = true;
  std::vector<bool> external(static_cast<std::size_t>(p.num_slots()), false);
  for (const auto& in : p.inputs) external[static_cast<std::size_t>(in.slot)] = true;
  for (const auto& c : p.constants) external[static_cast<std::size_t>(c.first)] = true;
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    Instruction& ins = p.code[i];
    ins.release.clear();
    ins.inplace = -1;
    std::set<int> seen;
    for (int s : ins.inputs)
      if (last[static_cast<std::size_t>(s)] == static_cast<int>(i) && !keep[static_cast<std::size_t>(s)] &&
          seen.insert(s).second)
        ins.release.push_back(s);
    bool elementwise = ins.kind == Instruction::Kind::fused ||
                       (ins.kind == Instruction::Kind::primitive && is_fusable(ins.op));
    if (!elementwise || ins.hoisted) continue;
    const SymMeta& out = p.slot_meta[static_cast<std::size_t>(ins.outputs[0])];
    for (std::size_t k = 0; k < ins.inputs.size(); ++k) {
      int s = ins.inputs[k];
      bool dies = last[static_cast<std::size_t>(s)] == static_cast<int>(i) && !keep[static_cast<std::size_t>(s)];
      // Read exactly once here, so no other operand aliases it.
      bool once = std::count(ins.inputs.begin(), ins.inputs.end(), s) == 1;
      if (dies && once && !external[static_cast<std::size_t>(s)] && p.slot_meta[static_cast<std::size_t>(s)] == out) {
        ins.inplace = static_cast<int>(k);
        break;
      }
    }
  }
  // Hoisted results live in the runtime's cache: never overwrite them.
  std::vector<bool> hoisted_slot(static_cast<std::size_t>(p.num_slots()), false);
  for (const Instruction& ins : p.code)
    if (ins.hoisted)
      for (int o : ins.outputs) hoisted_slot[static_cast<std::size_t>(o)] = true;
  for (Instruction& ins : p.code)
    if (ins.inplace >= 0 && hoisted_slot[static_cast<std::size_t>(ins.inputs[static_cast<std::size_t>(ins.inplace)])])
      ins.inplace = -1;
  return p;
}

}  // namespace passes

std::optional<std::int64_t> peak_live_bytes(const Program& p) {
  std::vector<std::int64_t> bytes(static_cast<std::size_t>(p.num_slots()), 0);
  for (std::size_t s = 0; s < bytes.size(); ++s) {
    auto shape = try_constant_shape(p.slot_meta[s].shape);
    if (!shape) return std::nullopt;
    std::int64_t n = static_cast<std::int64_t>(dtype_size(p.slot_meta[s].dtype));
    for (std::int64_t d : *shape) n *= d;
    bytes[s] = n;
  }
  // Slots whose buffer never goes away: inputs, constants, hoisted results.
  std::vector<bool> pinned(bytes.size(), false);
  std::int64_t live = 0;
  for (const auto& in : p.inputs) pinned[static_cast<std::size_t>(in.slot)] = true;
  for (const auto& c : p.constants) pinned[static_cast<std::size_t>(c.first)] = true;
  for (const Instruction& ins : p.code)
    if (ins.hoisted)
      for (int o : ins.outputs) pinned[static_cast<std::size_t>(o)] = true;
  for (std::size_t s = 0; s < bytes.size(); ++s)
    if (pinned[s]) live += bytes[s];
  std::int64_t peak = live;
  for (const Instruction& ins : p.code) {
    int moved = ins.inplace >= 0 ? ins.inputs[static_cast<std::size_t>(ins.inplace)] : -1;
    for (std::size_t k = 0; k < ins.outputs.size(); ++k) {
      std::size_t o = static_cast<std::size_t>(ins.outputs[k]);
      if (!pinned[o] && !(k == 0 && moved >= 0)) live += bytes[o];
    }
    peak = std::max(peak, live);
    for (int s : ins.release)
      if (s != moved && !pinned[static_cast<std::size_t>(s)])
        live -= bytes[static_cast<std::size_t>(s)];
  }
  return peak;
}

}  // namespace tenferro

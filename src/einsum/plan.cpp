// EinsumPlan: from (spec, shapes, dtypes, path) to a program of primitives
// (Note [Einsum plan], Note [Einsum layouts], Note [Einsum slicing] in
// tenferro/einsum/plan.hpp).
#include "tenferro/einsum/plan.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <numeric>
#include <sstream>

#include "network.hpp"
#include "tenferro/ops/dot_plan.hpp"
#include "tenferro/ops/primitives.hpp"
#include "tenferro/tensor/error.hpp"

namespace tenferro {

const char* einsum_op_name(EinsumOp op) {
  switch (op) {
    case EinsumOp::convert:
      return "convert";
    case EinsumOp::reshape:
      return "reshape";
    case EinsumOp::diagonal:
      return "diagonal";
    case EinsumOp::reduce_sum:
      return "reduce_sum";
    case EinsumOp::slice:
      return "slice";
    case EinsumOp::dot_general:
      return "dot_general";
    case EinsumOp::broadcast_in_dim:
      return "broadcast_in_dim";
    case EinsumOp::multiply:
      return "multiply";
    case EinsumOp::permute_view:
      return "permute_view";
    case EinsumOp::transpose:
      return "transpose";
  }
  return "?";
}

namespace {

using Labels = DimVec;

bool contains(const Labels& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::int64_t index_of(const Labels& v, std::int64_t x) {
  return static_cast<std::int64_t>(std::find(v.begin(), v.end(), x) - v.begin());
}

}  // namespace

namespace detail {

class EinsumPlanBuilder {
 public:
  EinsumPlanBuilder(const EinsumSpec& spec, const std::vector<Shape>& shapes, const std::vector<DType>& dtypes,
                    const ContractionPath& path)
      : spec_(spec), shapes_(shapes), dtypes_(dtypes), path_(path) {}

  EinsumPlan build();

 private:
  // A value slot of the program as the builder models it.
  struct Slot {
    Labels labels;       // logical axes
    bool dense = true;   // memory order == logical order, no gaps (Note [Einsum layouts])
    int buffer = -1;     // memory it lives in; -1: the caller's operand
  };

  double numel(const Labels& labels) const {
    double n = 1;
    for (auto l : labels) n *= static_cast<double>(sizes_[static_cast<std::size_t>(l)]);
    return n;
  }
  Shape shape_of(const Labels& labels) const {
    Shape s;
    for (auto l : labels) s.push_back(sizes_[static_cast<std::size_t>(l)]);
    return s;
  }
  int new_slot(Labels labels, bool dense, int buffer) {
    slots_.push_back({std::move(labels), dense, buffer});
    return static_cast<int>(slots_.size()) - 1;
  }
  int new_buffer(double elements) {
    buffers_.push_back(elements);
    return static_cast<int>(buffers_.size()) - 1;
  }
  // Appends an instruction that reads `a` (and `b`) and creates the slot it returns.
  int emit(std::vector<EinsumInstr>& code, EinsumInstr in, Labels labels, bool dense, bool allocates) {
    const int buffer = allocates ? new_buffer(numel(labels)) : slots_[static_cast<std::size_t>(in.a)].buffer;
    in.out = new_slot(std::move(labels), dense, buffer);
    code.push_back(std::move(in));
    return code.back().out;
  }

  // Layout of dense slot `s` (column-major in label order) and the
  // positions of the labels of `a` and of `b` in it, in that order.
  void dense_layout(const Slot& s, const Labels& a, const Labels& b, Shape& shape, Strides& strides, DimVec& ia,
                    DimVec& ib) const {
    shape.clear();
    strides.clear();
    ia.clear();
    ib.clear();
    std::int64_t stride = 1;
    for (std::size_t i = 0; i < s.labels.size(); ++i) {
      const std::int64_t n = sizes_[static_cast<std::size_t>(s.labels[i])];
      shape.push_back(n);
      strides.push_back(stride);
      stride *= std::max<std::int64_t>(n, 1);
      if (contains(a, s.labels[i])) ia.push_back(static_cast<std::int64_t>(i));
      else if (contains(b, s.labels[i])) ib.push_back(static_cast<std::int64_t>(i));
    }
  }
  // Whether the dot_general plan (Note [GEMM mapping]) copies an operand
  // whose free labels are `free` and contracting labels `contract`, read in
  // its own order; a slot that is not dense has an unknown layout and counts
  // as copied (Note [Einsum layouts]).
  bool needs_copy(const Slot& s, const Labels& free, const Labels& contract) const {
    if (!s.dense) return numel(s.labels) > 1;
    dense_layout(s, free, contract, scratch_shape_, scratch_strides_, scratch_a_, scratch_b_);
    return !ops::gemm_layout(ops::merge_axes(scratch_shape_, scratch_strides_, scratch_a_),
                             ops::merge_axes(scratch_shape_, scratch_strides_, scratch_b_))
                .has_value();
  }
  // Note [GEMM mapping]: an operand readable in place under its own
  // contracting order (`needs_copy` false) is copied only when both are and
  // their orders differ. Whether that clash arises for dense slots L, R:
  bool order_clash(const Slot& L, const Slot& R, const Labels& k, bool cl, bool cr) const {
    return !cl && !cr && L.dense && R.dense && long_labels_in(L.labels, k) != long_labels_in(R.labels, k);
  }
  // ... and then the elements copied for dot_general(L, R) summing `k`, as
  // the plan of the two slots says (with BLAS, the output written in place
  // in its preferred layout).
  double clash_copies(const Slot& L, const Slot& R, const Labels& k) const {
    Shape ls, rs;
    Strides lst, rst;
    DimVec lk, lb, rk, rb;
    dense_layout(L, k, R.labels, ls, lst, lk, lb);
    dense_layout(R, k, L.labels, rs, rst, rk, rb);
    DotGeneralAttrs d;
    for (auto i : lb) {
      d.lhs_batching_dimensions.push_back(i);
      d.rhs_batching_dimensions.push_back(index_of(R.labels, L.labels[static_cast<std::size_t>(i)]));
    }
    for (auto i : lk) {
      d.lhs_contracting_dimensions.push_back(i);
      d.rhs_contracting_dimensions.push_back(index_of(R.labels, L.labels[static_cast<std::size_t>(i)]));
    }
    Shape os;
    for (auto i : lb) os.push_back(ls[static_cast<std::size_t>(i)]);
    for (std::size_t i = 0; i < L.labels.size(); ++i)
      if (!contains(R.labels, L.labels[i])) os.push_back(ls[i]);
    for (std::size_t i = 0; i < R.labels.size(); ++i)
      if (!contains(L.labels, R.labels[i])) os.push_back(rs[i]);
    const ops::DotGeneralPlan p =
        ops::plan_dot_general(d, ls, lst, rs, rst, ops::preferred_strides(OpKind::dot_general, d, os));
    return (p.lhs.copy ? numel(L.labels) : 0) + (p.rhs.copy ? numel(R.labels) : 0);
  }
  Labels long_labels_in(const Labels& order, const Labels& subset) const {
    Labels out;
    for (auto l : order)
      if (contains(subset, l) && sizes_[static_cast<std::size_t>(l)] != 1) out.push_back(l);
    return out;
  }
  // Copies the kernel makes when contracting slots x and y with `lhs_is_x`.
  double step_copies(const Slot& x, const Slot& y, const Labels& fx, const Labels& fy, const Labels& k,
                     bool lhs_is_x) const {
    const bool cx = needs_copy(x, fx, k), cy = needs_copy(y, fy, k);
    if (order_clash(x, y, k, cx, cy)) return lhs_is_x ? clash_copies(x, y, k) : clash_copies(y, x, k);
    return (cx ? numel(x.labels) : 0) + (cy ? numel(y.labels) : 0);
  }

  // Note [Einsum layouts], small products: up to kSmallGemm multiply-adds
  // per batch (and for integers) the CPU dot_general runs its own loop, which
  // is fast only for a left operand laid out [free, contracting, ...] and a
  // right operand [contracting, free, ...]; the plan transposes others first.
  static constexpr double kSmallGemm = 4096;
  // Batched matrix-vector products summing at most this many terms run as
  // dot_general (see the matvec rule in the body's pairwise steps).
  static constexpr double kShortMatvecSum = 16;
  bool small_product(const Labels& fl, const Labels& fr, const Labels& k) const {
    return is_integer(dtype_) || numel(fl) * numel(fr) * numel(k) <= kSmallGemm;
  }
  // Whether dense slot `s` starts with the labels of `first`, then those of
  // `second` (labels of extent 1 aside).
  bool leads_with(const Slot& s, const Labels& first, const Labels& second) const {
    if (!s.dense) return false;
    const std::size_t nf = long_labels_in(first, first).size(), nk = long_labels_in(second, second).size();
    std::size_t pos = 0;
    for (auto l : s.labels) {
      if (sizes_[static_cast<std::size_t>(l)] == 1) continue;
      if (pos < nf && !contains(first, l)) return false;
      if (pos >= nf && pos < nf + nk && !contains(second, l)) return false;
      ++pos;
    }
    return true;
  }
  // Elements transposed before a small product with left slot L, right R.
  double small_transposes(const Slot& L, const Slot& R, const Labels& fl, const Labels& fr,
                          const Labels& k) const {
    const bool tl = !leads_with(L, fl, k), tr = !leads_with(R, k, fr);
    double c = (tl ? numel(L.labels) : 0) + (tr ? numel(R.labels) : 0);
    if (!tl && !tr && long_labels_in(L.labels, k) != long_labels_in(R.labels, k)) c += numel(R.labels);
    return c;
  }

  // Slot `s` transposed into [first, second, its other labels].
  static Slot transposed(const Slot& s, const Labels& first, const Labels& second) {
    Slot t{first, true, -1};
    for (auto l : second) t.labels.push_back(l);
    for (auto l : s.labels)
      if (!contains(t.labels, l)) t.labels.push_back(l);
    return t;
  }

  // Labels of `v` that `w` lacks.
  static Labels minus(const Labels& v, const Labels& w) {
    Labels out;
    for (auto l : v)
      if (!contains(w, l)) out.push_back(l);
    return out;
  }

  // Penalty (elements copied later) of giving node `m` the memory order `mem`.
  double consumer_penalty(int m, const Labels& mem) const {
    const std::size_t um = static_cast<std::size_t>(m);
    if (consumer_[um] < 0) return mem == spec_.output ? 0.0 : 0.5;  // the result: prefer a dense output
    const int t = consumer_[um], w = partner_[um];
    const Labels& k = contract_[static_cast<std::size_t>(t)];
    Slot v{mem, true, -1};
    const Labels fv = minus(mem, node_labels_[static_cast<std::size_t>(w)]);
    const Labels fw = minus(node_labels_[static_cast<std::size_t>(w)], mem);
    if (small_product(fv, fw, k)) {
      if (node_slot_[static_cast<std::size_t>(w)] < 0)
        return leads_with(v, fv, k) || leads_with(v, k, fv) ? 0.0 : numel(mem);
      const Slot& ws = slots_[static_cast<std::size_t>(node_slot_[static_cast<std::size_t>(w)])];
      return std::min(small_transposes(v, ws, fv, fw, k), small_transposes(ws, v, fw, fv, k));
    }
    const bool cv = needs_copy(v, fv, k);
    if (node_slot_[static_cast<std::size_t>(w)] < 0) return cv ? numel(mem) : 0.0;
    // The partner's layout is known: the better of the two operand orders.
    const Slot& ws = slots_[static_cast<std::size_t>(node_slot_[static_cast<std::size_t>(w)])];
    const bool cw = needs_copy(ws, minus(ws.labels, mem), k);
    if (order_clash(v, ws, k, cv, cw)) return std::min(clash_copies(v, ws, k), clash_copies(ws, v, k));
    return (cv ? numel(mem) : 0) + (cw ? numel(ws.labels) : 0);
  }

  // Orders of `labels` (a result's labels, in a natural order) to try for
  // node `m`: its labels grouped by their role in the consuming step.
  std::vector<Labels> candidate_orders(int m, const Labels& labels) const {
    std::vector<Labels> out;
    const std::size_t um = static_cast<std::size_t>(m);
    if (consumer_[um] < 0) {
      Labels o;
      for (auto l : spec_.output)
        if (contains(labels, l)) o.push_back(l);
      out.push_back(o);
      out.push_back(labels);
      return out;
    }
    const int t = consumer_[um], w = partner_[um];
    const Labels& k = contract_[static_cast<std::size_t>(t)];
    const Labels& wl = node_labels_[static_cast<std::size_t>(w)];
    std::array<Labels, 3> g;  // contracted at t, free at t, batch at t
    Labels kord = labels;
    if (node_slot_[static_cast<std::size_t>(w)] >= 0) {
      const Labels& wo = slots_[static_cast<std::size_t>(node_slot_[static_cast<std::size_t>(w)])].labels;
      std::stable_sort(kord.begin(), kord.end(),
                       [&](std::int64_t a, std::int64_t b) { return index_of(wo, a) < index_of(wo, b); });
    }
    for (auto l : kord)
      if (contains(k, l)) g[0].push_back(l);
    for (auto l : labels) {
      if (contains(k, l)) continue;
      g[contains(wl, l) ? 2 : 1].push_back(l);
    }
    std::array<int, 3> p{0, 1, 2};
    do {
      Labels o;
      for (int i : p)
        for (auto l : g[static_cast<std::size_t>(i)]) o.push_back(l);
      if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
    } while (std::next_permutation(p.begin(), p.end()));
    return out;
  }

  void prologue();
  void analyse_path();
  void body();
  void epilogue();
  void simulate_memory(EinsumPlan& plan) const;

  const EinsumSpec& spec_;
  const std::vector<Shape>& shapes_;
  const std::vector<DType>& dtypes_;
  ContractionPath path_;
  std::vector<std::int64_t> sizes_;
  detail::Network net_;
  DType dtype_ = DType::f64;
  std::vector<Slot> slots_;
  std::vector<double> buffers_;
  std::vector<EinsumInstr> prologue_, body_, epilogue_;
  std::vector<int> operand_slot_;  // prologue result of each operand
  detail::SsaPath ssa_;
  // Per node (operands, then step results): labels, the step that consumes
  // it (-1: the final result), the other operand of that step, its slot.
  std::vector<Labels> node_labels_;
  std::vector<int> consumer_, partner_, node_slot_;
  std::vector<Labels> contract_;  // per step: labels summed by the step
  int body_result_ = -1, result_ = -1;
  double copies_ = 0;
  std::vector<double> instr_copies_body_;  // predicted kernel copies per body instruction
  // Reused by needs_copy (called for every candidate layout).
  mutable Shape scratch_shape_;
  mutable Strides scratch_strides_;
  mutable DimVec scratch_a_, scratch_b_;
};

void EinsumPlanBuilder::prologue() {
  const int n = static_cast<int>(shapes_.size());
  for (int k = 0; k < n; ++k) slots_.push_back({spec_.inputs[static_cast<std::size_t>(k)], true, -1});
  const Labels& sliced = path_.sliced_labels;
  for (int k = 0; k < n; ++k) {
    int s = k;
    Shape shape = shapes_[static_cast<std::size_t>(k)];
    auto release = [&](EinsumInstr in) {
      in.a = s;
      in.release_a = true;
      return in;
    };
    if (dtypes_[static_cast<std::size_t>(k)] != dtype_) {
      EinsumInstr in = release({.op = EinsumOp::convert, .dtype = dtype_});
      s = emit(prologue_, in, slots_[static_cast<std::size_t>(s)].labels, true, true);
    }
    // Broadcast axes: extent 1 where the label is longer elsewhere.
    {
      const Labels& labels = slots_[static_cast<std::size_t>(s)].labels;
      Labels kept;
      Shape kept_shape;
      for (std::size_t i = 0; i < labels.size(); ++i) {
        if (shape[i] == 1 && sizes_[static_cast<std::size_t>(labels[i])] != 1) continue;
        kept.push_back(labels[i]);
        kept_shape.push_back(shape[i]);
      }
      if (kept.size() != labels.size()) {
        EinsumInstr in = release({.op = EinsumOp::reshape, .shape = kept_shape, .shape_labels = kept});
        s = emit(prologue_, in, kept, slots_[static_cast<std::size_t>(s)].dense, false);
        shape = kept_shape;
      }
    }
    // Repeated labels: one diagonal per repetition.
    for (;;) {
      const Labels labels = slots_[static_cast<std::size_t>(s)].labels;
      std::int64_t i = -1, j = -1;
      for (std::size_t a = 0; a < labels.size() && i < 0; ++a)
        for (std::size_t b = a + 1; b < labels.size(); ++b)
          if (labels[a] == labels[b]) {
            i = static_cast<std::int64_t>(a);
            j = static_cast<std::int64_t>(b);
            break;
          }
      if (i < 0) break;
      Labels out;
      for (std::size_t a = 0; a < labels.size(); ++a)
        if (static_cast<std::int64_t>(a) != i && static_cast<std::int64_t>(a) != j) out.push_back(labels[a]);
      out.push_back(labels[static_cast<std::size_t>(i)]);
      EinsumInstr in = release({.op = EinsumOp::diagonal, .axes = {i, j}});
      s = emit(prologue_, in, out, false, false);
    }
    // Labels no other operand and not the output needs: summed here.
    {
      const Labels& labels = slots_[static_cast<std::size_t>(s)].labels;
      DimVec axes;
      Labels kept;
      for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::size_t l = static_cast<std::size_t>(labels[i]);
        if (net_.total[l] == 1 && !net_.output[l] && !contains(sliced, labels[i]))
          axes.push_back(static_cast<std::int64_t>(i));
        else
          kept.push_back(labels[i]);
      }
      if (!axes.empty()) {
        EinsumInstr in = release({.op = EinsumOp::reduce_sum, .axes = axes});
        // The reduction writes its kept axes column-major, in their order.
        s = emit(prologue_, in, kept, true, true);
      }
    }
    operand_slot_.push_back(s);
  }
}

void EinsumPlanBuilder::analyse_path() {
  const int n = static_cast<int>(shapes_.size());
  const std::size_t nodes = static_cast<std::size_t>(n) + ssa_.size();
  node_labels_.assign(nodes, {});
  consumer_.assign(nodes, -1);
  partner_.assign(nodes, -1);
  node_slot_.assign(nodes, -1);
  contract_.assign(ssa_.size(), {});
  std::vector<int> live(static_cast<std::size_t>(spec_.num_labels()), 0);  // live nodes holding each label
  for (int k = 0; k < n; ++k) {
    Labels l;
    for (auto x : slots_[static_cast<std::size_t>(operand_slot_[static_cast<std::size_t>(k)])].labels)
      if (!contains(path_.sliced_labels, x)) l.push_back(x);
    for (auto x : l) ++live[static_cast<std::size_t>(x)];
    node_labels_[static_cast<std::size_t>(k)] = l;
  }
  for (std::size_t s = 0; s < ssa_.size(); ++s) {
    const std::size_t x = static_cast<std::size_t>(ssa_[s].first), y = static_cast<std::size_t>(ssa_[s].second);
    const std::size_t m = static_cast<std::size_t>(n) + s;
    consumer_[x] = consumer_[y] = static_cast<int>(s);
    partner_[x] = static_cast<int>(y);
    partner_[y] = static_cast<int>(x);
    Labels all = node_labels_[x];
    for (auto l : node_labels_[y])
      if (!contains(all, l)) all.push_back(l);
    Labels kept;
    for (auto l : all) {
      const std::size_t ul = static_cast<std::size_t>(l);
      const int holders = int(contains(node_labels_[x], l)) + int(contains(node_labels_[y], l));
      const bool needed = net_.output[ul] || live[ul] > holders;
      live[ul] -= holders;
      if (needed) {
        kept.push_back(l);
        ++live[ul];
      } else {
        TF_INTERNAL_ASSERT(holders == 2, "einsum plan: label ", spec_.label_text(l),
                           " summed by one operand of step ", s);
        contract_[s].push_back(l);
      }
    }
    node_labels_[m] = kept;
  }
}

void EinsumPlanBuilder::body() {
  const int n = static_cast<int>(shapes_.size());
  const bool sliced = !path_.sliced_labels.empty();
  // Operands enter the body: sliced labels fixed to the current index.
  for (int k = 0; k < n; ++k) {
    int s = operand_slot_[static_cast<std::size_t>(k)];
    if (sliced) {
      const Labels labels = slots_[static_cast<std::size_t>(s)].labels;
      EinsumInstr in{.op = EinsumOp::slice, .a = s, .shape = shape_of(labels), .shape_labels = labels};
      Labels kept;
      Shape kept_shape;
      bool gap = false;
      for (std::size_t i = 0; i < labels.size(); ++i) {
        if (contains(path_.sliced_labels, labels[i])) {
          in.axes.push_back(static_cast<std::int64_t>(i));
          in.labels.push_back(index_of(path_.sliced_labels, labels[i]));
          gap = gap || i + 1 < labels.size();
        } else {
          kept.push_back(labels[i]);
          kept_shape.push_back(sizes_[static_cast<std::size_t>(labels[i])]);
        }
      }
      if (!in.axes.empty()) {
        const bool dense = slots_[static_cast<std::size_t>(s)].dense && !gap;
        s = emit(body_, in, labels, dense, false);
        EinsumInstr r{.op = EinsumOp::reshape, .a = s, .release_a = true, .shape = kept_shape,
                      .shape_labels = kept};
        s = emit(body_, r, kept, dense, false);
      }
    }
    node_slot_[static_cast<std::size_t>(k)] = s;
  }
  instr_copies_body_.assign(body_.size(), 0);
  // A slot read by the body is released there unless the prologue made it
  // and every slice reads it again.
  auto releasable = [&](int s) {
    return !sliced || std::find(operand_slot_.begin(), operand_slot_.end(), s) == operand_slot_.end();
  };
  for (std::size_t st = 0; st < ssa_.size(); ++st) {
    const int x = ssa_[st].first, y = ssa_[st].second;
    const int m = n + static_cast<int>(st);
    const int sx = node_slot_[static_cast<std::size_t>(x)], sy = node_slot_[static_cast<std::size_t>(y)];
    const Slot X = slots_[static_cast<std::size_t>(sx)], Y = slots_[static_cast<std::size_t>(sy)];
    const Labels& K = contract_[st];
    const Labels& kept = node_labels_[static_cast<std::size_t>(m)];
    Labels B, Fx, Fy;
    for (auto l : X.labels) {
      if (contains(K, l)) continue;
      (contains(Y.labels, l) ? B : Fx).push_back(l);
    }
    for (auto l : Y.labels)
      if (!contains(X.labels, l)) Fy.push_back(l);
    // Batched matrix-vector products with little work per batch run faster
    // as an elementwise product and a sum than as many tiny GEMMs; the
    // product is no larger than the larger operand. Not where the sums are
    // short (at most kShortMatvecSum terms): there dot_general's loop over
    // small products, with no product tensor, is faster (bench_peer, one
    // pinned core, 2-vCPU AMD EPYC: lm_batch_likelihood_brackets_4_4d
    // opt_flops 11.6-12.1 -> 9.8-10.3 ms, sentence_4_4d/opt_size 15.8-16.9
    // -> 13.1-13.4 ms; sums of 4, 7 and 12 terms).
    const bool matvec = !K.empty() && !B.empty() && (numel(Fx) == 1 || numel(Fy) == 1) &&
                        numel(K) > kShortMatvecSum && small_product(Fx, Fy, K);
    if (K.empty() || matvec) {
      // An elementwise product of two broadcasts, in the order that suits
      // the consumer (and, for matvec, a reduce_sum of the summed labels).
      Labels natural = X.labels;
      for (auto l : Fy) natural.push_back(l);
      // The elementwise kernel walks the result in its memory order: led by
      // the larger operand's fastest axis, that operand is read with unit
      // stride (else every element is a strided load).
      // The smaller operand's own labels go right after the larger one's
      // leading axes of at least kBroadcastRun elements: each such block
      // of the larger operand is read once, from L1, for all of them
      // (placed last, they made the kernel stream the whole larger operand
      // again for each of their indices).
      const bool x_big = numel(X.labels) >= numel(Y.labels);
      const Slot& big_op = x_big ? X : Y;
      constexpr std::int64_t kBroadcastRun = 256;
      Labels follow;
      std::size_t lead_end = 0;
      for (std::int64_t run = 1; lead_end < big_op.labels.size() && run < kBroadcastRun; ++lead_end) {
        follow.push_back(big_op.labels[lead_end]);
        run *= sizes_[static_cast<std::size_t>(big_op.labels[lead_end])];
      }
      for (auto l : (x_big ? Y : X).labels)
        if (!contains(big_op.labels, l)) follow.push_back(l);
      for (std::size_t i = lead_end; i < big_op.labels.size(); ++i) follow.push_back(big_op.labels[i]);
      auto lead = [&](const Labels& o) {
        for (auto l : o)
          if (sizes_[static_cast<std::size_t>(l)] != 1) return l;
        return std::int64_t{-1};
      };
      std::vector<Labels> orders{follow};  // first: it wins ties
      if (!matvec)
        for (Labels& o : candidate_orders(m, natural)) orders.push_back(std::move(o));
      Labels best;
      double best_pen = -1;
      for (const Labels& o : orders) {
        const double pen = consumer_penalty(m, o) +
                           (big_op.dense && lead(o) != lead(follow) ? 0.5 * numel(o) : 0.0);
        if (best_pen < 0 || pen < best_pen) {
          best = o;
          best_pen = pen;
        }
      }
      const Shape shape = shape_of(best);
      auto bcast = [&](int s, const Labels& labels) {
        EinsumInstr in{.op = EinsumOp::broadcast_in_dim, .a = s, .release_a = releasable(s), .shape = shape,
                       .shape_labels = best};
        for (auto l : labels) in.axes.push_back(index_of(best, l));
        return emit(body_, in, best, false, false);
      };
      const int bx = bcast(sx, X.labels);
      const int by = bcast(sy, Y.labels);
      EinsumInstr mul{.op = EinsumOp::multiply, .a = bx, .b = by, .release_a = true, .release_b = true};
      int out = emit(body_, mul, best, true, true);
      if (matvec) {
        EinsumInstr red{.op = EinsumOp::reduce_sum, .a = out, .release_a = true};
        Labels rest;
        for (std::size_t i = 0; i < best.size(); ++i) {
          if (contains(K, best[i])) red.axes.push_back(static_cast<std::int64_t>(i));
          else rest.push_back(best[i]);
        }
        out = emit(body_, red, rest, true, true);
      }
      node_slot_[static_cast<std::size_t>(m)] = out;
      instr_copies_body_.resize(body_.size(), 0);
      continue;
    }
    // dot_general: choose the left operand, the batch order and whether to
    // transpose one operand first so that its free labels come out in the
    // order the consumer reads in place (Note [Einsum layouts]).
    struct Choice {
      bool lhs_is_x;
      int transposed;  // 0: neither operand, 1: the left one, 2: the right one
      Labels free_order, batch, mem;  // free_order: the transposed operand's free labels
      double cost;
    };
    std::vector<Choice> choices;
    const bool small = small_product(Fx, Fy, K);
    // The contracting labels of `s` in its memory order (the order a
    // transposed partner takes, so that the two orders agree).
    auto k_order = [&](const Slot& s) {
      Labels o;
      for (auto l : s.labels)
        if (contains(K, l)) o.push_back(l);
      return o;
    };
    for (bool lhs_is_x : {true, false}) {
      const Labels& Fl = lhs_is_x ? Fx : Fy;
      const Labels& Fr = lhs_is_x ? Fy : Fx;
      const Slot& Ls = lhs_is_x ? X : Y;
      const Slot& Rs = lhs_is_x ? Y : X;
      struct Variant {
        int transposed;
        Labels fl, fr;
        double cost;
      };
      std::vector<Variant> variants{{0, Fl, Fr,
                                     small ? small_transposes(Ls, Rs, Fl, Fr, K)
                                           : step_copies(X, Y, Fx, Fy, K, lhs_is_x)}};
      if (!small && consumer_[static_cast<std::size_t>(m)] >= 0)
        for (int side : {1, 2}) {
          const Slot& op = side == 1 ? Ls : Rs;
          const Labels& F = side == 1 ? Fl : Fr;
          const Labels kord = k_order(side == 1 ? Rs : Ls);
          for (const Labels& o : candidate_orders(m, F)) {
            if (long_labels_in(o, o) == long_labels_in(F, F)) continue;
            const Slot t = side == 1 ? transposed(op, o, kord) : transposed(op, kord, o);
            const Slot& tx = (side == 1) == lhs_is_x ? t : X;
            const Slot& ty = (side == 1) == lhs_is_x ? Y : t;
            variants.push_back({side, side == 1 ? o : Fl, side == 2 ? o : Fr,
                                numel(op.labels) + step_copies(tx, ty, Fx, Fy, K, lhs_is_x)});
          }
        }
      for (const Variant& v : variants)
        for (const Labels& border : candidate_orders(m, B)) {
          Labels mem = v.fl;
          for (auto l : v.fr) mem.push_back(l);
          for (auto l : border) mem.push_back(l);
          choices.push_back({lhs_is_x, v.transposed, v.transposed == 1 ? v.fl : v.fr, border, mem,
                             v.cost + consumer_penalty(m, mem)});
        }
    }
    const Choice* best = &choices.front();
    for (const Choice& c : choices)
      if (c.cost < best->cost) best = &c;
    int sl = best->lhs_is_x ? sx : sy, sr = best->lhs_is_x ? sy : sx;
    const Labels& Fl = best->lhs_is_x ? Fx : Fy;
    const Labels& Fr = best->lhs_is_x ? Fy : Fx;
    double own = 0;
    bool release_l = releasable(sl), release_r = releasable(sr);
    // Transposes slot `s` into [first, second, its other labels].
    auto to_order = [&](int& s, bool& release, const Labels& first, const Labels& second) {
      const Slot cur = slots_[static_cast<std::size_t>(s)];
      const Labels want = transposed(cur, first, second).labels;
      if (want == cur.labels && cur.dense) return;
      EinsumInstr t{.op = EinsumOp::transpose, .a = s, .release_a = release};
      for (auto l : want) t.axes.push_back(index_of(cur.labels, l));
      s = emit(body_, t, want, true, true);
      instr_copies_body_.resize(body_.size(), 0);
      release = true;
    };
    if (small) {
      // Transpose into [free, contracting, rest] / [contracting, free, rest].
      const Labels kord = k_order(slots_[static_cast<std::size_t>(sl)]);
      const Slot& l0 = slots_[static_cast<std::size_t>(sl)];
      if (!leads_with(l0, Fl, K)) to_order(sl, release_l, Fl, kord);
      const Slot& r0 = slots_[static_cast<std::size_t>(sr)];
      if (!leads_with(r0, K, Fr) || long_labels_in(r0.labels, K) != long_labels_in(kord, K))
        to_order(sr, release_r, kord, Fr);
    } else {
      if (best->transposed == 1) {
        copies_ += numel(slots_[static_cast<std::size_t>(sl)].labels);
        to_order(sl, release_l, best->free_order, k_order(slots_[static_cast<std::size_t>(sr)]));
      } else if (best->transposed == 2) {
        copies_ += numel(slots_[static_cast<std::size_t>(sr)].labels);
        to_order(sr, release_r, k_order(slots_[static_cast<std::size_t>(sl)]), best->free_order);
      }
      const Slot& nx = slots_[static_cast<std::size_t>(best->lhs_is_x ? sl : sr)];
      const Slot& ny = slots_[static_cast<std::size_t>(best->lhs_is_x ? sr : sl)];
      own = step_copies(nx, ny, Fx, Fy, K, best->lhs_is_x);
    }
    const Slot& L = slots_[static_cast<std::size_t>(sl)];
    const Slot& R = slots_[static_cast<std::size_t>(sr)];
    EinsumInstr dot{.op = EinsumOp::dot_general, .a = sl, .b = sr, .release_a = release_l,
                    .release_b = release_r};
    for (auto l : best->batch) {
      dot.dot.lhs_batching_dimensions.push_back(index_of(L.labels, l));
      dot.dot.rhs_batching_dimensions.push_back(index_of(R.labels, l));
    }
    for (auto l : L.labels)
      if (contains(K, l)) {
        dot.dot.lhs_contracting_dimensions.push_back(index_of(L.labels, l));
        dot.dot.rhs_contracting_dimensions.push_back(index_of(R.labels, l));
      }
    Labels logical = best->batch;
    for (auto l : best->mem)
      if (!contains(best->batch, l)) logical.push_back(l);
    copies_ += own;
    int out = emit(body_, dot, logical, best->batch.empty(), true);
    instr_copies_body_.resize(body_.size(), 0);
    instr_copies_body_.back() = own;
    if (!best->batch.empty()) {
      // Name the axes in memory order (Note [dot_general layout]).
      EinsumInstr p{.op = EinsumOp::permute_view, .a = out, .release_a = true,
                    .axes = ops::dot_output_memory_order(dot.dot, static_cast<std::int64_t>(logical.size()))};
      for (std::size_t i = 0; i < p.axes.size(); ++i)
        TF_INTERNAL_ASSERT(logical[static_cast<std::size_t>(p.axes[i])] == best->mem[i], "einsum plan: dot_general layout");
      out = emit(body_, p, best->mem, true, false);
      instr_copies_body_.resize(body_.size(), 0);
    }
    TF_INTERNAL_ASSERT(best->mem.size() == kept.size());
    node_slot_[static_cast<std::size_t>(m)] = out;
  }
  instr_copies_body_.resize(body_.size(), 0);
  body_result_ = node_slot_.back();
}

void EinsumPlanBuilder::epilogue() {
  const Labels& labels = slots_[static_cast<std::size_t>(body_result_)].labels;
  TF_INTERNAL_ASSERT(labels.size() == spec_.output.size(), "einsum plan: result labels");
  DimVec perm;
  for (auto l : spec_.output) perm.push_back(index_of(labels, l));
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<std::int64_t>(i);
  if (identity) {
    result_ = body_result_;
    return;
  }
  EinsumInstr p{.op = EinsumOp::permute_view, .a = body_result_, .release_a = true, .axes = perm};
  result_ = emit(epilogue_, p, spec_.output, false, false);
}

// Walks the program as eager execution runs it, counting the elements of
// the buffers alive at each instruction (Note [Einsum plan]).
void EinsumPlanBuilder::simulate_memory(EinsumPlan& plan) const {
  std::vector<int> refs(buffers_.size(), 0);
  std::vector<char> alive_slot(slots_.size(), 0);
  double live = 0, peak = 0;
  auto hold = [&](int s) {
    if (alive_slot[static_cast<std::size_t>(s)]) return;
    alive_slot[static_cast<std::size_t>(s)] = 1;
    int b = slots_[static_cast<std::size_t>(s)].buffer;
    if (b >= 0 && refs[static_cast<std::size_t>(b)]++ == 0) live += buffers_[static_cast<std::size_t>(b)];
  };
  auto drop = [&](int s) {
    if (!alive_slot[static_cast<std::size_t>(s)]) return;
    alive_slot[static_cast<std::size_t>(s)] = 0;
    int b = slots_[static_cast<std::size_t>(s)].buffer;
    if (b >= 0 && --refs[static_cast<std::size_t>(b)] == 0) live -= buffers_[static_cast<std::size_t>(b)];
  };
  auto run = [&](const std::vector<EinsumInstr>& code, const std::vector<double>* copies, double extra) {
    for (std::size_t i = 0; i < code.size(); ++i) {
      const EinsumInstr& in = code[i];
      hold(in.out);
      const double scratch = copies ? (*copies)[i] : 0.0;
      peak = std::max(peak, live + extra + scratch);
      if (in.release_a) drop(in.a);
      if (in.release_b) drop(in.b);
    }
  };
  for (int k = 0; k < static_cast<int>(shapes_.size()); ++k) hold(k);
  run(prologue_, nullptr, 0);
  run(body_, &instr_copies_body_, 0);
  const double r = numel(slots_[static_cast<std::size_t>(body_result_)].labels);
  if (path_.num_slices > 1) {
    // Later slices: the running sum stays alive during the body, then
    // add(sum, result) briefly holds both sums and the slice's result.
    drop(body_result_);
    run(body_, &instr_copies_body_, r);
    peak = std::max(peak, live + 2 * r);
  }
  run(epilogue_, nullptr, 0);
  plan.peak_live_elements_ = peak;
}

EinsumPlan EinsumPlanBuilder::build() {
  const auto t0 = std::chrono::steady_clock::now();
  const int n = static_cast<int>(shapes_.size());
  TF_CHECK(n >= 1, ValueError, "einsum", "needs at least one operand");
  sizes_ = einsum_label_sizes(spec_, shapes_);
  TF_CHECK(dtypes_.size() == shapes_.size(), ValueError, "einsum", dtypes_.size(), " dtypes for ", n,
           " operands");
  dtype_ = dtypes_[0];
  for (std::size_t k = 0; k < dtypes_.size(); ++k) {
    TF_CHECK(kNumericDTypes.contains(dtypes_[k]), DTypeError, "einsum", "operand ", k, " has dtype ",
             dtypes_[k], " (expected one of ", kNumericDTypes, ") in \"", einsum_echo(spec_.text), "\"");
    dtype_ = promote_types(dtype_, dtypes_[k]);
  }
  ssa_ = detail::ssa_from_linear(path_.pairs, n);
  // Sliced labels: summed labels only, each once; the slice count follows.
  path_.num_slices = 1;
  Shape sliced_extents;
  for (std::size_t i = 0; i < path_.sliced_labels.size(); ++i) {
    std::int64_t l = path_.sliced_labels[i];
    TF_CHECK(l >= 0 && l < spec_.num_labels(), ValueError, "einsum", "sliced label id ", l,
             " is out of range [0, ", spec_.num_labels(), ") for \"", einsum_echo(spec_.text), "\"");
    TF_CHECK(!contains(spec_.output, l), ValueError, "einsum", "sliced label '", spec_.label_text(l),
             "' is an output label of \"", einsum_echo(spec_.text), "\"; only summed labels can be sliced");
    TF_CHECK(std::count(path_.sliced_labels.begin(), path_.sliced_labels.end(), l) == 1, ValueError, "einsum",
             "sliced label '", spec_.label_text(l), "' is listed twice");
    sliced_extents.push_back(sizes_[static_cast<std::size_t>(l)]);
    path_.num_slices *= sizes_[static_cast<std::size_t>(l)];
  }
  net_ = detail::make_network(spec_, shapes_, sizes_);
  if (path_.cost.flops == 0 && !ssa_.empty())
    path_.cost = contraction_cost(spec_, shapes_, path_.pairs, path_.sliced_labels);
  prologue();
  analyse_path();
  body();
  epilogue();

  EinsumPlan plan;
  plan.spec_ = spec_;
  plan.path_ = path_;
  plan.input_shapes_ = shapes_;
  plan.input_dtypes_ = dtypes_;
  plan.dtype_ = dtype_;
  plan.output_shape_ = shape_of(spec_.output);
  plan.num_slots_ = static_cast<int>(slots_.size());
  plan.prologue_ = prologue_;
  plan.body_ = body_;
  plan.epilogue_ = epilogue_;
  plan.body_result_ = body_result_;
  plan.result_ = result_;
  plan.sliced_extents_ = sliced_extents;
  plan.predicted_copy_elements_ = copies_ * static_cast<double>(path_.num_slices);
  simulate_memory(plan);
  plan.build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return plan;
}

}  // namespace detail

EinsumPlan EinsumPlan::build(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                             const std::vector<DType>& dtypes, const ContractionPath& path) {
  return detail::EinsumPlanBuilder(spec, shapes, dtypes, path).build();
}

std::string EinsumPlan::to_string() const {
  std::ostringstream os;
  os << "einsum \"" << spec_.text << "\" -> " << dtype_ << output_shape_;
  if (num_slices() > 1) os << ", " << num_slices() << " slices";
  os << "\n";
  auto section = [&](const char* name, const std::vector<EinsumInstr>& code) {
    if (code.empty()) return;
    os << name << ":\n";
    for (const EinsumInstr& in : code) {
      os << "  %" << in.out << " = " << einsum_op_name(in.op) << "(%" << in.a;
      if (in.b >= 0) os << ", %" << in.b;
      os << ")";
      switch (in.op) {
        case EinsumOp::convert:
          os << " " << in.dtype;
          break;
        case EinsumOp::reshape:
          os << " " << in.shape;
          break;
        case EinsumOp::dot_general:
          os << " " << Attrs(in.dot);
          break;
        case EinsumOp::broadcast_in_dim:
          os << " " << in.shape << " dims=" << in.axes;
          break;
        case EinsumOp::slice:
          os << " axes=" << in.axes << " sliced=" << in.labels;
          break;
        case EinsumOp::multiply:
          break;
        case EinsumOp::diagonal:
        case EinsumOp::reduce_sum:
        case EinsumOp::permute_view:
        case EinsumOp::transpose:
          os << " " << in.axes;
          break;
      }
      os << "\n";
    }
  };
  section("prologue", prologue_);
  section("body", body_);
  section("epilogue", epilogue_);
  os << "result %" << result_ << "\n";
  return os.str();
}

DiagonalGather diagonal_gather(const Shape& shape, std::int64_t axis1, std::int64_t axis2) {
  const std::int64_t r = static_cast<std::int64_t>(shape.size());
  TF_CHECK(axis1 >= 0 && axis1 < r && axis2 >= 0 && axis2 < r && axis1 != axis2, IndexError, "diagonal_gather",
           "axes (", axis1, ", ", axis2, ") must be two different axes of shape ", shape);
  const std::int64_t n = shape[static_cast<std::size_t>(axis1)];
  TF_CHECK(shape[static_cast<std::size_t>(axis2)] == n, ShapeError, "diagonal_gather", "axes ", axis1, " and ",
           axis2, " of shape ", shape, " differ in extent");
  DiagonalGather g;
  g.attrs.start_index_map = {axis1, axis2};
  g.attrs.collapsed_slice_dims = {std::min(axis1, axis2), std::max(axis1, axis2)};
  g.attrs.index_vector_dim = 1;
  g.attrs.slice_sizes = shape;
  g.attrs.slice_sizes[static_cast<std::size_t>(axis1)] = 1;
  g.attrs.slice_sizes[static_cast<std::size_t>(axis2)] = 1;
  for (std::int64_t i = 0; i + 2 < r; ++i) g.attrs.offset_dims.push_back(i);
  g.index_shape = {n, 2};
  for (int c = 0; c < 2; ++c)
    for (std::int64_t i = 0; i < n; ++i) g.index_values.push_back(i);
  return g;
}

}  // namespace tenferro

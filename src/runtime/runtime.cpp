// Runtime: runs compiled programs in two parts.
//
// The planner binds a run's inputs (dtypes, devices, symbolic extents) and
// plans every instruction it can before any kernel runs (`plan_run`), one
// instruction at a time with `plan_step`. The executor (`Executor`) runs a
// plan on buffers; an instruction the planner could not plan because an
// extent comes from data is planned when it runs, by the same `plan_step`.
// Plans, hoisted results and uploaded constants are cached by the runtime
// per program identity (`ProgramCache`), bounded and locked.
#include "tenferro/runtime/runtime.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <sstream>
#include <unordered_map>

#include "tenferro/ops/infer.hpp"
#include "tenferro/ops/kernels.hpp"
#include "tenferro/ops/primitives.hpp"
#include "tenferro/ops/views.hpp"

namespace tenferro {

std::shared_ptr<Engine> cpu_engine(Backend& backend) {
  TF_CHECK(backend.device().is_cpu(), DeviceError, "cpu_engine", "backend '", backend.name(),
           "' runs on ", backend.device());
  return std::make_shared<Engine>(backend, "cpu");
}

std::shared_ptr<Engine> backend_engine(Backend& backend) {
  return std::make_shared<Engine>(backend, std::string(backend.name()));
}

namespace {

using SlotTensors = std::vector<std::pair<int, Tensor>>;  // slot, value
using Signature = std::vector<Shape>;                    // the input shapes of a run

// ---- plans -----------------------------------------------------------------------------

// The checked, concrete form of one primitive or fused instruction.
struct StepPlan {
  Attrs attrs;         // concrete attributes (primitive)
  TensorMeta out;      // output 0
  Strides strides;     // its layout
  bool ready = false;  // false: an extent comes from data; planned when the step runs
};

// The plan of a run: one step per instruction (family steps carry none).
struct RunPlan {
  std::vector<StepPlan> steps;
  bool complete = true;  // no step waits for a data-dependent extent
};

// "run_compiled: instruction %3 = linalg.solve"
std::string where(const Instruction& ins) {
  std::ostringstream os;
  os << "run_compiled: instruction ";
  for (std::size_t i = 0; i < ins.outputs.size(); ++i) os << (i ? ", " : "") << "%" << ins.outputs[i];
  os << " = " << ins.name();
  return os.str();
}

// Puts the instruction in front of an error's message; the caller rethrows
// with `throw;`, so the error keeps its type (e.g. LinalgError).
// ("run_compiled: instruction %3 = linalg.solve: matrix [1] ... is singular";
// an op's own message already starts with its name, which is then not repeated).
void add_context(Error& e, const Instruction& ins) {
  const std::string context = where(ins), name = ins.name();
  if (std::string_view(e.what()).starts_with(name + ": "))
    e.prepend_context(std::string_view(context).substr(0, context.size() - name.size()));
  else
    e.prepend_context(context + ": ");
}

std::string bindings_text(const DimBindings& env) {
  std::ostringstream os;
  const char* sep = "";
  for (const auto& [k, v] : env) {
    os << sep << k << "=" << v;
    sep = ", ";
  }
  return os.str();
}

// Binds a symbolic shape to a concrete one (Dim symbols get values; other
// extents must agree). `op()` and `what()` name the value in an error, and
// are called only then (formatting them cost about a microsecond a step).
// `op()` heads the message: "run_compiled" for inputs, the instruction's
// name for a family output (whose error context then adds "run_compiled:
// instruction %k = " once, not a second "run_compiled:").
template <class Op, class What>
void bind_shape(const SymShape& sym, const Shape& actual, DimBindings& env, const Op& op, const What& what) {
  TF_CHECK(sym.size() == actual.size(), ShapeError, op(), what(), " has shape ", actual,
           " but the program expects rank ", sym.size(), " ", sym);
  for (std::size_t i = 0; i < sym.size(); ++i) {
    const Dim& d = sym[i];
    if (d.is_symbol() && !env.count(d.symbol())) {
      env[d.symbol()] = actual[i];
      continue;
    }
    std::int64_t want = d.evaluate(env);
    // "expects n = 3" for a symbolic extent, "expects 3" for a constant one.
    TF_CHECK(want == actual[i], ShapeError, op(), what(), " has extent ", actual[i], " on axis ", i,
             " but the program expects ", d, d.is_constant() ? "" : detail::str(" = ", want), " (shape ", sym,
             env.empty() ? std::string() : detail::str(", bindings so far ", bindings_text(env)), ")");
  }
}

bool all_bound(const SymShape& s, const DimBindings& env) {
  for (const Dim& d : s)
    for (const std::string& v : d.symbols())
      if (!env.count(v)) return false;
  return true;
}

bool concrete(const Shape& s) {
  return std::none_of(s.begin(), s.end(), [](std::int64_t d) { return d == kDynamicDim; });
}

// ---- the planner ------------------------------------------------------------------------

// A run's inputs, bound: the tensor of every program input, the engine that
// runs them, and the symbol values their shapes give.
struct BoundRun {
  std::vector<Tensor> inputs;
  const Engine* engine = nullptr;
  DimBindings env;
};

BoundRun bind_inputs(const Program& p, const RunInputs& given, const std::vector<std::shared_ptr<Engine>>& engines) {
  BoundRun run;
  std::vector<Tensor>& bound = run.inputs;
  if (given.by_position()) {
    TF_CHECK(given.positional().size() == p.inputs.size(), ValueError, "run_compiled", "the program takes ",
             p.inputs.size(), " inputs, got ", given.positional().size());
    bound = given.positional();
  } else {
    bound.resize(p.inputs.size());
    for (const auto& [name, t] : given.named()) {
      const std::string& key = name;  // (clang 14 cannot capture a structured binding)
      auto it = std::find_if(p.inputs.begin(), p.inputs.end(), [&](const ProgramInput& in) { return in.name == key; });
      TF_CHECK(it != p.inputs.end(), ValueError, "run_compiled", "the program has no input named '", name, "'");
      std::size_t k = static_cast<std::size_t>(it - p.inputs.begin());
      TF_CHECK(!bound[k].defined(), ValueError, "run_compiled", "input '", name, "' is given twice");
      bound[k] = t;
    }
    for (std::size_t k = 0; k < p.inputs.size(); ++k)
      TF_CHECK(bound[k].defined(), ValueError, "run_compiled", "input '", p.inputs[k].name, "' is not bound");
  }
  run.engine = engines.front().get();
  if (!bound.empty()) {
    TF_CHECK(bound.front().defined(), ValueError, "run_compiled", "input '", p.inputs.front().name, "' is undefined");
    Device dev = bound.front().device();
    auto it = std::find_if(engines.begin(), engines.end(), [&](const auto& e) { return e->device() == dev; });
    TF_CHECK(it != engines.end(), DeviceError, "run_compiled", "no engine registered for ", dev);
    run.engine = it->get();
  }
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const ProgramInput& in = p.inputs[k];
    const Tensor& t = bound[k];
    TF_CHECK(t.defined(), ValueError, "run_compiled", "input '", in.name, "' is undefined");
    TF_CHECK(t.dtype() == in.meta.dtype, DTypeError, "run_compiled", "input '", in.name, "' has dtype ", t.dtype(),
             " but the program declares ", in.meta.dtype);
    TF_CHECK(t.device() == run.engine->device(), DeviceError, "run_compiled", "input '", in.name, "' is on ",
             t.device(), " but engine '", run.engine->name(), "' runs on ", run.engine->device());
    bind_shape(
        in.meta.shape, t.shape(), run.env, [] { return "run_compiled"; },
        [&] { return detail::str("input '", in.name, "'"); });
  }
  return run;
}

// The kernel providers of each family instruction (null for the others),
// chosen once per run from the engine's kernel registry: every family
// instruction's family is registered with this runtime and `engine` has a
// kernel for it, else UnimplementedError before any kernel runs.
using FamilyKernels = std::vector<std::shared_ptr<const FamilyProviders>>;
FamilyKernels check_runnable(const Program& p, const Engine& engine, const std::vector<const OpFamily*>& families) {
  FamilyKernels kernels(p.code.size());
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instruction& ins = p.code[i];
    if (ins.kind != Instruction::Kind::family) continue;
    bool registered = false;
    for (const OpFamily* f : families)
      for (const FamilyOp& o : f->ops) registered = registered || &o == ins.family;
    TF_CHECK(registered, UnimplementedError, where(ins), "its op family is not registered with this runtime ",
             "(Runtime::builder().register_family(...))");
    try {
      kernels[i] = find_family_kernels(*ins.family, engine.backend());
    } catch (Error& e) {
      e.prepend_context(where(ins) + ": engine '" + engine.name() + "': ");
      throw;
    }
  }
  return kernels;
}

// Plans one instruction from its operands' metadata and the bindings so far:
// checks dtypes and shapes (the op's concrete inference), fixes concrete
// attributes and the output layout in `step`, and writes the metadata of
// every output to `outs`. Returns false when an output extent is not known
// yet (it comes from data): the step is then planned again when it runs.
// The one planning function, both before any kernel runs and during a run.
bool plan_step(const Program& p, const Instruction& ins, const std::vector<TensorMeta>& in, const DimBindings& env,
               StepPlan& step, std::vector<TensorMeta>& outs) {
  switch (ins.kind) {
    case Instruction::Kind::family:
      outs = ins.family->infer(ins.family_attrs, in);
      return std::all_of(outs.begin(), outs.end(), [](const TensorMeta& m) { return concrete(m.shape); });
    case Instruction::Kind::fused: {
      // The fused output has the shape of its non-scalar operands.
      step.out = {ins.fused.steps.back().dtype, Shape{}};
      for (const TensorMeta& m : in)
        if (!m.shape.empty()) step.out.shape = m.shape;
      const SymShape& sym = p.slot_meta[static_cast<std::size_t>(ins.outputs[0])].shape;
      if (all_bound(sym, env)) step.out.shape = evaluate_shape(sym, env);
      for (const TensorMeta& m : in)
        TF_CHECK(m.shape.empty() || m.shape == step.out.shape, ShapeError, "fused", "operand shape ", m.shape,
                 " differs from ", step.out.shape);
      step.strides = col_major_strides(step.out.shape);
      break;
    }
    case Instruction::Kind::primitive: {
      const SymMeta& sym = p.slot_meta[static_cast<std::size_t>(ins.outputs[0])];
      if (!all_bound(sym.shape, env) || !attrs_bound(ins.attrs, env)) return false;
      step.attrs = evaluate_attrs(ins.attrs, env);
      step.out = infer(ins.op, step.attrs, in);
      step.strides = ops::preferred_strides(ins.op, step.attrs, step.out.shape);
      break;
    }
  }
  step.ready = true;
  outs.assign(1, step.out);
  return true;
}

// Every symbolic extent of the program is bound by an input's shape or comes
// from data (a family output extent no operand mentions); else ShapeError
// naming the first instruction that needs it. Without this check a fused
// step took the shape of its operands (rank 0) and a primitive step failed
// as an internal error.
void check_extents_bound(const Program& p, const DimBindings& env) {
  std::set<std::string> from_data;
  for (const Instruction& ins : p.code) {
    if (ins.kind == Instruction::Kind::family) {
      std::set<std::string> operand_symbols;
      for (int s : ins.inputs)
        for (const Dim& d : p.slot_meta[static_cast<std::size_t>(s)].shape)
          for (const std::string& sym : d.symbols()) operand_symbols.insert(sym);
      for (int s : ins.outputs)
        for (const Dim& d : p.slot_meta[static_cast<std::size_t>(s)].shape)
          for (const std::string& sym : d.symbols())
            if (!operand_symbols.count(sym)) from_data.insert(sym);
    }
    for (int s : ins.outputs)
      for (const Dim& d : p.slot_meta[static_cast<std::size_t>(s)].shape)
        for (const std::string& sym : d.symbols())
          TF_CHECK(env.count(sym) || from_data.count(sym), ShapeError, where(ins), "extent '", sym, "' of %", s,
                   " ", p.slot_meta[static_cast<std::size_t>(s)].shape,
                   " is bound by no input of the program (bindings: ",
                   env.empty() ? std::string("none") : bindings_text(env), ")");
  }
}

// Plans every instruction whose operands' extents are known from the inputs:
// all of them unless an extent comes from data. Errors name the instruction.
std::shared_ptr<RunPlan> plan_run(const Program& p, const BoundRun& run) {
  check_extents_bound(p, run.env);
  auto plan = std::make_shared<RunPlan>();
  plan->steps.resize(p.code.size());
  std::vector<TensorMeta> meta(static_cast<std::size_t>(p.num_slots()));
  std::vector<bool> known(static_cast<std::size_t>(p.num_slots()), false);
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    meta[static_cast<std::size_t>(p.inputs[k].slot)] = {run.inputs[k].dtype(), run.inputs[k].shape()};
    known[static_cast<std::size_t>(p.inputs[k].slot)] = true;
  }
  for (const auto& [slot, t] : p.constants) {
    meta[static_cast<std::size_t>(slot)] = {t.dtype(), t.shape()};
    known[static_cast<std::size_t>(slot)] = true;
  }
  std::vector<TensorMeta> in, outs;
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instruction& ins = p.code[i];
    bool operands_known = std::all_of(ins.inputs.begin(), ins.inputs.end(),
                                      [&](int s) { return known[static_cast<std::size_t>(s)]; });
    bool planned = false;
    if (operands_known) {
      in.clear();
      for (int s : ins.inputs) in.push_back(meta[static_cast<std::size_t>(s)]);
      try {
        planned = plan_step(p, ins, in, run.env, plan->steps[i], outs);
      } catch (Error& e) {
        add_context(e, ins);
        throw;
      }
    }
    if (!planned) {
      plan->complete = false;
      continue;
    }
    for (std::size_t k = 0; k < outs.size(); ++k) {
      meta[static_cast<std::size_t>(ins.outputs[k])] = std::move(outs[k]);
      known[static_cast<std::size_t>(ins.outputs[k])] = true;
    }
  }
  return plan;
}

// ---- the runtime's caches ---------------------------------------------------------------

// What a runtime keeps for one engine device and one program.
struct DeviceResults {
  Device device;
  std::shared_ptr<const SlotTensors> hoisted;    // hoisted instructions' results
  std::shared_ptr<const SlotTensors> constants;  // the constants, uploaded to the device
};

// What a runtime keeps for one program identity.
struct ProgramEntry {
  std::weak_ptr<const Program::Identity> alive;  // expired: every copy of the program is gone
  std::uint64_t used = 0;                        // LRU clock
  std::map<Signature, std::pair<std::shared_ptr<const RunPlan>, std::uint64_t>> plans;  // plan, LRU clock
  std::vector<DeviceResults> devices;

  DeviceResults& on(Device d) {
    for (DeviceResults& r : devices)
      if (r.device == d) return r;
    return devices.emplace_back(DeviceResults{d, nullptr, nullptr});
  }
};

// The cached state a run starts from (null: not cached yet).
struct CachedRun {
  std::shared_ptr<const RunPlan> plan;
  std::shared_ptr<const SlotTensors> hoisted;
  std::shared_ptr<const SlotTensors> constants;
};

// Plans, hoisted results and uploaded constants per program identity;
// bounded (LRU) and locked, so runs may share it from several threads.
class ProgramCache {
 public:
  // One lookup per run; creates the program's entry.
  CachedRun lookup(const Program& p, const Signature& sig, Device device) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++clock_;
    auto it = entries_.find(p.id());
    if (it == entries_.end()) {
      it = entries_.emplace(p.id(), ProgramEntry{}).first;
      it->second.alive = p.identity;
      shrink(p.id());
    } else if (clock_ % Runtime::kSweepInterval == 0) {
      shrink(p.id());
    }
    ProgramEntry& e = it->second;
    e.used = clock_;
    CachedRun out;
    auto plan = e.plans.find(sig);
    if (plan != e.plans.end()) {
      plan->second.second = clock_;
      out.plan = plan->second.first;
    }
    for (const DeviceResults& r : e.devices)
      if (r.device == device) {
        out.hoisted = r.hoisted;
        out.constants = r.constants;
      }
    return out;
  }

  void store_plan(const Program& p, const Signature& sig, std::shared_ptr<const RunPlan> plan) {
    std::lock_guard<std::mutex> lock(mutex_);
    ProgramEntry* e = find(p);
    if (e == nullptr) return;
    if (!e->plans.count(sig) && e->plans.size() >= Runtime::kMaxPlansPerProgram)
      e->plans.erase(std::min_element(e->plans.begin(), e->plans.end(), [](const auto& a, const auto& b) {
        return a.second.second < b.second.second;
      }));
    e->plans.insert_or_assign(sig, std::make_pair(std::move(plan), clock_));
  }

  // Stores the hoisted results (or uploaded constants) of a program on a
  // device unless another run stored them first; returns the stored ones.
  std::shared_ptr<const SlotTensors> store(const Program& p, Device device, bool hoisted, SlotTensors values) {
    auto fresh = std::make_shared<const SlotTensors>(std::move(values));
    std::lock_guard<std::mutex> lock(mutex_);
    ProgramEntry* e = find(p);
    if (e == nullptr) return fresh;
    std::shared_ptr<const SlotTensors>& slot = hoisted ? e->on(device).hoisted : e->on(device).constants;
    if (slot == nullptr) slot = std::move(fresh);
    return slot;
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  ProgramEntry* find(const Program& p) {
    auto it = entries_.find(p.id());
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Drops entries of destroyed programs, then the least recently used ones
  // beyond the limit (never `keep`, the program running now).
  void shrink(std::uint64_t keep) {
    std::erase_if(entries_, [&](const auto& kv) { return kv.first != keep && kv.second.alive.expired(); });
    while (entries_.size() > Runtime::kMaxCachedPrograms) {
      auto lru = entries_.end();
      for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->first != keep && (lru == entries_.end() || it->second.used < lru->second.used)) lru = it;
      entries_.erase(lru);
    }
  }

  mutable std::mutex mutex_;
  std::uint64_t clock_ = 0;
  std::unordered_map<std::uint64_t, ProgramEntry> entries_;
};

// ---- the executor -----------------------------------------------------------------------

// Runs a plan on buffers: one slot per program value, kernels from the
// engine's backend. Steps the plan left for later (after a data-dependent
// extent) are planned with `plan_step` as they come.
class Executor {
 public:
  Executor(const Program& p, const Engine& engine, const FamilyKernels& family_kernels, DimBindings& env)
      : p_(p),
        backend_(engine.backend()),
        family_kernels_(family_kernels),
        env_(env),
        slots_(static_cast<std::size_t>(p.num_slots())) {}

  Tensor& slot(int s) { return slots_[static_cast<std::size_t>(s)]; }
  void set(const SlotTensors& values) {
    for (const auto& [s, t] : values) slot(s) = t;
  }

  // Runs every instruction (hoisted ones only when `run_hoisted`); returns
  // the hoisted results it computed.
  SlotTensors run(const RunPlan& plan, bool run_hoisted) {
    SlotTensors hoisted;
    for (std::size_t i = 0; i < p_.code.size(); ++i) {
      const Instruction& ins = p_.code[i];
      if (ins.hoisted && !run_hoisted) continue;
      in_.clear();
      for (int s : ins.inputs) in_.push_back(slots_[static_cast<std::size_t>(s)]);
      try {
        if (ins.kind == Instruction::Kind::family) run_family(ins, *family_kernels_[i]);
        else if (plan.steps[i].ready) run_step(ins, plan.steps[i]);
        else run_step(ins, plan_now(ins));
      } catch (Error& e) {
        add_context(e, ins);
        throw;
      }
      if (ins.hoisted)
        for (int o : ins.outputs) hoisted.push_back({o, slots_[static_cast<std::size_t>(o)]});
      for (int s : ins.release) slots_[static_cast<std::size_t>(s)] = Tensor();
    }
    return hoisted;
  }

  std::vector<Tensor> outputs() const {
    std::vector<Tensor> out;
    out.reserve(p_.outputs.size());
    for (int s : p_.outputs) out.push_back(slots_[static_cast<std::size_t>(s)]);
    return out;
  }

 private:
  // A step after a data-dependent extent, planned from its operands now.
  const StepPlan& plan_now(const Instruction& ins) {
    metas_.clear();
    for (const Tensor& t : in_) metas_.push_back({t.dtype(), t.shape()});
    late_ = StepPlan{};
    bool planned = plan_step(p_, ins, metas_, env_, late_, outs_);
    TF_INTERNAL_ASSERT(planned, "an extent of ", ins.name(), " is still unbound when it runs (bindings ",
                       bindings_text(env_), ")");
    return late_;
  }

  // A family op: its kernel allocates the outputs, whose extents bind the
  // symbols they introduce.
  void run_family(const Instruction& ins, const FamilyProviders& providers) {
    std::vector<Tensor> out = call_family(*ins.family, providers, ins.family_attrs, in_, backend_);
    for (std::size_t k = 0; k < out.size(); ++k) {
      bind_shape(
          p_.slot_meta[static_cast<std::size_t>(ins.outputs[k])].shape, out[k].shape(), env_,
          [&] { return ins.name(); }, [&] { return detail::str("output ", k); });
      slot(ins.outputs[k]) = std::move(out[k]);
    }
  }

  // A primitive or fused step: a view when the op is one, else into a buffer
  // (an operand's, when buffer assignment allows and nothing else holds it).
  void run_step(const Instruction& ins, const StepPlan& pl) {
    Tensor out;
    if (ins.kind == Instruction::Kind::primitive && !in_.empty())
      if (auto v = ops::eager_view(ins.op, pl.attrs, in_[0], pl.out)) out = *std::move(v);
    if (!out.defined()) {
      if (ins.inplace >= 0) {
        const Tensor& c = slots_[static_cast<std::size_t>(ins.inputs[static_cast<std::size_t>(ins.inplace)])];
        // Held by its slot and by in_ only, laid out as the output would be.
        if (c.storage().use_count() == 2 && c.offset() == 0 && c.dtype() == pl.out.dtype && c.shape() == pl.out.shape &&
            c.strides() == pl.strides &&
            c.storage()->nbytes() == static_cast<std::size_t>(c.numel()) * dtype_size(c.dtype()))
          out = c;
      }
      if (!out.defined()) out = backend_.empty_strided(pl.out.dtype, pl.out.shape, pl.strides);
      if (out.numel() > 0) {
        if (ins.kind == Instruction::Kind::primitive) backend_.execute(ins.op, pl.attrs, in_, out);
        else backend_.execute_fused(ins.fused, in_, out);
      }
    }
    slot(ins.outputs[0]) = std::move(out);
  }

  const Program& p_;
  Backend& backend_;
  const FamilyKernels& family_kernels_;  // providers per family instruction
  DimBindings& env_;
  std::vector<Tensor> slots_;
  std::vector<Tensor> in_;  // operands of the current step
  std::vector<TensorMeta> metas_, outs_;
  StepPlan late_;
};

}  // namespace

// ---- Runtime ----------------------------------------------------------------------------

struct Runtime::State {
  std::vector<std::shared_ptr<Engine>> engines;
  std::vector<const OpFamily*> families;
  ProgramCache cache;
  mutable std::mutex mutex;  // guards `last`
  DimBindings last;
};

Runtime::Builder& Runtime::Builder::register_engine(std::shared_ptr<Engine> engine) {
  TF_CHECK(engine != nullptr, ValueError, "register_engine", "null engine");
  engines_.push_back(std::move(engine));
  return *this;
}

Runtime::Builder& Runtime::Builder::register_family(const OpFamily& family) {
  families_.push_back(&family);
  return *this;
}

Runtime Runtime::Builder::build() const {
  TF_CHECK(!engines_.empty(), ValueError, "Runtime::build", "register at least one engine");
  Runtime r;
  r.state_ = std::make_shared<State>();
  r.state_->engines = engines_;
  r.state_->families = families_;
  // The families' default kernels join each engine's registry (idempotent).
  for (const auto& e : engines_)
    for (const OpFamily* f : families_) e->backend().kernels().register_family(*f);
  return r;
}

DimBindings Runtime::last_bindings() const {
  TF_CHECK(state_ != nullptr, ValueError, "last_bindings", "the runtime was not built");
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->last;
}

std::size_t Runtime::cached_programs() const {
  TF_CHECK(state_ != nullptr, ValueError, "cached_programs", "the runtime was not built");
  return state_->cache.size();
}

std::vector<Tensor> Runtime::run_compiled(const Program& p, const RunInputs& given) const {
  TF_CHECK(state_ != nullptr, ValueError, "run_compiled", "the runtime was not built");
  State& st = *state_;
  // Plan: every check that needs no data happens here, before any kernel runs.
  BoundRun run = bind_inputs(p, given, st.engines);
  const Engine& engine = *run.engine;
  const FamilyKernels family_kernels = check_runnable(p, engine, st.families);
  Signature signature;
  signature.reserve(run.inputs.size());
  for (const Tensor& t : run.inputs) signature.push_back(t.shape());
  CachedRun cached = st.cache.lookup(p, signature, engine.device());
  if (!cached.plan) {
    std::shared_ptr<RunPlan> fresh = plan_run(p, run);
    if (fresh->complete) st.cache.store_plan(p, signature, fresh);
    cached.plan = std::move(fresh);
  }
  // Execute.
  Executor exec(p, engine, family_kernels, run.env);
  for (std::size_t k = 0; k < p.inputs.size(); ++k) exec.slot(p.inputs[k].slot) = std::move(run.inputs[k]);
  // Constants live on the host; a device engine gets them uploaded once.
  bool upload = std::any_of(p.constants.begin(), p.constants.end(),
                            [&](const auto& c) { return c.second.device() != engine.device(); });
  if (upload && !cached.constants) {
    SlotTensors on_device;
    for (const auto& [s, t] : p.constants)
      on_device.push_back({s, t.device() == engine.device() ? t : engine.backend().from_host(t)});
    cached.constants = st.cache.store(p, engine.device(), false, std::move(on_device));
  }
  exec.set(upload ? *cached.constants : p.constants);
  // Hoisted (constant-folded) results are computed once per program and device.
  if (cached.hoisted) exec.set(*cached.hoisted);
  SlotTensors hoisted = exec.run(*cached.plan, cached.hoisted == nullptr);
  if (!cached.hoisted && !hoisted.empty()) st.cache.store(p, engine.device(), true, std::move(hoisted));
  std::vector<Tensor> out = exec.outputs();
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    st.last = std::move(run.env);
  }
  return out;
}

}  // namespace tenferro

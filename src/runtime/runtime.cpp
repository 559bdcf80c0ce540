// Runtime: binding inputs, checking shapes, executing programs.
#include "tenferro/runtime/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <sstream>

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

struct Runtime::State {
  std::uint64_t id = 0;  // distinguishes runtimes in program caches
  std::vector<std::shared_ptr<Engine>> engines;
  std::vector<const OpFamily*> families;
  mutable std::mutex mutex;
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
  static std::atomic<std::uint64_t> next_id{0};
  r.state_ = std::make_shared<State>();
  r.state_->id = ++next_id;
  r.state_->engines = engines_;
  r.state_->families = families_;
  // The families' default kernels join each engine's registry (idempotent).
  for (const auto& e : engines_)
    for (const OpFamily* f : families_) e->backend().kernels().register_family(*f);
  return r;
}

const DimBindings& Runtime::last_bindings() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->last;
}

namespace {

// Rethrows `e` as the same tenferro::Error subclass with context prepended.
[[noreturn]] void rethrow(const Error& e, const std::string& context) {
  std::string m = context + e.what();
  if (dynamic_cast<const ShapeError*>(&e)) throw ShapeError(m);
  if (dynamic_cast<const DTypeError*>(&e)) throw DTypeError(m);
  if (dynamic_cast<const DeviceError*>(&e)) throw DeviceError(m);
  if (dynamic_cast<const IndexError*>(&e)) throw IndexError(m);
  if (dynamic_cast<const ValueError*>(&e)) throw ValueError(m);
  if (dynamic_cast<const UnimplementedError*>(&e)) throw UnimplementedError(m);
  if (dynamic_cast<const BackendError*>(&e)) throw BackendError(m);
  if (dynamic_cast<const InternalError*>(&e)) throw InternalError(m);
  throw Error(e.code(), m);
}

std::string where(const Instruction& ins) {
  std::ostringstream os;
  os << "run_compiled: instruction ";
  for (std::size_t i = 0; i < ins.outputs.size(); ++i) os << (i ? ", " : "") << "%" << ins.outputs[i];
  os << " = " << ins.name() << ": ";
  return os.str();
}

// Binds a symbolic shape to a concrete one (Dim symbols get values; other
// extents must agree).
void bind_shape(const SymShape& sym, const Shape& actual, DimBindings& env, const std::string& what) {
  TF_CHECK(sym.size() == actual.size(), ShapeError, "run_compiled", what, " has shape ", actual,
           " but the program expects rank ", sym.size(), " ", sym);
  for (std::size_t i = 0; i < sym.size(); ++i) {
    const Dim& d = sym[i];
    if (d.is_symbol() && !env.count(d.symbol())) {
      env[d.symbol()] = actual[i];
      continue;
    }
    std::int64_t want = d.evaluate(env);
    TF_CHECK(want == actual[i], ShapeError, "run_compiled", what, " has extent ", actual[i], " on axis ", i,
             " but the program expects ", d, " = ", want, " (shape ", sym, ", bindings so far ",
             [&] {
               std::ostringstream os;
               for (const auto& [k, v] : env) os << k << "=" << v << " ";
               return os.str();
             }(),
             ")");
  }
}

bool all_bound(const SymShape& s, const DimBindings& env) {
  for (const Dim& d : s)
    for (const std::string& v : d.symbols())
      if (!env.count(v)) return false;
  return true;
}

struct Planned {
  Attrs attrs;
  TensorMeta out;
  Strides strides;  // the output layout
  bool ready = false;
};

constexpr std::size_t kMaxPlans = 64;

}  // namespace

struct RunPlan {
  std::vector<Planned> steps;
  bool complete = false;  // every instruction planned (no data-dependent extent)
};

std::vector<Tensor> Runtime::run_compiled(const Program& p, const RunInputs& given) const {
  TF_CHECK(state_ != nullptr, ValueError, "run_compiled", "the runtime was not built");
  // ---- inputs -------------------------------------------------------------------
  std::vector<Tensor> bound(p.inputs.size());
  if (given.by_position()) {
    TF_CHECK(given.positional().size() == p.inputs.size(), ValueError, "run_compiled", "the program takes ",
             p.inputs.size(), " inputs, got ", given.positional().size());
    bound = given.positional();
  } else {
    for (const auto& [name, t] : given.named()) {
      auto it = std::find_if(p.inputs.begin(), p.inputs.end(), [&](const ProgramInput& in) { return in.name == name; });
      TF_CHECK(it != p.inputs.end(), ValueError, "run_compiled", "the program has no input named '", name, "'");
      std::size_t k = static_cast<std::size_t>(it - p.inputs.begin());
      TF_CHECK(!bound[k].defined(), ValueError, "run_compiled", "input '", name, "' is given twice");
      bound[k] = t;
    }
    for (std::size_t k = 0; k < p.inputs.size(); ++k)
      TF_CHECK(bound[k].defined(), ValueError, "run_compiled", "input '", p.inputs[k].name, "' is not bound");
  }
  // ---- engine ---------------------------------------------------------------------
  const State& st = *state_;
  const Engine* engine = st.engines.front().get();
  if (!bound.empty()) {
    Device dev = bound.front().device();
    auto it = std::find_if(st.engines.begin(), st.engines.end(), [&](const auto& e) { return e->device() == dev; });
    TF_CHECK(it != st.engines.end(), DeviceError, "run_compiled", "no engine registered for ", dev);
    engine = it->get();
  }
  Backend& backend = engine->backend();
  DimBindings env;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const ProgramInput& in = p.inputs[k];
    const Tensor& t = bound[k];
    TF_CHECK(t.defined(), ValueError, "run_compiled", "input '", in.name, "' is undefined");
    TF_CHECK(t.dtype() == in.meta.dtype, DTypeError, "run_compiled", "input '", in.name, "' has dtype ",
             t.dtype(), " but the program declares ", in.meta.dtype);
    TF_CHECK(t.device() == engine->device(), DeviceError, "run_compiled", "input '", in.name, "' is on ",
             t.device(), " but engine '", engine->name(), "' runs on ", engine->device());
    bind_shape(in.meta.shape, t.shape(), env, detail::str("input '", in.name, "'"));
  }
  // ---- every instruction runnable here? (kernels chosen once per run) ------------------
  std::vector<std::shared_ptr<const FamilyProviders>> family_kernels(p.code.size());
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instruction& ins = p.code[i];
    if (ins.kind != Instruction::Kind::family) continue;
    bool registered = false;
    for (const OpFamily* f : st.families)
      for (const FamilyOp& o : f->ops) registered = registered || &o == ins.family;
    TF_CHECK(registered, UnimplementedError, where(ins), "its op family is not registered with this runtime ",
             "(Runtime::builder().register_family(...))");
    try {
      family_kernels[i] = find_family_kernels(*ins.family, backend);
    } catch (const Error& e) {
      rethrow(e, where(ins) + "engine '" + engine->name() + "': ");
    }
  }
  // ---- check shapes before any kernel runs (up to the first data-dependent extent) ----
  std::vector<Shape> signature;
  for (const Tensor& t : bound) signature.push_back(t.shape());
  std::shared_ptr<const RunPlan> cached;
  {
    std::lock_guard<std::mutex> lock(p.cache->mutex);
    auto it = p.cache->plans.find(signature);
    if (it != p.cache->plans.end()) cached = it->second;
  }
  if (!cached) {
    auto fresh = std::make_shared<RunPlan>();
    std::vector<Planned>& plan = fresh->steps;
    plan.resize(p.code.size());
    bool complete = true;
  {
    std::vector<TensorMeta> meta(static_cast<std::size_t>(p.num_slots()));
    std::vector<bool> known(static_cast<std::size_t>(p.num_slots()), false);
    for (std::size_t k = 0; k < p.inputs.size(); ++k) {
      meta[static_cast<std::size_t>(p.inputs[k].slot)] = {bound[k].dtype(), bound[k].shape()};
      known[static_cast<std::size_t>(p.inputs[k].slot)] = true;
    }
    for (const auto& [slot, t] : p.constants) {
      meta[static_cast<std::size_t>(slot)] = {t.dtype(), t.shape()};
      known[static_cast<std::size_t>(slot)] = true;
    }
    for (std::size_t i = 0; i < p.code.size(); ++i) {
      const Instruction& ins = p.code[i];
      bool ready = true;
      for (int s : ins.inputs) ready = ready && known[static_cast<std::size_t>(s)];
      if (!ready) {
        complete = false;
        continue;
      }
      std::vector<TensorMeta> in;
      for (int s : ins.inputs) in.push_back(meta[static_cast<std::size_t>(s)]);
      try {
        if (ins.kind == Instruction::Kind::family) {
          std::vector<TensorMeta> out = ins.family->infer(ins.family_attrs, in);
          bool concrete = true;
          for (std::size_t k = 0; k < out.size(); ++k) {
            for (std::int64_t d : out[k].shape) concrete = concrete && d != kDynamicDim;
            if (!concrete) break;
            meta[static_cast<std::size_t>(ins.outputs[k])] = out[k];
          }
          if (concrete)
            for (int o : ins.outputs) known[static_cast<std::size_t>(o)] = true;
          else
            complete = false;
          continue;
        }
        TensorMeta out;
        if (ins.kind == Instruction::Kind::fused) {
          out = {ins.fused.steps.back().dtype, Shape{}};
          // The fused output has the shape of its non-scalar inputs.
          for (const TensorMeta& m : in)
            if (!m.shape.empty()) out.shape = m.shape;
          const SymShape& sym = p.slot_meta[static_cast<std::size_t>(ins.outputs[0])].shape;
          if (all_bound(sym, env)) out.shape = evaluate_shape(sym, env);
          for (const TensorMeta& m : in)
            TF_CHECK(m.shape.empty() || m.shape == out.shape, ShapeError, "fused", "operand shape ", m.shape,
                     " differs from ", out.shape);
        } else {
          // Extents that mention a data-dependent symbol (bound only when
          // the instruction resolving it runs) are planned at execution.
          const SymMeta& sym_out = p.slot_meta[static_cast<std::size_t>(ins.outputs[0])];
          if (!all_bound(sym_out.shape, env) || !attrs_bound(ins.attrs, env)) {
            complete = false;
            continue;
          }
          plan[i].attrs = evaluate_attrs(ins.attrs, env);
          out = infer(ins.op, plan[i].attrs, in);
        }
        plan[i].out = out;
        plan[i].strides = ins.kind == Instruction::Kind::primitive
                              ? ops::preferred_strides(ins.op, plan[i].attrs, out.shape)
                              : col_major_strides(out.shape);
        plan[i].ready = true;
        meta[static_cast<std::size_t>(ins.outputs[0])] = out;
        known[static_cast<std::size_t>(ins.outputs[0])] = true;
      } catch (const Error& e) {
        rethrow(e, where(ins));
      }
    }
  }
    fresh->complete = complete;
    cached = fresh;
    if (complete) {
      std::lock_guard<std::mutex> lock(p.cache->mutex);
      if (p.cache->plans.size() >= kMaxPlans) p.cache->plans.erase(p.cache->plans.begin());
      p.cache->plans.emplace(signature, cached);
    }
  }
  const std::vector<Planned>& plan = cached->steps;
  // ---- execute ------------------------------------------------------------------------
  std::vector<Tensor> slot(static_cast<std::size_t>(p.num_slots()));
  for (std::size_t k = 0; k < p.inputs.size(); ++k) slot[static_cast<std::size_t>(p.inputs[k].slot)] = bound[k];
  // Constants live on the host; a device engine gets them uploaded once per runtime.
  bool upload = std::any_of(p.constants.begin(), p.constants.end(),
                            [&](const auto& c) { return c.second.device() != engine->device(); });
  if (upload) {
    std::lock_guard<std::mutex> lock(p.cache->mutex);
    auto& done = p.cache->uploaded[state_->id];
    if (done.empty())
      for (const auto& [s, t] : p.constants) done.push_back({s, t.device() == engine->device() ? t : backend.from_host(t)});
    for (const auto& [s, t] : done) slot[static_cast<std::size_t>(s)] = t;
  } else {
    for (const auto& [s, t] : p.constants) slot[static_cast<std::size_t>(s)] = t;
  }
  // Hoisted (constant-folded) results are computed once per runtime.
  std::vector<std::pair<int, Tensor>> hoisted_cache;
  bool have_cache = false;
  {
    std::lock_guard<std::mutex> lock(p.cache->mutex);
    auto it = p.cache->hoisted.find(state_->id);
    if (it != p.cache->hoisted.end()) {
      hoisted_cache = it->second;
      have_cache = true;
    }
  }
  if (have_cache)
    for (const auto& [s, t] : hoisted_cache) slot[static_cast<std::size_t>(s)] = t;
  std::vector<std::pair<int, Tensor>> new_hoisted;
  std::vector<Tensor> in;
  for (std::size_t i = 0; i < p.code.size(); ++i) {
    const Instruction& ins = p.code[i];
    if (ins.hoisted && have_cache) continue;
    in.clear();
    for (int s : ins.inputs) in.push_back(slot[static_cast<std::size_t>(s)]);
    try {
      switch (ins.kind) {
        case Instruction::Kind::family: {
          std::vector<Tensor> out = call_family(*ins.family, *family_kernels[i], ins.family_attrs, in, backend);
          for (std::size_t k = 0; k < out.size(); ++k) {
            bind_shape(p.slot_meta[static_cast<std::size_t>(ins.outputs[k])].shape, out[k].shape(), env,
                       detail::str("output ", k));
            slot[static_cast<std::size_t>(ins.outputs[k])] = std::move(out[k]);
          }
          break;
        }
        case Instruction::Kind::primitive:
        case Instruction::Kind::fused: {
          std::unique_ptr<Planned> dynamic;  // only after a data-dependent extent
          const Planned* plp = &plan[i];
          if (!plan[i].ready) {
            dynamic = std::make_unique<Planned>();
            Planned& pl = *dynamic;
            plp = &pl;  // after a data-dependent extent: infer now
            std::vector<TensorMeta> metas;
            for (const Tensor& t : in) metas.push_back({t.dtype(), t.shape()});
            if (ins.kind == Instruction::Kind::primitive) {
              pl.attrs = evaluate_attrs(ins.attrs, env);
              pl.out = infer(ins.op, pl.attrs, metas);
              pl.strides = ops::preferred_strides(ins.op, pl.attrs, pl.out.shape);
            } else {
              pl.out = {ins.fused.steps.back().dtype, Shape{}};
              for (const TensorMeta& m : metas)
                if (!m.shape.empty()) pl.out.shape = m.shape;
              pl.strides = col_major_strides(pl.out.shape);
            }
          }
          const Planned& pl = *plp;
          Tensor out;
          if (ins.kind == Instruction::Kind::primitive && !in.empty())
            if (auto v = ops::eager_view(ins.op, pl.attrs, in[0], pl.out)) out = *std::move(v);
          if (!out.defined()) {
            const Strides& want = pl.strides;
            if (ins.inplace >= 0) {
              Tensor& c = slot[static_cast<std::size_t>(ins.inputs[static_cast<std::size_t>(ins.inplace)])];
              // Reuse only a buffer nothing else refers to, laid out as the output would be.
              if (c.storage().use_count() == 2 && c.offset() == 0 && c.dtype() == pl.out.dtype &&
                  c.shape() == pl.out.shape && c.strides() == want &&
                  c.storage()->nbytes() == static_cast<std::size_t>(c.numel()) * dtype_size(c.dtype()))
                out = c;
            }
            if (!out.defined()) out = backend.empty_strided(pl.out.dtype, pl.out.shape, want);
            if (out.numel() > 0) {
              if (ins.kind == Instruction::Kind::primitive) backend.execute(ins.op, pl.attrs, in, out);
              else backend.execute_fused(ins.fused, in, out);
            }
          }
          slot[static_cast<std::size_t>(ins.outputs[0])] = std::move(out);
          break;
        }
      }
    } catch (const Error& e) {
      rethrow(e, where(ins));
    }
    if (ins.hoisted)
      for (int o : ins.outputs) new_hoisted.push_back({o, slot[static_cast<std::size_t>(o)]});
    for (int s : ins.release) slot[static_cast<std::size_t>(s)] = Tensor();
  }
  if (!have_cache && !new_hoisted.empty()) {
    std::lock_guard<std::mutex> lock(p.cache->mutex);
    p.cache->hoisted.emplace(state_->id, std::move(new_hoisted));
  }
  std::vector<Tensor> out;
  for (int s : p.outputs) out.push_back(slot[static_cast<std::size_t>(s)]);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->last = env;
  }
  return out;
}

}  // namespace tenferro

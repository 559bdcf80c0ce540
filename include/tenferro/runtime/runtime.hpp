#pragma once
/// \file
/// `Runtime`: runs compiled programs on explicitly registered engines.
///
/// ```cpp
/// CpuBackend backend;
/// Runtime runtime = Runtime::builder()
///                       .register_engine(cpu_engine(backend))
///                       .register_family(linalg::family())   // op families a program may use
///                       .build();
/// std::vector<Tensor> out = runtime.run_compiled(program, {{"x", x}});
/// std::vector<Tensor> out2 = runtime.run_compiled(program, std::vector<Tensor>{x});  // by position
/// ```
/// A run binds the symbolic extents from the inputs (an inconsistent binding
/// is an error before any kernel runs), checks every instruction's shapes
/// (concrete inference) and then executes. Extents produced by data (e.g. a
/// truncated SVD's rank) are bound when their instruction runs, and the
/// instructions after it see them. Nothing is recompiled when extents change
/// between runs. A failed run leaves the runtime and the program usable.
/// An error raised by an instruction keeps its type (a singular traced
/// `linalg::solve` throws `LinalgError` with its batch index and info); the
/// message is prefixed with the instruction (`run_compiled: instruction %3 =
/// linalg.solve: ...`).
///
/// **Caches.** The runtime (not the program) caches, per program identity
/// (`Program::id()`): the results of hoisted (constant-folded) instructions,
/// constants uploaded to a device engine, and the checked plans of runs keyed
/// by the input shapes. At most `kMaxCachedPrograms` programs and, per
/// program, `kMaxPlansPerProgram` shape signatures are kept, least recently
/// used evicted first; the entry of a program whose every copy is destroyed is
/// dropped at the runtime's next cache miss (or after at most
/// `kSweepInterval` runs), so a dead program pins nothing for long.
/// Copies of a `Runtime` share its engines and caches.
///
/// **Threads.** `run_compiled` may be called on one `Runtime` (or its copies)
/// from several threads at once, with the same or different programs and
/// inputs: each run keeps its bindings and buffers to itself and the caches
/// are locked. The engines' backends must allow concurrent calls (the CPU
/// backend does). `last_bindings()` then reports whichever run finished last.
///
/// ```cpp
/// std::vector<std::thread> workers;
/// for (std::int64_t n : {2, 5, 9})
///   workers.emplace_back([&, n] { runtime.run_compiled(program, {{"x", Tensor::zeros({n, 3}, DType::f64)}}); });
/// for (auto& w : workers) w.join();
/// ```

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/family.hpp"
#include "tenferro/runtime/program.hpp"

namespace tenferro {

/// What executes instructions: a backend and its device.
class Engine {
 public:
  Engine(Backend& backend, std::string name) : backend_(&backend), name_(std::move(name)) {}
  Backend& backend() const { return *backend_; }
  Device device() const { return backend_->device(); }
  const std::string& name() const { return name_; }

 private:
  Backend* backend_;
  std::string name_;
};

/// An engine over a CPU backend (DeviceError for another device).
std::shared_ptr<Engine> cpu_engine(Backend& backend);
/// An engine over any backend.
std::shared_ptr<Engine> backend_engine(Backend& backend);

/// The inputs of a run, by name or by position.
class RunInputs {
 public:
  RunInputs() = default;
  RunInputs(std::initializer_list<std::pair<std::string, Tensor>> named) : named_(named) {}
  RunInputs(std::vector<std::pair<std::string, Tensor>> named) : named_(std::move(named)) {}
  RunInputs(std::vector<Tensor> positional) : positional_(std::move(positional)), by_position_(true) {}

  bool by_position() const { return by_position_; }
  const std::vector<std::pair<std::string, Tensor>>& named() const { return named_; }
  const std::vector<Tensor>& positional() const { return positional_; }

 private:
  std::vector<std::pair<std::string, Tensor>> named_;
  std::vector<Tensor> positional_;
  bool by_position_ = false;
};

class Runtime {
 public:
  class Builder {
   public:
    Builder& register_engine(std::shared_ptr<Engine> engine);
    /// Makes the ops of `family` runnable (the family must outlive the runtime).
    Builder& register_family(const OpFamily& family);
    Runtime build() const;

   private:
    std::vector<std::shared_ptr<Engine>> engines_;
    std::vector<const OpFamily*> families_;
  };

  static Builder builder() { return Builder(); }

  /// Programs whose cache entries a runtime keeps (least recently used evicted).
  static constexpr std::size_t kMaxCachedPrograms = 64;
  /// Input-shape signatures whose run plans are kept per program (LRU).
  static constexpr std::size_t kMaxPlansPerProgram = 64;
  /// Runs between two sweeps of cache entries of destroyed programs (a miss
  /// also sweeps).
  static constexpr std::size_t kSweepInterval = 256;

  /// Runs `program`; returns its outputs in order. Thread-safe (see above).
  std::vector<Tensor> run_compiled(const Program& program, const RunInputs& inputs = {}) const;

  /// Symbol values of the most recent successful run (for inspection), copied
  /// under the runtime's lock.
  DimBindings last_bindings() const;

  /// How many programs have a cache entry now (for inspection and tests).
  std::size_t cached_programs() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tenferro

#pragma once
/// \file
/// `KernelRegistry`: the one place where kernels live, for primitives and
/// family ops alike, keyed by (op, device kind). Each key holds a list of
/// named providers; a call runs the first provider that accepts it.
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;                                  // registers its kernels ("cpu")
/// // An outside provider for f32 dot_general only, tried before the default:
/// cpu.kernels().add(OpKind::dot_general, DeviceKind::cpu, "blis",
///                   [](OpKind, const Attrs& a, std::span<const Tensor> in, const Tensor& out,
///                      Backend&) {
///                     if (out.dtype() != DType::f32) return false;   // decline: "cpu" runs it
///                     blis_dot_general(std::get<DotGeneralAttrs>(a), in[0], in[1], out);
///                     return true;
///                   });
/// Tensor c = matmul(a, b, cpu);                     // f32: blis; f64: cpu
/// // A family op's kernel (the op object is the key, never its name):
/// cpu.kernels().add(my_family.op("demo.twice"), DeviceKind::cpu, "demo",
///                   [](const FamilyAttrs&, std::span<const Tensor> in, Backend& b) {
///                     return std::vector<Tensor>{add(in[0], in[0], b)};
///                   });
/// ```
///
/// Note [Kernel provider order]
/// Providers registered later run first: a backend registers its own
/// kernels when it is constructed, so any provider added afterwards (BLIS,
/// an experimental kernel, a test double) is tried before the default and
/// may decline to fall back to it. A primitive kernel declines by returning
/// `false` without writing `output`; a family kernel by returning
/// `std::nullopt` without side effects. A kernel that returns `void` (or a
/// plain `std::vector<Tensor>`) always accepts. When every provider declines
/// or none is registered, the call throws `UnimplementedError` naming the
/// op, the device kind and the providers that declined.
///
/// Filling: explicitly, never by static initialisers. A backend registers
/// its primitive kernels in its constructor; a family's default kernels are
/// registered by `register_family` (which runs `OpFamily::register_kernels`
/// once per family and registry), called by `Runtime::builder()` for its
/// engines' backends and by `call_family` on first use of a family op.
///
/// Threads: family kernels may be added while other threads run ops (the
/// family table is guarded). Primitive providers are read without a lock on
/// the per-op fast path: add them before the backend runs ops concurrently.
/// Families must outlive the registries they were registered with (family
/// ops are keyed by address; families are normally function-local statics).

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/family.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro {

/// A primitive kernel: writes `output` (preallocated with the inferred
/// shape and dtype, any dense layout; see tenferro/ops/backend.hpp) from
/// `inputs`. Returns false to decline, leaving `output` untouched.
using PrimitiveKernel = std::function<bool(OpKind op, const Attrs& attrs, std::span<const Tensor> inputs,
                                           const Tensor& output, Backend& backend)>;
/// A family-op kernel: the outputs (fresh tensors on `backend`'s device,
/// shaped as `FamilyOp::infer` says), or `std::nullopt` to decline.
using FamilyKernel = std::function<std::optional<std::vector<Tensor>>(
    const FamilyAttrs& attrs, std::span<const Tensor> inputs, Backend& backend)>;

/// One named provider of a kernel.
template <class Kernel>
struct KernelProvider {
  std::string name;  ///< "cpu", "cuda", "blis", "pocketfft", ...
  Kernel kernel;
};
/// The providers of one (op, device kind), in the order they are tried.
using PrimitiveProviders = std::vector<KernelProvider<PrimitiveKernel>>;
using FamilyProviders = std::vector<KernelProvider<FamilyKernel>>;

class KernelRegistry {
 public:
  KernelRegistry() = default;
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  /// Adds provider `provider` of primitive `op` on `device`, tried before
  /// the providers already there. `kernel(op, attrs, inputs, output,
  /// backend)` returns `bool` (false: decline) or `void` (always accepts).
  template <class Kernel>
  void add(OpKind op, DeviceKind device, std::string provider, Kernel kernel) {
    add_primitive(op, device, std::move(provider), as_primitive_kernel(std::move(kernel)));
  }
  /// The same provider for each of `ops` (a provider covering a subset).
  template <class Kernel>
  void add(std::initializer_list<OpKind> ops, DeviceKind device, const std::string& provider, Kernel kernel) {
    PrimitiveKernel k = as_primitive_kernel(std::move(kernel));
    for (OpKind op : ops) add_primitive(op, device, provider, k);
  }
  /// Adds provider `provider` of family op `op` on `device`, tried first.
  /// `kernel(attrs, inputs, backend)` returns `std::optional<std::vector<Tensor>>`
  /// (nullopt: decline) or `std::vector<Tensor>` (always accepts).
  template <class Kernel>
  void add(const FamilyOp& op, DeviceKind device, std::string provider, Kernel kernel) {
    add_family_kernel(op, device, std::move(provider), as_family_kernel(std::move(kernel)));
  }

  /// Runs `family.register_kernels(family, *this)` unless this family
  /// object was registered here before (idempotent, thread-safe).
  void register_family(const OpFamily& family);

  /// The providers of primitive `op` on `device` in the order they are
  /// tried (empty when none); the per-op fast path, without a lock.
  const PrimitiveProviders& providers(OpKind op, DeviceKind device) const noexcept {
    return primitive_[index(op, device)];
  }
  /// The providers of family op `op` on `device` (a snapshot; nullptr when
  /// none). Registers `op`'s family first when it was not yet (see
  /// `FamilyOp::family`), so its default kernels come after any provider
  /// added for the op beforehand.
  std::shared_ptr<const FamilyProviders> providers(const FamilyOp& op, DeviceKind device);
  /// Provider names in the order they are tried (for messages and tests).
  std::vector<std::string> provider_names(OpKind op, DeviceKind device) const;
  std::vector<std::string> provider_names(const FamilyOp& op, DeviceKind device);

  /// Runs primitive `op` into `output` through the first provider that
  /// accepts; UnimplementedError naming op, device and providers otherwise.
  void run(OpKind op, DeviceKind device, const Attrs& attrs, std::span<const Tensor> inputs,
           const Tensor& output, Backend& backend) const {
    detail::apply_num_threads();  // Note [One thread setting] (tenferro/ops/backend.hpp)
    for (const auto& p : primitive_[index(op, device)])
      if (p.kernel(op, attrs, inputs, output, backend)) return;
    throw_declined(op, device);
  }

 private:
  static constexpr std::size_t kNumDeviceKinds = 3;  // DeviceKind::cpu, cuda, webgpu
  static std::size_t index(OpKind op, DeviceKind device) noexcept {
    return static_cast<std::size_t>(op) * kNumDeviceKinds + static_cast<std::size_t>(device);
  }
  template <class Kernel>
  static PrimitiveKernel as_primitive_kernel(Kernel kernel) {
    using R = std::invoke_result_t<Kernel&, OpKind, const Attrs&, std::span<const Tensor>, const Tensor&, Backend&>;
    if constexpr (std::is_void_v<R>)
      return [k = std::move(kernel)](OpKind op, const Attrs& a, std::span<const Tensor> in, const Tensor& out,
                                     Backend& b) {
        k(op, a, in, out, b);
        return true;
      };
    else
      return PrimitiveKernel(std::move(kernel));
  }
  template <class Kernel>
  static FamilyKernel as_family_kernel(Kernel kernel) {
    using R = std::invoke_result_t<Kernel&, const FamilyAttrs&, std::span<const Tensor>, Backend&>;
    if constexpr (std::is_same_v<std::remove_cvref_t<R>, std::vector<Tensor>>)
      return [k = std::move(kernel)](const FamilyAttrs& a, std::span<const Tensor> in, Backend& b) {
        return std::optional<std::vector<Tensor>>(k(a, in, b));
      };
    else
      return FamilyKernel(std::move(kernel));
  }
  void add_primitive(OpKind op, DeviceKind device, std::string provider, PrimitiveKernel kernel);
  void add_family_kernel(const FamilyOp& op, DeviceKind device, std::string provider, FamilyKernel kernel);
  [[noreturn]] void throw_declined(OpKind op, DeviceKind device) const;

  struct FamilyKey {
    const FamilyOp* op;
    DeviceKind device;
    bool operator==(const FamilyKey&) const = default;
  };
  struct FamilyKeyHash {
    std::size_t operator()(const FamilyKey& k) const noexcept {
      return std::hash<const void*>()(k.op) * 31 + static_cast<std::size_t>(k.device);
    }
  };

  std::array<PrimitiveProviders, static_cast<std::size_t>(kNumOps) * kNumDeviceKinds> primitive_{};
  mutable std::shared_mutex family_mutex_;
  std::unordered_map<FamilyKey, std::shared_ptr<const FamilyProviders>, FamilyKeyHash> family_;
  std::recursive_mutex registration_mutex_;  // held while a family registers its kernels (which may re-enter)
  std::unordered_set<const OpFamily*> registered_;
};

/// The providers that run family op `op` on `backend` (registering its
/// family first when needed); UnimplementedError naming the op and the
/// device when there is none. The runtime chooses each instruction's
/// kernels with this once per run.
std::shared_ptr<const FamilyProviders> find_family_kernels(const FamilyOp& op, Backend& backend);

/// `call_family` (tenferro/ops/family.hpp) with the providers already
/// chosen by `find_family_kernels`.
std::vector<Tensor> call_family(const FamilyOp& op, const FamilyProviders& providers, const FamilyAttrs& attrs,
                                std::span<const Tensor> inputs, Backend& backend);

}  // namespace tenferro

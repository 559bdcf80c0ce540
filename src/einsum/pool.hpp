#pragma once
// Internal: Note [Einsum buffer reuse]. Buffers of megabytes come from the
// system allocator as fresh pages that must be faulted in and zeroed on
// every call; repeated einsums through one EinsumCache instead recycle the
// storages their intermediates and (once the caller drops them) results
// used, matched by exact byte size. The pool holds at most `max_bytes`;
// storages outlive the pool safely (their deleter only holds a weak_ptr).
#include <map>
#include <memory>
#include <mutex>

#include "tenferro/ops/backend.hpp"

namespace tenferro::detail {

class BufferPool {
 public:
  explicit BufferPool(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  /// A pooled storage of exactly `nbytes`, or nullptr.
  std::shared_ptr<Storage> take(std::size_t nbytes);
  /// Keeps `s` for reuse if the budget allows.
  void give(std::shared_ptr<Storage> s);
  std::size_t held_bytes() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  std::multimap<std::size_t, std::shared_ptr<Storage>> free_;
  std::size_t held_ = 0, max_bytes_;
};

/// `inner` with allocations served from (and returned to) `pool`; every
/// other call goes to `inner`, and both share `inner`'s kernel registry.
class PooledBackend final : public Backend {
 public:
  PooledBackend(Backend& inner, std::shared_ptr<BufferPool> pool)
      : Backend(SharingKernelsOf{inner}), inner_(inner), pool_(std::move(pool)) {}
  std::string_view name() const override { return inner_.name(); }
  Device device() const override { return inner_.device(); }
  std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) override;
  void execute(OpKind kind, const Attrs& attrs, std::span<const Tensor> inputs,
               const Tensor& output) override {
    inner_.execute(kind, attrs, inputs, output);
  }
  // Forwarded too: the defaults would bypass `inner`'s single-pass fused
  // kernel and its device upload.
  void execute_fused(const FusedElementwise& kernel, std::span<const Tensor> inputs,
                     const Tensor& output) override {
    inner_.execute_fused(kernel, inputs, output);
  }
  Tensor from_host(const Tensor& host) override { return inner_.from_host(host); }

 private:
  Backend& inner_;
  std::shared_ptr<BufferPool> pool_;
};

}  // namespace tenferro::detail

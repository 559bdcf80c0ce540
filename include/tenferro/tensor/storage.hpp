#pragma once
/// \file
/// `Storage`: the single owner of one memory allocation.
///
/// A `Storage` owns its buffer and frees it exactly once, through the
/// deleter it was created with. Tensors and views hold a counted reference to
/// their storage (`std::shared_ptr<Storage>`), so a view keeps the buffer
/// alive but never owns a second copy of it; copying data is always explicit
/// (`Tensor::duplicate()`, `Tensor::contiguous()`).
///
/// ```cpp
/// auto s = tenferro::Storage::allocate_host(64);   // 64 bytes, 64-byte aligned
/// std::memset(s->data(), 0, s->nbytes());
/// ```

#include <cstddef>
#include <memory>

#include "tenferro/tensor/device.hpp"

namespace tenferro {

class Storage {
 public:
  /// Frees `data` (of `nbytes`) given the `context` the storage was created with.
  using Deleter = void (*)(void* data, std::size_t nbytes, void* context);

  /// Takes ownership of `data`; `deleter(data, nbytes, context)` runs once on
  /// destruction. `keep_alive` is held until then (e.g. the allocator).
  Storage(void* data, std::size_t nbytes, Device device, Deleter deleter, void* context,
          std::shared_ptr<void> keep_alive = nullptr);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  /// Uninitialised host memory, 64-byte aligned (null when `nbytes == 0`).
  /// A request over the host memory limit throws `MemoryError` naming `op`.
  static std::shared_ptr<Storage> allocate_host(std::size_t nbytes, const char* op = "allocate");

  void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  void* data_;
  std::size_t nbytes_;
  Device device_;
  Deleter deleter_;
  void* context_;
  std::shared_ptr<void> keep_alive_;
};

/// Note [Host memory limit]: every host buffer tenferro allocates (tensors,
/// kernel scratch, contraction intermediates, file contents) goes through
/// one function, which refuses a request that cannot be met with a
/// `MemoryError` naming the op, the bytes requested and the limit, before
/// any memory is touched, so an oversized contraction or factory fails
/// cleanly instead of being killed by the kernel's OOM killer later.
///
/// By default (limit 0) a request is held to the memory available when it is
/// made: Linux's MemAvailable (else the physical memory), and the process's
/// RLIMIT_AS / RLIMIT_DATA when they are set. `set_host_memory_limit(n)`
/// instead gives tenferro a budget of `n` bytes for all its live host
/// buffers together (the CPU backend's buffer cache included):
///
/// ```cpp
/// tenferro::set_host_memory_limit(std::size_t{1} << 30);   // 1 GiB for tenferro
/// auto a = tenferro::Tensor::zeros({8192, 8192});           // 512 MiB: fine
/// auto b = tenferro::Tensor::zeros({8192, 16384});          // MemoryError: 1 GiB asked, 512 MiB left
/// tenferro::set_host_memory_limit(0);                       // back to the available memory
/// ```
/// Thread-safe; the budget counts bytes, not pages.
void set_host_memory_limit(std::size_t bytes);
/// The budget set by `set_host_memory_limit` (0: the default rule).
std::size_t host_memory_limit();
/// Bytes of host buffers tenferro holds now.
std::size_t host_memory_in_use();

namespace detail {
/// Host memory as `Storage::allocate_host` gets it (64-byte aligned; 2 MiB
/// aligned and offered to transparent huge pages from 4 MiB up), and its
/// release (`nbytes` must be the allocated size). Checks the limit (Note
/// [Host memory limit]); `op` names the requester in the error.
void* allocate_host_bytes(std::size_t nbytes, const char* op = "allocate");
void free_host_bytes(void* p, std::size_t nbytes);
}  // namespace detail

}  // namespace tenferro

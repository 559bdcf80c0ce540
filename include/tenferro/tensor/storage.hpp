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
  static std::shared_ptr<Storage> allocate_host(std::size_t nbytes);

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

namespace detail {
/// Host memory as `Storage::allocate_host` gets it (64-byte aligned; 2 MiB
/// aligned and offered to transparent huge pages from 4 MiB up), and its
/// release (`nbytes` must be the allocated size).
void* allocate_host_bytes(std::size_t nbytes);
void free_host_bytes(void* p, std::size_t nbytes);
}  // namespace detail

}  // namespace tenferro

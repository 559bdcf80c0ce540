// Note [Einsum buffer reuse] (pool.hpp).
#include "pool.hpp"

namespace tenferro::detail {

std::shared_ptr<Storage> BufferPool::take(std::size_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = free_.find(nbytes);
  if (it == free_.end()) return nullptr;
  std::shared_ptr<Storage> s = std::move(it->second);
  free_.erase(it);
  held_ -= nbytes;
  return s;
}

void BufferPool::give(std::shared_ptr<Storage> s) {
  const std::size_t n = s->nbytes();
  std::lock_guard<std::mutex> lock(mutex_);
  if (held_ + n > max_bytes_) return;  // s is freed here
  held_ += n;
  free_.emplace(n, std::move(s));
}

std::size_t BufferPool::held_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

void BufferPool::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.clear();
  held_ = 0;
}

std::shared_ptr<Storage> PooledBackend::allocate_storage(std::size_t nbytes) {
  std::shared_ptr<Storage> s = nbytes > 0 ? pool_->take(nbytes) : nullptr;
  if (!s) s = inner_.allocate_storage(nbytes);
  Storage* raw = s.get();
  std::weak_ptr<BufferPool> pool = pool_;
  // The handle given out shares nothing with `s`: when the last tensor on it
  // goes, the storage returns to the pool (if the pool still exists).
  return std::shared_ptr<Storage>(raw, [pool, s = std::move(s)](Storage*) mutable {
    if (auto p = pool.lock()) p->give(std::move(s));
  });
}

}  // namespace tenferro::detail

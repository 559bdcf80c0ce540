// Note [Buffer cache] (buffer_cache.hpp).
#include "buffer_cache.hpp"

#include <cstdlib>
#include <utility>

#include "tenferro/tensor/error.hpp"

namespace tenferro::cpu {
namespace {
constexpr std::size_t kMinCached = std::size_t{128} << 10;
// A request with no kept buffer of its size takes the smallest kept one of
// up to 1.5 times its size (Note [Buffer cache]).
std::size_t fit_limit(std::size_t nbytes) { return nbytes + nbytes / 2; }
}

std::size_t default_cache_limit() {
  if (const char* mb = std::getenv("TENFERRO_CPU_CACHE_MB")) return static_cast<std::size_t>(std::atoll(mb)) << 20;
  return std::size_t{1} << 30;
}

BufferCache::BufferCache(std::size_t limit_bytes) : limit_(limit_bytes) {}

BufferCache::~BufferCache() { clear(); }

std::size_t BufferCache::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_;
}

std::size_t BufferCache::clear() {
  std::map<std::size_t, std::vector<void*>> cached;
  std::size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cached.swap(free_);
    std::swap(bytes, cached_);
  }
  for (auto& [size, list] : cached)
    for (void* p : list) detail::free_host_bytes(p, size);
  return bytes;
}

std::shared_ptr<Storage> BufferCache::allocate(std::size_t nbytes) {
  if (nbytes < kMinCached || limit_ == 0) return Storage::allocate_host(nbytes, "cpu buffer");
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Lists are erased when emptied, so the first one in range has a buffer.
    auto it = free_.lower_bound(nbytes);
    if (it != free_.end() && it->first <= fit_limit(nbytes)) {
      const std::size_t size = it->first;
      p = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) free_.erase(it);
      cached_ -= size;
      if (size != nbytes) oversized_.emplace(p, size);
    }
  }
  if (p == nullptr) {
    try {
      p = detail::allocate_host_bytes(nbytes, "cpu buffer");
    } catch (const MemoryError&) {
      // Over the host memory limit (Note [Host memory limit]): the buffers
      // this cache keeps count against it, so give them back and ask once more.
      if (clear() == 0) throw;
      p = detail::allocate_host_bytes(nbytes, "cpu buffer");
    }
  }
  return std::make_shared<Storage>(p, nbytes, Device::cpu(), &BufferCache::release, this, shared_from_this());
}

void BufferCache::release(void* data, std::size_t nbytes, void* context) {
  auto* self = static_cast<BufferCache*>(context);
  {
    std::lock_guard<std::mutex> lock(self->mutex_);
    if (!self->oversized_.empty()) {
      auto it = self->oversized_.find(data);
      if (it != self->oversized_.end()) {
        nbytes = it->second;  // the buffer's own size, not the request's
        self->oversized_.erase(it);
      }
    }
    if (self->cached_ + nbytes <= self->limit_) {
      self->free_[nbytes].push_back(data);
      self->cached_ += nbytes;
      return;
    }
  }
  detail::free_host_bytes(data, nbytes);
}

}  // namespace tenferro::cpu

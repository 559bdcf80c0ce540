// Note [Buffer cache] (buffer_cache.hpp).
#include "buffer_cache.hpp"

#include <algorithm>
#include <cstdlib>

#include "tenferro/tensor/error.hpp"

namespace tenferro::cpu {
namespace {
constexpr std::size_t kMinCached = std::size_t{128} << 10;
constexpr std::size_t kMinDefaultLimit = std::size_t{1} << 30;
constexpr std::size_t kShareOfAvailable = 4;
}

std::size_t default_cache_limit() {
  if (const char* mb = std::getenv("TENFERRO_CPU_CACHE_MB")) return static_cast<std::size_t>(std::atoll(mb)) << 20;
  return std::max(kMinDefaultLimit, detail::host_memory_available() / kShareOfAvailable);
}

BufferCache::BufferCache(std::size_t limit_bytes) : limit_(limit_bytes) {}

BufferCache::~BufferCache() { clear(); }

std::size_t BufferCache::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_;
}

void BufferCache::evict_for(std::size_t nbytes, std::vector<Block>& out) {
  while (!kept_.empty() && cached_ + nbytes > limit_) {
    const Block b = kept_.front();
    auto& same = by_size_[b.nbytes];
    same.erase(same.begin());  // the oldest of its size
    if (same.empty()) by_size_.erase(b.nbytes);
    kept_.pop_front();
    cached_ -= b.nbytes;
    out.push_back(b);
  }
}

void BufferCache::clear() {
  std::list<Block> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept.swap(kept_);
    by_size_.clear();
    cached_ = 0;
  }
  for (const Block& b : kept) detail::free_host_bytes(b.data, b.nbytes);
}

std::shared_ptr<Storage> BufferCache::allocate(std::size_t nbytes) {
  if (nbytes < kMinCached || limit_ == 0) return Storage::allocate_host(nbytes, "cpu buffer");
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_size_.find(nbytes);
    if (it != by_size_.end()) {
      p = it->second.back()->data;  // the newest of its size
      kept_.erase(it->second.back());
      it->second.pop_back();
      if (it->second.empty()) by_size_.erase(it);
      cached_ -= nbytes;
    }
  }
  if (p == nullptr) {
    try {
      p = detail::allocate_host_bytes(nbytes, "cpu buffer");
    } catch (const MemoryError&) {
      // Over the host memory limit (Note [Host memory limit]): the buffers
      // this cache keeps count against it, so give them back and ask once more.
      if (cached_bytes() == 0) throw;
      clear();
      p = detail::allocate_host_bytes(nbytes, "cpu buffer");
    }
  }
  return std::make_shared<Storage>(p, nbytes, Device::cpu(), &BufferCache::release, this, shared_from_this());
}

void BufferCache::release(void* data, std::size_t nbytes, void* context) {
  auto* self = static_cast<BufferCache*>(context);
  std::vector<Block> evicted;
  bool kept = false;
  {
    std::lock_guard<std::mutex> lock(self->mutex_);
    if (nbytes <= self->limit_) {
      // The newest release is kept; the oldest make room (Note [Buffer cache]).
      self->evict_for(nbytes, evicted);
      self->by_size_[nbytes].push_back(self->kept_.insert(self->kept_.end(), Block{data, nbytes}));
      self->cached_ += nbytes;
      kept = true;
    }
  }
  for (const Block& b : evicted) detail::free_host_bytes(b.data, b.nbytes);
  if (!kept) detail::free_host_bytes(data, nbytes);
}

}  // namespace tenferro::cpu

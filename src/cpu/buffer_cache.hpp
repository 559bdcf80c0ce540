#pragma once
// Reuse of large host buffers by the CPU backend.
//
// Note [Buffer cache]: fresh allocations from glibc's mmap threshold (128
// KiB) up come from mmap and are zero-filled page by page on first touch,
// which costs as much as a pass over the data (far more in a virtual
// machine). Programs run in loops ask for the same sizes again and again, so
// released buffers of 128 KiB or more are kept (up to a byte limit,
// TENFERRO_CPU_CACHE_MB, by default a quarter of the memory available when
// the backend is made, at least 1 GiB) and handed out again for the same
// size, the newest release of that size first. A release that does not fit
// under the limit is kept, and the buffers released longest ago are freed
// to make room (a buffer larger than the limit itself is freed). Smaller
// buffers go to malloc directly. `CpuBackend::empty_cache`
// gives the kept buffers back, and a request over the host memory limit
// (Note [Host memory limit]) does so before it fails. The limit was 1 MiB
// until grad of cholesky over 64 matrices of 16 x 16 (128 KiB tensors) was
// seen to run at 0.23 or 0.47 ms depending on the process's address layout:
// the slow runs faulted pages in on every call. It was a fixed 1 GiB until
// gm_queen5_5_3 along our path (a 988 MB intermediate beside three of 332
// MB, 2 GB of distinct sizes) was seen to fault its largest buffer in on
// every call, which a 1 GiB cache holding the others could not keep: 1.24 s
// a call on one core, 0.67 s with 4 GiB. Until then a release that did not
// fit was freed, so buffers of sizes no longer asked for (an earlier
// contraction's) held the cache and the new ones were faulted in on every
// call: gm_queen5_5_3 along our path after the two stored paths in one
// process, 0.91 s a call, 0.73-0.79 s with the oldest freed first. The
// price: a loop whose buffers add up to more than the limit finds, of
// those released early in a pass, fewer kept than before.
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tenferro/tensor/storage.hpp"

namespace tenferro::cpu {

class BufferCache : public std::enable_shared_from_this<BufferCache> {
 public:
  explicit BufferCache(std::size_t limit_bytes);
  ~BufferCache();
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;

  std::shared_ptr<Storage> allocate(std::size_t nbytes);
  /// Bytes held for reuse.
  std::size_t cached_bytes() const;
  /// Frees the buffers held for reuse.
  void clear();

 private:
  struct Block {
    void* data;
    std::size_t nbytes;
  };
  static void release(void* data, std::size_t nbytes, void* context);
  /// Takes the oldest kept blocks out until `nbytes` more fit; the caller frees them.
  void evict_for(std::size_t nbytes, std::vector<Block>& out);
  mutable std::mutex mutex_;
  std::list<Block> kept_;  // oldest release first
  std::unordered_map<std::size_t, std::vector<std::list<Block>::iterator>> by_size_;  // newest last
  std::size_t cached_ = 0;
  std::size_t limit_;
};

/// The default limit: TENFERRO_CPU_CACHE_MB, else a quarter of the memory
/// available when it is called, at least 1 GiB.
std::size_t default_cache_limit();

}  // namespace tenferro::cpu

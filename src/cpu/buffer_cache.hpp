#pragma once
// Reuse of large host buffers by the CPU backend.
//
// Note [Buffer cache]: fresh allocations from glibc's mmap threshold (128
// KiB) up come from mmap and are zero-filled page by page on first touch,
// which costs as much as a pass over the data (far more in a virtual
// machine). Programs run in loops ask for the same sizes again and again, so
// released buffers of 128 KiB or more are kept (up to a byte limit,
// TENFERRO_CPU_CACHE_MB, default 1024) and handed out again for the same
// size. Smaller buffers go to malloc directly. `CpuBackend::empty_cache`
// gives the kept buffers back, and so does a request over the host memory
// limit (Note [Host memory limit]) before it fails. The limit was 1 MiB
// until grad of cholesky over 64 matrices of 16 x 16 (128 KiB tensors) was
// seen to run at 0.23 or 0.47 ms depending on the process's address layout:
// the slow runs faulted pages in on every call.
//
// A larger default (a quarter of the available memory) was tried and not
// kept. Under 1 GiB, gm_queen5_5_3 along our path faults its 988 MB
// intermediate in on every call, the cache being full of its 332 MB
// buffers: 1.24 s a call on one core, 0.67 s with 4 GiB (bench_peer, that
// case alone). But in a process that ran other contractions first, a large
// cache full of their buffers leaves the new ones fresh and, by Note [Huge
// pages], on small pages for good: str_nw_mera_open_26 along opt_flops after
// str_nw_mera_closed_120, 2.2-2.5 s a call against 0.7. Freeing the oldest
// kept buffers on a miss cured that and made gm_queen5_5_3 thrash (1.34-1.44
// s), since its misses then freed the buffers of its next call.
#include <cstddef>
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
  /// Frees the buffers held for reuse; returns their bytes.
  std::size_t clear();

 private:
  static void release(void* data, std::size_t nbytes, void* context);
  mutable std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;
  std::size_t cached_ = 0;
  std::size_t limit_;
};

/// The default limit (TENFERRO_CPU_CACHE_MB, else 1 GiB).
std::size_t default_cache_limit();

}  // namespace tenferro::cpu

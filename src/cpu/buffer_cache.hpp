#pragma once
// Reuse of large host buffers by the CPU backend.
//
// Note [Buffer cache]: fresh allocations from glibc's mmap threshold (128
// KiB) up come from mmap and are zero-filled page by page on first touch,
// which costs as much as a pass over the data (far more in a virtual
// machine). Programs run in loops ask for the same sizes again and again, so
// released buffers of 128 KiB or more are kept (up to a byte limit,
// TENFERRO_CPU_CACHE_MB, default 1024) and handed out again for the same
// size (or a somewhat smaller one, below). Smaller buffers go to malloc
// directly. `CpuBackend::empty_cache` gives the kept buffers back, and so
// does a request over the host memory limit (Note [Host memory limit])
// before it fails. The limit was 1 MiB until grad of cholesky over 64
// matrices of 16 x 16 (128 KiB tensors) was seen to run at 0.23 or 0.47 ms
// depending on the process's address layout: the slow runs faulted pages in
// on every call.
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
//
// A request with no kept buffer of its size takes the smallest kept one of
// up to 1.5 times its size (the storage reports the size requested; the
// buffer comes back, or is freed, as its own size). Exact sizes alone left a
// cache filled by earlier work useless to a new contraction:
// str_nw_mera_closed_120 along opt_flops, after the cases before it in
// bench_peer's einsum suite, asked for 2147 MB of fresh memory in its two
// calls, 293 MB with this rule (the cache's requests logged and replayed
// offline); one pinned core, old and new binaries alternating: first call
// 1.94-2.11 s -> 1.50-1.65 s, second 1.30-1.39 -> 1.11-1.16 s; at two
// threads the same suite ran 27.1 -> 25.9 s, str_nw_mera_closed_120 along
// our path 0.72 -> 0.52 s a call. Its cost: str_nw_mera_open_26, whose
// intermediates now take buffers another size needs next, faults about 100
// MB in each call and runs 4-5 % slower (0.69 -> 0.72 s, one core; along
// opt_flops at two threads 0.37 -> 0.42 s in the peer reports of 2026-12-07
// 21:55 and 2026-12-08 00:10, still 1.31 times the best peer). Tried and
// not kept: up to twice the size (less fresh memory in that case, 159 MB,
// more over the suite, 8.2 GB against 7.7), and freeing kept buffers idle
// for a second to make room for a released one (fewer misses in loops, but
// the first call above 1.77-1.83 s: memory given back must be backed by the
// host again, Note [Huge pages]).
#include <cstddef>
#include <map>
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
  std::map<std::size_t, std::vector<void*>> free_;    // kept buffers by size
  std::unordered_map<void*, std::size_t> oversized_;  // given for a smaller request: its own size
  std::size_t cached_ = 0;
  std::size_t limit_;
};

/// The default limit (TENFERRO_CPU_CACHE_MB, else 1 GiB).
std::size_t default_cache_limit();

}  // namespace tenferro::cpu

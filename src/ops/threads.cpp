// The process-wide thread setting: Note [One thread setting] (tenferro/ops/backend.hpp).
#include <omp.h>

#include <atomic>

#include "tenferro/ops/backend.hpp"

namespace tenferro {
namespace {
std::atomic<int> g_num_threads{0};  // 0: not set, OpenMP's default
thread_local int t_applied = 0;     // the setting this thread's OpenMP pool has
int openmp_default() {
  static const int n = omp_get_max_threads();
  return n;
}
}  // namespace

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : openmp_default();
}

namespace detail {
void store_num_threads(int n) {
  (void)openmp_default();  // the default as it was before any setting
  g_num_threads.store(n, std::memory_order_relaxed);
  omp_set_num_threads(n);
  t_applied = n;
}

void apply_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0 && t_applied != n) {
    omp_set_num_threads(n);
    t_applied = n;
  }
}
}  // namespace detail
}  // namespace tenferro

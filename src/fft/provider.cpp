// The plan cache, the built-in provider list and the public provider API.
#include "provider.hpp"

#include <atomic>
#include <vector>

#include "tenferro/tensor/error.hpp"

namespace tenferro::fft {
namespace detail {

Shape input_shape(const TransformDesc& d) {
  Shape s = d.shape;
  if (d.kind == TransformKind::c2r) {
    auto& e = s[static_cast<std::size_t>(d.axes.back())];
    e = e / 2 + 1;
  }
  return s;
}

Shape output_shape(const TransformDesc& d) {
  Shape s = d.shape;
  if (d.kind == TransformKind::r2c) {
    auto& e = s[static_cast<std::size_t>(d.axes.back())];
    e = e / 2 + 1;
  }
  return s;
}

// ---- PlanCache -------------------------------------------------------------------

std::shared_ptr<const Plan> PlanCache::find(const TransformDesc& desc) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(desc);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  ++stats_.hits;
  return it->second->second;
}

std::shared_ptr<const Plan> PlanCache::insert(const TransformDesc& desc,
                                              std::shared_ptr<const Plan> plan) {
  std::lock_guard lock(mutex_);
  ++stats_.misses;
  auto it = index_.find(desc);
  if (it != index_.end()) return it->second->second;  // another thread planned it meanwhile
  lru_.emplace_front(desc, std::move(plan));
  index_.emplace(desc, lru_.begin());
  evict_locked();
  return lru_.front().second;
}

void PlanCache::evict_locked() {
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
    ++stats_.evictions;
  }
}

PlanCacheStats PlanCache::stats() const {
  std::lock_guard lock(mutex_);
  PlanCacheStats s = stats_;
  s.size = lru_.size();
  s.capacity = capacity_;
  return s;
}

void PlanCache::clear() {
  std::list<Entry> dropped;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  dropped.swap(lru_);
  index_.clear();
  stats_ = {};
}

void PlanCache::set_capacity(std::size_t capacity) {
  TF_CHECK(capacity >= 1, ValueError, "fft.set_plan_cache_capacity",
           "capacity must be >= 1, got ", capacity);
  std::lock_guard lock(mutex_);
  capacity_ = capacity;
  evict_locked();
}

// ---- the built-in providers --------------------------------------------------------

namespace {

// Built on first use (not at static initialisation); default first.
const std::vector<std::unique_ptr<Provider>>& builtin_providers() {
  static const std::vector<std::unique_ptr<Provider>> providers = [] {
    std::vector<std::unique_ptr<Provider>> v;
#if TENFERRO_FFT_WITH_FFTW
    v.push_back(make_fftw_provider());
#endif
#if TENFERRO_FFT_WITH_POCKETFFT
    v.push_back(make_pocketfft_provider());
#endif
    return v;
  }();
  return providers;
}

std::atomic<Provider*>& selected() {
  static std::atomic<Provider*> p{builtin_providers().empty() ? nullptr
                                                              : builtin_providers().front().get()};
  return p;
}

}  // namespace

Provider* current_provider() { return selected().load(std::memory_order_acquire); }

}  // namespace detail

// ---- public API --------------------------------------------------------------------------

std::string_view provider_name() {
  detail::Provider* p = detail::current_provider();
  return p ? p->name() : std::string_view("none");
}

std::vector<std::string> available_providers() {
  std::vector<std::string> names;
  for (const auto& p : detail::builtin_providers()) names.emplace_back(p->name());
  return names;
}

bool has_provider(std::string_view name) {
  for (const auto& p : detail::builtin_providers())
    if (p->name() == name) return true;
  return false;
}

void set_provider(std::string_view name) {
  for (const auto& p : detail::builtin_providers())
    if (p->name() == name) {
      detail::selected().store(p.get(), std::memory_order_release);
      return;
    }
  std::string known;
  for (const auto& p : detail::builtin_providers())
    known += (known.empty() ? "" : ", ") + std::string(p->name());
  TF_THROW(ValueError, "fft.set_provider", "no FFT provider '", name, "' in this build (built: ",
           known.empty() ? "none" : known, ")");
}

namespace {
std::atomic<PlanEffort>& effort_setting() {
  static std::atomic<PlanEffort> e{PlanEffort::measure};
  return e;
}
}  // namespace

void set_plan_effort(PlanEffort effort) { effort_setting().store(effort); }
PlanEffort plan_effort() { return effort_setting().load(); }

PlanCacheStats plan_cache_stats() {
  detail::Provider* p = detail::current_provider();
  return p ? p->cache().stats() : PlanCacheStats{};
}

void clear_plan_cache() {
  if (detail::Provider* p = detail::current_provider()) p->cache().clear();
}

void set_plan_cache_capacity(std::size_t capacity) {
  TF_CHECK(capacity >= 1, ValueError, "fft.set_plan_cache_capacity",
           "capacity must be >= 1, got ", capacity);
  if (detail::Provider* p = detail::current_provider()) p->cache().set_capacity(capacity);
}

}  // namespace tenferro::fft

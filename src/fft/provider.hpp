#pragma once
// The provider interface behind tenferro::fft (private to src/fft).
//
// Note [Provider contract]
// A provider turns a TransformDesc into a Plan; a plan computes one
// multi-axis transform:
// - c2c_forward / c2c_backward: complex input of `shape` (any strides) to a
//   complex output of `shape`, with exp(-2 pi i jk/n) resp. exp(+2 pi i jk/n)
//   along every axis of `axes`;
// - r2c: real input of `shape` to complex output whose extent along
//   axes.back() is shape/2 + 1: the forward real transform along
//   axes.back(), then forward complex transforms along the other axes;
// - c2r: complex input whose extent along axes.back() is shape/2 + 1 to a
//   real output of `shape`: backward complex transforms along the other
//   axes, then the backward complex-to-real transform along axes.back()
//   (the imaginary parts of entry 0, and of entry n/2 for even n, are
//   ignored).
// The output is always a fresh column-major buffer of the output shape; the
// input is only read (strides in elements, any sign, 0 allowed). Every
// output element is multiplied by `scale`. Descriptions reaching a provider
// have no extent 0 and at least one axis. Plans are immutable and
// `execute` is thread-safe: scratch memory is allocated per call.

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "tenferro/fft/provider.hpp"
#include "tenferro/tensor/dtype.hpp"
#include "tenferro/tensor/shape.hpp"

namespace tenferro::fft::detail {

enum class TransformKind : std::uint8_t { c2c_forward, c2c_backward, r2c, c2r };

/// What a plan computes; also the plan cache key.
struct TransformDesc {
  TransformKind kind = TransformKind::c2c_forward;
  DType precision = DType::f64;  ///< f32 or f64: the real type of the data
  Shape shape{};                 ///< logical shape (the real side's for r2c/c2r)
  Strides in_strides{};          ///< input strides in input elements
  DimVec axes{};                 ///< transformed axes; the halved one last
  int threads = 1;
  PlanEffort effort = PlanEffort::measure;
  auto key() const { return std::tie(kind, precision, threads, effort, shape, in_strides, axes); }
  bool operator<(const TransformDesc& o) const { return key() < o.key(); }
  bool operator==(const TransformDesc& o) const { return key() == o.key(); }
};

/// Shape of the plan's input (halved last axis for c2r) and output (for r2c).
Shape input_shape(const TransformDesc& d);
Shape output_shape(const TransformDesc& d);

class Plan {
 public:
  virtual ~Plan() = default;
  /// `in`: element (0, ..., 0) of the input; `out`: the column-major output.
  virtual void execute(const void* in, void* out, double scale) const = 0;
};

/// Bounded LRU cache of plans (thread-safe).
class PlanCache {
 public:
  /// The cached plan for `desc`, or the one `make()` creates (outside the lock).
  template <class Make>
  std::shared_ptr<const Plan> get(const TransformDesc& desc, Make&& make) {
    if (auto p = find(desc)) return p;
    std::shared_ptr<const Plan> plan = make();
    return insert(desc, std::move(plan));
  }
  PlanCacheStats stats() const;
  void clear();
  void set_capacity(std::size_t capacity);

 private:
  using Entry = std::pair<TransformDesc, std::shared_ptr<const Plan>>;
  std::shared_ptr<const Plan> find(const TransformDesc& desc);
  std::shared_ptr<const Plan> insert(const TransformDesc& desc, std::shared_ptr<const Plan> plan);
  void evict_locked();

  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // most recently used first
  std::map<TransformDesc, std::list<Entry>::iterator> index_;
  std::size_t capacity_ = 64;
  PlanCacheStats stats_{};
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string_view name() const = 0;
  /// The plan for `desc`, from the cache when possible.
  std::shared_ptr<const Plan> plan(const TransformDesc& desc) {
    return cache_.get(desc, [&] { return make_plan(desc); });
  }
  PlanCache& cache() { return cache_; }

 protected:
  virtual std::shared_ptr<const Plan> make_plan(const TransformDesc& desc) = 0;

 private:
  PlanCache cache_;
};

/// The provider that runs transforms now; nullptr when none is built in.
Provider* current_provider();

/// Message for builds without a provider.
inline constexpr const char* kNoProviderMessage =
    "no FFT provider in this build (configure tenferro with TENFERRO_WITH_POCKETFFT=ON or "
    "TENFERRO_WITH_FFTW=ON)";

// Factories of the built-in providers (each defined only when built).
std::unique_ptr<Provider> make_pocketfft_provider();
std::unique_ptr<Provider> make_fftw_provider();

}  // namespace tenferro::fft::detail

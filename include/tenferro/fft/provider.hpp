#pragma once
/// \file
/// The FFT provider: which library computes the transforms, and its plan cache.
///
/// ```cpp
/// using namespace tenferro;
/// std::string_view p = fft::provider_name();        // "pocketfft" (default build)
/// fft::fft(x, cpu);                                  // plans once ...
/// fft::fft(x, cpu);                                  // ... and reuses the plan
/// fft::PlanCacheStats s = fft::plan_cache_stats();   // s.misses == 1, s.hits == 1
/// if (fft::has_provider("fftw3")) fft::set_provider("fftw3");
/// ```
///
/// Providers built in by CMake options:
/// - `pocketfft` (`TENFERRO_WITH_POCKETFFT`, ON by default): the BSD-3
///   header-only library inside NumPy and SciPy. On x86-64 its driver is
///   also compiled for AVX2+FMA and AVX-512 (`TENFERRO_FFT_AVX2`, ON) and the
///   best build the CPU supports runs (AVX-512 for double precision only);
///   the environment variable `TENFERRO_FFT_ISA` = `baseline` or `avx2`
///   caps the choice;
/// - `fftw3` (`TENFERRO_WITH_FFTW`, OFF by default): FFTW 3 is GPL, so a
///   program that links a tenferro built with it must be distributed under
///   GPL-compatible terms. When built, it is the default provider.
/// A build without either still compiles; every transform then throws
/// `UnimplementedError` ("no FFT provider").
///
/// Plans are cached per provider in a bounded LRU cache keyed by the
/// transform kind, the logical shape, the input strides, the axes, the
/// precision, the thread count (`tenferro::get_num_threads()` at call time)
/// and the plan effort, so repeated calls never plan again. Planning and the cache are
/// thread-safe; FFTW's planner runs under a lock.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tenferro::fft {

/// Name of the provider that runs transforms now ("pocketfft", "fftw3"), or
/// "none" when the build has no provider.
std::string_view provider_name();
/// Names of the providers compiled into this build (default first).
std::vector<std::string> available_providers();
/// Whether `name` is compiled in.
bool has_provider(std::string_view name);
/// Selects the provider for all later transforms (process-wide); ValueError
/// naming the available ones when `name` is not compiled in.
void set_provider(std::string_view name);

/// How long a provider may search for a fast plan. FFTW: FFTW_ESTIMATE
/// (heuristic, instant) or FFTW_MEASURE (times candidate algorithms: slower
/// first calls, faster transforms); pocketfft has one strategy and ignores it.
enum class PlanEffort : std::uint8_t { estimate, measure };

/// Sets the effort of later planning (process-wide; default `measure`). It
/// is part of the plan key, so plans made with the other effort stay cached.
void set_plan_effort(PlanEffort effort);
PlanEffort plan_effort();

/// Counters of the current provider's plan cache.
struct PlanCacheStats {
  std::uint64_t hits = 0;       ///< calls that found their plan
  std::uint64_t misses = 0;     ///< calls that created a plan
  std::uint64_t evictions = 0;  ///< plans dropped to respect the capacity
  std::size_t size = 0;         ///< plans held now
  std::size_t capacity = 0;     ///< most plans held at once
};

/// The current provider's counters (all zero without a provider).
PlanCacheStats plan_cache_stats();
/// Drops the current provider's plans and resets its counters. Plans in use
/// by a running transform stay alive until it ends.
void clear_plan_cache();
/// Bounds the current provider's cache (>= 1; default 64), evicting the
/// least recently used plans beyond it.
void set_plan_cache_capacity(std::size_t capacity);

}  // namespace tenferro::fft

#pragma once
// Shared by the tenferro::xla tests: the plugin (loaded once per process,
// or a skip with "no PJRT plugin installed"), the CPU runtime to compare with, and
// the tolerance by dtype.
#include <optional>
#include <string>

#include "support/test_support.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/runtime.hpp"
#include "tenferro/xla.hpp"

namespace tenferro::testing {

/// The PJRT runtime of $TENFERRO_PJRT_PLUGIN, or nullptr when the variable
/// is unset or names no file (the caller skips with "no PJRT plugin installed").
const xla::PjrtRuntime* pjrt_or_null();

#define TF_REQUIRE_PJRT(rt)                                                          \
  const ::tenferro::xla::PjrtRuntime* rt = ::tenferro::testing::pjrt_or_null();      \
  if (rt == nullptr) GTEST_SKIP() << "no PJRT plugin installed (set TENFERRO_PJRT_PLUGIN; scripts/setup_pjrt.sh)"

/// A CPU runtime with the linalg and fft families registered.
Runtime& cpu_runtime();

/// PJRT and CPU results of `p` agree within the dtype's tolerance (`scale`
/// multiplies it for long reductions and special functions).
::testing::AssertionResult same_results(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                                        double scale = 1);

}  // namespace tenferro::testing

#include "xla_test_util.hpp"

#include <cstdlib>
#include <filesystem>

#include "tenferro/fft.hpp"
#include "tenferro/linalg.hpp"

namespace tenferro::testing {

const xla::PjrtRuntime* pjrt_or_null() {
  static const std::optional<xla::PjrtRuntime> rt = []() -> std::optional<xla::PjrtRuntime> {
    const char* p = std::getenv("TENFERRO_PJRT_PLUGIN");
    std::error_code ec;
    if (p == nullptr || !std::filesystem::is_regular_file(p, ec)) return std::nullopt;
    return xla::PjrtRuntime::from_env();
  }();
  return rt ? &*rt : nullptr;
}

Runtime& cpu_runtime() {
  static CpuBackend backend;
  static Runtime rt = Runtime::builder()
                          .register_engine(cpu_engine(backend))
                          .register_family(linalg::family())
                          .register_family(fft::family())
                          .build();
  return rt;
}

::testing::AssertionResult same_results(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                                        double scale) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " results, expected " << want.size();
  for (std::size_t k = 0; k < got.size(); ++k) {
    const DType d = want[k].dtype();
    const double tol = is_float(d) ? 64 * dtype_eps(d) * scale : 0;
    auto r = tensors_close(got[k], want[k], tol, tol);
    if (!r) return r << " (result " << k << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tenferro::testing

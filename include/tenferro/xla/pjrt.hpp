#pragma once
/// \file
/// Running compiled programs through a PJRT plugin (tenferro::xla,
/// docs/xla.md). The plugin (a shared library exporting `GetPjrtApi`, e.g.
/// the OpenXLA CPU plugin that `scripts/setup_pjrt.sh` installs) is opened
/// with dlopen at run time; tenferro has no link-time dependency on it.
///
/// ```cpp
/// using namespace tenferro;
/// auto pjrt = xla::PjrtRuntime::from_env();          // $TENFERRO_PJRT_PLUGIN
/// auto a = TracedTensor::input("a", DType::f32, {Dim(64), Dim(32)});
/// auto b = TracedTensor::input("b", DType::f32, {Dim(32), Dim(16)});
/// Program p = GraphCompiler().compile(tanh(matmul(a, b)));
/// std::vector<Tensor> out = pjrt.run_compiled(p, {{"a", Tensor::ones({64, 32}, DType::f32)},
///                                                 {"b", Tensor::ones({32, 16}, DType::f32)}});
/// // out[0]: f32[64, 16] host tensor (column-major), as Runtime::run_compiled returns it
/// ```
///
/// Errors: a missing file, a library without `GetPjrtApi`, an API major
/// version other than the header's, and every error the plugin reports are
/// `BackendError`s carrying the path or the plugin's own message; a program
/// that cannot be lowered is an `UnimplementedError` (tenferro/xla/stablehlo.hpp).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tenferro/runtime/program.hpp"
#include "tenferro/runtime/runtime.hpp"

namespace tenferro::xla {

/// A loaded PJRT plugin with one client on its first addressable device.
/// Copies share the plugin, the client and the executable cache. Not
/// thread-safe: one thread at a time per runtime (and its copies).
class PjrtRuntime {
 public:
  /// Opens the plugin at `path`, checks its API version, initialises it and
  /// creates a client.
  static PjrtRuntime load(const std::string& path);
  /// `load(getenv("TENFERRO_PJRT_PLUGIN"))`; a ValueError when it is unset.
  static PjrtRuntime from_env();

  /// Runs `program` as `Runtime::run_compiled` does (inputs by name or by
  /// position, host tensors of any strides in, column-major host tensors
  /// out). The program is lowered and compiled once per (program, input
  /// dtypes and shapes); later runs reuse the executable.
  std::vector<Tensor> run_compiled(const Program& program, const RunInputs& inputs = {}) const;

  /// The plugin's PJRT API version (major, minor).
  std::pair<int, int> api_version() const;
  /// The platform name the client reports ("cpu").
  std::string platform_name() const;
  /// Executables compiled so far (the cache size).
  std::size_t cached_executables() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace tenferro::xla

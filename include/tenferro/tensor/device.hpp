#pragma once
/// \file
/// `Device`: where a tensor's storage lives.
///
/// ```cpp
/// tenferro::Device d = tenferro::Device::cuda(0);
/// assert(d != tenferro::Device::cpu());
/// ```
/// Tensors never move between devices silently: copies to another device are
/// explicit, and an op on tensors of two devices throws a `DeviceError`.

#include <iosfwd>

namespace tenferro {

enum class DeviceKind : unsigned char { cpu, cuda, webgpu };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;

  static constexpr Device cpu() { return {DeviceKind::cpu, 0}; }
  static constexpr Device cuda(int ordinal = 0) { return {DeviceKind::cuda, ordinal}; }
  /// A WebGPU adapter (tenferro/webgpu.hpp); `ordinal` counts backends.
  static constexpr Device webgpu(int ordinal = 0) { return {DeviceKind::webgpu, ordinal}; }
  constexpr bool is_cpu() const { return kind == DeviceKind::cpu; }
  constexpr bool operator==(const Device&) const = default;
};

/// Prints "cpu", "cuda:0" or "webgpu:0".
std::ostream& operator<<(std::ostream& os, Device d);

}  // namespace tenferro

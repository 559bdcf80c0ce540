// Shared by the io fuzzers: a finding is any crash, sanitizer report,
// exception other than tenferro::Error, or broken invariant (check()).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <span>
#include <tenferro/io.hpp>

namespace io_fuzz {

inline void check(bool ok) {
  if (!ok) std::abort();
}

inline std::span<const std::byte> bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const std::byte*>(data), size};
}

/// A tensor parsed from `size` bytes never claims more data than a parser
/// could have produced from them (deflate expands at most 1032-fold), and
/// writing it and reading it back gives the same .npy bytes.
inline void check_tensor(const tenferro::Tensor& t, std::size_t size) {
  const auto nbytes = static_cast<std::uint64_t>(t.numel()) * tenferro::dtype_size(t.dtype());
  check(nbytes <= static_cast<std::uint64_t>(size) * 1032 + 64);
  std::vector<std::byte> once = tenferro::io::to_npy(t);
  tenferro::Tensor back = tenferro::io::parse_npy(once);
  check(back.shape() == t.shape() && back.dtype() == t.dtype());
  check(tenferro::io::to_npy(back) == once);
}

}  // namespace io_fuzz

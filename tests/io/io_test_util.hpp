#pragma once
// Helpers of the io tests: a scratch directory, byte buffers, checks of the
// error a bad file raises, and whether a pointer lies in a mapping of a file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tenferro/io.hpp>
#include <vector>

namespace io_test {

namespace fs = std::filesystem;
using Bytes = std::vector<std::byte>;

/// A fresh directory, removed with its content at the end of the test.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::random_device rd;
    path = fs::temp_directory_path() /
           ("tenferro_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path operator/(const std::string& name) const { return path / name; }
  /// Names of the entries in the directory (to see leftover temporaries).
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

inline Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bytes out(c.size());
  if (!c.empty()) std::memcpy(out.data(), c.data(), c.size());
  return out;
}

inline void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

inline Bytes bytes_of(const std::string& s) {
  Bytes b(s.size());
  if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
  return b;
}

inline std::string text_of(const Bytes& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

inline std::uint32_t get32(const Bytes& b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint32_t>(b.at(at + static_cast<std::size_t>(i)));
  return v;
}
inline std::uint16_t get16(const Bytes& b, std::size_t at) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(b.at(at)) |
                                    (std::to_integer<unsigned>(b.at(at + 1)) << 8));
}
inline void put32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(at + static_cast<std::size_t>(i)) = std::byte((v >> (8 * i)) & 0xff);
}
inline void put16(Bytes& b, std::size_t at, std::uint16_t v) {
  b.at(at) = std::byte(v & 0xff);
  b.at(at + 1) = std::byte(v >> 8);
}
inline void put64(Bytes& b, std::size_t at, std::uint64_t v) {
  put32(b, at, static_cast<std::uint32_t>(v));
  put32(b, at + 4, static_cast<std::uint32_t>(v >> 32));
}

/// CRC-32 (ZIP's, reflected polynomial 0xedb88320), bit by bit.
inline std::uint32_t crc32(const std::byte* p, std::size_t n) {
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= std::to_integer<std::uint32_t>(p[i]);
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

/// Runs `f`, which must throw tenferro::io::FormatError whose message holds
/// every piece of `parts`; returns the message.
template <class F>
std::string expect_format_error(F&& f, std::initializer_list<std::string> parts,
                                tenferro::ErrorCode code = tenferro::ErrorCode::InvalidArgument) {
  try {
    f();
  } catch (const tenferro::io::FormatError& e) {
    std::string m = e.what();
    for (const std::string& p : parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
    EXPECT_EQ(e.code(), code) << m;
    return m;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected io::FormatError, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected io::FormatError, nothing was thrown";
  return "";
}

/// The file whose mapping holds address `p` in this process (/proc/self/maps), or "".
inline std::string mapped_file_of(const void* p) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  while (std::getline(maps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2) continue;
    if (addr < lo || addr >= hi) continue;
    std::size_t slash = line.find('/');
    return slash == std::string::npos ? "" : line.substr(slash);
  }
  return "";
}

}  // namespace io_test

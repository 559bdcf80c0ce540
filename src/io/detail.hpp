#pragma once
// Private pieces of tenferro::io shared by the three formats: where bytes
// come from (a mapped or read file, an inflated .npz member, a caller's
// buffer), where they go (an atomically replaced file or a vector), the
// error context, little-endian integer access, and the one function that
// turns a byte range into a tensor (a view when it can, a copy otherwise).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/io/common.hpp"

namespace tenferro::io::detail {

static_assert(std::endian::native == std::endian::little,
              "tenferro::io assumes a little-endian host");

/// Who is reading what, for error messages: "io.load_npz: 'a.npz': member 'x.npy': ...".
struct Context {
  const char* op;
  std::string file;
  std::string member;  // "member 'x.npy'", "tensor 'w'"; empty for a whole file
};

template <class... Args>
[[noreturn]] void fail(const Context& ctx, const Args&... args) {
  std::string where = tenferro::detail::str(ctx.op, ": '", ctx.file, "': ");
  if (!ctx.member.empty()) where += ctx.member + ": ";
  throw FormatError(where + tenferro::detail::str(args...));
}

/// Same, for a valid file holding something tenferro does not support.
template <class... Args>
[[noreturn]] void unsupported(const Context& ctx, const Args&... args) {
  std::string where = tenferro::detail::str(ctx.op, ": '", ctx.file, "': ");
  if (!ctx.member.empty()) where += ctx.member + ": ";
  throw FormatError(where + tenferro::detail::str(args...), ErrorCode::Unimplemented);
}

/// A read-only byte range. With an `owner`, tensors may view the bytes in
/// place and keep `owner` alive; without one they copy.
struct Bytes {
  const std::byte* data = nullptr;
  std::size_t size = 0;
  std::shared_ptr<void> owner;

  Bytes sub(std::size_t offset, std::size_t n) const { return {data + offset, n, owner}; }
};

/// The whole file at `path`, mapped or read as `mode` says.
Bytes read_file(const std::filesystem::path& path, MapMode mode, const Context& ctx);

/// Little-endian loads (callers check the bounds).
inline std::uint16_t le16(const std::byte* p) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(p[0]) |
                                    (std::to_integer<unsigned>(p[1]) << 8));
}
inline std::uint32_t le32(const std::byte* p) {
  return static_cast<std::uint32_t>(le16(p)) | (static_cast<std::uint32_t>(le16(p + 2)) << 16);
}
inline std::uint64_t le64(const std::byte* p) {
  return static_cast<std::uint64_t>(le32(p)) | (static_cast<std::uint64_t>(le32(p + 4)) << 32);
}

/// Where written bytes go. `position()` counts the bytes written so far.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const void* data, std::size_t n) = 0;
  std::uint64_t position() const { return position_; }
  void put16(std::uint16_t v);
  void put32(std::uint32_t v);
  void put64(std::uint64_t v);

 protected:
  std::uint64_t position_ = 0;
};

/// Appends to a vector.
class VectorSink final : public Sink {
 public:
  void write(const void* data, std::size_t n) override;
  std::vector<std::byte> bytes;
};

/// Writes a temporary file next to `path` and renames it over `path` on
/// `commit()`; without a commit (an exception) the temporary is removed and
/// `path` is untouched.
class FileSink final : public Sink {
 public:
  FileSink(const std::filesystem::path& path, const char* op);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;
  void write(const void* data, std::size_t n) override;
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  const char* op_;
  std::FILE* file_ = nullptr;
};

/// Product of `shape` times `elem_size` in bytes; fails naming the shape when
/// an extent is negative or the product overflows 64 bits.
std::uint64_t checked_nbytes(const Context& ctx, const Shape& shape, std::size_t elem_size);

/// Rank limit of tensors read from files (NumPy's NPY_MAXDIMS).
inline constexpr std::size_t kMaxFileRank = 64;

/// A tensor of `dtype` and `shape` whose elements are the `nbytes` bytes at
/// `src.data` in row-major (C) or column-major (Fortran) order. A view of
/// `src` when it has an owner, the address is aligned to the element size,
/// no byte swap is needed and (for bool) every byte is 0 or 1; otherwise a
/// copy (byte-swapped from big-endian when `big_endian`, bools normalised
/// to 0/1). The caller has checked that `src.size` equals the byte count.
Tensor tensor_from_bytes(const Bytes& src, DType dtype, const Shape& shape, bool row_major,
                         bool big_endian);

/// Checks that `t` can be written (defined, on the host); `what` names it.
void check_writable(const char* op, const Tensor& t, std::string_view what);

/// ---- .npy encoding, shared by .npy and .npz --------------------------------

/// A tensor prepared for writing as .npy: its header and a pointer to its
/// elements in the order the header states (the tensor's own memory when it
/// is column- or row-major contiguous, else a column-major copy held here).
struct NpyPayload {
  std::string header;  // magic, version, length and the padded dict
  Tensor data;         // contiguous (column-major or row-major)
  const void* ptr() const { return data.data_ptr(); }
  std::size_t nbytes() const;
};
NpyPayload npy_payload(const char* op, const Tensor& t, std::string_view what);

/// Parses one .npy file held in `src`.
Tensor parse_npy_bytes(const Bytes& src, const Context& ctx);

}  // namespace tenferro::io::detail

// The .npy format: magic "\x93NUMPY", version, header length, a Python dict
// literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with
// spaces to a multiple of 64 bytes and ended by '\n', then the raw elements.
#include "tenferro/io/npy.hpp"

#include <cstring>
#include <optional>

#include "detail.hpp"

namespace tenferro::io {
namespace detail {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

// ---- the header dict -----------------------------------------------------------

struct Header {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
};

/// A parser of the one Python literal NumPy writes: a dict of str keys to a
/// str, a bool or a tuple of non-negative ints.
class DictParser {
 public:
  DictParser(std::string_view text, const Context& ctx) : s_(text), ctx_(ctx) {}

  Header parse() {
    Header h;
    bool has_descr = false, has_order = false, has_shape = false;
    skip_space();
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') {
        ++i_;
        break;
      }
      std::string key = string_literal();
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"')
          unsupported(ctx_, "header 'descr' is not a type string (structured dtypes are not supported)");
        h.descr = string_literal();
        has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        has_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        has_shape = true;
      } else {
        fail(ctx_, "header has an unexpected key '", key, "'");
      }
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip_space();
      expect('}');
      break;
    }
    // After the dict only padding: spaces and the final newline.
    for (; i_ < s_.size(); ++i_)
      if (s_[i_] != ' ' && s_[i_] != '\n' && s_[i_] != '\t' && s_[i_] != '\r' && s_[i_] != '\0')
        fail(ctx_, "header has text after the dict at byte ", i_);
    if (!has_descr || !has_order || !has_shape)
      fail(ctx_, "header lacks the key '",
           !has_descr ? "descr" : !has_order ? "fortran_order" : "shape", "'");
    return h;
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  void expect(char c) {
    if (peek() != c) {
      if (i_ >= s_.size()) fail(ctx_, "header ends where '", c, "' was expected");
      fail(ctx_, "header has '", printable(peek()), "' at byte ", i_, " where '", c,
           "' was expected");
    }
    ++i_;
  }
  static std::string printable(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    const char* hex = "0123456789abcdef";
    return std::string("\\x") + hex[u >> 4] + hex[u & 15];
  }
  std::string string_literal() {
    char q = peek();
    if (q != '\'' && q != '"') fail(ctx_, "header has no string at byte ", i_);
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\' || s_[i_] == '\n') fail(ctx_, "header string at byte ", i_, " has an escape or newline");
      out += s_[i_++];
    }
    if (i_ >= s_.size()) fail(ctx_, "header has an unterminated string");
    ++i_;
    return out;
  }
  bool boolean() {
    if (s_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    fail(ctx_, "header 'fortran_order' is neither True nor False");
  }
  std::int64_t integer() {
    if (peek() < '0' || peek() > '9') fail(ctx_, "header 'shape' holds a non-integer at byte ", i_);
    std::int64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, peek() - '0', &v))
        fail(ctx_, "header 'shape' holds an extent beyond int64");
      ++i_;
    }
    if (peek() == 'L') ++i_;  // Python 2 long literal
    return v;
  }
  Shape tuple() {
    Shape shape;
    expect('(');
    skip_space();
    if (peek() == ')') {
      ++i_;
      return shape;
    }
    for (;;) {
      skip_space();
      if (shape.size() == kMaxFileRank)
        unsupported(ctx_, "shape has more than ", kMaxFileRank, " axes");
      shape.push_back(integer());
      skip_space();
      if (peek() == ',') {
        ++i_;
        skip_space();
        if (peek() == ')') {
          ++i_;
          return shape;
        }
        continue;
      }
      expect(')');
      if (shape.size() == 1) fail(ctx_, "header 'shape' (n) is not a tuple; a 1-d shape is written (n,)");
      return shape;
    }
  }

  std::string_view s_;
  const Context& ctx_;
  std::size_t i_ = 0;
};

struct Descr {
  DType dtype;
  bool big_endian;
};

Descr parse_descr(const std::string& d, const Context& ctx) {
  if (d.size() < 2) unsupported(ctx, "dtype '", d, "' is not supported");
  char order = d[0];
  std::string code = d.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=')
    unsupported(ctx, "dtype '", d, "' is not supported (no byte-order character)");
  std::optional<DType> dt;
  if (code == "f4") dt = DType::f32;
  if (code == "f8") dt = DType::f64;
  if (code == "c8") dt = DType::c64;
  if (code == "c16") dt = DType::c128;
  if (code == "i4") dt = DType::i32;
  if (code == "i8") dt = DType::i64;
  if (code == "b1") dt = DType::bool_;
  if (!dt)
    unsupported(ctx, "dtype '", d,
                "' is not supported (tenferro reads <f4 <f8 <c8 <c16 <i4 <i8 |b1, "
                "also big-endian)");
  return {*dt, order == '>' && dtype_size(*dt) > 1};
}

const char* descr_of(DType d) {
  switch (d) {
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::c64: return "<c8";
    case DType::c128: return "<c16";
    case DType::i32: return "<i4";
    case DType::i64: return "<i8";
    case DType::bool_: return "|b1";
  }
  return "?";
}

}  // namespace

Tensor parse_npy_bytes(const Bytes& src, const Context& ctx) {
  if (src.size < kMagicLen + 4) fail(ctx, "truncated: ", src.size, " bytes is shorter than a .npy header");
  if (std::memcmp(src.data, kMagic, kMagicLen) != 0) fail(ctx, "not a .npy file (wrong magic)");
  const unsigned major = std::to_integer<unsigned>(src.data[6]);
  const unsigned minor = std::to_integer<unsigned>(src.data[7]);
  std::size_t header_start = 0;
  std::uint64_t header_len = 0;
  if (major == 1) {
    header_start = 10;
    header_len = le16(src.data + 8);
  } else if (major == 2 || major == 3) {
    if (src.size < 12) fail(ctx, "truncated: ", src.size, " bytes is shorter than a version ", major, " header");
    header_start = 12;
    header_len = le32(src.data + 8);
  } else {
    unsupported(ctx, ".npy format version ", major, ".", minor, " is not supported (1.0, 2.0, 3.0 are)");
  }
  if (header_len > src.size - header_start)
    fail(ctx, "truncated: header length ", header_len, " runs past the end of the ", src.size,
         "-byte file");
  std::string_view text(reinterpret_cast<const char*>(src.data + header_start),
                        static_cast<std::size_t>(header_len));
  Header h = DictParser(text, ctx).parse();
  Descr descr = parse_descr(h.descr, ctx);
  const std::size_t data_start = header_start + static_cast<std::size_t>(header_len);
  const std::uint64_t need = checked_nbytes(ctx, h.shape, dtype_size(descr.dtype));
  const std::uint64_t have = src.size - data_start;
  if (need != have)
    fail(ctx, "header declares shape ", h.shape, " of ", h.descr, " (", need, " bytes) but ", have,
         " bytes of data follow the header");
  // A 0-d or 1-d array reads the same in either order; call it column-major.
  const bool row_major = !h.fortran_order && h.shape.size() > 1;
  return tensor_from_bytes(src.sub(data_start, static_cast<std::size_t>(need)), descr.dtype,
                           h.shape, row_major, descr.big_endian);
}

std::size_t NpyPayload::nbytes() const {
  return static_cast<std::size_t>(data.numel()) * dtype_size(data.dtype());
}

NpyPayload npy_payload(const char* op, const Tensor& t, std::string_view what) {
  check_writable(op, t, what);
  NpyPayload p;
  bool fortran = true;
  if (t.is_contiguous()) {
    p.data = t;
  } else if (t.is_row_major_contiguous()) {
    p.data = t;
    fortran = false;
  } else {
    p.data = t.contiguous();
  }
  if (t.ndim() <= 1) fortran = false;  // NumPy's spelling for 0-d and 1-d arrays
  std::string dict = tenferro::detail::str("{'descr': '", descr_of(t.dtype()),
                                           "', 'fortran_order': ", fortran ? "True" : "False",
                                           ", 'shape': (");
  for (std::int64_t i = 0; i < t.ndim(); ++i)
    dict += tenferro::detail::str(i ? ", " : "", t.shape()[static_cast<std::size_t>(i)]);
  dict += t.ndim() == 1 ? ",), }" : "), }";
  // Version 1.0 has a 2-byte length; longer headers (ranks in the thousands
  // of digits) need 2.0. Pad so that the data starts at a multiple of 64.
  std::size_t prefix = 10;
  std::size_t total = prefix + dict.size() + 1;
  if ((total + 63) / 64 * 64 - prefix > 65535) prefix = 12;
  total = prefix + dict.size() + 1;
  std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  const std::size_t hlen = dict.size();
  p.header.assign(kMagic, kMagicLen);
  p.header += static_cast<char>(prefix == 10 ? 1 : 2);
  p.header += '\0';
  p.header += static_cast<char>(hlen & 0xff);
  p.header += static_cast<char>((hlen >> 8) & 0xff);
  if (prefix == 12) {
    p.header += static_cast<char>((hlen >> 16) & 0xff);
    p.header += static_cast<char>((hlen >> 24) & 0xff);
  }
  p.header += dict;
  return p;
}

}  // namespace detail

Tensor load_npy(const std::filesystem::path& path, const LoadOptions& options) {
  detail::Context ctx{"io.load_npy", path.string(), ""};
  return detail::parse_npy_bytes(detail::read_file(path, options.map, ctx), ctx);
}

Tensor parse_npy(std::span<const std::byte> bytes, std::string_view name) {
  detail::Context ctx{"io.parse_npy", std::string(name), ""};
  return detail::parse_npy_bytes({bytes.data(), bytes.size(), nullptr}, ctx);
}

void save_npy(const std::filesystem::path& path, const Tensor& t) {
  detail::NpyPayload p = detail::npy_payload("io.save_npy", t, "the tensor");
  detail::FileSink sink(path, "io.save_npy");
  sink.write(p.header.data(), p.header.size());
  sink.write(p.ptr(), p.nbytes());
  sink.commit();
}

std::vector<std::byte> to_npy(const Tensor& t) {
  detail::NpyPayload p = detail::npy_payload("io.to_npy", t, "the tensor");
  detail::VectorSink sink;
  sink.write(p.header.data(), p.header.size());
  sink.write(p.ptr(), p.nbytes());
  return std::move(sink.bytes);
}

}  // namespace tenferro::io

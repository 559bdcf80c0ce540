// safetensors: u64 little-endian header length N, N bytes of JSON, then the
// data section. Every tensor's data_offsets are relative to the data
// section, and (as the reference implementation requires) the ranges of all
// tensors tile the data section exactly: no gaps, no overlaps, no tail.
#include "tenferro/io/safetensors.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "detail.hpp"

namespace tenferro::io {
namespace detail {
namespace {

// The reference implementation refuses larger headers too.
constexpr std::uint64_t kMaxHeader = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

std::optional<DType> dtype_of_name(const std::string& s) {
  if (s == "F32") return DType::f32;
  if (s == "F64") return DType::f64;
  if (s == "I32") return DType::i32;
  if (s == "I64") return DType::i64;
  if (s == "BOOL") return DType::bool_;
  return std::nullopt;
}

const char* name_of_dtype(DType d) {
  switch (d) {
    case DType::f32: return "F32";
    case DType::f64: return "F64";
    case DType::i32: return "I32";
    case DType::i64: return "I64";
    case DType::bool_: return "BOOL";
    case DType::c64:
    case DType::c128: return nullptr;
  }
  return nullptr;
}

bool known_unsupported(const std::string& s) {
  for (const char* n : {"F16", "BF16", "U8", "I8", "U16", "I16", "U32", "U64", "F8_E5M2",
                        "F8_E4M3", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64"})
    if (s == n) return true;
  return false;
}

std::uint64_t json_uint(const nlohmann::json& v, const Context& ctx, const std::string& what) {
  if (!v.is_number_integer()) fail(ctx, what, " is not a non-negative integer: ", v.dump());
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  std::int64_t i = v.get<std::int64_t>();
  if (i < 0) fail(ctx, what, " is negative: ", i);
  return static_cast<std::uint64_t>(i);
}

struct TensorEntry {
  std::string name;
  DType dtype;
  Shape shape;
  std::uint64_t begin, end;
};

SafetensorsFile parse_bytes(const Bytes& src, const Context& ctx) {
  if (src.size < 8) fail(ctx, "truncated: ", src.size, " bytes is shorter than the 8-byte header length");
  const std::uint64_t n = le64(src.data);
  if (n > kMaxHeader) fail(ctx, "header length ", n, " exceeds the limit of ", kMaxHeader, " bytes");
  if (n > src.size - 8)
    fail(ctx, "truncated: header length ", n, " runs past the end of the ", src.size, "-byte file");
  const auto* text = reinterpret_cast<const char*>(src.data + 8);
  if (n == 0 || text[0] != '{') fail(ctx, "the header is not a JSON object");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, text + n);
  } catch (const nlohmann::json::exception& e) {
    fail(ctx, "the header is not valid JSON: ", e.what());
  }
  if (!header.is_object()) fail(ctx, "the header is not a JSON object");
  const std::uint64_t data_start = 8 + n;
  const std::uint64_t data_size = src.size - data_start;

  SafetensorsFile out;
  std::vector<TensorEntry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      if (!value.is_object()) fail(ctx, "__metadata__ is not an object");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) fail(ctx, "__metadata__ entry '", mk, "' is not a string");
        out.metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    Context tctx = ctx;
    tctx.member = "tensor '" + key + "'";
    if (!value.is_object()) fail(tctx, "the entry is not an object");
    for (const auto& [field, unused] : value.items()) {
      (void)unused;
      if (field != "dtype" && field != "shape" && field != "data_offsets")
        fail(tctx, "unexpected field '", field, "'");
    }
    if (!value.contains("dtype") || !value.contains("shape") || !value.contains("data_offsets"))
      fail(tctx, "the entry needs 'dtype', 'shape' and 'data_offsets'");
    const auto& jd = value["dtype"];
    if (!jd.is_string()) fail(tctx, "'dtype' is not a string");
    const std::string dname = jd.get<std::string>();
    std::optional<DType> dt = dtype_of_name(dname);
    if (!dt) {
      if (known_unsupported(dname))
        unsupported(tctx, "dtype ", dname, " is not supported (tenferro reads F32, F64, I32, I64, BOOL)");
      fail(tctx, "unknown dtype '", dname, "'");
    }
    const auto& js = value["shape"];
    if (!js.is_array()) fail(tctx, "'shape' is not an array");
    if (js.size() > kMaxFileRank) unsupported(tctx, "shape has more than ", kMaxFileRank, " axes");
    Shape shape;
    for (const auto& e : js) {
      std::uint64_t x = json_uint(e, tctx, "a 'shape' extent");
      if (x > static_cast<std::uint64_t>(INT64_MAX)) fail(tctx, "a 'shape' extent exceeds int64");
      shape.push_back(static_cast<std::int64_t>(x));
    }
    const auto& jo = value["data_offsets"];
    if (!jo.is_array() || jo.size() != 2) fail(tctx, "'data_offsets' is not a [begin, end] pair");
    std::uint64_t begin = json_uint(jo[0], tctx, "'data_offsets' begin");
    std::uint64_t end = json_uint(jo[1], tctx, "'data_offsets' end");
    if (begin > end) fail(tctx, "data_offsets [", begin, ", ", end, "] end before they begin");
    if (end > data_size)
      fail(tctx, "data_offsets [", begin, ", ", end, "] lie outside the ", data_size,
           "-byte data section");
    const std::uint64_t need = checked_nbytes(tctx, shape, dtype_size(*dt));
    if (end - begin != need)
      fail(tctx, "shape ", shape, " of ", dname, " needs ", need, " bytes but data_offsets [", begin,
           ", ", end, "] hold ", end - begin);
    entries.push_back({key, *dt, std::move(shape), begin, end});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t at = 0;
  for (const TensorEntry& e : entries) {
    if (e.begin != at)
      fail(ctx, "tensor '", e.name, "' starts at data offset ", e.begin, " where ", at,
           " was expected (the tensors must tile the data section)");
    at = e.end;
  }
  if (at != data_size)
    fail(ctx, "the tensors cover ", at, " bytes of the ", data_size, "-byte data section");
  for (const TensorEntry& e : entries) {
    Bytes b = src.sub(static_cast<std::size_t>(data_start + e.begin),
                      static_cast<std::size_t>(e.end - e.begin));
    out.tensors.push_back({e.name, tensor_from_bytes(b, e.dtype, e.shape, /*row_major=*/true,
                                                     /*big_endian=*/false)});
  }
  return out;
}

void write_bytes(Sink& sink, const std::vector<NamedTensor>& tensors,
                 const std::map<std::string, std::string>& metadata, const char* op) {
  std::set<std::string> names;
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const NamedTensor& t = tensors[k];
    TF_CHECK(!t.name.empty(), ValueError, op, "a tensor has an empty name");
    TF_CHECK(t.name != kMetadataKey, ValueError, op, "a tensor cannot be named '__metadata__'");
    TF_CHECK(names.insert(t.name).second, ValueError, op, "two tensors are named '", t.name, "'");
    check_writable(op, t.tensor, "tensor '" + t.name + "'");
    TF_CHECK(name_of_dtype(t.tensor.dtype()) != nullptr, DTypeError, op, "tensor '", t.name,
             "' is ", t.tensor.dtype(),
             "; safetensors has no complex dtype (write the real and imaginary parts, or use .npz)");
    order.push_back(k);
  }
  // Larger elements first: with the header padded to 64 bytes, every
  // tensor then starts at a multiple of its element size.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return dtype_size(tensors[a].tensor.dtype()) > dtype_size(tensors[b].tensor.dtype());
  });
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) m[k] = v;
    header[kMetadataKey] = m;
  }
  std::uint64_t offset = 0;
  for (std::size_t k : order) {
    const Tensor& t = tensors[k].tensor;
    const std::uint64_t nbytes = static_cast<std::uint64_t>(t.numel()) * dtype_size(t.dtype());
    header[tensors[k].name] = {{"dtype", name_of_dtype(t.dtype())},
                               {"shape", t.shape().to_vector()},
                               {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    TF_THROW(ValueError, op, "a tensor name or metadata string is not valid UTF-8 (", e.what(), ")");
  }
  const std::size_t padded = (8 + text.size() + 63) / 64 * 64 - 8;
  text.append(padded - text.size(), ' ');
  sink.put64(text.size());
  sink.write(text.data(), text.size());
  for (std::size_t k : order) {
    const Tensor& t = tensors[k].tensor;
    Tensor rows = t;
    if (!t.is_row_major_contiguous()) {
      // The row-major buffer of shape [a, b, c] is the column-major buffer of [c, b, a].
      Shape reversed(t.shape().rbegin(), t.shape().rend());
      DimVec perm;
      for (std::int64_t i = t.ndim() - 1; i >= 0; --i) perm.push_back(i);
      rows = Tensor::empty(reversed, t.dtype()).permute(perm);
      rows.copy_from(t);
    }
    sink.write(rows.data_ptr(), static_cast<std::size_t>(rows.numel()) * dtype_size(rows.dtype()));
  }
}

}  // namespace
}  // namespace detail

SafetensorsFile load_safetensors(const std::filesystem::path& path, const LoadOptions& options) {
  detail::Context ctx{"io.load_safetensors", path.string(), ""};
  return detail::parse_bytes(detail::read_file(path, options.map, ctx), ctx);
}

SafetensorsFile parse_safetensors(std::span<const std::byte> bytes, std::string_view name) {
  detail::Context ctx{"io.parse_safetensors", std::string(name), ""};
  return detail::parse_bytes({bytes.data(), bytes.size(), nullptr}, ctx);
}

void save_safetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  detail::FileSink sink(path, "io.save_safetensors");
  detail::write_bytes(sink, tensors, metadata, "io.save_safetensors");
  sink.commit();
}

std::vector<std::byte> to_safetensors(const std::vector<NamedTensor>& tensors,
                                      const std::map<std::string, std::string>& metadata) {
  detail::VectorSink sink;
  detail::write_bytes(sink, tensors, metadata, "io.to_safetensors");
  return std::move(sink.bytes);
}

}  // namespace tenferro::io

// safetensors: round trips, the bytes written (checked by parsing the file
// by hand with nlohmann-json), row-major zero-copy views of mapped files,
// and the errors of bad files and bad calls.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tenferro/io.hpp>

#include "io_test_util.hpp"
#include "io_values.hpp"

using namespace tenferro;
using namespace io_test;

namespace {

std::vector<io::NamedTensor> sample() {
  return {{"mask", make<bool>(Shape{5})},
          {"w", make<float>(Shape{3, 4})},                        // column-major
          {"rows", make<double>(Shape{4, 2}).permute({1, 0})},    // row-major
          {"ids", make<std::int64_t>(Shape{3, 5}).slice(1, 0, 5, 2)},  // neither
          {"count", make<std::int32_t>(Shape{})},
          {"none", Tensor::zeros({0, 3}, DType::f64)}};
}

/// A file from a header object and a data section.
Bytes file_of(const nlohmann::json& header, const Bytes& data, std::size_t pad = 0) {
  std::string text = header.dump() + std::string(pad, ' ');
  Bytes b(8);
  put64(b, 0, text.size());
  Bytes t = bytes_of(text);
  b.insert(b.end(), t.begin(), t.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

}  // namespace

TEST(IoSafetensors, RoundTripAndMetadata) {
  Bytes b = io::to_safetensors(sample(), {{"format", "pt"}, {"note", "é"}});
  io::SafetensorsFile f = io::parse_safetensors(b);
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"note", "é"}}));
  ASSERT_EQ(f.tensors.size(), 6u);
  for (const auto& want : sample()) {
    SCOPED_TRACE(want.name);
    const Tensor& got = io::find(f.tensors, want.name);
    EXPECT_TRUE(got.is_row_major_contiguous());
    ASSERT_EQ(got.shape(), want.tensor.shape());
    visit_dtype(got.dtype(), "test", [&]<class T>() {
      EXPECT_EQ(got.to_vec_col_major<T>(), want.tensor.to_vec_col_major<T>());
    });
  }
}

TEST(IoSafetensors, BytesAreRowMajorLittleEndianAndAligned) {
  Bytes b = io::to_safetensors(sample());
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | std::to_integer<std::uint64_t>(b[static_cast<std::size_t>(i)]);
  EXPECT_EQ((8 + n) % 64, 0u);
  auto header = nlohmann::json::parse(text_of(Bytes(b.begin() + 8, b.begin() + 8 + static_cast<long>(n))));
  EXPECT_FALSE(header.contains("__metadata__"));
  const std::byte* data = b.data() + 8 + n;
  auto w = header["w"];
  EXPECT_EQ(w["dtype"], "F32");
  EXPECT_EQ(w["shape"], nlohmann::json({3, 4}));
  std::uint64_t begin = w["data_offsets"][0], end = w["data_offsets"][1];
  ASSERT_EQ(end - begin, 48u);
  EXPECT_EQ(begin % 4, 0u);
  for (int r = 0; r < 12; ++r) {  // row-major order: value(r) at position r
    float x;
    std::memcpy(&x, data + begin + 4 * static_cast<std::size_t>(r), 4);
    EXPECT_EQ(x, value<float>(r)) << r;
  }
  auto ids = header["ids"];  // columns 0, 2, 4 of a [3, 5] array with values value(5 i + j)
  EXPECT_EQ(ids["dtype"], "I64");
  begin = ids["data_offsets"][0];
  EXPECT_EQ(begin % 8, 0u);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      std::int64_t x;
      std::memcpy(&x, data + begin + 8 * static_cast<std::size_t>(3 * i + j), 8);
      EXPECT_EQ(x, value<std::int64_t>(5 * i + 2 * j));
    }
  EXPECT_EQ(header["mask"]["dtype"], "BOOL");
  EXPECT_EQ(header["count"]["shape"], nlohmann::json::array());
}

TEST(IoSafetensors, MappedFilesGiveRowMajorViews) {
  ScratchDir dir;
  const auto path = dir / "t.safetensors";
  io::save_safetensors(path, sample(), {{"k", "v"}});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"t.safetensors"});
  io::SafetensorsFile f = io::load_safetensors(path, {.map = io::MapMode::always});
  const std::string canonical = fs::canonical(path).string();
  for (const char* name : {"w", "rows", "ids", "count", "mask"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(mapped_file_of(io::find(f.tensors, name).data_ptr()), canonical);
    EXPECT_TRUE(io::find(f.tensors, name).is_row_major_contiguous());
  }
  expect_values<float>(io::find(f.tensors, "w"), Shape{3, 4});
  EXPECT_EQ(f.metadata.at("k"), "v");
  io::SafetensorsFile r = io::load_safetensors(path, {.map = io::MapMode::never});
  EXPECT_EQ(mapped_file_of(io::find(r.tensors, "w").data_ptr()), "");
  expect_values<float>(io::find(r.tensors, "w"), Shape{3, 4});
}

TEST(IoSafetensors, WriteErrorsChangeNothing) {
  ScratchDir dir;
  const auto path = dir / "keep.safetensors";
  io::save_safetensors(path, sample());
  const Bytes before = read_bytes(path);
  Tensor t = make<double>(Shape{2});
  try {
    io::save_safetensors(path, {{"z", make<std::complex<double>>(Shape{2})}});
    ADD_FAILURE() << "complex was written";
  } catch (const DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'z' is c128; safetensors has no complex dtype"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(io::save_safetensors(path, {{"a", t}, {"a", t}}), ValueError);
  EXPECT_THROW(io::save_safetensors(path, {{"__metadata__", t}}), ValueError);
  EXPECT_THROW(io::save_safetensors(path, {{"", t}}), ValueError);
  EXPECT_THROW(io::save_safetensors(path, {{"a", Tensor()}}), ValueError);
  EXPECT_THROW(io::save_safetensors(path, {{std::string("bad\xff"), t}}), ValueError);
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"keep.safetensors"});
}

TEST(IoSafetensors, EveryTruncationIsAnError) {
  Bytes good = io::to_safetensors({{"a", make<double>(Shape{2, 2})}, {"b", make<std::int32_t>(Shape{3})}});
  for (std::size_t n = 0; n < good.size(); ++n) {
    Bytes cut(good.begin(), good.begin() + static_cast<long>(n));
    expect_format_error([&] { io::parse_safetensors(cut, "cut.st"); }, {"io.parse_safetensors", "'cut.st'"});
  }
}

TEST(IoSafetensors, BadFilesGiveTheReason) {
  using nlohmann::json;
  auto entry = [](const char* dt, json shape, std::uint64_t b, std::uint64_t e) {
    return json{{"dtype", dt}, {"shape", shape}, {"data_offsets", {b, e}}};
  };
  auto bad = [](const Bytes& b, std::initializer_list<std::string> parts,
                ErrorCode code = ErrorCode::InvalidArgument) {
    expect_format_error([&] { io::parse_safetensors(b, "bad.st"); }, parts, code);
  };
  const Bytes d16(16);
  // Accepted as a baseline: two tensors tiling 16 bytes, header padded.
  json ok{{"a", entry("F64", {1}, 0, 8)}, {"b", entry("I32", {2}, 8, 16)}};
  EXPECT_EQ(io::parse_safetensors(file_of(ok, d16, 5)).tensors.size(), 2u);

  Bytes huge(16);
  put64(huge, 0, 1ull << 40);
  bad(huge, {"'bad.st'", "header length 1099511627776 exceeds the limit"});
  Bytes past(16);
  put64(past, 0, 100);
  bad(past, {"truncated: header length 100 runs past"});
  bad(file_of(json::array({1, 2}), d16), {"not a JSON object"});
  {
    Bytes b = file_of(ok, d16);
    b[9] = std::byte{'?'};
    bad(b, {"not valid JSON"});
  }
  bad(file_of({{"a", entry("F16", {8}, 0, 16)}}, d16), {"tensor 'a'", "dtype F16 is not supported"},
      ErrorCode::Unimplemented);
  bad(file_of({{"a", entry("Q9", {2}, 0, 16)}}, d16), {"unknown dtype 'Q9'"});
  bad(file_of({{"a", entry("F64", {2}, 0, 24)}}, d16), {"lie outside the 16-byte data section"});
  bad(file_of({{"a", entry("F64", {3}, 0, 16)}}, d16), {"shape [3] of F64 needs 24 bytes but data_offsets [0, 16] hold 16"});
  bad(file_of({{"a", entry("F64", {2}, 8, 0)}}, d16), {"end before they begin"});
  bad(file_of({{"a", entry("F64", {1}, 0, 8)}, {"b", entry("F64", {1}, 0, 8)}}, d16),
      {"starts at data offset 0 where 8 was expected"});
  bad(file_of({{"a", entry("F64", {1}, 8, 16)}}, d16), {"starts at data offset 8 where 0 was expected"});
  bad(file_of({{"a", entry("F64", {1}, 0, 8)}}, d16), {"cover 8 bytes of the 16-byte data section"});
  bad(file_of({{"a", entry("F64", {-2}, 0, 16)}}, d16), {"'shape' extent is negative"});
  bad(file_of({{"a", entry("F64", {2.5}, 0, 16)}}, d16), {"not a non-negative integer"});
  bad(file_of({{"a", entry("F64", {1ull << 62, 1ull << 62}, 0, 16)}}, d16), {"overflows"});
  bad(file_of({{"a", entry("F64", json::array({json::array({1})}), 0, 16)}}, d16), {"not a non-negative integer"});
  bad(file_of({{"a", {{"dtype", "F64"}, {"shape", {2}}}}}, d16), {"needs 'dtype', 'shape' and 'data_offsets'"});
  bad(file_of({{"a", {{"dtype", "F64"}, {"shape", {2}}, {"data_offsets", {0, 16}}, {"x", 1}}}}, d16),
      {"unexpected field 'x'"});
  bad(file_of({{"a", entry("F64", {2}, 0, 16)}, {"__metadata__", {{"k", 1}}}}, d16),
      {"__metadata__ entry 'k' is not a string"});
  bad(file_of({{"a", 3}}, d16), {"tensor 'a'", "not an object"});
  json deep = json::array();
  for (int i = 0; i < 65; ++i) deep.push_back(1);
  bad(file_of({{"a", entry("F64", deep, 0, 8)}}, d16), {"more than 64 axes"}, ErrorCode::Unimplemented);
}

TEST(IoSafetensors, ReadsEmptyFileOfNoTensors) {
  io::SafetensorsFile f = io::parse_safetensors(io::to_safetensors({}));
  EXPECT_TRUE(f.tensors.empty());
  EXPECT_TRUE(f.metadata.empty());
}

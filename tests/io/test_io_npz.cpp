// .npz: round trips (stored, deflate, ZIP64), in-place views of mapped
// stored members, and the errors of damaged archives and bad calls. The
// archives are patched field by field (offsets from PKWARE's APPNOTE).
#include <gtest/gtest.h>

#include <tenferro/io.hpp>

#include "io_test_util.hpp"
#include "io_values.hpp"

using namespace tenferro;
using namespace io_test;

namespace {

std::vector<io::NamedTensor> sample() {
  return {{"w", make<double>(Shape{3, 4})},
          {"rows", make<std::complex<float>>(Shape{5, 2}).permute({1, 0})},
          {"flags", make<bool>(Shape{7})},
          {"n", make<std::int32_t>(Shape{})},
          {"odd", make<std::int64_t>(Shape{6, 3}).slice(0, 1, 6, 2)},
          {"empty", Tensor::zeros({0, 2}, DType::f32)},
          {"z", make<std::complex<double>>(Shape{2, 2, 2})}};
}

void expect_sample(const std::vector<io::NamedTensor>& got) {
  auto want = sample();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE(want[k].name);
    EXPECT_EQ(got[k].name, want[k].name);
    const Tensor& a = got[k].tensor;
    const Tensor& b = want[k].tensor;
    ASSERT_EQ(a.dtype(), b.dtype());
    ASSERT_EQ(a.shape(), b.shape());
    visit_dtype(a.dtype(), "test", [&]<class T>() {
      EXPECT_EQ(a.to_vec_col_major<T>(), b.to_vec_col_major<T>());
    });
  }
}

std::size_t eocd(const Bytes& b) { return b.size() - 22; }
std::size_t cd_offset(const Bytes& b) {
  if (get32(b, eocd(b) + 16) != 0xffffffffu) return get32(b, eocd(b) + 16);
  std::size_t rec = get32(b, eocd(b) - 12);  // ZIP64: locator -> end record -> offset
  return get32(b, rec + 48);
}
/// Offset of central-directory entry k.
std::size_t cd_entry(const Bytes& b, int k) {
  std::size_t p = cd_offset(b);
  for (int i = 0; i < k; ++i) p += 46 + get16(b, p + 28) + get16(b, p + 30) + get16(b, p + 32);
  return p;
}
std::size_t local_of(const Bytes& b, int k) { return get32(b, cd_entry(b, k) + 42); }
std::size_t data_of(const Bytes& b, int k) {
  std::size_t l = local_of(b, k);
  return l + 30 + get16(b, l + 26) + get16(b, l + 28);
}

Bytes small_archive(io::Compression c) {
  return io::to_npz({{"a", make<double>(Shape{2, 3})}, {"b", make<std::int32_t>(Shape{4})}},
                    {.compression = c});
}

}  // namespace

TEST(IoNpz, CrcOfTheTestIsZips) {
  Bytes b = small_archive(io::Compression::stored);
  EXPECT_EQ(crc32(b.data() + data_of(b, 0), get32(b, cd_entry(b, 0) + 20)), get32(b, cd_entry(b, 0) + 16));
  Bytes check = bytes_of("123456789");
  EXPECT_EQ(crc32(check.data(), check.size()), 0xcbf43926u);  // the standard check value
}

TEST(IoNpz, RoundTripStoredDeflateZip64) {
  for (auto c : {io::Compression::stored, io::Compression::deflate}) {
    for (bool z64 : {false, true}) {
      SCOPED_TRACE(std::string(c == io::Compression::stored ? "stored" : "deflate") +
                   (z64 ? " zip64" : ""));
      Bytes b = io::to_npz(sample(), {.compression = c, .force_zip64 = z64});
      expect_sample(io::parse_npz(b));
      EXPECT_EQ(get16(b, cd_entry(b, 0) + 10), c == io::Compression::stored ? 0 : 8);
      EXPECT_EQ(get16(b, eocd(b) + 10), z64 ? 0xffff : 7);
    }
  }
  EXPECT_TRUE(io::parse_npz(io::to_npz({})).empty());
}

TEST(IoNpz, LayoutsSurviveInsideTheArchive) {
  auto got = io::parse_npz(io::to_npz(sample()));
  EXPECT_TRUE(io::find(got, "w").is_contiguous());
  EXPECT_TRUE(io::find(got, "rows").is_row_major_contiguous());
  EXPECT_THROW(io::find(got, "nope"), ValueError);
}

TEST(IoNpz, DeflateCompresses) {
  Tensor zeros = Tensor::zeros({100, 1000}, DType::f64);
  Bytes stored = io::to_npz({{"z", zeros}});
  Bytes packed = io::to_npz({{"z", zeros}}, {.compression = io::Compression::deflate, .level = 9});
  EXPECT_GT(stored.size(), 800000u);
  EXPECT_LT(packed.size(), 5000u);
  EXPECT_EQ(io::find(io::parse_npz(packed), "z").to_vec_col_major<double>(), std::vector<double>(100000, 0.0));
}

TEST(IoNpz, StoredMembersOfMappedFilesAreViews) {
  ScratchDir dir;
  const auto path = dir / "m.npz";
  io::save_npz(path, sample());
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"m.npz"});
  Bytes b = read_bytes(path);
  for (int k = 0; k < 7; ++k) EXPECT_EQ(data_of(b, k) % 64, 0u) << "member " << k;
  auto got = io::load_npz(path, {.map = io::MapMode::always});
  expect_sample(got);
  const std::string canonical = fs::canonical(path).string();
  EXPECT_EQ(mapped_file_of(io::find(got, "w").data_ptr()), canonical);
  EXPECT_EQ(mapped_file_of(io::find(got, "z").data_ptr()), canonical);
  auto read = io::load_npz(path, {.map = io::MapMode::never});
  EXPECT_EQ(mapped_file_of(io::find(read, "w").data_ptr()), "");
  io::save_npz(path, sample(), {.compression = io::Compression::deflate});
  auto inflated = io::load_npz(path, {.map = io::MapMode::always});
  expect_sample(inflated);
  EXPECT_EQ(mapped_file_of(io::find(inflated, "w").data_ptr()), "");
}

TEST(IoNpz, WriteErrorsChangeNothing) {
  ScratchDir dir;
  const auto path = dir / "keep.npz";
  io::save_npz(path, sample());
  const Bytes before = read_bytes(path);
  Tensor t = make<double>(Shape{2});
  EXPECT_THROW(io::save_npz(path, {{"a", t}, {"a", t}}), ValueError);
  EXPECT_THROW(io::save_npz(path, {{"", t}}), ValueError);
  EXPECT_THROW(io::save_npz(path, {{"a", Tensor()}}), ValueError);
  EXPECT_THROW(io::save_npz(path, {{"a", t}}, {.compression = io::Compression::deflate, .level = 0}),
               ValueError);
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"keep.npz"});
}

TEST(IoNpz, EveryTruncationIsAnError) {
  for (auto c : {io::Compression::stored, io::Compression::deflate}) {
    Bytes good = small_archive(c);
    for (std::size_t n = 0; n < good.size(); ++n) {
      Bytes cut(good.begin(), good.begin() + static_cast<long>(n));
      expect_format_error([&] { io::parse_npz(cut, "cut.npz"); }, {"io.parse_npz", "'cut.npz'"});
    }
  }
}

TEST(IoNpz, DamagedArchivesGiveTheReason) {
  const Bytes stored = small_archive(io::Compression::stored);
  const Bytes deflated = small_archive(io::Compression::deflate);
  auto bad = [](Bytes b, std::initializer_list<std::string> parts,
                ErrorCode code = ErrorCode::InvalidArgument) {
    expect_format_error([&] { io::parse_npz(b, "bad.npz"); }, parts, code);
  };
  bad(bytes_of(std::string(100, 'x')), {"'bad.npz'", "not a ZIP archive"});
  {  // a data byte flipped
    Bytes b = stored;
    b[data_of(b, 1) + 130] ^= std::byte{1};
    bad(b, {"member 'b.npy'", "CRC-32 mismatch"});
  }
  {
    Bytes b = stored;
    put16(b, cd_entry(b, 0) + 10, 12);  // bzip2
    bad(b, {"member 'a.npy'", "compression method 12"}, ErrorCode::Unimplemented);
  }
  {
    Bytes b = stored;
    put16(b, cd_entry(b, 0) + 8, 1);
    bad(b, {"encrypted"}, ErrorCode::Unimplemented);
  }
  {
    Bytes b = stored;
    put16(b, eocd(b) + 4, 1);
    bad(b, {"multi-disk"}, ErrorCode::Unimplemented);
  }
  {
    Bytes b = stored;
    put32(b, eocd(b) + 16, static_cast<std::uint32_t>(b.size()));
    bad(b, {"central directory", "outside the archive"});
  }
  {
    Bytes b = stored;
    put16(b, eocd(b) + 8, 200);
    put16(b, eocd(b) + 10, 200);
    bad(b, {"declares 200 members"});
  }
  {
    Bytes b = stored;
    put32(b, cd_entry(b, 1) + 42, 7);
    bad(b, {"member 'b.npy'", "no local header at offset 7"});
  }
  {
    Bytes b = stored;
    put32(b, cd_entry(b, 1) + 42, static_cast<std::uint32_t>(cd_offset(b) - 10));
    bad(b, {"local header offset"});
  }
  {
    Bytes b = stored;
    put32(b, cd_entry(b, 0) + 20, get32(b, cd_entry(b, 0) + 20) + 4000);
    bad(b, {"runs into the central directory"});
  }
  {  // a stored member whose two sizes disagree
    Bytes b = stored;
    put32(b, cd_entry(b, 0) + 24, 5);
    bad(b, {"declares 5 uncompressed bytes"});
  }
  {  // rename a.npy to a.txt in both headers
    Bytes b = stored;
    b[cd_entry(b, 0) + 46 + 2] = std::byte{'t'};
    b[local_of(b, 0) + 30 + 2] = std::byte{'t'};
    bad(b, {"member 'a.tpy'", "not a .npy member"}, ErrorCode::Unimplemented);
  }
  {  // the local header names another member
    Bytes b = stored;
    b[local_of(b, 0) + 30] = std::byte{'q'};
    bad(b, {"names the member differently"});
  }
  {  // b.npy renamed a.npy: a duplicate
    Bytes b = stored;
    b[cd_entry(b, 1) + 46] = std::byte{'a'};
    b[local_of(b, 1) + 30] = std::byte{'a'};
    bad(b, {"holds 'a.npy' twice"});
  }
  {  // an inner .npy header that lies: the member is named
    Bytes b = stored;
    b[data_of(b, 0) + 1] = std::byte{'X'};
    put32(b, cd_entry(b, 0) + 16, crc32(b.data() + data_of(b, 0), get32(b, cd_entry(b, 0) + 20)));
    bad(b, {"member 'a.npy'", "wrong magic"});
  }
  {  // deflate: the declared size is larger / smaller than the stream's
    Bytes b = deflated;
    put32(b, cd_entry(b, 0) + 24, get32(b, cd_entry(b, 0) + 24) + 1);
    bad(b, {"member 'a.npy'", "inflates to"});
    b = deflated;
    put32(b, cd_entry(b, 0) + 24, get32(b, cd_entry(b, 0) + 24) - 1);
    bad(b, {"member 'a.npy'", "inflates to"});
  }
  {  // a zip bomb's claim
    Bytes b = deflated;
    put32(b, cd_entry(b, 0) + 24, 0xfffffff0u);
    bad(b, {"more than deflate can produce"});
  }
  {  // garbage in the deflate stream
    Bytes b = deflated;
    for (std::size_t i = 0; i < 8; ++i) b[data_of(b, 0) + i] = std::byte{0xff};
    bad(b, {"member 'a.npy'", "deflate stream"});
  }
  {  // ZIP64 records: the locator points outside
    Bytes b = io::to_npz({{"a", make<double>(Shape{2})}}, {.force_zip64 = true});
    ASSERT_EQ(get32(b, eocd(b) - 20), 0x07064b50u);
    EXPECT_EQ(io::parse_npz(b).size(), 1u);
    put64(b, eocd(b) - 12, 1u << 30);
    bad(b, {"ZIP64 end record offset"});
  }
  {  // 0xffffffff sizes with no ZIP64 extra
    Bytes b = stored;
    put32(b, cd_entry(b, 0) + 20, 0xffffffffu);
    bad(b, {"no ZIP64 extra field"});
  }
}

// .npy: round trips of every dtype and layout, the layout written (no
// transpose), mapped reading, and the errors of bad files and bad calls.
#include <gtest/gtest.h>

#include <cstring>
#include <tenferro/io.hpp>

#include "io_test_util.hpp"
#include "io_values.hpp"

using namespace tenferro;
using namespace io_test;

namespace {

/// The dict text of a .npy file (between the length field and the data).
std::string header_of(const Bytes& b) {
  std::size_t len = b.at(6) == std::byte{1} ? get16(b, 8) : get32(b, 8);
  std::size_t start = b.at(6) == std::byte{1} ? 10 : 12;
  return text_of(Bytes(b.begin() + static_cast<long>(start), b.begin() + static_cast<long>(start + len)));
}

/// A .npy file with the given dict and data bytes (version 1.0).
Bytes npy_file(const std::string& dict, std::size_t data_bytes, unsigned char fill = 0) {
  Bytes b = bytes_of(std::string("\x93NUMPY\x01\x00", 8));
  b.push_back(std::byte(dict.size() & 0xff));
  b.push_back(std::byte(dict.size() >> 8));
  Bytes d = bytes_of(dict);
  b.insert(b.end(), d.begin(), d.end());
  b.insert(b.end(), data_bytes, std::byte{fill});
  return b;
}

template <class T>
void round_trip_all_layouts() {
  SCOPED_TRACE(dtype_name(dtype_of<T>));
  const Shape shape{2, 3, 4};
  Tensor col = make<T>(shape);
  // Column-major: fortran_order True, the bytes after the header are the tensor's memory.
  Bytes b = io::to_npy(col);
  EXPECT_NE(header_of(b).find("'fortran_order': True"), std::string::npos) << header_of(b);
  EXPECT_NE(header_of(b).find("'shape': (2, 3, 4)"), std::string::npos) << header_of(b);
  const std::size_t nbytes = 24 * sizeof(T);
  ASSERT_EQ(b.size() % 64, nbytes % 64);
  EXPECT_EQ(std::memcmp(b.data() + (b.size() - nbytes), col.data_ptr(), nbytes), 0);
  Tensor back = io::parse_npy(b);
  EXPECT_TRUE(back.is_contiguous());
  expect_values<T>(back, shape);

  // A row-major view: fortran_order False, again the memory as it is.
  Tensor row = make<T>(Shape{4, 3, 2}).permute({2, 1, 0});
  ASSERT_TRUE(row.is_row_major_contiguous());
  Bytes rb = io::to_npy(row);
  EXPECT_NE(header_of(rb).find("'fortran_order': False"), std::string::npos);
  EXPECT_NE(header_of(rb).find("'shape': (2, 3, 4)"), std::string::npos);
  EXPECT_EQ(std::memcmp(rb.data() + (rb.size() - nbytes), row.data_ptr(), nbytes), 0);
  Tensor rback = io::parse_npy(rb);
  EXPECT_TRUE(rback.is_row_major_contiguous());
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 4; ++k)
        ASSERT_EQ(rback.at<T>({i, j, k}), row.at<T>({i, j, k}));

  // Neither layout (a strided, flipped slice): written from a column-major copy.
  Tensor big = make<T>(Shape{4, 3, 5});
  Tensor odd = big.slice(0, 0, 4, 2).flip({1});
  Bytes ob = io::to_npy(odd);
  EXPECT_NE(header_of(ob).find("'fortran_order': True"), std::string::npos);
  Tensor oback = io::parse_npy(ob);
  ASSERT_EQ(oback.shape(), (Shape{2, 3, 5}));
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 5; ++k) ASSERT_EQ(oback.at<T>({i, j, k}), odd.at<T>({i, j, k}));
}

}  // namespace

TEST(IoNpy, RoundTripEveryDtypeAndLayout) {
  round_trip_all_layouts<float>();
  round_trip_all_layouts<double>();
  round_trip_all_layouts<std::complex<float>>();
  round_trip_all_layouts<std::complex<double>>();
  round_trip_all_layouts<std::int32_t>();
  round_trip_all_layouts<std::int64_t>();
  round_trip_all_layouts<bool>();
}

TEST(IoNpy, HeaderIsNumpysSpellingAndPaddedTo64) {
  Bytes b = io::to_npy(make<double>(Shape{5}));
  EXPECT_EQ(header_of(b).substr(0, 57), "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }");
  EXPECT_EQ(header_of(b).back(), '\n');
  EXPECT_EQ((b.size() - 5 * 8) % 64, 0u);
  Bytes s = io::to_npy(Tensor::scalar<std::int32_t>(-4));
  EXPECT_NE(header_of(s).find("'descr': '<i4'"), std::string::npos);
  EXPECT_NE(header_of(s).find("'shape': ()"), std::string::npos);
  EXPECT_EQ(io::parse_npy(s).at<std::int32_t>({}), -4);
  Bytes e = io::to_npy(Tensor::zeros({0, 3}, DType::c64));
  Tensor eb = io::parse_npy(e);
  EXPECT_EQ(eb.shape(), (Shape{0, 3}));
  EXPECT_EQ(eb.dtype(), DType::c64);
  EXPECT_NE(header_of(io::to_npy(Tensor::ones({2}, DType::bool_))).find("'|b1'"), std::string::npos);
}

TEST(IoNpy, SaveLoadFilesMappedAndRead) {
  ScratchDir dir;
  Tensor a = make<double>(Shape{64, 40});  // 20 KiB
  const auto path = dir / "a.npy";
  io::save_npy(path, a);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.npy"});  // no temporary left
  const std::string canonical = fs::canonical(path).string();

  Tensor m = io::load_npy(path, {.map = io::MapMode::always});
  expect_values<double>(m, Shape{64, 40});
  EXPECT_EQ(mapped_file_of(m.data_ptr()), canonical);
  // Private mapping: writing to the tensor does not change the file.
  m.set<double>({0, 0}, 1234.5);
  EXPECT_EQ(m.at<double>({0, 0}), 1234.5);
  Tensor r = io::load_npy(path, {.map = io::MapMode::never});
  EXPECT_EQ(r.at<double>({0, 0}), value<double>(0));
  EXPECT_EQ(mapped_file_of(r.data_ptr()), "");
  // Small files are read under automatic.
  Tensor s = io::load_npy(path);
  EXPECT_EQ(mapped_file_of(s.data_ptr()), "");
  // The mapping outlives the file's name and the loader's handles.
  Tensor keep = io::load_npy(path, {.map = io::MapMode::always});
  fs::remove(path);
  expect_values<double>(keep, Shape{64, 40});
}

TEST(IoNpy, LargeFilesAreMappedUnderAutomatic) {
  ScratchDir dir;
  const auto path = dir / "big.npy";
  Tensor a = make<float>(Shape{512, 600});  // 1.2 MB > kMapThreshold
  io::save_npy(path, a);
  Tensor m = io::load_npy(path);
  EXPECT_EQ(mapped_file_of(m.data_ptr()), fs::canonical(path).string());
  expect_values<float>(m, Shape{512, 600});
}

TEST(IoNpy, SaveReplacesOnlyWhenComplete) {
  ScratchDir dir;
  const auto path = dir / "x.npy";
  io::save_npy(path, make<double>(Shape{3}));
  Bytes before = read_bytes(path);
  EXPECT_THROW(io::save_npy(path, Tensor()), ValueError);
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.npy"});
  io::save_npy(path, make<double>(Shape{4}));
  EXPECT_EQ(io::load_npy(path).shape(), (Shape{4}));
  expect_format_error([&] { io::save_npy(dir / "no_such_dir" / "x.npy", make<double>(Shape{2})); },
                      {"io.save_npy", "no_such_dir", "cannot create"}, ErrorCode::BackendFailure);
}

TEST(IoNpy, BoolBytesOtherThanZeroOrOneReadAsTrue) {
  Bytes b = npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n", 0);
  b.push_back(std::byte{0});
  b.push_back(std::byte{7});
  b.push_back(std::byte{1});
  Tensor t = io::parse_npy(b);
  EXPECT_EQ(t.to_vec_col_major<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(*static_cast<const unsigned char*>(t.data_ptr()) + 0, 0);
  EXPECT_EQ(static_cast<const unsigned char*>(t.data_ptr())[1], 1);
}

TEST(IoNpy, OpenErrorsNameTheFile) {
  ScratchDir dir;
  expect_format_error([&] { io::load_npy(dir / "missing.npy"); },
                      {"io.load_npy", "missing.npy", "cannot open"}, ErrorCode::BackendFailure);
  expect_format_error([&] { io::load_npy(dir.path); }, {"io.load_npy", "not a regular file"});
  write_bytes(dir / "empty.npy", {});
  expect_format_error([&] { io::load_npy(dir / "empty.npy", {.map = io::MapMode::always}); },
                      {"empty.npy", "truncated"});
}

TEST(IoNpy, EveryTruncationIsAnError) {
  Bytes good = io::to_npy(make<std::complex<double>>(Shape{2, 3}));
  for (std::size_t n = 0; n < good.size(); ++n) {
    Bytes cut(good.begin(), good.begin() + static_cast<long>(n));
    expect_format_error([&] { io::parse_npy(cut, "cut.npy"); }, {"io.parse_npy", "'cut.npy'"});
  }
}

TEST(IoNpy, BadHeadersGiveTheReason) {
  auto bad = [](const std::string& dict, std::size_t data, std::initializer_list<std::string> parts,
                ErrorCode code = ErrorCode::InvalidArgument) {
    SCOPED_TRACE(dict);
    Bytes b = npy_file(dict, data);
    expect_format_error([&] { io::parse_npy(b, "bad.npy"); }, parts, code);
  };
  const std::string ok_tail = ", 'fortran_order': False, 'shape': (2, 3), }\n";
  bad("{'descr': '<f2'" + ok_tail, 12, {"'bad.npy'", "dtype '<f2' is not supported"},
      ErrorCode::Unimplemented);
  bad("{'descr': '|u1'" + ok_tail, 6, {"dtype '|u1'"}, ErrorCode::Unimplemented);
  bad("{'descr': [('a', '<f8')]" + ok_tail, 48, {"structured"}, ErrorCode::Unimplemented);
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n", 40,
      {"shape [2, 3] of <f8 (48 bytes) but 40 bytes"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n", 56, {"but 56 bytes"});
  bad("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2, 3), }\n", 48, {"neither True nor False"});
  bad("{'descr': '<f8', 'shape': (2, 3), }\n", 48, {"lacks the key 'fortran_order'"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1}\n", 48, {"unexpected key 'x'"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }\n", 48, {"non-integer"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3.5), }\n", 48, {"where ')' was expected"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }\n", 8,
      {"beyond int64"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n", 8,
      {"overflows"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4), }\n", 0,
      {"overflows"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (6), }\n", 48, {"not a tuple"});
  bad("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), } trailing\n", 48, {"text after the dict"});
  bad("['descr', '<f8']\n", 0, {"where '{' was expected"});
  bad("{'descr': '<f8, 'fortran_order': False}", 0, {"'bad.npy'"});
  std::string many = "{'descr': '<f8', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i) many += "1, ";
  bad(many + "), }\n", 8, {"more than 64 axes"}, ErrorCode::Unimplemented);

  Bytes good = io::to_npy(make<double>(Shape{2}));
  Bytes magic = good;
  magic[1] = std::byte{'X'};
  expect_format_error([&] { io::parse_npy(magic, "m.npy"); }, {"'m.npy'", "wrong magic"});
  Bytes version = good;
  version[6] = std::byte{4};
  expect_format_error([&] { io::parse_npy(version, "v.npy"); }, {"version 4.0"}, ErrorCode::Unimplemented);
  Bytes length = good;
  put16(length, 8, 0xfff0);
  expect_format_error([&] { io::parse_npy(length, "l.npy"); }, {"header length 65520 runs past"});
}

TEST(IoNpy, BigEndianIsSwapped) {
  // '>i4' 1-d [1, 256, -2] written by hand.
  Bytes b = npy_file("{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }\n", 0);
  for (unsigned char c : {0, 0, 0, 1, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xfe}) b.push_back(std::byte{c});
  EXPECT_EQ(io::parse_npy(b).to_vec_col_major<std::int32_t>(), (std::vector<std::int32_t>{1, 256, -2}));
}

TEST(IoNpy, WriteErrors) {
  EXPECT_THROW(io::to_npy(Tensor()), ValueError);
}

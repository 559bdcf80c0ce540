// Files written by NumPy (tests/io/make_reference.py) load with the values
// of io_values.hpp, in the layout the file states: C order as a row-major
// view of the file's bytes, Fortran order column-major.
#include <gtest/gtest.h>

#include <tenferro/io.hpp>

#include "io_test_util.hpp"
#include "io_values.hpp"

using namespace tenferro;
using namespace io_test;

namespace {

const fs::path kData = TENFERRO_IO_DATA_DIR;

template <class T>
void check_pair(const std::string& code) {
  SCOPED_TRACE(code);
  const Shape shape{2, 3, 4};
  for (io::MapMode mode : {io::MapMode::always, io::MapMode::never}) {
    Tensor c = io::load_npy(kData / (code + "_c.npy"), {.map = mode});
    EXPECT_TRUE(c.is_row_major_contiguous());
    EXPECT_EQ(c.strides(), (Strides{12, 4, 1}));
    expect_values<T>(c, shape);
    Tensor f = io::load_npy(kData / (code + "_f.npy"), {.map = mode});
    EXPECT_TRUE(f.is_contiguous());
    EXPECT_EQ(f.strides(), (Strides{1, 2, 6}));
    expect_values<T>(f, shape);
    if (mode == io::MapMode::always) {
      // No copy: element r of the C-order file is the r-th element in memory.
      const T* p = static_cast<const T*>(c.data_ptr());
      for (int r = 0; r < 24; ++r) EXPECT_EQ(p[r], value<T>(r));
      EXPECT_EQ(mapped_file_of(p), fs::canonical(kData / (code + "_c.npy")).string());
    }
  }
}

}  // namespace

TEST(IoInterop, NumpyNpyEveryDtypeBothOrders) {
  check_pair<float>("f4");
  check_pair<double>("f8");
  check_pair<std::complex<float>>("c8");
  check_pair<std::complex<double>>("c16");
  check_pair<std::int32_t>("i4");
  check_pair<std::int64_t>("i8");
  check_pair<bool>("b1");
}

TEST(IoInterop, NumpyNpySpecialCases) {
  expect_values<double>(io::load_npy(kData / "scalar_f8.npy"), Shape{});
  expect_values<std::int64_t>(io::load_npy(kData / "vector_i8.npy"), Shape{5});
  Tensor e = io::load_npy(kData / "empty_f8.npy");
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(e.dtype(), DType::f64);
  expect_values<double>(io::load_npy(kData / "big_f8.npy"), Shape{3, 2});
  Tensor bc = io::load_npy(kData / "big_c16.npy", {.map = io::MapMode::always});
  EXPECT_TRUE(bc.is_contiguous());
  EXPECT_EQ(mapped_file_of(bc.data_ptr()), "");  // swapped, hence copied
  expect_values<std::complex<double>>(bc, Shape{3, 2});
  expect_values<float>(io::load_npy(kData / "v2_f4.npy"), Shape{4, 3});
  expect_values<float>(io::load_npy(kData / "v3_f4.npy"), Shape{4, 3});
}

TEST(IoInterop, NumpyNpzStoredAndDeflate) {
  for (const char* file : {"arrays.npz", "arrays_deflate.npz"}) {
    SCOPED_TRACE(file);
    auto all = io::load_npz(kData / file);
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[0].name, "a");
    expect_values<double>(io::find(all, "a"), Shape{3, 4});
    EXPECT_TRUE(io::find(all, "a").is_row_major_contiguous());
    expect_values<std::complex<float>>(io::find(all, "b"), Shape{2, 5});
    EXPECT_TRUE(io::find(all, "b").is_contiguous());
    expect_values<bool>(io::find(all, "flags"), Shape{7});
    expect_values<std::int32_t>(io::find(all, "n"), Shape{});
  }
}

TEST(IoInterop, SafetensorsByTheDocumentedLayout) {
  io::SafetensorsFile f = io::load_safetensors(kData / "reference.safetensors");
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "np"},
                                                             {"source", "make_reference.py"}}));
  ASSERT_EQ(f.tensors.size(), 5u);
  expect_values<float>(io::find(f.tensors, "w"), Shape{3, 4});
  expect_values<double>(io::find(f.tensors, "b"), Shape{4});
  expect_values<std::int64_t>(io::find(f.tensors, "ids"), Shape{2, 2});
  expect_values<bool>(io::find(f.tensors, "mask"), Shape{5});
  expect_values<std::int32_t>(io::find(f.tensors, "count"), Shape{});
  EXPECT_TRUE(io::find(f.tensors, "w").is_row_major_contiguous());
}

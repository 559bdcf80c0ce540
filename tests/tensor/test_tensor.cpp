// The tensor module: factories, views (checked element by element against
// their definitions), copies, element access, printing, TypedTensor,
// Scalar, Storage and the shape helpers.
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

#include "support/test_support.hpp"
#include "tenferro/tensor/strided_copy.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

using C = std::complex<double>;

std::string str(const auto& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

TEST(Tensor, LayoutsPreserveValues) {
  for (DType d : all_dtypes()) {
    Tensor t = random_tensor({3, 4, 2}, d, 7);
    for (int k = 0; k < kNumLayouts; ++k) {
      Tensor v = with_random_layout(t, 11 + k, k);
      EXPECT_TRUE(tensors_equal(v, t)) << "layout " << k << " dtype " << d;
      EXPECT_TRUE(tensors_equal(v.contiguous(), t));
    }
  }
}

// ---- factories -------------------------------------------------------------------

TEST(Factories, ConstantsByHand) {
  for (DType d : all_dtypes()) {
    Tensor z = Tensor::zeros({2, 3}, d), o = Tensor::ones({2, 3}, d);
    EXPECT_EQ(z.dtype(), d);
    EXPECT_EQ(z.shape(), (Shape{2, 3}));
    EXPECT_EQ(z.strides(), (Strides{1, 2}));
    EXPECT_TRUE(z.is_contiguous());
    for (const DimVec& i : all_indices({2, 3})) {
      EXPECT_EQ(value_at(z, i), C(0));
      EXPECT_EQ(value_at(o, i), C(1));
    }
  }
  Tensor f = Tensor::full({2}, Scalar(C(1.5, -2)), DType::c64);
  EXPECT_EQ(f.to_vec_col_major<std::complex<float>>(),
            (std::vector<std::complex<float>>{{1.5f, -2.f}, {1.5f, -2.f}}));
  EXPECT_EQ(Tensor::full({2}, Scalar(C(1.5, -2)), DType::f64).to_vec_col_major<double>(),
            (std::vector<double>{1.5, 1.5}));
  EXPECT_EQ(Tensor::full({1}, Scalar(-2.7), DType::i32).item().to<std::int64_t>(), -2);
  EXPECT_EQ(Tensor::full({1}, Scalar(0.25), DType::bool_).item().to<bool>(), true);
  EXPECT_EQ(Tensor::zeros({}).numel(), 1);
  EXPECT_EQ(Tensor::zeros({3, 0}).numel(), 0);
  EXPECT_EQ(Tensor::empty({4, 0, 2}, DType::f32).strides(), (Strides{1, 4, 4}));
  Tensor s = Tensor::scalar<std::int64_t>(-9);
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.item().to<std::int64_t>(), -9);
}

TEST(Factories, EyeAndArange) {
  Tensor e = Tensor::eye(2, 3, DType::c128);
  ASSERT_EQ(e.shape(), (Shape{2, 3}));
  for (const DimVec& i : all_indices({2, 3})) EXPECT_EQ(value_at(e, i), C(i[0] == i[1] ? 1 : 0)) << i;
  EXPECT_EQ(Tensor::eye(3, DType::i32).to_vec_col_major<std::int32_t>(),
            (std::vector<std::int32_t>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(Tensor::eye(0).numel(), 0);
  EXPECT_EQ(Tensor::arange(5).to_vec_col_major<double>(), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Tensor::arange(4, DType::i64).to_vec_col_major<std::int64_t>(),
            (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Tensor::arange(1.0, 2.0, 0.25, DType::f32).to_vec_col_major<float>(),
            (std::vector<float>{1, 1.25f, 1.5f, 1.75f}));
  EXPECT_EQ(Tensor::arange(5.0, 0.0, -2.0, DType::f64).to_vec_col_major<double>(),
            (std::vector<double>{5, 3, 1}));
  EXPECT_EQ(Tensor::arange(2.0, 1.0, 1.0, DType::f64).numel(), 0);
  EXPECT_EQ(Tensor::arange(0).shape(), (Shape{0}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::arange(-1); }, {"arange", "-1"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::arange(0.0, 1.0, 0.0, DType::f64); }, {"arange", "step"}));
  EXPECT_TRUE(
      throws_with<ValueError>([] { Tensor::arange(0.0, INFINITY, 1.0, DType::f64); }, {"arange", "inf"}));
  EXPECT_TRUE(throws_with<ValueError>([] { Tensor::eye(-2); }, {"-2"}));
}

TEST(Factories, SeededRandomIsDeterministicAndInRange) {
  for (DType d : float_dtypes()) {
    Tensor a = Tensor::uniform({100, 50}, d, 42, -2.0, 3.0);
    Tensor b = Tensor::uniform({100, 50}, d, 42, -2.0, 3.0);
    Tensor c = Tensor::uniform({100, 50}, d, 43, -2.0, 3.0);
    EXPECT_TRUE(tensors_equal(a, b)) << d;
    EXPECT_FALSE(tensors_equal(a, c)) << d;
    double sum = 0;
    for (const DimVec& i : all_indices(a.shape())) {
      C v = value_at(a, i);
      for (double part : {v.real(), v.imag()}) {
        if (part == 0 && !is_complex(d)) continue;
        EXPECT_GE(part, -2.0);
        EXPECT_LT(part, 3.0);
      }
      sum += v.real();
    }
    EXPECT_NEAR(sum / 5000, 0.5, 0.1) << d;  // mean of U(-2, 3); sd of the mean ~0.02
    Tensor n1 = Tensor::normal({20000}, d, 7, 1.0, 2.0), n2 = Tensor::normal({20000}, d, 7, 1.0, 2.0);
    EXPECT_TRUE(tensors_equal(n1, n2));
    double s1 = 0, s2 = 0;
    for (const DimVec& i : all_indices(n1.shape())) {
      double v = value_at(n1, i).real();
      s1 += v;
      s2 += v * v;
    }
    double mean = s1 / 20000, var = s2 / 20000 - mean * mean;
    EXPECT_NEAR(mean, 1.0, 0.1) << d;
    EXPECT_NEAR(std::sqrt(var), 2.0, 0.1) << d;
  }
  // Floats never round up to `high`.
  Tensor f = Tensor::uniform({10000}, DType::f32, 1, 0.0, 1e-7);
  for (float v : f.to_vec_col_major<float>()) EXPECT_LT(v, 1e-7f);
  EXPECT_TRUE(throws_with<DTypeError>([] { Tensor::uniform({2}, DType::i32, 1); }, {"uniform", "i32"}));
  EXPECT_TRUE(
      throws_with<ValueError>([] { Tensor::uniform({2}, DType::f64, 1, 1.0, 1.0); }, {"uniform", "[1, 1)"}));
  EXPECT_TRUE(
      throws_with<ValueError>([] { Tensor::normal({2}, DType::f64, 1, 0.0, -1.0); }, {"normal", "-1"}));
}

TEST(Factories, FromVectors) {
  Tensor c = Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(c.strides(), (Strides{1, 2}));
  EXPECT_EQ(c.at<double>({1, 0}), 2.0);
  EXPECT_EQ(c.at<double>({0, 2}), 5.0);
  EXPECT_TRUE(throws_with<ShapeError>(
      [] {
        Tensor::from_vec_col_major<double>({2, 3}, {1, 2});
      },
      {"from_vec_col_major", "[2, 3]", "6", "2"}));
  // Row-major input is a permuted view of the values as given (no reordering).
  const std::vector<float> rm{1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                              13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
  Tensor r = Tensor::from_vec_row_major<float>({2, 3, 4}, rm);
  EXPECT_EQ(r.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(r.strides(), (Strides{12, 4, 1}));
  EXPECT_TRUE(r.is_row_major_contiguous());
  EXPECT_FALSE(r.is_contiguous());
  const float* mem = static_cast<const float*>(r.storage()->data());
  for (std::size_t i = 0; i < rm.size(); ++i) EXPECT_EQ(mem[i], rm[i]);
  for (const DimVec& i : all_indices(r.shape()))
    EXPECT_EQ(r.at<float>(i), rm[static_cast<std::size_t>(i[0] * 12 + i[1] * 4 + i[2])]) << i;
  EXPECT_EQ(Tensor::from_vec_row_major<std::int32_t>({}, {5}).item().to<std::int64_t>(), 5);
  std::vector<bool> bits{true, false, true};
  EXPECT_EQ(Tensor::from_vec_col_major<bool>({3}, bits).to_vec_col_major<bool>(), bits);
}

// ---- views ---------------------------------------------------------------------

// A random f64 / c64 / i32 tensor in a random layout (the views must work on any).
Tensor any_layout(const Shape& s, DType d, std::uint64_t seed) {
  return with_random_layout(random_tensor(s, d, seed), seed + 1);
}

TEST(Views, PermuteAndTranspose) {
  for (DType d : {DType::f64, DType::c64, DType::i32}) {
    Tensor x = any_layout({2, 3, 4, 1}, d, 1);
    const DimVec perm{2, 0, 3, 1};
    Tensor p = x.permute(perm);
    EXPECT_TRUE(p.shares_storage_with(x));
    EXPECT_EQ(p.shape(), (Shape{4, 2, 1, 3}));
    for (const DimVec& i : all_indices(p.shape())) {
      DimVec j(4);
      for (std::size_t k = 0; k < 4; ++k) j[static_cast<std::size_t>(perm[k])] = i[k];
      EXPECT_EQ(value_at(p, i), value_at(x, j));
    }
    // transpose swaps the matrix axes (0, 1); batch axes stay.
    Tensor t = x.transpose();
    EXPECT_TRUE(t.shares_storage_with(x));
    EXPECT_EQ(t.shape(), (Shape{3, 2, 4, 1}));
    for (const DimVec& i : all_indices(t.shape()))
      EXPECT_EQ(value_at(t, i), value_at(x, {i[1], i[0], i[2], i[3]}));
  }
  Tensor x = Tensor::zeros({2, 3});
  EXPECT_TRUE(throws_with<ValueError>([&] { x.permute({0}); }, {"permute", "[0]", "rank 2"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { x.permute({1, 1}); }, {"permute", "repeats axis 1"}));
  EXPECT_TRUE(throws_with<ShapeError>([] { Tensor::zeros({3}).transpose(); }, {"transpose", "[3]"}));
}

TEST(Views, SliceWithStepsAndSelect) {
  Tensor x = any_layout({5, 7, 3}, DType::c128, 3);
  Tensor s = x.slice(1, 1, 7, 3);  // 1, 4
  EXPECT_TRUE(s.shares_storage_with(x));
  EXPECT_EQ(s.shape(), (Shape{5, 2, 3}));
  for (const DimVec& i : all_indices(s.shape()))
    EXPECT_EQ(value_at(s, i), value_at(x, {i[0], 1 + 3 * i[1], i[2]}));
  Tensor m = x.slice({{4, kSliceEnd, 1}, {0, 7, 2}});
  EXPECT_EQ(m.shape(), (Shape{1, 4, 3}));
  for (const DimVec& i : all_indices(m.shape())) EXPECT_EQ(value_at(m, i), value_at(x, {4, 2 * i[1], i[2]}));
  EXPECT_EQ(x.slice(-1, 2, 2).shape(), (Shape{5, 7, 0}));
  EXPECT_EQ(x.slice(0, 5, kSliceEnd).numel(), 0);
  Tensor sel = x.select(-2, 6);
  EXPECT_EQ(sel.shape(), (Shape{5, 3}));
  for (const DimVec& i : all_indices(sel.shape())) EXPECT_EQ(value_at(sel, i), value_at(x, {i[0], 6, i[1]}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.slice(1, 2, 8); },
                                      {"slice", "[2, 8)", "axis 1", "extent 7", "[5, 7, 3]"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.slice(1, 3, 2); }, {"slice", "[3, 2)"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { x.slice(1, 0, 2, 0); }, {"slice", "step", "0"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.slice(3, 0, 1); }, {"slice", "axis 3", "rank 3"}));
  EXPECT_TRUE(throws_with<IndexError>(
      [&] {
        x.slice({{}, {}, {}, {}});
      },
      {"slice", "4 slice specs", "[5, 7, 3]"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.select(0, 5); }, {"select", "index 5", "extent 5"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { Tensor::scalar<double>(1).select(0, 0); }, {"select", "rank 0"}));
}

TEST(Views, ReshapeViewableAndNot) {
  Tensor x = Tensor::arange(24).reshape({2, 3, 4});
  EXPECT_EQ(x.strides(), (Strides{1, 2, 6}));
  // Column-major element order: linear index i0 + 2 i1 + 6 i2.
  for (const DimVec& i : all_indices(x.shape()))
    EXPECT_EQ(x.at<double>(i), double(i[0] + 2 * i[1] + 6 * i[2]));
  Tensor y = x.reshape({4, -1});
  EXPECT_EQ(y.shape(), (Shape{4, 6}));
  EXPECT_TRUE(y.shares_storage_with(x));
  for (const DimVec& i : all_indices(y.shape())) EXPECT_EQ(y.at<double>(i), double(i[0] + 4 * i[1]));
  // A column slice of a wider buffer still splits and merges its contiguous axes.
  Tensor big = Tensor::arange(48).reshape({8, 6});
  Tensor part = big.slice(0, 0, 4);  // [4, 6] with strides [1, 8]
  Tensor split = part.reshape({2, 2, 6});
  EXPECT_TRUE(split.shares_storage_with(big));
  for (const DimVec& i : all_indices(split.shape()))
    EXPECT_EQ(split.at<double>(i), part.at<double>({i[0] + 2 * i[1], i[2]}));
  EXPECT_TRUE(
      throws_with<ShapeError>([&] { part.reshape({24}); }, {"reshape", "[4, 6]", "[1, 8]", "reshape_copy"}));
  Tensor flat = part.reshape_copy({24});
  EXPECT_FALSE(flat.shares_storage_with(big));
  for (std::int64_t k = 0; k < 24; ++k) EXPECT_EQ(flat.at<double>({k}), part.at<double>({k % 4, k / 4}));
  // Row-major tensors are not viewable in column-major order (except trivially).
  Tensor rm = Tensor::from_vec_row_major<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(throws_with<ShapeError>([&] { rm.reshape({6}); }, {"reshape", "[2, 3]", "[3, 1]"}));
  EXPECT_EQ(rm.reshape_copy({6}).to_vec_col_major<double>(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(rm.reshape({2, 1, 3}).shape(), (Shape{2, 1, 3}));
  // Negative strides split too.
  Tensor rev = Tensor::arange(6).flip({0});
  Tensor rev2 = rev.reshape({2, 3});
  for (const DimVec& i : all_indices(rev2.shape()))
    EXPECT_EQ(rev2.at<double>(i), double(5 - (i[0] + 2 * i[1])));
  EXPECT_EQ(Tensor::scalar<double>(3).reshape({1, 1}).at<double>({0, 0}), 3.0);
  EXPECT_EQ(Tensor::zeros({0, 3}).reshape({3, 0, 7}).shape(), (Shape{3, 0, 7}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { x.reshape({5, -1}); }, {"reshape", "-1", "24"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { x.reshape({-1, -1}); }, {"reshape", "more than one -1"}));
  EXPECT_TRUE(
      throws_with<ShapeError>([&] { x.reshape({7}); }, {"reshape", "[2, 3, 4]", "24 elements", "[7]"}));
}

TEST(Views, DiagonalWithOffsets) {
  Tensor x = any_layout({3, 4, 2}, DType::f64, 5);
  for (std::int64_t off = -4; off <= 5; ++off) {
    Tensor dg = x.diagonal(0, 1, off);
    std::int64_t len = off >= 0 ? std::max<std::int64_t>(0, std::min<std::int64_t>(3, 4 - off))
                                : std::max<std::int64_t>(0, std::min<std::int64_t>(3 + off, 4));
    ASSERT_EQ(dg.shape(), (Shape{2, len})) << off;
    for (const DimVec& i : all_indices(dg.shape())) {
      std::int64_t r = off >= 0 ? i[1] : i[1] - off, c = off >= 0 ? i[1] + off : i[1];
      EXPECT_EQ(dg.at<double>(i), x.at<double>({r, c, i[0]})) << off;
    }
  }
  Tensor y = any_layout({2, 3, 3}, DType::c64, 6);
  Tensor d12 = y.diagonal(2, 1, 1);  // element (j, k) of axes (2, 1) with k = j + 1
  ASSERT_EQ(d12.shape(), (Shape{2, 2}));
  for (const DimVec& i : all_indices(d12.shape()))
    EXPECT_EQ(value_at(d12, i), value_at(y, {i[0], i[1] + 1, i[1]}));
  EXPECT_TRUE(throws_with<ValueError>([&] { x.diagonal(1, 1); }, {"diagonal", "differ"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.diagonal(0, 3); }, {"diagonal", "axis 3"}));
}

TEST(Views, BroadcastFlipExpandDims) {
  Tensor x = any_layout({3, 1}, DType::i64, 8);
  Tensor b = x.broadcast_to({2, 3, 4});
  EXPECT_EQ(b.strides()[0], 0);
  EXPECT_EQ(b.strides()[2], 0);
  for (const DimVec& i : all_indices(b.shape())) EXPECT_EQ(value_at(b, i), value_at(x, {i[1], 0}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        x.broadcast_to({3, 2, 4});
      },
      {"broadcast_to", "[3, 1]", "[3, 2, 4]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { x.broadcast_to({3}); }, {"broadcast_to", "lower rank"}));
  Tensor y = any_layout({3, 4, 2}, DType::f32, 9);
  Tensor f = y.flip({0, -1});
  EXPECT_TRUE(f.shares_storage_with(y));
  for (const DimVec& i : all_indices(f.shape()))
    EXPECT_EQ(value_at(f, i), value_at(y, {2 - i[0], i[1], 1 - i[2]}));
  EXPECT_TRUE(tensors_equal(f.flip({2, 0}), y));
  EXPECT_EQ(Tensor::zeros({0, 2}).flip({0}).numel(), 0);
  EXPECT_TRUE(throws_with<ValueError>([&] { y.flip({1, 1}); }, {"flip", "axis 1", "twice"}));
  Tensor e = y.expand_dims(1);
  EXPECT_EQ(e.shape(), (Shape{3, 1, 4, 2}));
  for (const DimVec& i : all_indices(e.shape())) EXPECT_EQ(value_at(e, i), value_at(y, {i[0], i[2], i[3]}));
  EXPECT_EQ(y.expand_dims(3).shape(), (Shape{3, 4, 2, 1}));
  EXPECT_EQ(Tensor::scalar<double>(1).expand_dims(0).shape(), (Shape{1}));
  EXPECT_TRUE(throws_with<IndexError>([&] { y.expand_dims(4); }, {"expand_dims", "axis 4", "[0, 3]"}));
}

// ---- copies and element access ---------------------------------------------------------

TEST(Copies, ContiguousCopiesOnlyWhenNeeded) {
  Tensor x = random_tensor({3, 4}, DType::f64, 1);
  Tensor same = x.contiguous();
  EXPECT_TRUE(same.shares_storage_with(x));
  EXPECT_EQ(same.data_ptr(), x.data_ptr());
  Tensor unit = random_tensor({3, 1}, DType::f64, 2).permute({1, 0});  // [1, 3]: still contiguous
  EXPECT_TRUE(unit.is_contiguous());
  EXPECT_TRUE(unit.contiguous().shares_storage_with(unit));
  for (int k = 1; k < kNumLayouts; ++k) {
    Tensor v = with_random_layout(x, 3, k);
    if (v.is_contiguous()) {  // a random permutation may be the identity
      EXPECT_TRUE(v.contiguous().shares_storage_with(v));
      continue;
    }
    Tensor c = v.contiguous();
    EXPECT_FALSE(c.shares_storage_with(v));
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_TRUE(tensors_equal(c, x));
  }
  Tensor dup = x.duplicate();
  EXPECT_FALSE(dup.shares_storage_with(x));
  EXPECT_TRUE(tensors_equal(dup, x));
  dup.set<double>({0, 0}, 100.0);
  EXPECT_NE(x.at<double>({0, 0}), 100.0);
}

TEST(Copies, CopyFromAnyLayoutAndOverlapping) {
  for (DType d : all_dtypes()) {
    Tensor src = random_tensor({4, 3}, d, 4);
    Tensor buf = Tensor::zeros({9, 7}, d);
    Tensor dst = buf.slice({{1, 9, 2}, {0, 6, 2}});  // strided view of [4, 3]
    dst.copy_from(src.permute({1, 0}).contiguous().permute({1, 0}));
    EXPECT_TRUE(tensors_equal(dst, src)) << d;
    EXPECT_EQ(value_at(buf, {0, 0}), C(0));  // untouched between the strides
  }
  // Overlapping source and destination: the result is as if the source were read first.
  Tensor x = Tensor::arange(10);
  x.slice(0, 1, 10).copy_from(x.slice(0, 0, 9));
  EXPECT_EQ(x.to_vec_col_major<double>(), (std::vector<double>{0, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
  Tensor y = Tensor::arange(6).reshape({2, 3});
  y.copy_from(y.flip({0, 1}));
  EXPECT_EQ(y.to_vec_col_major<double>(), (std::vector<double>{5, 4, 3, 2, 1, 0}));
  Tensor z = Tensor::arange(9).reshape({3, 3});
  z.copy_from(z.permute({1, 0}));
  EXPECT_EQ(z.to_vec_col_major<double>(), (std::vector<double>{0, 3, 6, 1, 4, 7, 2, 5, 8}));
}

// copy_strided against a naive loop (Note [Strided copy], Note [Transpose
// tiles]): random ranks 0..6, extents around the tile edges (4, 8, 16
// elements), destination and source axis orders shuffled, gaps between
// strides, negative strides, zero source strides, every element size, and
// each instruction set the CPU has (the cap selects AVX-512, AVX2, scalar),
// in place and streamed (the paths of large outputs: direct, shifted lines,
// buffered), destination runs of 2..15 elements interleaved, short source
// unit axes gathered (Note [Gathered rows]), shared first runs moved as wide
// elements or copied whole.
struct RawLayout {
  Strides strides;
  std::int64_t origin = 0;  // element offset of index 0 inside the buffer
  std::int64_t span = 1;    // buffer elements
};

RawLayout random_raw_layout(const Shape& shape, std::mt19937_64& rng, bool allow_zero) {
  const std::size_t r = shape.size();
  std::vector<std::size_t> order(r);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  RawLayout l;
  l.strides = Strides(r, 0);
  std::int64_t st = 1 + static_cast<std::int64_t>(rng() % 4 == 0);  // sometimes every other element
  for (std::size_t k : order) {
    if (allow_zero && rng() % 8 == 0) continue;  // broadcast axis (stride 0)
    l.strides[k] = st;
    st *= shape[k] + static_cast<std::int64_t>(rng() % 5 == 0);  // sometimes a gap
  }
  for (std::size_t k = 0; k < r; ++k)
    if (rng() % 5 == 0) {  // negative stride: start at the far end of the axis
      l.origin += (shape[k] - 1) * l.strides[k];
      l.strides[k] = -l.strides[k];
    }
  l.span = st;
  return l;
}

TEST(Copies, StridedCopyMatchesNaiveLoop) {
  const std::int64_t extents[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33};
  const detail::CopyIsa caps[] = {detail::CopyIsa::avx512, detail::CopyIsa::avx2, detail::CopyIsa::scalar};
  std::mt19937_64 rng(2026);
  int cases = 0;
  for (std::size_t es : {1u, 2u, 4u, 8u, 16u}) {
    for (int trial = 0; trial < 160; ++trial) {
      Shape shape(static_cast<std::size_t>(trial % 7));
      std::int64_t n = 1;
      for (auto& e : shape) {
        e = extents[rng() % std::size(extents)];
        if (n * e > 40000) e = 1;
        n *= e;
      }
      if (trial % 20 == 19 && !shape.empty()) shape[rng() % shape.size()] = 0;  // an empty copy writes nothing
      if (trial % 10 == 3) shape = {64 + static_cast<std::int64_t>(rng() % 40), 48 + static_cast<std::int64_t>(rng() % 40)};
      if (trial % 10 == 7) shape = Shape(6, 4 + static_cast<std::int64_t>(trial % 3));  // reversals of many short axes
      if (trial % 10 == 1)  // a short axis moved to the front (Note [Interleaved rows])
        shape = {2 + static_cast<std::int64_t>(rng() % 14), 8 + static_cast<std::int64_t>(rng() % 60),
                 1 + static_cast<std::int64_t>(rng() % 3), 1 + static_cast<std::int64_t>(rng() % 3)};
      if (trial % 10 == 8)  // a short first axis kept in place: its runs move as one wide element
        shape = {std::int64_t{1} << (1 + rng() % 3), 3 + static_cast<std::int64_t>(rng() % 30),
                 5 + static_cast<std::int64_t>(rng() % 30)};
      if (trial % 20 == 12)  // a first axis of 17..56 kept in place, the others swapped: runs of it copied whole
        shape = {17 + static_cast<std::int64_t>(rng() % 40), 3 + static_cast<std::int64_t>(rng() % 5),
                 4 + static_cast<std::int64_t>(rng() % 5)};
      if (trial % 20 == 15)  // axes of 3 with the source's unit axis behind a far one (Note [Gathered rows])
        shape = Shape(8, 3);
      if (trial % 20 == 5)  // runs longer than a streamed block (16 x 16 tiles): several blocks per run
        shape = {129 + static_cast<std::int64_t>(rng() % 200), 129 + static_cast<std::int64_t>(rng() % 100),
                 1 + static_cast<std::int64_t>(rng() % 2)};
      const std::size_t rank = shape.size();
      RawLayout dl = random_raw_layout(shape, rng, false), sl = random_raw_layout(shape, rng, true);
      if (trial % 10 == 7) {  // the source is the destination's axes reversed
        dl.strides = col_major_strides(shape);
        dl.origin = 0;
        dl.span = shape_numel(shape);
        Strides rev = col_major_strides(Shape(shape.rbegin(), shape.rend()));
        sl.strides = Strides(rev.rbegin(), rev.rend());
        sl.origin = 0;
        sl.span = shape_numel(shape);
      }
      if (trial % 10 == 1) {  // the destination column-major; the source [1, 0, 3, 2], its unit axis axis 1
        dl.strides = col_major_strides(shape);
        dl.origin = 0;
        dl.span = shape_numel(shape);
        const std::int64_t gap = static_cast<std::int64_t>(rng() % 2);
        const std::int64_t s3 = (shape[1] + gap) * shape[0];
        sl.strides = {shape[1] + gap, 1, s3 * shape[3], s3};
        sl.origin = 0;
        sl.span = s3 * shape[3] * shape[2];
      }
      if (trial % 20 == 12) {  // dst column-major; src [0, 2, 1]
        dl.strides = col_major_strides(shape);
        dl.origin = 0;
        dl.span = shape_numel(shape);
        sl.strides = {1, shape[0] * shape[2], shape[0]};
        sl.origin = 0;
        sl.span = shape_numel(shape);
      }
      if (trial % 20 == 15) {  // dst column-major; src dense, axis 0 of the destination far in the source
        dl.strides = col_major_strides(shape);
        dl.origin = 0;
        dl.span = shape_numel(shape);
        // Source axes, fastest first: the unit axis 1 or 2 (or 1 and 2), then
        // 4, then 5..7 in any order (destination axes 0..3 gathered from rows
        // of stride 3 or 9), then the others in any order.
        std::vector<std::size_t> order{1 + rng() % 2}, tail{5, 6, 7}, rest;
        if (rng() % 2 == 0) order = {1, 2};
        order.push_back(4);
        std::shuffle(tail.begin(), tail.end(), rng);
        order.insert(order.end(), tail.begin(), tail.end());
        for (std::size_t k : {0, 1, 2, 3})
          if (std::find(order.begin(), order.end(), k) == order.end()) rest.push_back(k);
        std::shuffle(rest.begin(), rest.end(), rng);
        order.insert(order.end(), rest.begin(), rest.end());
        sl.strides = Strides(rank, 0);
        std::int64_t st = 1;
        for (std::size_t k : order) {
          sl.strides[k] = st;
          st *= shape[k];
        }
        sl.origin = 0;
        sl.span = st;
      }
      if (trial % 10 == 8) {  // dst column-major; src [0, 2, 1] with axis 0 contiguous, sometimes a gap after it
        dl.strides = col_major_strides(shape);
        dl.origin = 0;
        dl.span = shape_numel(shape);
        const std::int64_t s1 = shape[0] + static_cast<std::int64_t>(rng() % 2);
        sl.strides = {1, s1 * shape[2], s1};
        sl.origin = 0;
        sl.span = s1 * shape[2] * shape[1];
      }
      // One spare element each, so that an empty layout's buffer is not null
      // (`data() + origin` on null would be undefined behaviour).
      std::vector<unsigned char> src(static_cast<std::size_t>(sl.span + 1) * es);
      for (auto& b : src) b = static_cast<unsigned char>(rng());
      std::vector<unsigned char> expect(static_cast<std::size_t>(dl.span + 1) * es, 0xAB);
      // The naive loop: an odometer over all indices, one element at a time.
      if (shape_numel(shape) > 0) {
        DimVec idx(rank, 0);
        while (true) {
          std::int64_t so = sl.origin, d_o = dl.origin;
          for (std::size_t k = 0; k < rank; ++k) {
            so += idx[k] * sl.strides[k];
            d_o += idx[k] * dl.strides[k];
          }
          std::memcpy(&expect[static_cast<std::size_t>(d_o) * es], &src[static_cast<std::size_t>(so) * es], es);
          std::size_t k = 0;
          for (; k < rank; ++k) {
            if (++idx[k] < shape[k]) break;
            idx[k] = 0;
          }
          if (k == rank) break;
        }
      }
      // The destination buffer starts at a cache line (the streamed path's
      // aligned non-temporal stores) or `shift` elements after one (its
      // shifted lines, Note [Shifted lines]).
      const std::size_t shift = 1 + rng() % 7;
      for (detail::CopyIsa cap : caps)
        for (int mode = 0; mode < 3; ++mode) {  // in place; streamed from a line; streamed, shifted
          const bool streamed = mode > 0;
          std::vector<unsigned char> raw(expect.size() + 64 + 8 * es);
          unsigned char* dst = raw.data() + (64 - reinterpret_cast<std::uintptr_t>(raw.data()) % 64) % 64 +
                               (mode == 2 ? shift * es : 0);
          std::memset(dst, 0xAB, expect.size());
          detail::CopyIsa old = detail::set_copy_isa_cap(cap);
          std::int64_t old_bytes = detail::set_copy_stream_bytes(streamed ? 0 : std::int64_t(1) << 62);
          detail::copy_strided(dst + dl.origin * std::int64_t(es), dl.strides,
                               src.data() + sl.origin * std::int64_t(es), sl.strides, shape, es);
          detail::set_copy_isa_cap(old);
          detail::set_copy_stream_bytes(old_bytes);
          EXPECT_TRUE(std::memcmp(dst, expect.data(), expect.size()) == 0)
              << "element size " << es << ", shape " << shape << ", dst strides " << dl.strides
              << ", src strides " << sl.strides << ", cap " << static_cast<int>(cap) << ", mode " << mode;
          ++cases;
        }
    }
  }
  EXPECT_EQ(cases, 5 * 160 * 3 * 3);
}

TEST(Access, HostDataAtSetToVecItem) {
  Tensor x = Tensor::from_vec_col_major<std::int32_t>({2, 2}, {1, 2, 3, 4});
  std::span<std::int32_t> data = x.host_data<std::int32_t>();
  ASSERT_EQ(data.size(), 4u);
  data[3] = 40;
  EXPECT_EQ(x.at<std::int32_t>({1, 1}), 40);
  Tensor t = x.permute({1, 0});
  EXPECT_TRUE(throws_with<ValueError>([&] { t.host_data<std::int32_t>(); },
                                      {"host_data", "not column-major", "contiguous()"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { x.host_data<float>(); }, {"host_data", "i32", "f32"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { x.data<double>(); }, {"data", "i32", "f64"}));
  t.set<std::int32_t>({0, 1}, -7);  // through the view: element (1, 0) of x
  EXPECT_EQ(x.at<std::int32_t>({1, 0}), -7);
  EXPECT_EQ(t.to_vec_col_major<std::int32_t>(), (std::vector<std::int32_t>{1, 3, -7, 40}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.at<std::int32_t>({2, 0}); }, {"at", "[2, 0]", "[2, 2]"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.at<std::int32_t>({0}); }, {"at", "[0]", "1 entries"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { x.at<std::int32_t>({0, -1}); }, {"at", "[0, -1]"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { x.item(); }, {"item", "[2, 2]"}));
  EXPECT_EQ(x.select(0, 1).select(0, 0).item().to<std::int64_t>(), -7);
}

TEST(Access, ToVecColMajorAnyLayoutEveryDtype) {
  for (DType d : all_dtypes()) {
    Tensor x = random_tensor({3, 2, 2}, d, 12);
    for (int k = 0; k < kNumLayouts; ++k) {
      Tensor v = with_random_layout(x, 13, k);
      visit_dtype(d, "test",
                  [&]<class T>() { EXPECT_EQ(v.to_vec_col_major<T>(), x.to_vec_col_major<T>()) << d << k; });
    }
  }
  EXPECT_TRUE(Tensor::zeros({0, 4}).to_vec_col_major<double>().empty());
}

// ---- printing ---------------------------------------------------------------------------

TEST(Printing, SmallTensorsShowValues) {
  EXPECT_EQ(str(Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5, 6})),
            "Tensor(f64, shape=[2, 3])\n[[1, 3, 5],\n [2, 4, 6]]");
  EXPECT_EQ(str(Tensor::scalar<std::int64_t>(7)), "Tensor(i64, shape=[])\n7");
  EXPECT_EQ(str(Tensor::from_vec_col_major<bool>({3}, {true, false, true})),
            "Tensor(bool, shape=[3])\n[true, false, true]");
  EXPECT_EQ(str(Tensor::from_vec_col_major<std::complex<float>>({2}, {{1, 2}, {3, -4}})),
            "Tensor(c64, shape=[2])\n[1+2i, 3-4i]");
  EXPECT_EQ(str(Tensor::from_vec_col_major<std::int32_t>({1, 2, 2}, {1, 2, 3, 4})),
            "Tensor(i32, shape=[1, 2, 2])\n[:, :, 0] =\n[[1, 2]]\n[:, :, 1] =\n[[3, 4]]");
  EXPECT_EQ(str(Tensor::zeros({0, 3})), "Tensor(f64, shape=[0, 3])\n[]");
  EXPECT_EQ(str(Tensor::zeros({2, 0, 3})), "Tensor(f64, shape=[2, 0, 3])\n[]");
  EXPECT_EQ(str(Tensor::from_vec_row_major<float>({2, 2}, {1, 2, 3, 4})),
            "Tensor(f32, shape=[2, 2], strides=[2, 1])\n[[1, 2],\n [3, 4]]");
  EXPECT_EQ(str(Tensor()), "Tensor(undefined)");
}

TEST(Printing, LargeTensorsShowASummary) {
  EXPECT_EQ(str(Tensor::zeros({2000})), "Tensor(f64, shape=[2000]) (2000 values not shown)");
  EXPECT_EQ(
      str(Tensor::zeros({10, 100}, DType::c64)), "Tensor(c64, shape=[10, 100])\n" + [] {
        std::string rows;
        for (int i = 0; i < 10; ++i) {
          rows += (i ? " [" : "[[");
          for (int j = 0; j < 100; ++j) rows += (j ? ", 0+0i" : "0+0i");
          rows += (i < 9 ? "],\n" : "]]");
        }
        return rows;
      }());
  EXPECT_EQ(str(Tensor::zeros({1001})), "Tensor(f64, shape=[1001]) (1001 values not shown)");
}

TEST(Printing, SmallTypes) {
  EXPECT_EQ(str(DType::c128), "c128");
  EXPECT_EQ(str(DType::bool_), "bool");
  EXPECT_EQ(str(kFloatDTypes), "{f32, f64, c64, c128}");
  EXPECT_EQ(str(Device::cuda(1)), "cuda:1");
  EXPECT_EQ(str(Device::webgpu(2)), "webgpu:2");
  EXPECT_EQ(str(Device::cpu()), "cpu");
  EXPECT_EQ(str(Shape{}), "[]");
  EXPECT_EQ(str(Shape{2, -1}), "[2, -1]");
  EXPECT_EQ(str(Scalar(C(1, -2))), "1-2i");
  EXPECT_EQ(str(Scalar(true)), "true");
  EXPECT_EQ(str(Scalar(std::int64_t{-3})), "-3");
}

// ---- TypedTensor, Scalar, Storage, shapes ----------------------------------------------------

TEST(TypedTensors, CheckedConversionsAndTypedViews) {
  Tensor dyn = Tensor::from_vec_col_major<double>({2, 2}, {1, 2, 3, 4});
  TypedTensor<double> t(dyn);
  EXPECT_TRUE(t.shares_storage_with(dyn));
  EXPECT_EQ(t.at({1, 0}), 2.0);
  EXPECT_TRUE(throws_with<DTypeError>([&] { TypedTensor<float> bad(dyn); }, {"TypedTensor", "f64", "f32"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { TypedTensor<std::int32_t> bad(Tensor::zeros({1}, DType::i64)); },
                                      {"TypedTensor", "i64", "i32"}));
  TypedTensor<float> undefined{Tensor()};
  EXPECT_FALSE(undefined.defined());
  TypedTensor<double> tt = t.transpose();
  EXPECT_EQ(tt.at({0, 1}), 2.0);
  tt.set({1, 1}, 9.0);
  EXPECT_EQ(t.at({1, 1}), 9.0);
  EXPECT_EQ(t.slice(1, 1, 2).to_vec_col_major(), (std::vector<double>{3, 9}));
  EXPECT_EQ(t.reshape({4}).as_slice().size(), 4u);
  EXPECT_EQ(t.host_data()[2], 3.0);
  EXPECT_EQ(TypedTensor<std::int64_t>::arange(3).to_vec_col_major(), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(TypedTensor<std::complex<float>>::eye(2).at({1, 1}), std::complex<float>(1, 0));
  EXPECT_EQ(TypedTensor<float>::full({2}, 2.5f).to_vec_col_major(), (std::vector<float>{2.5f, 2.5f}));
  EXPECT_EQ(TypedTensor<double>::scalar(4).item(), 4.0);
  EXPECT_EQ(TypedTensor<double>::from_vec_row_major({2, 2}, {1, 2, 3, 4}).at({0, 1}), 2.0);
  EXPECT_EQ(TypedTensor<double>::uniform({3}, 5).dtype(), DType::f64);
  Tensor back = tt;  // a TypedTensor is a Tensor
  EXPECT_EQ(back.dtype(), DType::f64);
}

TEST(Scalars, Conversions) {
  EXPECT_EQ(Scalar(2.5).dtype(), DType::f64);
  EXPECT_EQ(Scalar(2.5f).dtype(), DType::f32);
  EXPECT_EQ(Scalar(3).dtype(), DType::i64);
  EXPECT_EQ(Scalar(C(1, 2)).dtype(), DType::c128);
  EXPECT_EQ(Scalar(C(1, 2)).to<double>(), 1.0);
  EXPECT_EQ(Scalar(C(0, 2)).to<bool>(), true);
  EXPECT_EQ(Scalar(-2.7).to<std::int32_t>(), -2);
  EXPECT_EQ(Scalar(std::int64_t{1} << 60).to<std::int64_t>(), std::int64_t{1} << 60);
  EXPECT_EQ(Scalar(7).to<std::complex<float>>(), std::complex<float>(7, 0));
  EXPECT_EQ(Scalar(false).to<double>(), 0.0);
  EXPECT_TRUE(Scalar(C(1, 0)).is_complex());
}

int g_deleted = 0;

TEST(Storages, DeleterRunsOnceAfterTheLastView) {
  g_deleted = 0;
  {
    static double buf[8];
    auto s = std::make_shared<Storage>(
        buf, sizeof buf, Device::cpu(),
        [](void*, std::size_t n, void* ctx) {
          g_deleted += 1;
          EXPECT_EQ(n, 8 * sizeof(double));
          EXPECT_EQ(ctx, nullptr);
        },
        nullptr);
    Tensor t(s, DType::f64, {2, 4}, {1, 2}, 0);
    s.reset();
    Tensor v = t.slice(1, 1, 3);
    t = Tensor();
    EXPECT_EQ(g_deleted, 0);
    v.set<double>({0, 0}, 1.5);
    EXPECT_EQ(buf[2], 1.5);
  }
  EXPECT_EQ(g_deleted, 1);
  auto s = Storage::allocate_host(100);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(s->data()) % 64, 0u);
  EXPECT_EQ(s->nbytes(), 100u);
  EXPECT_EQ(Storage::allocate_host(0)->data(), nullptr);
  // Layouts that leave the storage are rejected.
  EXPECT_TRUE(throws_with<IndexError>([&] { Tensor(s, DType::f64, {13}, {1}, 0); },
                                      {"Tensor", "[13]", "12 elements"}));
  EXPECT_TRUE(throws_with<IndexError>([&] { Tensor(s, DType::f64, {2}, {-1}, 0); }, {"Tensor", "[-1, 0]"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        Tensor(s, DType::f64, {2}, {1, 1}, 0);
      },
      {"Tensor", "differ in rank"}));
  EXPECT_TRUE(
      throws_with<ValueError>([&] { Tensor(nullptr, DType::f64, {}, {}, 0); }, {"Tensor", "null storage"}));
  EXPECT_NO_THROW(Tensor(s, DType::f64, {3, 0}, {100, 100}, 50));  // empty: nothing addressed
}

#ifdef __linux__
// Whether the mapping holding p is offered to transparent huge pages (the
// "hg" flag that madvise(MADV_HUGEPAGE) sets), read from /proc/self/smaps.
bool offered_huge_pages(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {  // a mapping's first line: "lo-hi perms ..."
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return (line + " ").find(" hg ") != std::string::npos;
    }
  }
  ADD_FAILURE() << "no mapping in /proc/self/smaps holds " << p;
  return false;
}

// Note [Huge pages]: buffers of several MiB are offered to huge pages,
// except fresh ones of 64 MiB or more; such a buffer that fits in huge
// pages freed a moment ago is offered them.
TEST(Storages, FreshLargeBuffersStayOnSmallPages) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) GTEST_SKIP() << "no transparent huge pages";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // frees of other tests are cold by now
  const std::size_t big = std::size_t{80} << 20, mid = std::size_t{48} << 20;
  void* fresh = detail::allocate_host_bytes(big);
  void* mids[2] = {detail::allocate_host_bytes(mid), detail::allocate_host_bytes(mid)};
  EXPECT_FALSE(offered_huge_pages(fresh));
  EXPECT_TRUE(offered_huge_pages(mids[0]));
  EXPECT_TRUE(offered_huge_pages(mids[1]));
  detail::free_host_bytes(fresh, big);
  void* again = detail::allocate_host_bytes(big);  // what was freed was on small pages: still fresh
  EXPECT_FALSE(offered_huge_pages(again));
  detail::free_host_bytes(mids[0], mid);
  detail::free_host_bytes(mids[1], mid);
  void* warm = detail::allocate_host_bytes(big);  // 96 MiB of huge pages were freed a moment ago
  EXPECT_TRUE(offered_huge_pages(warm));
  detail::free_host_bytes(again, big);
  detail::free_host_bytes(warm, big);
}
#endif

TEST(Shapes, Helpers) {
  EXPECT_EQ(shape_numel(Shape{2, 3, 4}), 24);
  EXPECT_EQ(shape_numel(Shape{}), 1);
  EXPECT_EQ(shape_numel(Shape{5, 0}), 0);
  EXPECT_EQ(col_major_strides(Shape{2, 3, 4}), (Strides{1, 2, 6}));
  EXPECT_EQ(row_major_strides(Shape{2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(col_major_strides(Shape{2, 0, 4}), (Strides{1, 2, 2}));
  EXPECT_EQ(normalize_axis(-1, 3, "op"), 2);
  EXPECT_TRUE(throws_with<IndexError>([] { normalize_axis(3, 3, "myop"); }, {"myop", "axis 3", "rank 3"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [] {
        shape_numel(Shape{3, -1}, "myop");
      },
      {"myop", "negative extent -1"}));
  EXPECT_NO_THROW(check_permutation(DimVec{2, 0, 1}, 3, "op"));
  EXPECT_TRUE(throws_with<IndexError>(
      [] {
        check_permutation(DimVec{0, 3, 1}, 3, "myop");
      },
      {"myop", "entry 3"}));
  // SmallVec grows past its inline capacity and keeps its values.
  Shape big;
  for (std::int64_t i = 0; i < 20; ++i) big.push_back(i);
  Shape copy = big;
  EXPECT_EQ(copy.size(), 20u);
  EXPECT_EQ(copy[19], 19);
  Shape moved = std::move(copy);
  EXPECT_EQ(moved, big);
}

}  // namespace

// The BLIS provider on generated dot_general cases: every float dtype,
// batch axes and contracting axes in any position, permuted, strided,
// offset and broadcast views, extents 0 and 1. Each result is compared with
// an independent reference loop and with the base provider ("cpu" alone);
// whether BLIS took the call is observed through a counting provider tried
// after it, and through the direct call's return value with an output
// filled with NaN beforehand (a declined call leaves it untouched).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "common.hpp"

using namespace tenferro;
using namespace tfblis_test;

namespace {

struct Case {
  std::string name;
  DotGeneralAttrs d;
  std::function<Tensor(DType, std::uint64_t)> lhs, rhs;
  bool blis_takes;
};

DotGeneralAttrs dims(DimVec lb, DimVec rb, DimVec lc, DimVec rc) {
  return {.lhs_batching_dimensions = lb,
          .rhs_batching_dimensions = rb,
          .lhs_contracting_dimensions = lc,
          .rhs_contracting_dimensions = rc};
}

// A column-major tensor of `shape`.
std::function<Tensor(DType, std::uint64_t)> plain(Shape shape) {
  return [shape](DType t, std::uint64_t s) { return random(shape, t, s); };
}
// A view `f(x)` of a column-major `x` of `shape`.
std::function<Tensor(DType, std::uint64_t)> view(Shape shape,
                                                 std::function<Tensor(const Tensor&)> f) {
  return [shape, f](DType t, std::uint64_t s) { return f(random(shape, t, s)); };
}

std::vector<Case> cases() {
  const auto mm = dims({}, {}, {1}, {0});
  return {
      {"matmul", mm, plain({7, 9}), plain({9, 5}), true},
      {"matmul_large", mm, plain({70, 90}), plain({90, 50}), true},
      {"both_transposed", mm,
       view({9, 7},
            [](const Tensor& x) {
              return x.permute({1, 0});
            }),
       view({5, 9},
            [](const Tensor& x) {
              return x.permute({1, 0});
            }),
       true},
      // Rows (lhs) and columns (rhs) two apart: no unit stride, BLAS would copy.
      {"strided_rows_and_columns", mm,
       view({14, 9}, [](const Tensor& x) { return x.slice(0, 0, 14, 2); }),
       view({9, 10}, [](const Tensor& x) { return x.slice(1, 0, 10, 2); }), true},
      // Offset view whose row and column strides are both above 1 (2 and 42).
      {"offset_general_strides", mm,
       view({2, 7, 3, 9}, [](const Tensor& x) { return x.select(0, 1).select(1, 2); }),
       view({3, 9, 5}, [](const Tensor& x) { return x.select(0, 2); }), true},
      // Batch axis in the middle of both operands, contracting axis last / first.
      {"batch_middle", dims({1}, {1}, {2}, {0}), plain({6, 3, 8}), plain({8, 3, 4}), true},
      // Batch axes in two positions, contracting pairs listed against the
      // operands' order (read as k1 k2 after sorting by strides).
      {"two_batch_two_contract", dims({3, 0}, {2, 4}, {2, 1}, {1, 0}), plain({2, 5, 4, 3, 6}),
       plain({5, 4, 3, 7, 2}), true},
      // Free axes of the lhs that form one stride only in reverse order;
      // the output (column-major) does not follow, so declined.
      {"free_axes_reversed", dims({}, {}, {2}, {0}),
       view({3, 5, 4},
            [](const Tensor& x) {
              return x.permute({1, 0, 2});
            }),
       plain({4, 6}), false},
      {"vector_matrix", dims({}, {}, {0}, {0}), plain({9}), plain({9, 5}), true},
      {"matrix_vector", dims({}, {}, {1}, {0}), plain({7, 9}), plain({9}), true},
      {"dot", dims({}, {}, {0}, {0}), plain({9}), plain({9}), true},
      {"outer", dims({}, {}, {}, {}), plain({4}), plain({3}), true},
      // Axes of extent 1 with strides that are no part of any group.
      {"extent_one_axes", dims({}, {}, {3}, {0}),
       view({3, 7, 2, 9}, [](const Tensor& x) { return x.slice(0, 1, 2).slice(2, 1, 2); }),
       view({9, 4, 5}, [](const Tensor& x) { return x.slice(1, 3, 4); }), true},
      {"k_zero", mm, plain({4, 0}), plain({0, 3}), true},
      {"m_zero", mm, plain({0, 5}), plain({5, 3}), true},
      {"batch_zero", dims({0}, {0}, {2}, {1}), plain({0, 4, 5}), plain({0, 5, 3}), true},
      // A batch axis broadcast (stride 0) is only a loop offset.
      {"broadcast_batch", dims({2}, {2}, {1}, {0}),
       view({6, 8, 1},
            [](const Tensor& x) {
              return x.broadcast_to({6, 8, 3});
            }),
       plain({8, 5, 3}), true},
      {"many_small_batches", dims({2}, {2}, {1}, {0}), plain({4, 5, 64}), plain({5, 6, 64}), true},
      // Declined layouts (the base provider runs them):
      {"broadcast_free_axis", mm,
       view({1, 9},
            [](const Tensor& x) {
              return x.broadcast_to({7, 9});
            }),
       plain({9, 5}), false},
      {"negative_stride", mm, view({7, 9}, [](const Tensor& x) { return x.flip({0}); }),
       plain({9, 5}), false},
      {"contracting_not_one_stride", dims({}, {}, {0, 2}, {0, 1}), plain({5, 4, 3}),
       plain({5, 3, 6}), false},
  };
}

const DType kFloatTypes[] = {DType::f32, DType::f64, DType::c64, DType::c128};

Tensor nan_filled(const Shape& shape, DType dtype) {
  return Tensor::full(shape, std::numeric_limits<double>::quiet_NaN(), dtype);
}

bool all_nan(const Tensor& t) {
  for (auto v : values(t))
    if (!std::isnan(v.real())) return false;
  return true;
}

std::int64_t contracted(const DotGeneralAttrs& d, const Tensor& lhs) {
  std::int64_t k = 1;
  for (auto a : d.lhs_contracting_dimensions) k *= lhs.shape()[static_cast<std::size_t>(a)];
  return k;
}

}  // namespace

// Through the registry: BLIS first, then the counter, then "cpu".
TEST(BlisProvider, GeneratedCasesThroughTheBackend) {
  CpuBackend base;
  CpuBackend with_blis;
  Counter declined;
  declined.add_to(with_blis);
  tenferro_blis::register_provider(with_blis);
  ASSERT_EQ(with_blis.kernels().provider_names(OpKind::dot_general, DeviceKind::cpu),
            (std::vector<std::string>{"blis", "counter", "cpu"}));
  int expected_declines = 0, taken = 0;
  std::uint64_t seed = 1;
  for (const Case& c : cases())
    for (DType t : kFloatTypes) {
      SCOPED_TRACE(c.name + " " + dtype_name(t));
      const Tensor lhs = c.lhs(t, seed++), rhs = c.rhs(t, seed++);
      const Tensor ref = reference(c.d, lhs, rhs);
      const Tensor got = ops::dot_general(lhs, rhs, c.d, with_blis);
      const Tensor want = ops::dot_general(lhs, rhs, c.d, base);
      const double tol = tolerance(t, contracted(c.d, lhs));
      EXPECT_LE(rel_diff(got, ref), tol);
      EXPECT_LE(rel_diff(got, want), tol);
      EXPECT_EQ(tenferro_blis::decline_reason(c.d, lhs, rhs, got).has_value(), !c.blis_takes)
          << tenferro_blis::decline_reason(c.d, lhs, rhs, got).value_or("taken");
      expected_declines += c.blis_takes ? 0 : 1;
      taken += c.blis_takes ? 1 : 0;
      EXPECT_EQ(declined.count(), expected_declines);
    }
  EXPECT_GT(taken, 60);
}

// The direct call: a taken call writes every element of a NaN-filled
// output, a declined one leaves it as it was.
TEST(BlisProvider, GeneratedCasesDirect) {
  std::uint64_t seed = 100;
  for (const Case& c : cases())
    for (DType t : kFloatTypes) {
      SCOPED_TRACE(c.name + " " + dtype_name(t));
      const Tensor lhs = c.lhs(t, seed++), rhs = c.rhs(t, seed++);
      const Tensor ref = reference(c.d, lhs, rhs);
      const Tensor out = nan_filled(ref.shape(), t);
      const bool took = tenferro_blis::dot_general(c.d, lhs, rhs, out);
      EXPECT_EQ(took, c.blis_takes);
      if (took) {
        EXPECT_LE(rel_diff(out, ref), tolerance(t, contracted(c.d, lhs)));
      } else {
        EXPECT_TRUE(ref.numel() == 0 || all_nan(out));
      }
    }
}

// Outputs of any layout BLIS can write: permuted, a strided view into a
// larger buffer, and the layout that makes "free_axes_reversed" one stride.
TEST(BlisProvider, OutputLayouts) {
  const DotGeneralAttrs mm = dims({}, {}, {1}, {0});
  for (DType t : kFloatTypes) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor a = random({6, 8}, t, 1), b = random({8, 5}, t, 2);
    const Tensor ref = reference(mm, a, b);
    const Tensor row_major = nan_filled({5, 6}, t).permute({1, 0});
    ASSERT_TRUE(tenferro_blis::dot_general(mm, a, b, row_major));
    EXPECT_LE(rel_diff(row_major, ref), tolerance(t, 8));
    // Every third element of every other column of a 20 x 10 buffer.
    const Tensor big = nan_filled({20, 10}, t);
    const Tensor strided = big.slice(0, 1, 19, 3).slice(1, 0, 10, 2);
    ASSERT_EQ(strided.shape(), (Shape{6, 5}));
    ASSERT_TRUE(tenferro_blis::dot_general(mm, a, b, strided));
    EXPECT_LE(rel_diff(strided, ref), tolerance(t, 8));
    EXPECT_TRUE(std::isnan(values(big)[0].real()));  // elements outside the view untouched
    // lhs [m1=5, m2=3, k=4] whose free axes are one stride as (m2, m1):
    // an output laid out the same way takes it in place.
    const Tensor l = random({3, 5, 4}, t, 3).permute({1, 0, 2}), r = random({4, 6}, t, 4);
    const DotGeneralAttrs d = dims({}, {}, {2}, {0});
    const Tensor lref = reference(d, l, r);
    const Tensor out = nan_filled({3, 5, 6}, t).permute({1, 0, 2});
    ASSERT_TRUE(tenferro_blis::dot_general(d, l, r, out));
    EXPECT_LE(rel_diff(out, lref), tolerance(t, 4));
  }
}

// Matrices whose rows and columns interleave (row stride 2, column stride
// 3 for 3 rows) are rejected by BLIS's own check, which would abort the
// process: the provider declines them first.
TEST(BlisProvider, DeclinesInterleavedStrides) {
  const Tensor storage = random({64}, DType::f64, 5);
  const Tensor a(storage.storage(), DType::f64, {3, 4}, {2, 3}, 0);
  const Tensor b = random({4, 2}, DType::f64, 6);
  const DotGeneralAttrs mm = dims({}, {}, {1}, {0});
  const Tensor out = nan_filled({3, 2}, DType::f64);
  const auto why = tenferro_blis::decline_reason(mm, a, b, out);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("interleaves"), std::string::npos) << *why;
  EXPECT_FALSE(tenferro_blis::dot_general(mm, a, b, out));
  EXPECT_TRUE(all_nan(out));
  CpuBackend cpu;
  Counter declined;
  declined.add_to(cpu);
  tenferro_blis::register_provider(cpu);
  EXPECT_LE(rel_diff(ops::dot_general(a, b, mm, cpu), reference(mm, a, b)), 1e-14);
  EXPECT_EQ(declined.count(), 1);
}

// Integers are declined: the base provider computes them, exactly.
TEST(BlisProvider, DeclinesInt64) {
  const DotGeneralAttrs mm = dims({}, {}, {1}, {0});
  std::vector<std::int64_t> va(6 * 7), vb(7 * 3);
  for (std::size_t i = 0; i < va.size(); ++i) va[i] = static_cast<std::int64_t>(i % 11) - 5;
  for (std::size_t i = 0; i < vb.size(); ++i) vb[i] = static_cast<std::int64_t>(i % 7) * 3 - 9;
  const Tensor a = Tensor::from_vec_col_major<std::int64_t>({6, 7}, va);
  const Tensor b = Tensor::from_vec_col_major<std::int64_t>({7, 3}, vb);
  const Tensor out = Tensor::full({6, 3}, 12345, DType::i64);
  const auto why = tenferro_blis::decline_reason(mm, a, b, out);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("i64"), std::string::npos) << *why;
  EXPECT_FALSE(tenferro_blis::dot_general(mm, a, b, out));
  for (auto v : out.to_vec_col_major<std::int64_t>()) EXPECT_EQ(v, 12345);
  CpuBackend cpu;
  Counter declined;
  declined.add_to(cpu);
  tenferro_blis::register_provider(cpu);
  const Tensor got = ops::dot_general(a, b, mm, cpu);
  EXPECT_EQ(got.to_vec_col_major<std::int64_t>(),
            reference(mm, a, b).to_vec_col_major<std::int64_t>());
  EXPECT_EQ(declined.count(), 1);
}

TEST(BlisProvider, MinWorkDeclinesSmallProducts) {
  const DotGeneralAttrs mm = dims({}, {}, {1}, {0});
  const Tensor a = random({4, 5}, DType::f64, 7), b = random({5, 6}, DType::f64, 8);
  const Tensor out = nan_filled({4, 6}, DType::f64);
  EXPECT_FALSE(tenferro_blis::dot_general(mm, a, b, out, {.min_work = 121}));
  EXPECT_TRUE(all_nan(out));
  EXPECT_TRUE(tenferro_blis::dot_general(mm, a, b, out, {.min_work = 120}));
  EXPECT_LE(rel_diff(out, reference(mm, a, b)), 1e-14);
}

// Threads: two threads inside large products and across small batches.
TEST(BlisProvider, TwoThreads) {
  set_num_threads(2);
  CpuBackend cpu;
  Counter declined;
  declined.add_to(cpu);
  tenferro_blis::register_provider(cpu);
  struct {
    DotGeneralAttrs d;
    Shape l, r;
  } runs[] = {{dims({}, {}, {1}, {0}), {150, 130}, {130, 120}},
              {dims({2}, {2}, {1}, {0}), {6, 7, 40}, {7, 5, 40}}};
  for (const auto& run : runs) {
    const Tensor a = random(run.l, DType::f64, 9), b = random(run.r, DType::f64, 10);
    EXPECT_LE(rel_diff(ops::dot_general(a, b, run.d, cpu), reference(run.d, a, b)),
              tolerance(DType::f64, run.l[1]));
  }
  EXPECT_EQ(declined.count(), 0);
  set_num_threads(1);
}

TEST(BlisProvider, BadOperandsThrowAndLeaveTheOutput) {
  const DotGeneralAttrs mm = dims({}, {}, {1}, {0});
  const Tensor a = random({4, 5}, DType::f64, 11), b = random({5, 6}, DType::f64, 12);
  const Tensor wrong_shape = nan_filled({4, 5}, DType::f64);
  try {
    tenferro_blis::dot_general(mm, a, b, wrong_shape);
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("blis.dot_general"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4, 6]"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(all_nan(wrong_shape));
  const Tensor wrong_dtype = nan_filled({4, 6}, DType::f32);
  EXPECT_THROW(tenferro_blis::dot_general(mm, a, b, wrong_dtype), DTypeError);
  EXPECT_TRUE(all_nan(wrong_dtype));
  // Contracted extents 5 and 4 differ: the library's shape rule reports it.
  const Tensor c = random({4, 6}, DType::f64, 13), out = nan_filled({4, 6}, DType::f64);
  try {
    tenferro_blis::dot_general(mm, a, c, out);
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("dot_general"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(all_nan(out));
  EXPECT_THROW(tenferro_blis::dot_general(mm, Tensor(), b, out), ValueError);
}

// Nothing changes for a backend that does not register the provider; copies
// of a backend share its registry.
TEST(BlisProvider, OnlyRegisteredBackendsUseIt) {
  const std::vector<std::string> base{"cpu"}, with{"blis", "cpu"};
  CpuBackend before;
  CpuBackend registered;
  tenferro_blis::register_provider(registered);
  CpuBackend after;
  CpuBackend copy = registered;
  EXPECT_EQ(before.kernels().provider_names(OpKind::dot_general, DeviceKind::cpu), base);
  EXPECT_EQ(after.kernels().provider_names(OpKind::dot_general, DeviceKind::cpu), base);
  EXPECT_EQ(registered.kernels().provider_names(OpKind::dot_general, DeviceKind::cpu), with);
  EXPECT_EQ(copy.kernels().provider_names(OpKind::dot_general, DeviceKind::cpu), with);
  // Only dot_general, only on the CPU.
  EXPECT_EQ(registered.kernels().provider_names(OpKind::add, DeviceKind::cpu), base);
  EXPECT_TRUE(registered.kernels().provider_names(OpKind::dot_general, DeviceKind::cuda).empty());
}

// Note [Link order] (CMakeLists.txt): libblis also defines dgemm_; the base
// provider must keep calling the BLAS tenferro was built with.
TEST(BlisProvider, BaseBlasIsNotBlis) {
  void* sym = dlsym(RTLD_DEFAULT, "dgemm_");
  ASSERT_NE(sym, nullptr);
  Dl_info info{};
  ASSERT_NE(dladdr(sym, &info), 0);
  EXPECT_EQ(std::string(info.dli_fname).find("blis"), std::string::npos) << info.dli_fname;
  EXPECT_FALSE(tenferro_blis::blis_version().empty());
}

// A compiled program run by a Runtime whose engine is a backend with the
// provider: its dot_generals reach BLIS (a provider tried first counts all
// calls, one tried after BLIS counts its declines).
TEST(BlisProvider, RuntimeOnARegisteredBackend) {
  CpuBackend cpu;
  Counter declined, all;
  declined.add_to(cpu);
  tenferro_blis::register_provider(cpu);
  all.add_to(cpu);
  auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(6)});
  auto y = TracedTensor::input("y", DType::f64, {Dim(6), Dim(4)});
  Program p = GraphCompiler().compile(x.matmul(y));
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  const Tensor a = random({5, 6}, DType::f64, 20), b = random({6, 4}, DType::f64, 21);
  const std::vector<Tensor> out = rt.run_compiled(p, {{"x", a}, {"y", b}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LE(rel_diff(out[0], reference(DotGeneralAttrs{.lhs_contracting_dimensions = {1},
                                                       .rhs_contracting_dimensions = {0}},
                                       a, b)),
            1e-14);
  EXPECT_GE(all.count(), 1);
  EXPECT_EQ(declined.count(), 0);
}

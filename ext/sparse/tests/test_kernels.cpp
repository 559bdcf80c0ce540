// The sparse family's kernels against an independent reference (every
// value and index dtype, vector / matrix / batched dense operands, strided
// operands, duplicates, empty cases, one and two threads), shape rules and
// the errors of bad operands, eager and traced.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <tenferro/runtime.hpp>

#include "common.hpp"

namespace {

using namespace tenferro;
using namespace sparse_test;

template <class T>
double tolerance() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>) return 1e-4;
  else return 1e-12;
}

struct Case {
  std::int64_t m, nnz;
  Shape dense;
};

std::vector<Case> cases() {
  return {
      {5, 9, {6, 4}},       // matrix, duplicates
      {7, 30, {6, 40}},     // wide enough to split columns between threads
      {4, 12, {6}},         // vector
      {3, 10, {5, 3, 2}},   // trailing batch axis
      {9, 0, {4, 3}},       // no nonzeros: zeros
      {0, 0, {4, 3}},       // no rows
      {3, 5, {2, 0}},       // no columns
      {1, 1, {1, 1}},
      {30, 3000, {170, 200}},   // large enough for the kernels' threaded paths
  };
}

template <class T, class I>
void check_coo_and_sddmm(CpuBackend& cpu) {
  std::uint64_t seed = 1;
  for (const Case& c : cases()) {
    const std::int64_t k = c.dense[0];
    Coo coo = random_coo<I>(c.nnz, std::max<std::int64_t>(c.m, 1), k, seed++);
    Tensor v = random_tensor<T>({c.nnz}, seed++), d = random_tensor<T>(c.dense, seed++);
    Tensor got = sparse::coo_matmul(v, coo.rows, coo.cols, d, c.m, cpu);
    EXPECT_LT(max_diff(got, reference_coo<T>(v, coo.rows, coo.cols, d, c.m)), tolerance<T>())
        << "m " << c.m << " nnz " << c.nnz << " dense " << c.dense << " " << v.dtype() << " " << coo.rows.dtype();
    if (c.m == 0) continue;
    Shape ashape = c.dense;
    ashape[0] = c.m;
    Tensor a = random_tensor<T>(ashape, seed++);
    Tensor s = sparse::sddmm(a, d, coo.rows, coo.cols, cpu);
    EXPECT_LT(max_diff(s, reference_sddmm<T>(a, d, coo.rows, coo.cols)), tolerance<T>())
        << "sddmm m " << c.m << " nnz " << c.nnz << " dense " << c.dense;
  }
}

TEST(SparseKernel, MatchesReferenceForEveryDtypeAndThreadCount) {
  const int saved = get_num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    CpuBackend cpu;
    check_coo_and_sddmm<float, std::int64_t>(cpu);
    check_coo_and_sddmm<double, std::int64_t>(cpu);
    check_coo_and_sddmm<double, std::int32_t>(cpu);
    check_coo_and_sddmm<std::complex<float>, std::int32_t>(cpu);
    check_coo_and_sddmm<std::complex<double>, std::int64_t>(cpu);
  }
  set_num_threads(saved);
}

TEST(SparseKernel, HandWorkedProductWithDuplicates) {
  CpuBackend cpu;
  // A (3 x 2) = [[0, 2 + 5], [3, 0], [0, 0]]: (0, 1) appears twice and sums.
  Tensor v = Tensor::from_vec_col_major<double>({3}, {2, 3, 5});
  Tensor r = Tensor::from_vec_col_major<std::int64_t>({3}, {0, 1, 0});
  Tensor c = Tensor::from_vec_col_major<std::int64_t>({3}, {1, 0, 1});
  Tensor b = Tensor::from_vec_col_major<double>({2, 2}, {1, 10, 1, 20});   // [[1, 1], [10, 20]]
  // A b = [[70, 140], [3, 3], [0, 0]]
  EXPECT_EQ(sparse::coo_matmul(v, r, c, b, 3, cpu).to_vec_col_major<double>(),
            (std::vector<double>{70, 3, 0, 140, 3, 0}));
  // sddmm(a, b)[p] = a[rows[p], :] . b[cols[p], :] with a = [[1, 2], [3, 4], [5, 6]]
  Tensor a = Tensor::from_vec_col_major<double>({3, 2}, {1, 3, 5, 2, 4, 6});
  // p0: a0 . b1 = 1*10 + 2*20 = 50; p1: a1 . b0 = 3 + 4 = 7; p2 = p0
  EXPECT_EQ(sparse::sddmm(a, b, r, c, cpu).to_vec_col_major<double>(), (std::vector<double>{50, 7, 50}));
}

TEST(SparseKernel, StridedOperands) {
  CpuBackend cpu;
  Coo coo = random_coo<std::int64_t>(20, 6, 8, 5);
  Tensor vfull = random_tensor<double>({40}, 6);
  Tensor v = vfull.slice(0, 0, 40, 2);                            // stride 2
  Tensor d = random_tensor<double>({5, 8}, 7).permute({1, 0});          // [8, 5], row-major
  Tensor want = reference_coo<double>(v.contiguous(), coo.rows, coo.cols, d.contiguous(), 6);
  EXPECT_LT(max_diff(sparse::coo_matmul(v, coo.rows, coo.cols, d, 6, cpu), want), 1e-12);
  Tensor a = random_tensor<double>({5, 6}, 8).permute({1, 0});
  EXPECT_LT(max_diff(sparse::sddmm(a, d, coo.rows, coo.cols, cpu),
                     reference_sddmm<double>(a.contiguous(), d.contiguous(), coo.rows, coo.cols)),
            1e-12);
}

// ---- errors ----------------------------------------------------------------------------

template <class E>
void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong error type: " << e.what();
  }
}

Tensor idx(std::vector<std::int64_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Tensor::from_vec_col_major<std::int64_t>({n}, v);
}

TEST(SparseErrors, OutOfRangeIndicesNameTheOpPositionAndIndex) {
  CpuBackend cpu;
  Tensor v = Tensor::from_vec_col_major<double>({3}, {1, 2, 3}), d = Tensor::zeros({4, 2});
  expect_error<IndexError>([&] { (void)sparse::coo_matmul(v, idx({0, 1, 5}), idx({0, 1, 2}), d, 5, cpu); },
                           "sparse.coo_matmul: row index 5 at position 2 is out of range [0, 5)");
  expect_error<IndexError>([&] { (void)sparse::coo_matmul(v, idx({0, 1, 2}), idx({0, -1, 2}), d, 5, cpu); },
                           "sparse.coo_matmul: column index -1 at position 1 is out of range [0, 4)");
  expect_error<IndexError>(
      [&] {
        (void)sparse::coo_matmul(v, Tensor::from_vec_col_major<std::int32_t>({3}, {0, 0, 0}),
                                 Tensor::from_vec_col_major<std::int32_t>({3}, {0, 4, 0}), d, 1, cpu);
      },
      "column index 4 at position 1");
  Tensor a = Tensor::zeros({2, 2});
  expect_error<IndexError>([&] { (void)sparse::sddmm(a, d, idx({0, 2, 0}), idx({0, 0, 0}), cpu); },
                           "sparse.sddmm: row index 2 at position 1 is out of range [0, 2)");
  expect_error<IndexError>([&] { (void)sparse::sddmm(a, d, idx({0, 0, 0}), idx({0, 0, 9}), cpu); },
                           "sparse.sddmm: column index 9 at position 2");
}

TEST(SparseErrors, BadOperandsNameTheOpAndValues) {
  CpuBackend cpu;
  Tensor v = Tensor::from_vec_col_major<double>({3}, {1, 2, 3}), d = Tensor::zeros({4, 2});
  Tensor r = idx({0, 1, 2}), c = idx({0, 1, 2});
  expect_error<DTypeError>([&] { (void)sparse::coo_matmul(v, r, c, Tensor::zeros({4, 2}, DType::f32), 3, cpu); },
                           "sparse.coo_matmul: dense operand");
  expect_error<DTypeError>([&] { (void)sparse::coo_matmul(Tensor::zeros({3}, DType::i64), r, c, Tensor::zeros({4, 2}, DType::i64), 3, cpu); },
                           "values must be f32, f64, c64 or c128");
  expect_error<DTypeError>([&] { (void)sparse::coo_matmul(v, Tensor::zeros({3}), c, d, 3, cpu); },
                           "rows and cols must both be i32 or both i64");
  expect_error<DTypeError>([&] { (void)sparse::coo_matmul(v, Tensor::zeros({3}, DType::i32), c, d, 3, cpu); },
                           "rows and cols must both be i32 or both i64");
  expect_error<ShapeError>([&] { (void)sparse::coo_matmul(v, idx({0, 1}), idx({0, 1}), d, 3, cpu); },
                           "have different lengths");
  expect_error<ShapeError>([&] { (void)sparse::coo_matmul(v, r, idx({0, 1}), d, 3, cpu); }, "have different lengths");
  expect_error<ShapeError>([&] { (void)sparse::coo_matmul(Tensor::zeros({3, 1}), r, c, d, 3, cpu); },
                           "values must be a vector [nnz]");
  expect_error<ShapeError>([&] { (void)sparse::coo_matmul(v, r, c, Tensor::scalar<double>(1.0), 3, cpu); },
                           "dense operand must have rank >= 1");
  expect_error<ValueError>([&] { (void)sparse::coo_matmul(v, r, c, d, -2, cpu); }, "m must be >= 0, got -2");
  expect_error<ShapeError>([&] { (void)sparse::sddmm(Tensor::zeros({3, 2}), Tensor::zeros({4, 3}), r, c, cpu); },
                           "sparse.sddmm: trailing extents");
  expect_error<DTypeError>([&] { (void)sparse::sddmm(Tensor::zeros({3, 2}), Tensor::zeros({4, 2}, DType::f32), r, c, cpu); },
                           "must have one dtype");
  expect_error<ShapeError>([&] { (void)sparse::sddmm(Tensor::zeros({3, 2}), Tensor::zeros({4}), r, c, cpu); },
                           "must have one rank");
  // Traced: checked at trace time where the extents decide it; a symbol passes.
  auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
  auto tr = TracedTensor::input("r", DType::i64, {Dim("nnz")});
  auto t4 = TracedTensor::input("c4", DType::i64, {Dim(4)});
  auto t3 = TracedTensor::input("c3", DType::i64, {Dim(3)});
  auto tv3 = TracedTensor::input("v3", DType::f64, {Dim(3)});
  auto td = TracedTensor::input("d", DType::f64, {Dim("k"), Dim("n")});
  EXPECT_NO_THROW((void)sparse::coo_matmul(tv, tr, t4, td, 5));
  expect_error<ShapeError>([&] { (void)sparse::coo_matmul(tv3, t3, t4, td, 5); }, "have different lengths");
  expect_error<DTypeError>([&] { (void)sparse::coo_matmul(tv, tr, tv, td, 5); }, "rows and cols");
}

TEST(SparseErrors, OutOfRangeIndexInACompiledProgram) {
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(sparse::family()).build();
  auto tv = TracedTensor::input("v", DType::f64, {Dim("nnz")});
  auto tr = TracedTensor::input("r", DType::i64, {Dim("nnz")});
  auto tc = TracedTensor::input("c", DType::i64, {Dim("nnz")});
  auto td = TracedTensor::input("d", DType::f64, {Dim("k"), Dim("n")});
  Program p = GraphCompiler().compile({sparse::coo_matmul(tv, tr, tc, td, 3)});
  Tensor v = Tensor::from_vec_col_major<double>({2}, {1, 2}), d = Tensor::zeros({4, 2});
  auto ok = rt.run_compiled(p, {{"v", v}, {"r", idx({0, 2})}, {"c", idx({3, 0})}, {"d", d}});
  EXPECT_EQ(ok[0].shape(), (Shape{3, 2}));
  expect_error<IndexError>([&] { (void)rt.run_compiled(p, {{"v", v}, {"r", idx({0, 2})}, {"c", idx({4, 0})}, {"d", d}}); },
                           "column index 4 at position 0 is out of range [0, 4)");
}

}  // namespace

// Every CPU kernel against the naive reference interpreter, on every sample
// of the op database: values, inferred vs executed metadata, untouched
// inputs, arbitrary dense output layouts, in-place elementwise execution,
// and the multi-threaded paths against the single-threaded ones.
#include <array>
#include <cmath>
#include <complex>
#include <initializer_list>
#include <cstring>
#include <algorithm>
#include <numeric>
#include <random>

#include "support/op_db.hpp"
#include "support/reference.hpp"
#include "support/test_support.hpp"
#include "../../src/cpu/vector_math.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

std::vector<OpKind> all_ops() {
  std::vector<OpKind> v;
  for (int i = 0; i < kNumOps; ++i) v.push_back(static_cast<OpKind>(i));
  return v;
}

std::string op_param_name(const ::testing::TestParamInfo<OpKind>& info) { return op_name(info.param); }

std::vector<TensorMeta> metas_of(const std::vector<Tensor>& in) {
  std::vector<TensorMeta> m;
  for (const Tensor& t : in) m.push_back({t.dtype(), t.shape()});
  return m;
}

std::vector<Tensor> snapshot(const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  for (const Tensor& t : in) out.push_back(t.duplicate());
  return out;
}

::testing::AssertionResult matches_reference(const Tensor& got, const OpSample& s) {
  Tensor want = reference_eval(s.kind, s.attrs, s.inputs);
  Tolerance tol = reference_tolerance(s.kind, s.attrs, s.inputs, want.dtype());
  return tensors_close(got, want, tol.rtol, tol.atol);
}

// Runs `check` on every sample; an exception fails the test naming the sample.
template <class F>
void for_each_sample(const std::vector<OpSample>& samples, F&& check) {
  for (const OpSample& s : samples) {
    try {
      check(s);
    } catch (const std::exception& e) {
      ADD_FAILURE() << s << " threw: " << e.what();
    }
  }
}

class KernelVsReference : public ::testing::TestWithParam<OpKind> {};

TEST_P(KernelVsReference, ValuesMetadataAndUntouchedInputs) {
  const OpKind kind = GetParam();
  CpuBackend cpu;
  const std::vector<OpSample> samples = op_samples(kind);
  ASSERT_FALSE(samples.empty()) << op_name(kind) << " has no samples in the op database";
  for_each_sample(samples, [&](const OpSample& s) {
    std::vector<Tensor> before = snapshot(s.inputs);
    Tensor got = ops::call(kind, s.attrs, s.inputs, cpu);
    std::vector<TensorMeta> metas = metas_of(s.inputs);
    TensorMeta inferred = infer(kind, s.attrs, metas);
    EXPECT_EQ(got.dtype(), inferred.dtype) << s;
    EXPECT_EQ(got.shape(), inferred.shape) << s;
    EXPECT_TRUE(matches_reference(got, s)) << s;
    for (std::size_t i = 0; i < s.inputs.size(); ++i)
      EXPECT_TRUE(tensors_equal(s.inputs[i], before[i])) << "input " << i << " was modified by " << s;
  });
}

// Backend contract: the output may have any dense layout (a permutation of
// column-major strides).
TEST_P(KernelVsReference, AnyDenseOutputLayout) {
  const OpKind kind = GetParam();
  CpuBackend cpu;
  std::mt19937_64 rng(static_cast<std::uint64_t>(kind) + 17);
  for_each_sample(op_samples(kind), [&](const OpSample& s) {
    std::vector<TensorMeta> metas = metas_of(s.inputs);
    TensorMeta out = infer(kind, s.attrs, metas);
    if (out.shape.size() < 2 || shape_numel(out.shape) == 0) return;
    DimVec reversed;
    for (std::size_t i = out.shape.size(); i-- > 0;) reversed.push_back(static_cast<std::int64_t>(i));
    DimVec shuffled = reversed;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (const DimVec& order : {reversed, shuffled}) {
      Tensor dst = empty_dense_permuted(out.shape, out.dtype, order);
      cpu.execute(kind, s.attrs, s.inputs, dst);
      EXPECT_TRUE(matches_reference(dst, s)) << s << " into strides " << dst.strides();
    }
  });
}

// Backend contract: an elementwise op may write into an input of identical layout.
TEST_P(KernelVsReference, InPlaceElementwise) {
  const OpKind kind = GetParam();
  const OpCategory cat = op_info(kind).category;
  if (cat != OpCategory::unary && cat != OpCategory::binary) GTEST_SKIP() << "not a unary/binary op";
  CpuBackend cpu;
  std::mt19937_64 rng(static_cast<std::uint64_t>(kind) + 29);
  int checked = 0;
  for_each_sample(op_samples(kind), [&](const OpSample& s) {
    std::vector<TensorMeta> metas = metas_of(s.inputs);
    TensorMeta out = infer(kind, s.attrs, metas);
    if (out.dtype != s.inputs[0].dtype() || shape_numel(out.shape) == 0) return;
    DimVec order(out.shape.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    Tensor x = empty_dense_permuted(out.shape, out.dtype, order);
    x.copy_from(s.inputs[0]);
    std::vector<Tensor> in = s.inputs;
    in[0] = x;
    cpu.execute(kind, s.attrs, in, x);
    EXPECT_TRUE(matches_reference(x, s)) << s << " in place with strides " << x.strides();
    ++checked;
  });
  if (checked == 0) GTEST_SKIP() << op_name(kind) << " never returns its operand's dtype";
}

INSTANTIATE_TEST_SUITE_P(AllOps, KernelVsReference, ::testing::ValuesIn(all_ops()), op_param_name);

// ---- the op database itself ----------------------------------------------------------

DType sample_dtype(const OpSample& s) {
  return s.kind == OpKind::select ? s.inputs[1].dtype() : s.inputs[0].dtype();
}

TEST(OpDatabase, EveryOpHasSamplesForEveryDtypeRankZeroAndEmpty) {
  for (int i = 0; i < kNumOps; ++i) {
    const OpKind kind = static_cast<OpKind>(i);
    const std::vector<OpSample> samples = op_samples(kind);
    ASSERT_FALSE(samples.empty()) << "add samples for " << op_name(kind) << " to tests/support/op_db.cpp";
    DTypeSet seen;
    bool rank0 = false, empty = false;
    for (const OpSample& s : samples) {
      EXPECT_EQ(s.kind, kind);
      seen = seen | DTypeSet{sample_dtype(s)};
      for (const Tensor& t : s.inputs) {
        rank0 = rank0 || t.ndim() == 0;
        empty = empty || t.numel() == 0;
      }
    }
    EXPECT_EQ(seen, op_info(kind).dtypes) << op_name(kind) << ": samples cover " << seen;
    // concatenate needs rank >= 1 (its dimension must exist).
    if (kind != OpKind::concatenate) {
      EXPECT_TRUE(rank0) << op_name(kind) << " has no rank-0 sample";
    }
    EXPECT_TRUE(empty) << op_name(kind) << " has no sample with a zero extent";
  }
}

TEST(OpDatabase, SamplesAreDeterministic) {
  for (OpKind kind : {OpKind::add, OpKind::dot_general, OpKind::gather}) {
    auto a = op_samples(kind), b = op_samples(kind);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      for (std::size_t k = 0; k < a[i].inputs.size(); ++k) {
        EXPECT_EQ(a[i].inputs[k].strides(), b[i].inputs[k].strides());
        EXPECT_TRUE(tensors_equal(a[i].inputs[k], b[i].inputs[k]));
      }
  }
}

// The reference itself, on values computed by hand (so that a wrong
// reference cannot hide a wrong kernel).
TEST(Reference, HandComputedValues) {
  auto m = Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5, 6});  // [[1,3,5],[2,4,6]]
  auto v = Tensor::from_vec_col_major<double>({3}, {1, 0, -1});
  const Tensor dg_in[] = {m, v};
  Tensor mv = reference_eval(
      OpKind::dot_general,
      DotGeneralAttrs{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}, dg_in);
  EXPECT_EQ(mv.to_vec_col_major<double>(), (std::vector<double>{-4, -4}));
  const Tensor one[] = {m};
  EXPECT_EQ(reference_eval(OpKind::reshape, ReshapeAttrs{{3, 2}}, one).to_vec_col_major<double>(),
            (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(reference_eval(OpKind::transpose, PermutationAttrs{{1, 0}}, one).to_vec_col_major<double>(),
            (std::vector<double>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(reference_eval(OpKind::reduce_sum, AxesAttrs{{1}}, one).to_vec_col_major<double>(),
            (std::vector<double>{9, 12}));
  EXPECT_EQ(reference_eval(OpKind::reverse, AxesAttrs{{1}}, one).to_vec_col_major<double>(),
            (std::vector<double>{5, 6, 3, 4, 1, 2}));
  const Tensor pad_in[] = {v, Tensor::scalar<double>(9)};
  EXPECT_EQ(reference_eval(OpKind::pad, PadAttrs{{-1}, {2}, {1}}, pad_in).to_vec_col_major<double>(),
            (std::vector<double>{9, 0, 9, -1, 9, 9}));
  auto i32 = Tensor::from_vec_col_major<std::int32_t>({3}, {7, -2147483647 - 1, 5});
  auto d32 = Tensor::from_vec_col_major<std::int32_t>({3}, {0, -1, -2});
  const Tensor div_in[] = {i32, d32};
  EXPECT_EQ(reference_eval(OpKind::divide, NoAttrs{}, div_in).to_vec_col_major<std::int32_t>(),
            (std::vector<std::int32_t>{-1, -2147483647 - 1, -2}));
  // gather rows 2 and (clamped) 9 of a 3x2 matrix
  auto idx = Tensor::from_vec_col_major<std::int64_t>({2}, {2, 9});
  const Tensor g_in[] = {m.reshape({3, 2}), idx};
  Tensor rows = reference_eval(OpKind::gather, GatherAttrs{{1}, {0}, {0}, 1, {1, 2}}, g_in);
  EXPECT_EQ(rows.shape(), (Shape{2, 2}));
  EXPECT_EQ(rows.to_vec_col_major<double>(), (std::vector<double>{3, 3, 6, 6}));
  // scatter-add with a duplicate index and one window out of bounds
  auto base = Tensor::zeros({3}, DType::f64);
  auto sidx = Tensor::from_vec_col_major<std::int32_t>({4}, {1, 1, 5, 0});
  auto upd = Tensor::from_vec_col_major<double>({4}, {1, 2, 4, 8});
  const Tensor s_in[] = {base, sidx, upd};
  EXPECT_EQ(reference_eval(OpKind::scatter, ScatterAttrs{{}, {0}, {0}, 1, ScatterMode::add}, s_in)
                .to_vec_col_major<double>(),
            (std::vector<double>{8, 3, 0}));
  // convert saturates and drops NaN to 0
  auto f = Tensor::from_vec_col_major<double>({4}, {1e20, -1e20, std::nan(""), -2.9});
  const Tensor c_in[] = {f};
  EXPECT_EQ(reference_eval(OpKind::convert, ConvertAttrs{DType::i32}, c_in).to_vec_col_major<std::int32_t>(),
            (std::vector<std::int32_t>{2147483647, -2147483647 - 1, 0, -2}));
}

// Note [Eager views] and Note [dot_general layout] in tenferro/ops/primitives.hpp.
TEST(EagerOps, ViewsAndOutputLayouts) {
  CpuBackend cpu;
  Tensor x = random_tensor({2, 3}, DType::f64, 1);
  EXPECT_TRUE(ops::reshape(x, {3, 2}, cpu).shares_storage_with(x));
  Tensor row = with_random_layout(x, 0, /*kind=*/1);
  Tensor flat = ops::reshape(row, {6}, cpu);
  EXPECT_FALSE(flat.shares_storage_with(row));
  EXPECT_TRUE(flat.is_contiguous());
  Tensor b = ops::broadcast_in_dim(x, {4, 2, 3}, {1, 2}, cpu);
  EXPECT_TRUE(b.shares_storage_with(x));
  EXPECT_EQ(b.strides()[0], 0);
  EXPECT_TRUE(ops::slice(x, {0, 1}, {2, 3}, {1, 2}, cpu).shares_storage_with(x));
  EXPECT_TRUE(ops::reverse(x, {0}, cpu).shares_storage_with(x));
  EXPECT_TRUE(ops::convert(x, DType::f64, cpu).shares_storage_with(x));
  EXPECT_FALSE(ops::convert(x, DType::f32, cpu).shares_storage_with(x));
  Tensor t = ops::transpose(x, {1, 0}, cpu);
  EXPECT_FALSE(t.shares_storage_with(x));
  EXPECT_TRUE(t.is_contiguous());
  // dot_general output: (batch, lhs free, rhs free), batch axes slowest in memory.
  Tensor l = random_tensor({2, 3, 4}, DType::f64, 2), r = random_tensor({3, 5, 4}, DType::f64, 3);
  DotGeneralAttrs dims{.lhs_batching_dimensions = {2},
                       .rhs_batching_dimensions = {2},
                       .lhs_contracting_dimensions = {1},
                       .rhs_contracting_dimensions = {0}};
  Tensor out = ops::dot_general(l, r, dims, cpu);
  EXPECT_EQ(out.shape(), (Shape{4, 2, 5}));
  EXPECT_EQ(out.strides(), (Strides{10, 1, 2}));
  EXPECT_EQ(ops::preferred_strides(OpKind::dot_general, dims, out.shape()), (Strides{10, 1, 2}));
  EXPECT_EQ(ops::preferred_strides(OpKind::add, NoAttrs{}, {4, 2, 5}), (Strides{1, 4, 8}));
}

// ---- threads -------------------------------------------------------------------------

TEST(Kernels, ParallelPathsMatchSerialAndReference) {
  ThreadGuard guard;
  CpuBackend cpu;
  for_each_sample(parallel_op_samples(), [&](const OpSample& s) {
    set_num_threads(1);
    Tensor serial = ops::call(s.kind, s.attrs, s.inputs, cpu).contiguous();
    set_num_threads(2);
    Tensor parallel = ops::call(s.kind, s.attrs, s.inputs, cpu).contiguous();
    EXPECT_TRUE(matches_reference(serial, s)) << s << " (1 thread)";
    EXPECT_TRUE(matches_reference(parallel, s)) << s << " (2 threads)";
    Tolerance tol = reference_tolerance(s.kind, s.attrs, s.inputs, serial.dtype());
    EXPECT_TRUE(tensors_close(parallel, serial, 2 * tol.rtol, 2 * tol.atol)) << s << ": 2 threads vs 1";
  });
}

// The transpose kernel on 1 and 2 threads (issue 16): outputs large enough
// for streaming stores (Note [Transpose tiles]; 8 MiB) and small ones, f64, f32,
// c128 and i32, element by element against a naive index loop over the
// operand's storage.
TEST(Kernels, TransposeOnOneAndTwoThreadsMatchesNaiveLoop) {
  ThreadGuard guard;
  CpuBackend cpu;
  struct Case {
    Shape shape;
    DimVec perm;
  };
  const Case cases[] = {{{1032, 1040}, {1, 0}},              // 8 MiB of f64, rows on lines: streaming stores
                        {{1030, 1037}, {1, 0}},              // rows off the lines: cached stores
                        {{64, 40, 33}, {2, 0, 1}},           // cached stores, partial tiles
                        {{16, 16, 16, 16, 4, 4}, {5, 0, 4, 1, 3, 2}},
                        {Shape(12, 2), {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
                        // every extent 3: two threads split index tuples of
                        // several axes (Note [Parallel copy]), pieces of a
                        // streamed whole (3^13 f64: 12 MiB) and of a cached one
                        {Shape(13, 3), {12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
                        {Shape(10, 3), {1, 2, 3, 4, 5, 6, 7, 8, 9, 0}}};
  for (DType d : {DType::f64, DType::f32, DType::c128, DType::i32}) {
    for (const Case& c : cases) {
      Tensor x = random_tensor(c.shape, d, 5);
      const std::size_t es = dtype_size(d), r = c.shape.size();
      Shape os;
      for (auto a : c.perm) os.push_back(c.shape[static_cast<std::size_t>(a)]);
      const auto* xs = static_cast<const unsigned char*>(x.data_ptr());
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        Tensor out = Tensor::zeros(os, d);
        const Tensor in[] = {x};
        cpu.execute(OpKind::transpose, PermutationAttrs{c.perm}, in, out);
        const auto* os_ = static_cast<const unsigned char*>(out.data_ptr());
        DimVec idx(r, 0);
        std::int64_t bad = 0;
        for (std::int64_t n = 0; n < shape_numel(os); ++n) {
          std::int64_t xo = 0, oo = 0;
          for (std::size_t k = 0; k < r; ++k) {
            oo += idx[k] * out.strides()[k];
            xo += idx[k] * x.strides()[static_cast<std::size_t>(c.perm[k])];
          }
          bad += std::memcmp(os_ + oo * std::int64_t(es), xs + xo * std::int64_t(es), es) != 0;
          for (std::size_t k = 0; k < r && ++idx[k] == os[k]; ++k) idx[k] = 0;
        }
        EXPECT_EQ(bad, 0) << d << " shape " << c.shape << " perm " << c.perm << ", " << threads << " threads";
      }
    }
  }
}

namespace {
// The binary-kernel cases of the two tests below: subtract, multiply and
// (except for i32) divide of x and y in both operand orders, with
// `with_compare` also x < y (except for c128), on one and two threads.
// check(in, kind, attrs, expected, what) runs one case against the
// reference evaluator's `expected`.
template <class Check>
void for_each_binary_case(DType d, const Tensor& x, const Tensor& y, bool with_compare,
                          Check check) {
  std::vector<std::pair<OpKind, Attrs>> kinds{{OpKind::subtract, NoAttrs{}},
                                              {OpKind::multiply, NoAttrs{}}};
  if (d != DType::i32) kinds.push_back({OpKind::divide, NoAttrs{}});
  if (with_compare && d != DType::c128)
    kinds.push_back({OpKind::compare, CompareAttrs{ComparisonDirection::LT}});
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (const auto& [kind, attrs] : kinds) {
      for (bool x_first : {true, false}) {
        const Tensor in[] = {x_first ? x : y, x_first ? y : x};
        const Tensor expected = reference_eval(kind, attrs, in);
        check(in, kind, attrs, expected,
              detail::str(d, " ", op_name(kind), x_first ? " x first" : " y first", ", ", threads,
                          " threads"));
      }
    }
  }
}
}  // namespace

// Note [Permuted operand]: a binary op whose operand's unit axis lies far
// out in the output's order copies that operand into the output first and
// then runs in place. Either operand permuted (x), both operand orders of
// the non-commutative ops, one and two threads, against the reference
// evaluator; a comparison (bool output) takes the plain loop.
TEST(Kernels, PermutedOperandMatchesReference) {
  ThreadGuard guard;
  CpuBackend cpu;
  const Shape shape(11, 3);  // 177147 elements
  DimVec reverse;
  for (std::int64_t i = 10; i >= 0; --i) reverse.push_back(i);
  for (DType d : {DType::f64, DType::f32, DType::c128, DType::i32}) {
    const Tensor x = random_tensor(shape, d, 3).permute(reverse);  // unit axis: the output's last
    const Tensor y = random_tensor(shape, d, 4);
    for_each_binary_case(d, x, y, /*with_compare=*/true,
                         [&](std::span<const Tensor> in, OpKind kind, const Attrs& attrs,
                             const Tensor& expected, const std::string& what) {
                           Tensor out = Tensor::zeros(shape, expected.dtype());
                           cpu.execute(kind, attrs, in, out);
                           const Tolerance tol =
                               reference_tolerance(kind, attrs, in, expected.dtype());
                           EXPECT_TRUE(tensors_close(out, expected, tol.rtol, tol.atol)) << what;
                         });
  }
}

// Note [Short runs]: when no axes merge into runs longer than a few
// elements (extents of 3, a broadcast and a permuted operand), a binary op
// goes through tabulated blocks of the innermost axes. Both operand orders
// of the non-commutative ops, one and two threads, into a contiguous output
// and into a strided one (its block not contiguous; the elements between
// stay untouched), against the reference evaluator.
TEST(Kernels, ShortRunsMatchReference) {
  ThreadGuard guard;
  CpuBackend cpu;
  const Shape shape(10, 3);  // 59049 elements: 243 blocks, enough for two threads
  const Shape padded = [&] {
    Shape p = shape;
    p[0] = 4;
    return p;
  }();
  std::vector<SliceSpec> first_three(10), last(10);
  first_three[0] = {0, 3};
  last[0] = {3, 4};
  for (DType d : {DType::f64, DType::f32, DType::c128, DType::i32}) {
    // x: 243 values broadcast along five axes, the others in scrambled order.
    const Tensor x = random_tensor({3, 3, 3, 3, 3}, d, 5)
                         .permute({2, 0, 4, 1, 3})
                         .expand_dims(0)
                         .expand_dims(2)
                         .expand_dims(5)
                         .expand_dims(8)
                         .expand_dims(9)
                         .broadcast_to(shape);
    // y: neighbouring axes swapped, so the output's runs are 3 long.
    const Tensor y = random_tensor(shape, d, 6).permute({1, 0, 3, 2, 5, 4, 7, 6, 9, 8});
    for_each_binary_case(
        d, x, y, /*with_compare=*/false,
        [&](std::span<const Tensor> in, OpKind kind, const Attrs& attrs, const Tensor& expected,
            const std::string& what) {
          const Tolerance tol = reference_tolerance(kind, attrs, in, expected.dtype());
          Tensor out = Tensor::zeros(shape, expected.dtype());
          cpu.execute(kind, attrs, in, out);
          EXPECT_TRUE(tensors_close(out, expected, tol.rtol, tol.atol))
              << what << ", contiguous output";
          Tensor base = Tensor::zeros(padded, expected.dtype());
          Tensor strided = base.slice(first_three);
          cpu.execute(kind, attrs, in, strided);
          EXPECT_TRUE(tensors_close(strided, expected, tol.rtol, tol.atol))
              << what << ", strided output";
          const Tensor gap = base.slice(last).contiguous();
          EXPECT_TRUE(tensors_close(gap, Tensor::zeros(gap.shape(), gap.dtype()), 0, 0)) << what;
        });
  }
}

TEST(Kernels, DotGeneralLayoutsOnTwoThreads) {
  ThreadGuard guard;
  set_num_threads(2);
  CpuBackend cpu;
  for_each_sample(dot_general_layout_samples(), [&](const OpSample& s) {
    EXPECT_TRUE(matches_reference(ops::call(s.kind, s.attrs, s.inputs, cpu), s)) << s;
  });
}

// Note [Symmetric products]: X X^T and X^T X with both operands the same
// memory run on syrk and mirror its lower triangle. Against the reference
// evaluator for every float dtype, a column slice (leading dimension larger
// than the rows) and a batch. At two threads the unbatched ones are below
// the two-thread limit (a GEMM); larger ones would start OpenBLAS's own
// threads, which hang under ThreadSanitizer (scripts/test.sh runs this suite
// there).
TEST(Kernels, SymmetricProductsMatchReference) {
  ThreadGuard guard;
  CpuBackend cpu;
  struct Case {
    Shape shape;
    DotGeneralAttrs dims;
    bool slice;  // X = the first columns of a wider tensor
  };
  const DotGeneralAttrs xxt{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}};
  const DotGeneralAttrs xtx{.lhs_contracting_dimensions = {0}, .rhs_contracting_dimensions = {0}};
  const std::vector<Case> cases{
      {{100, 85}, xxt, false},
      {{85, 100}, xtx, false},
      {{100, 85}, xxt, true},
      {{2, 90, 85},
       {.lhs_batching_dimensions = {0}, .rhs_batching_dimensions = {0}, .lhs_contracting_dimensions = {2},
        .rhs_contracting_dimensions = {2}},
       false}};
  std::uint64_t seed = 70;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (DType d : {DType::f64, DType::f32, DType::c128, DType::c64}) {
      for (const Case& c : cases) {
        Tensor x = random_tensor(c.shape, d, ++seed);
        if (c.slice) x = random_tensor({c.shape[0], c.shape[1] + 7}, d, ++seed).slice(1, 0, c.shape[1]);
        const Tensor in[] = {x, x};
        const Tensor expected = reference_eval(OpKind::dot_general, c.dims, in);
        Tensor out = Tensor::full(expected.shape(), Scalar(7.0), d);  // syrk leaves the upper triangle
        cpu.execute(OpKind::dot_general, c.dims, in, out);
        const Tolerance tol = reference_tolerance(OpKind::dot_general, c.dims, in, d);
        EXPECT_TRUE(tensors_close(out, expected, tol.rtol, tol.atol))
            << d << " shape " << c.shape << (c.slice ? " (slice)" : "") << ", " << threads << " threads";
      }
    }
  }
}

// A GEMM kernel (`kernel`: gemm_colmajor or gemm_fma) against a scalar loop
// that sums in the order of p with `step(acc, a, b)`, on every m, n and k
// given, both B layouts and padded leading dimensions: C's padding keeps its
// canary, and A and B end where their last element is. When the kernel
// declines (the CPU lacks its instructions), `runs_here` must say so.
template <class T, class Kernel, class Step>
void check_gemm_kernel(std::uint64_t seed, std::initializer_list<std::int64_t> ms,
                       std::initializer_list<std::int64_t> ns, std::initializer_list<std::int64_t> ks,
                       Kernel kernel, bool runs_here, Step step) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t m : ms)
    for (std::int64_t n : ns)
      for (std::int64_t k : ks)
        for (bool bt : {false, true}) {
          const std::int64_t lda = m + 2, ldb = (bt ? n : k) + 3, ldc = m + 3;
          std::vector<T> a(static_cast<std::size_t>(lda * k));
          std::vector<T> b(static_cast<std::size_t>(std::max<std::int64_t>(ldb * (bt ? k : n), 1)));
          for (auto& x : a) x = static_cast<T>(u(rng));
          for (auto& x : b) x = static_cast<T>(u(rng));
          const std::int64_t sbk = bt ? ldb : 1, sbn = bt ? 1 : ldb;
          std::vector<T> c(static_cast<std::size_t>(ldc * n), T(7)), want = c;
          for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < m; ++i) {
              T acc(0);
              for (std::int64_t p = 0; p < k; ++p)
                acc = step(acc, a[static_cast<std::size_t>(i + p * lda)], b[static_cast<std::size_t>(p * sbk + j * sbn)]);
              want[static_cast<std::size_t>(i + j * ldc)] = acc;
            }
          if (!kernel(m, n, k, a.data(), lda, b.data(), sbk, sbn, c.data(), ldc)) {
            EXPECT_FALSE(runs_here);
            return;  // not on this CPU: the callers keep their loops or BLAS
          }
          ASSERT_EQ(c, want) << "m " << m << " n " << n << " k " << k << (bt ? " B transposed" : "");
        }
}

// Note [Small column-major GEMM]: the register-block kernel against the
// scalar column update (the same sum in the same order: the same bits), on
// every row and column tail.
template <class T>
void check_gemm_colmajor() {
  check_gemm_kernel<T>(
      11, {1, 3, 4, 7, 8, 9, 15, 16, 17, 33}, {1, 3, 4, 5, 9}, {0, 1, 4, 7, 16},
      [](auto... args) { return cpu::gemm_colmajor(args...); }, cpu::has_gemm_colmajor(),
      [](T acc, T x, T y) { return acc + x * y; });
}

TEST(Kernels, SmallColumnMajorGemmMatchesTheScalarLoopBitForBit) {
  check_gemm_colmajor<double>();
  check_gemm_colmajor<float>();
}

// Note [FMA GEMM]: the AVX-512 kernel against a scalar loop of std::fma in
// the order of p (an FMA rounds once, in a register lane as in a scalar: the
// same bits), on row tails of every register count for both element widths
// (masked loads and stores) and column tails.
template <class T>
void check_gemm_fma() {
  check_gemm_kernel<T>(
      12, {1, 7, 8, 9, 16, 17, 23, 24, 25, 40, 47, 48, 49, 63, 64, 100}, {1, 2, 7, 8, 9, 16, 19}, {0, 1, 5, 33},
      [](auto... args) { return cpu::gemm_fma(args...); }, cpu::has_gemm_fma(),
      [](T acc, T x, T y) { return std::fma(x, y, acc); });
}

TEST(Kernels, FmaGemmMatchesAScalarFmaLoopBitForBit) {
  check_gemm_fma<double>();
  check_gemm_fma<float>();
}

// Note [Short contractions]: products with k <= 16 that the plan gives to BLAS
// run on the register-block kernel instead, split by columns on two threads
// from 2e6 multiply-adds (the 64 x 2003 x 16 case); k = 17 stays on BLAS
// (cut per thread by Note [Split GEMM] at two threads, so OpenBLAS's own
// threads never start: under ThreadSanitizer with LLVM's OpenMP they hang).
// Against a naive loop, f32 and f64, B in both layouts.
TEST(Kernels, ShortContractionsMatchNaiveLoop) {
  ThreadGuard guard;
  CpuBackend cpu;
  for (DType d : {DType::f64, DType::f32})
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{37, 1203, 1}, {37, 1203, 5}, {64, 2003, 16}, {64, 2003, 17}})
      for (bool bt : {false, true})
        for (int threads : {1, 2}) {
          set_num_threads(threads);
          Tensor a = random_tensor({m, k}, d, 3), b = bt ? random_tensor({n, k}, d, 4) : random_tensor({k, n}, d, 4);
          DotGeneralAttrs dims{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {bt ? 1 : 0}};
          Tensor c = ops::convert(ops::dot_general(a, b, dims, cpu), DType::f64, cpu);
          auto av = ops::convert(a, DType::f64, cpu).to_vec_col_major<double>();
          auto bv = ops::convert(b, DType::f64, cpu).to_vec_col_major<double>();
          auto cv = c.to_vec_col_major<double>();
          double worst = 0;
          for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < m; ++i) {
              double want = 0;
              for (std::int64_t p = 0; p < k; ++p)
                want += av[static_cast<std::size_t>(i + p * m)] * bv[static_cast<std::size_t>(bt ? j + p * n : p + j * k)];
              worst = std::max(worst, std::abs(cv[static_cast<std::size_t>(i + j * m)] - want));
            }
          EXPECT_LE(worst, (d == DType::f32 ? 1e-5 : 1e-13) * static_cast<double>(k))
              << d << " k " << k << (bt ? " B transposed " : " ") << threads << " threads";
        }
}

// Note [Split GEMM]: on two threads a product of at least 2e6 multiply-adds
// is cut into one BLAS call per thread, by columns (n >= m) or rows; every
// combination of operand layouts (op N / T on each side) against a naive
// loop, on one and two threads. A transposed A of more than 96 rows also
// crosses panels of Note [Packed rows] (where the FMA kernel runs).
TEST(Kernels, SplitGemmMatchesNaiveLoop) {
  ThreadGuard guard;
  CpuBackend cpu;
  using C = std::complex<double>;
  struct Case {
    std::int64_t m, n, k;
  };
  for (Case cs : {Case{130, 260, 70}, Case{300, 200, 40}})
    for (DType d : {DType::f64, DType::f32, DType::c128})
      for (bool at : {false, true})
        for (bool bt : {false, true})
          for (int threads : {1, 2}) {
            set_num_threads(threads);
            const auto [m, n, k] = cs;
            Tensor a = at ? random_tensor({k, m}, d, 5) : random_tensor({m, k}, d, 5);
            Tensor b = bt ? random_tensor({n, k}, d, 6) : random_tensor({k, n}, d, 6);
            DotGeneralAttrs dims{.lhs_contracting_dimensions = {at ? 0 : 1},
                                 .rhs_contracting_dimensions = {bt ? 1 : 0}};
            auto cv = ops::convert(ops::dot_general(a, b, dims, cpu), DType::c128, cpu).to_vec_col_major<C>();
            auto av = ops::convert(a, DType::c128, cpu).to_vec_col_major<C>();
            auto bv = ops::convert(b, DType::c128, cpu).to_vec_col_major<C>();
            double worst = 0;
            for (std::int64_t j = 0; j < n; ++j)
              for (std::int64_t i = 0; i < m; ++i) {
                C want = 0;
                for (std::int64_t p = 0; p < k; ++p)
                  want += av[static_cast<std::size_t>(at ? p + i * k : i + p * m)] *
                          bv[static_cast<std::size_t>(bt ? j + p * n : p + j * k)];
                worst = std::max(worst, std::abs(cv[static_cast<std::size_t>(i + j * m)] - want));
              }
            EXPECT_LE(worst, (d == DType::f32 ? 1e-5 : 1e-13) * static_cast<double>(k))
                << d << " " << m << "x" << n << "x" << k << (at ? " A^T" : "") << (bt ? " B^T " : " ") << threads
                << " threads";
          }
}

TEST(Kernels, ParallelSamplesReallyAreLarge) {
  // Guards the database against shrinking below the kernels' parallel grain
  // (32768 elements of work).
  for (const OpSample& s : parallel_op_samples()) {
    std::vector<TensorMeta> metas = metas_of(s.inputs);
    std::int64_t work = shape_numel(infer(s.kind, s.attrs, metas).shape);
    for (const Tensor& t : s.inputs) work = std::max(work, t.numel());
    if (s.kind == OpKind::dot_general) {
      const auto& a = std::get<DotGeneralAttrs>(s.attrs);
      std::int64_t k = 1;
      for (auto d : a.lhs_contracting_dimensions) k *= s.inputs[0].shape()[static_cast<std::size_t>(d)];
      work = shape_numel(infer(s.kind, s.attrs, metas).shape) * k;
    }
    EXPECT_GE(work, 32768) << s;
  }
}

// ---- float reductions (Note [Pairwise reductions], issue 21 item 10) -----------------

// The exact sum of `v` along `axes` of the column-major [m, n] matrix, in
// long double.
std::vector<long double> exact_sums(const std::vector<float>& v, std::int64_t m, std::int64_t n, int axis) {
  std::vector<long double> out(static_cast<std::size_t>(axis == 0 ? n : m), 0.0L);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      out[static_cast<std::size_t>(axis == 0 ? j : i)] += v[static_cast<std::size_t>(i + j * m)];
  return out;
}

TEST(Reductions, FloatSumOfOneLargeAndManySmallTermsIsAccurate) {
  // [2^24, 1, 1, ...]: adding 1 to 2^24 in f32 rounds back to 2^24, so a
  // running sum of the ones in one accumulator loses all of them (the
  // sequential kernel gave 2^24 + 7/8 of the ones); pairwise sums lose at
  // most the handful that share the first block's accumulator.
  ThreadGuard guard;
  CpuBackend cpu;
  const std::int64_t n = std::int64_t{1} << 22;
  std::vector<float> v(static_cast<std::size_t>(n), 1.0f);
  v[0] = 16777216.0f;
  const double exact = 16777216.0 + static_cast<double>(n - 1);
  Tensor x = Tensor::from_vec_col_major<float>({n}, v);
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    const double got = ops::reduce_sum(x, {0}, cpu).to_vec_col_major<float>()[0];
    EXPECT_LE(std::abs(got - exact) / exact, 2e-6) << threads << " threads: " << got << " vs " << exact;
  }
}

TEST(Reductions, FloatSumsDoNotDependOnTheThreadCountAndGrowLogarithmically) {
  ThreadGuard guard;
  CpuBackend cpu;
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const std::int64_t m = 1500, n = 1300;
  std::vector<float> v(static_cast<std::size_t>(m * n));
  for (auto& e : v) e = u(rng);
  Tensor a = Tensor::from_vec_col_major<float>({m, n}, v);
  const Tensor views[] = {a, a.permute({1, 0}), a.slice(0, 0, m, 2)};
  for (int axis : {0, 1}) {
    const std::vector<long double> exact = exact_sums(v, m, n, axis);
    for (std::size_t k = 0; k < std::size(views); ++k) {
      const Tensor& t = views[k];
      std::vector<float> first;
      for (int threads : {1, 2, 3}) {
        set_num_threads(threads);
        std::vector<float> got = ops::reduce_sum(t, {axis}, cpu).to_vec_col_major<float>();
        if (first.empty()) first = got;
        // Bit for bit the same at every thread count.
        EXPECT_EQ(got, first) << "view " << k << ", axis " << axis << ", " << threads << " threads";
      }
      if (k == 0) {  // the plain matrix: every sum within a few f32 ulps of the exact one
        double worst = 0;
        for (std::size_t i = 0; i < first.size(); ++i)
          worst = std::max(worst, static_cast<double>(std::abs((first[i] - exact[i]) / exact[i])));
        EXPECT_LE(worst, 4e-7) << "axis " << axis;
      }
    }
    // The sum of everything, over both axes at once.
    for (std::size_t k = 0; k < std::size(views); ++k) {
      std::vector<float> first;
      for (int threads : {1, 2, 3}) {
        set_num_threads(threads);
        std::vector<float> got = ops::reduce_sum(views[k], {0, 1}, cpu).to_vec_col_major<float>();
        if (first.empty()) first = got;
        EXPECT_EQ(got, first) << "view " << k << ", all axes, " << threads << " threads";
      }
      if (k < 2) {
        long double total = 0;
        for (float e : v) total += e;
        EXPECT_LE(std::abs((first[0] - total) / total), 2e-7L) << "view " << k;
      }
    }
  }
}

// A reduced axis shorter than 16 elements is summed (multiplied, ...) in
// sequence from the identity by the pairwise tree; reduce.cpp forms these
// sums for many outputs at once when the axis is innermost in memory. Every
// output must be the sequential fold, bit for bit, at any thread count, for
// the axis innermost (contiguous or strided) and not innermost.
TEST(Reductions, ShortReducedAxisFoldsInSequence) {
  ThreadGuard guard;
  CpuBackend cpu;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::int64_t n : {2, 3, 7, 15}) {
    const std::int64_t m = 37, p = 65;
    std::vector<double> v(static_cast<std::size_t>(2 * n * m * p));
    for (auto& e : v) e = u(rng);
    std::vector<std::int64_t> vi(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) vi[i] = static_cast<std::int64_t>(v[i] * 1000);
    // [n, m, p] views of `b` (a [2n, m, p] tensor): the short axis contiguous,
    // every other element of it, or last in memory.
    auto views = [&](const Tensor& b) {
      return std::vector<Tensor>{b.slice(0, 0, n), b.slice(0, 0, 2 * n, 2),
                                 b.reshape({m, p, 2 * n}).slice(2, 0, n).permute({2, 0, 1})};
    };
    const std::vector<Tensor> vd = views(Tensor::from_vec_col_major<double>({2 * n, m, p}, v));
    const std::vector<Tensor> vi64 = views(Tensor::from_vec_col_major<std::int64_t>({2 * n, m, p}, vi));
    for (std::size_t k = 0; k < vd.size(); ++k) {
      const Tensor& t = vd[k];
      const Tensor tf = ops::convert(t, DType::f32, cpu), ti = vi64[k];
      for (int threads : {1, 2, 3}) {
        set_num_threads(threads);
        const std::vector<double> sum = ops::reduce_sum(t, {0}, cpu).to_vec_col_major<double>();
        const std::vector<double> prod = ops::reduce_prod(t, {0}, cpu).to_vec_col_major<double>();
        const std::vector<double> mx = ops::reduce_max(t, {0}, cpu).to_vec_col_major<double>();
        const std::vector<float> sumf = ops::reduce_sum(tf, {0}, cpu).to_vec_col_major<float>();
        const std::vector<std::int64_t> sumi = ops::reduce_sum(ti, {0}, cpu).to_vec_col_major<std::int64_t>();
        for (std::int64_t j = 0; j < m * p; ++j) {
          double s = 0, q = 1, x = -std::numeric_limits<double>::infinity();
          float sf = 0;
          std::int64_t si = 0;
          for (std::int64_t r = 0; r < n; ++r) {
            const DimVec idx{r, j % m, j / m};
            s += t.at<double>(idx);
            q *= t.at<double>(idx);
            x = std::max(x, t.at<double>(idx));
            sf += tf.at<float>(idx);
            si += ti.at<std::int64_t>(idx);
          }
          const std::size_t uj = static_cast<std::size_t>(j);
          ASSERT_EQ(sum[uj], s) << "n " << n << ", view " << k << ", output " << j << ", " << threads << " threads";
          ASSERT_EQ(prod[uj], q) << "n " << n << ", view " << k << ", output " << j;
          ASSERT_EQ(mx[uj], x) << "n " << n << ", view " << k << ", output " << j;
          ASSERT_EQ(sumf[uj], sf) << "n " << n << ", view " << k << ", output " << j;
          ASSERT_EQ(sumi[uj], si) << "n " << n << ", view " << k << ", output " << j;
        }
      }
    }
  }
}

}  // namespace

// Regression (UBSan in the random-program tests under ASan): a batched
// dot_general whose contraction is empty formed `data + offset` on the null
// data of an empty, reversed operand. The output is zeros; nothing is read.
TEST(Kernels, EmptyContractionOverReversedEmptyOperands) {
  CpuBackend cpu;
  Tensor a = Tensor::empty({3, 0, 2}, DType::f64).flip({0, 2});  // batch axis 0 reversed, k = 0
  Tensor b = Tensor::empty({3, 0, 4}, DType::f64).flip({0});
  ASSERT_EQ(a.data_ptr(), nullptr);
  DotGeneralAttrs d{.lhs_batching_dimensions = {0}, .rhs_batching_dimensions = {0},
                    .lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {1}};
  Tensor c = dot_general(a, b, d, cpu);
  ASSERT_EQ(c.shape(), (Shape{3, 2, 4}));
  for (const DimVec& i : all_indices(c.shape())) EXPECT_EQ(c.at<double>(i), 0.0);
  Tensor e = dot_general(Tensor::empty({0, 5}, DType::f64).flip({0}), Tensor::ones({5, 2}),
                         {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}, cpu);
  EXPECT_EQ(e.shape(), (Shape{0, 2}));
}

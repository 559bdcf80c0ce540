// Shape and dtype inference: the accepted cases against hand-computed
// metadata, and every rejection path (the error class, the op name and the
// offending values in the message), plus the eager checks around it: device
// mismatch, size overflow, undefined operands, and that a failed call
// writes nothing.
#include <sstream>

#include "support/op_db.hpp"
#include "support/test_support.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

TensorMeta m(DType d, Shape s) { return {d, std::move(s)}; }

TensorMeta infer1(OpKind k, const Attrs& a, std::vector<TensorMeta> in) { return infer(k, a, in); }

// Runs infer and expects error type E with every fragment in its message.
template <class E>
::testing::AssertionResult infer_throws(OpKind k, const Attrs& a, std::vector<TensorMeta> in,
                                        std::initializer_list<std::string> fragments) {
  return throws_with<E>([&] { infer(k, a, in); }, fragments);
}

const TensorMeta f64_23 = m(DType::f64, {2, 3});

// ---- accepted cases ------------------------------------------------------------

TEST(Infer, HandComputedShapes) {
  EXPECT_EQ(infer1(OpKind::add, NoAttrs{}, {f64_23, f64_23}), f64_23);
  EXPECT_EQ(infer1(OpKind::abs, NoAttrs{}, {m(DType::c64, {4})}), m(DType::f32, {4}));
  EXPECT_EQ(infer1(OpKind::real, NoAttrs{}, {m(DType::c128, {})}), m(DType::f64, {}));
  EXPECT_EQ(infer1(OpKind::complex, NoAttrs{}, {m(DType::f32, {2}), m(DType::f32, {2})}), m(DType::c64, {2}));
  EXPECT_EQ(infer1(OpKind::is_finite, NoAttrs{}, {f64_23}), m(DType::bool_, {2, 3}));
  EXPECT_EQ(infer1(OpKind::compare, CompareAttrs{ComparisonDirection::LT}, {f64_23, f64_23}),
            m(DType::bool_, {2, 3}));
  EXPECT_EQ(infer1(OpKind::convert, ConvertAttrs{DType::i32}, {f64_23}), m(DType::i32, {2, 3}));
  EXPECT_EQ(infer1(OpKind::select, NoAttrs{}, {m(DType::bool_, {}), f64_23, f64_23}), f64_23);
  EXPECT_EQ(infer1(OpKind::clamp, NoAttrs{}, {m(DType::f64, {}), f64_23, f64_23}), f64_23);
  EXPECT_EQ(infer1(OpKind::reduce_sum, AxesAttrs{{2, 0}}, {m(DType::i32, {2, 3, 4, 5})}),
            m(DType::i32, {3, 5}));
  // dot_general output axes: batch, lhs free, rhs free.
  DotGeneralAttrs dg{.lhs_batching_dimensions = {3},
                     .rhs_batching_dimensions = {0},
                     .lhs_contracting_dimensions = {1},
                     .rhs_contracting_dimensions = {2}};
  EXPECT_EQ(infer1(OpKind::dot_general, dg, {m(DType::c128, {2, 3, 4, 5}), m(DType::c128, {5, 6, 3})}),
            m(DType::c128, {5, 2, 4, 6}));
  EXPECT_EQ(infer1(OpKind::transpose, PermutationAttrs{{2, 0, 1}}, {m(DType::bool_, {2, 3, 4})}),
            m(DType::bool_, {4, 2, 3}));
  EXPECT_EQ(infer1(OpKind::reshape, ReshapeAttrs{{6}}, {f64_23}), m(DType::f64, {6}));
  EXPECT_EQ(infer1(OpKind::broadcast_in_dim, BroadcastInDimAttrs{{4, 2, 3}, {1, 2}}, {f64_23}),
            m(DType::f64, {4, 2, 3}));
  EXPECT_EQ(infer1(OpKind::slice, SliceAttrs{{0, 1}, {2, 3}, {2, 1}}, {f64_23}), m(DType::f64, {1, 2}));
  EXPECT_EQ(infer1(OpKind::dynamic_slice, DynamicSliceAttrs{{1, 2}}, {f64_23, m(DType::i32, {2})}),
            m(DType::f64, {1, 2}));
  EXPECT_EQ(infer1(OpKind::pad, PadAttrs{{1, -1}, {0, 2}, {1, 0}}, {f64_23, m(DType::f64, {})}),
            m(DType::f64, {4, 4}));
  EXPECT_EQ(infer1(OpKind::concatenate, ConcatenateAttrs{1},
                   {f64_23, m(DType::f64, {2, 5}), m(DType::f64, {2, 0})}),
            m(DType::f64, {2, 8}));
  GatherAttrs rows{.offset_dims = {1},
                   .collapsed_slice_dims = {0},
                   .start_index_map = {0},
                   .index_vector_dim = 1,
                   .slice_sizes = {1, 3}};
  EXPECT_EQ(infer1(OpKind::gather, rows, {f64_23, m(DType::i64, {7})}), m(DType::f64, {7, 3}));
  ScatterAttrs srows{.update_window_dims = {1},
                     .inserted_window_dims = {0},
                     .scatter_dims_to_operand_dims = {0},
                     .index_vector_dim = 1};
  EXPECT_EQ(infer1(OpKind::scatter, srows, {f64_23, m(DType::i32, {4}), m(DType::f64, {4, 3})}), f64_23);
}

// Every sample of the op database is valid input: inference accepts it.
TEST(Infer, AcceptsEveryOpDatabaseSample) {
  for (int i = 0; i < kNumOps; ++i)
    for (const OpSample& s : op_samples(static_cast<OpKind>(i))) {
      std::vector<TensorMeta> metas;
      for (const Tensor& t : s.inputs) metas.push_back({t.dtype(), t.shape()});
      EXPECT_NO_THROW(infer(s.kind, s.attrs, metas)) << s;
    }
}

TEST(Infer, OpTableLookups) {
  for (int i = 0; i < kNumOps; ++i) {
    OpKind k = static_cast<OpKind>(i);
    EXPECT_EQ(op_info(k).kind, k);
    EXPECT_EQ(op_from_name(op_name(k)), k);
    // A StableHLO or CHLO operation, or "tenferro.<name>" for a primitive
    // that neither has (trunc, remainder, ldexp, ...; ops.def).
    const std::string hlo = op_info(k).stablehlo_name;
    EXPECT_EQ(hlo.rfind("stablehlo.", 0) == 0 || hlo.rfind("chlo.", 0) == 0 ||
                  hlo == std::string("tenferro.") + op_name(k),
              true)
        << op_name(k);
  }
  EXPECT_FALSE(op_from_name("no_such_op").has_value());
  std::ostringstream os;
  os << Attrs{DotGeneralAttrs{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}};
  EXPECT_EQ(os.str(), "lhs_batch=[] rhs_batch=[] lhs_contract=[1] rhs_contract=[0]");
}

// ---- rejections: generic ------------------------------------------------------------

TEST(InferErrors, ArityAndAttributeKind) {
  EXPECT_TRUE(infer_throws<ValueError>(OpKind::add, NoAttrs{}, {f64_23}, {"add", "takes 2 operands, got 1"}));
  EXPECT_TRUE(infer_throws<ValueError>(OpKind::negate, NoAttrs{}, {f64_23, f64_23},
                                       {"negate", "takes 1 operands, got 2"}));
  EXPECT_TRUE(infer_throws<ValueError>(OpKind::reduce_sum, NoAttrs{}, {f64_23},
                                       {"reduce_sum", "wrong attribute kind"}));
  EXPECT_TRUE(infer_throws<ValueError>(OpKind::concatenate, ConcatenateAttrs{0}, {},
                                       {"concatenate", "at least one"}));
}

TEST(InferErrors, UnsupportedDtypesNameOpAndDtype) {
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::exp, NoAttrs{}, {m(DType::i32, {2})}, {"exp", "i32"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::add, NoAttrs{}, {m(DType::bool_, {2}), m(DType::bool_, {2})},
                                       {"add", "bool"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::maximum, NoAttrs{}, {m(DType::c64, {2}), m(DType::c64, {2})},
                                       {"maximum", "c64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::complex, NoAttrs{}, {m(DType::c64, {2}), m(DType::c64, {2})},
                                       {"complex", "c64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::real, NoAttrs{}, {m(DType::i64, {2})}, {"real", "i64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::reduce_max, AxesAttrs{{0}}, {m(DType::c128, {2})},
                                       {"reduce_max", "c128"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::dot_general, DotGeneralAttrs{},
                                       {m(DType::bool_, {2}), m(DType::bool_, {2})},
                                       {"dot_general", "bool"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::compare, CompareAttrs{ComparisonDirection::LT},
                                       {m(DType::c64, {2}), m(DType::c64, {2})}, {"compare", "LT", "c64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::clamp, NoAttrs{},
                                       {m(DType::c64, {}), m(DType::c64, {2}), m(DType::c64, {})},
                                       {"clamp", "c64"}));
}

TEST(InferErrors, DtypeMismatchNamesBothDtypes) {
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::add, NoAttrs{}, {m(DType::f32, {2}), m(DType::f64, {2})},
                                       {"add", "f32", "f64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::dot_general, DotGeneralAttrs{},
                                       {m(DType::c64, {2}), m(DType::c128, {2})},
                                       {"dot_general", "c64", "c128"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::select, NoAttrs{},
                                       {m(DType::f64, {2}), m(DType::f64, {2}), m(DType::f64, {2})},
                                       {"select", "predicate must be bool", "f64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::select, NoAttrs{},
                                       {m(DType::bool_, {2}), m(DType::f64, {2}), m(DType::i32, {2})},
                                       {"select", "f64", "i32"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::clamp, NoAttrs{},
                                       {m(DType::f32, {}), m(DType::f64, {2}), m(DType::f64, {})},
                                       {"clamp", "f32", "f64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::pad, PadAttrs{{0}, {0}, {0}},
                                       {m(DType::f64, {2}), m(DType::f32, {})}, {"pad", "f64", "f32"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::concatenate, ConcatenateAttrs{0},
                                       {m(DType::f64, {2}), m(DType::i64, {2})},
                                       {"concatenate", "f64", "i64"}));
  EXPECT_TRUE(infer_throws<DTypeError>(OpKind::dynamic_update_slice, NoAttrs{},
                                       {m(DType::f64, {3}), m(DType::f32, {1}), m(DType::i32, {1})},
                                       {"dynamic_update_slice", "f64", "f32"}));
}

TEST(InferErrors, ShapeMismatchNamesBothShapes) {
  EXPECT_TRUE(infer_throws<ShapeError>(OpKind::add, NoAttrs{}, {f64_23, m(DType::f64, {3, 2})},
                                       {"add", "[2, 3]", "[3, 2]", "broadcast"}));
  EXPECT_TRUE(infer_throws<ShapeError>(OpKind::power, NoAttrs{}, {f64_23, m(DType::f64, {})},
                                       {"power", "[2, 3]", "[]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(OpKind::select, NoAttrs{}, {m(DType::bool_, {3}), f64_23, f64_23},
                                       {"select", "[3]", "[2, 3]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(OpKind::select, NoAttrs{},
                                       {m(DType::bool_, {}), f64_23, m(DType::f64, {2})},
                                       {"select", "[2, 3]", "[2]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(OpKind::clamp, NoAttrs{},
                                       {m(DType::f64, {3}), f64_23, m(DType::f64, {})},
                                       {"clamp", "min shape [3]", "[2, 3]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(OpKind::clamp, NoAttrs{},
                                       {m(DType::f64, {}), f64_23, m(DType::f64, {2, 2})},
                                       {"clamp", "max shape [2, 2]"}));
}

// ---- rejections: per op -----------------------------------------------------------

TEST(InferErrors, Reductions) {
  for (OpKind k : {OpKind::reduce_sum, OpKind::reduce_prod, OpKind::reduce_max, OpKind::reduce_min}) {
    EXPECT_TRUE(infer_throws<IndexError>(k, AxesAttrs{{2}}, {f64_23}, {op_name(k), "axis 2", "[0, 2)"}));
    EXPECT_TRUE(infer_throws<IndexError>(k, AxesAttrs{{-1}}, {f64_23}, {op_name(k), "axis -1"}));
    EXPECT_TRUE(infer_throws<ValueError>(k, AxesAttrs{{1, 1}}, {f64_23}, {op_name(k), "repeats axis 1"}));
  }
}

TEST(InferErrors, DotGeneral) {
  const OpKind k = OpKind::dot_general;
  DotGeneralAttrs mm{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  EXPECT_TRUE(infer_throws<ShapeError>(k, mm, {f64_23, m(DType::f64, {4, 5})},
                                       {"dot_general", "contracting", "(3)", "(4)", "[2, 3]", "[4, 5]"}));
  DotGeneralAttrs batch{.lhs_batching_dimensions = {0}, .rhs_batching_dimensions = {0}};
  EXPECT_TRUE(infer_throws<ShapeError>(k, batch, {f64_23, m(DType::f64, {3, 3})},
                                       {"dot_general", "batch", "[2, 3]", "[3, 3]"}));
  DotGeneralAttrs uneven{.lhs_batching_dimensions = {0}, .rhs_batching_dimensions = {}};
  EXPECT_TRUE(infer_throws<ValueError>(k, uneven, {f64_23, f64_23},
                                       {"dot_general", "lhs_batch [0]", "rhs_batch []"}));
  DotGeneralAttrs uneven_c{.lhs_contracting_dimensions = {0, 1}, .rhs_contracting_dimensions = {0}};
  EXPECT_TRUE(
      infer_throws<ValueError>(k, uneven_c, {f64_23, f64_23}, {"dot_general", "lhs_contract [0, 1]"}));
  DotGeneralAttrs out_of_range{.lhs_contracting_dimensions = {2}, .rhs_contracting_dimensions = {0}};
  EXPECT_TRUE(
      infer_throws<IndexError>(k, out_of_range, {f64_23, f64_23}, {"dot_general", "axis 2", "[0, 2)"}));
  DotGeneralAttrs twice{.lhs_batching_dimensions = {0},
                        .rhs_batching_dimensions = {0},
                        .lhs_contracting_dimensions = {0},
                        .rhs_contracting_dimensions = {1}};
  EXPECT_TRUE(infer_throws<ValueError>(k, twice, {m(DType::f64, {2, 2}), m(DType::f64, {2, 2})},
                                       {"dot_general", "repeats axis 0"}));
}

TEST(InferErrors, TransposeReshapeBroadcast) {
  EXPECT_TRUE(infer_throws<ValueError>(OpKind::transpose, PermutationAttrs{{0}}, {f64_23},
                                       {"transpose", "permutation [0]", "rank 2"}));
  EXPECT_TRUE(infer_throws<ValueError>(OpKind::transpose, PermutationAttrs{{1, 1}}, {f64_23},
                                       {"transpose", "repeats axis 1"}));
  EXPECT_TRUE(infer_throws<IndexError>(OpKind::transpose, PermutationAttrs{{0, 2}}, {f64_23},
                                       {"transpose", "entry 2"}));
  EXPECT_TRUE(infer_throws<ShapeError>(OpKind::reshape, ReshapeAttrs{{7}}, {f64_23},
                                       {"reshape", "[2, 3]", "6 elements", "[7]", "7 elements"}));
  EXPECT_TRUE(infer_throws<ValueError>(OpKind::reshape, ReshapeAttrs{{-1, 3}}, {f64_23},
                                       {"reshape", "negative extent -1"}));
  const OpKind b = OpKind::broadcast_in_dim;
  EXPECT_TRUE(infer_throws<ValueError>(b, BroadcastInDimAttrs{{2, 3}, {0}}, {f64_23},
                                       {"broadcast_in_dim", "[0]", "[2, 3]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(b, BroadcastInDimAttrs{{4, 3}, {0, 1}}, {f64_23},
                                       {"broadcast_in_dim", "extent 2", "extent 4", "[2, 3]", "[4, 3]"}));
  EXPECT_TRUE(infer_throws<IndexError>(b, BroadcastInDimAttrs{{2, 3}, {0, 2}}, {f64_23},
                                       {"broadcast_in_dim", "axis 2"}));
  EXPECT_TRUE(infer_throws<ValueError>(b, BroadcastInDimAttrs{{3, 3}, {1, 1}}, {m(DType::f64, {3, 3})},
                                       {"broadcast_in_dim", "repeats axis 1"}));
  EXPECT_TRUE(infer_throws<ValueError>(b, BroadcastInDimAttrs{{-2, 3}, {}}, {m(DType::f64, {})},
                                       {"broadcast_in_dim", "-2"}));
}

TEST(InferErrors, SlicesAndPadding) {
  const OpKind s = OpKind::slice;
  EXPECT_TRUE(infer_throws<IndexError>(s, SliceAttrs{{0, 2}, {2, 4}, {1, 1}}, {f64_23},
                                       {"slice", "[2, 4)", "axis 1", "[2, 3]"}));
  EXPECT_TRUE(
      infer_throws<IndexError>(s, SliceAttrs{{-1, 0}, {2, 3}, {1, 1}}, {f64_23}, {"slice", "[-1, 2)"}));
  EXPECT_TRUE(infer_throws<IndexError>(s, SliceAttrs{{2, 0}, {1, 3}, {1, 1}}, {f64_23}, {"slice", "[2, 1)"}));
  EXPECT_TRUE(
      infer_throws<ValueError>(s, SliceAttrs{{0, 0}, {2, 3}, {1, 0}}, {f64_23}, {"slice", "strides [1, 0]"}));
  EXPECT_TRUE(infer_throws<ValueError>(s, SliceAttrs{{0}, {2}, {1}}, {f64_23},
                                       {"slice", "one entry per axis", "[2, 3]"}));
  const OpKind ds = OpKind::dynamic_slice;
  EXPECT_TRUE(infer_throws<DTypeError>(ds, DynamicSliceAttrs{{1, 1}}, {f64_23, m(DType::f64, {2})},
                                       {"dynamic_slice", "start indices", "f64"}));
  EXPECT_TRUE(infer_throws<ShapeError>(ds, DynamicSliceAttrs{{1, 1}}, {f64_23, m(DType::i32, {3})},
                                       {"dynamic_slice", "[2]", "[3]"}));
  EXPECT_TRUE(infer_throws<IndexError>(ds, DynamicSliceAttrs{{1, 4}}, {f64_23, m(DType::i32, {2})},
                                       {"dynamic_slice", "[1, 4]", "[2, 3]"}));
  EXPECT_TRUE(infer_throws<ValueError>(ds, DynamicSliceAttrs{{1}}, {f64_23, m(DType::i32, {2})},
                                       {"dynamic_slice", "[1]"}));
  const OpKind dus = OpKind::dynamic_update_slice;
  EXPECT_TRUE(infer_throws<ShapeError>(dus, NoAttrs{}, {f64_23, m(DType::f64, {3, 1}), m(DType::i64, {2})},
                                       {"dynamic_update_slice", "[3, 1]", "[2, 3]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(dus, NoAttrs{}, {f64_23, m(DType::f64, {1}), m(DType::i64, {2})},
                                       {"dynamic_update_slice", "rank 1", "rank 2"}));
  EXPECT_TRUE(infer_throws<DTypeError>(dus, NoAttrs{}, {f64_23, m(DType::f64, {1, 1}), m(DType::bool_, {2})},
                                       {"dynamic_update_slice", "bool"}));
  const OpKind p = OpKind::pad;
  EXPECT_TRUE(infer_throws<ShapeError>(p, PadAttrs{{0, 0}, {0, 0}, {0, 0}}, {f64_23, m(DType::f64, {1})},
                                       {"pad", "scalar", "[1]"}));
  EXPECT_TRUE(infer_throws<ValueError>(p, PadAttrs{{0, 0}, {0, 0}, {0, -1}}, {f64_23, m(DType::f64, {})},
                                       {"pad", "interior padding [0, -1]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(p, PadAttrs{{-2, 0}, {-1, 0}, {0, 0}}, {f64_23, m(DType::f64, {})},
                                       {"pad", "low [-2, 0]", "high [-1, 0]", "axis 0", "[2, 3]"}));
  EXPECT_TRUE(
      infer_throws<ValueError>(p, PadAttrs{{0}, {0}, {0}}, {f64_23, m(DType::f64, {})}, {"pad", "[2, 3]"}));
}

TEST(InferErrors, ConcatenateAndReverse) {
  const OpKind c = OpKind::concatenate;
  EXPECT_TRUE(infer_throws<IndexError>(c, ConcatenateAttrs{2}, {f64_23, f64_23},
                                       {"concatenate", "dimension 2", "rank 2"}));
  EXPECT_TRUE(
      infer_throws<IndexError>(c, ConcatenateAttrs{0}, {m(DType::f64, {})}, {"concatenate", "rank 0"}));
  EXPECT_TRUE(infer_throws<ShapeError>(c, ConcatenateAttrs{0}, {f64_23, m(DType::f64, {2, 4})},
                                       {"concatenate", "operand 1", "[2, 4]", "[2, 3]", "dimension 0"}));
  EXPECT_TRUE(
      infer_throws<ShapeError>(c, ConcatenateAttrs{0}, {f64_23, m(DType::f64, {2})}, {"concatenate", "[2]"}));
  EXPECT_TRUE(infer_throws<IndexError>(OpKind::reverse, AxesAttrs{{3}}, {f64_23}, {"reverse", "axis 3"}));
  EXPECT_TRUE(
      infer_throws<ValueError>(OpKind::reverse, AxesAttrs{{0, 0}}, {f64_23}, {"reverse", "repeats axis 0"}));
}

TEST(InferErrors, Gather) {
  const OpKind k = OpKind::gather;
  const GatherAttrs rows{.offset_dims = {1},
                         .collapsed_slice_dims = {0},
                         .start_index_map = {0},
                         .index_vector_dim = 1,
                         .slice_sizes = {1, 3}};
  const TensorMeta idx = m(DType::i64, {4});
  EXPECT_TRUE(
      infer_throws<DTypeError>(k, rows, {f64_23, m(DType::f32, {4})}, {"gather", "start_indices", "f32"}));
  GatherAttrs a = rows;
  a.slice_sizes = {1};
  EXPECT_TRUE(infer_throws<ValueError>(k, a, {f64_23, idx}, {"gather", "slice_sizes [1]", "[2, 3]"}));
  a = rows;
  a.slice_sizes = {1, 4};
  EXPECT_TRUE(infer_throws<IndexError>(k, a, {f64_23, idx}, {"gather", "slice size 4", "axis 1", "[2, 3]"}));
  a = rows;
  a.slice_sizes = {2, 3};
  EXPECT_TRUE(infer_throws<ValueError>(k, a, {f64_23, idx}, {"gather", "collapsed axis 0", "got 2"}));
  a = rows;
  a.slice_sizes = {0, 3};  // nothing to read on a collapsed axis (the kernel would read past the operand)
  EXPECT_TRUE(infer_throws<ValueError>(k, a, {f64_23, idx}, {"gather", "collapsed axis 0", "got 0"}));
  a = rows;
  a.index_vector_dim = 2;
  EXPECT_TRUE(infer_throws<IndexError>(k, a, {f64_23, idx}, {"gather", "index_vector_dim 2", "[4]"}));
  a = rows;
  a.start_index_map = {0, 1};
  EXPECT_TRUE(
      infer_throws<ValueError>(k, a, {f64_23, idx}, {"gather", "start_index_map [0, 1]", "1 entries"}));
  a = rows;
  a.start_index_map = {2};
  EXPECT_TRUE(infer_throws<IndexError>(k, a, {f64_23, idx}, {"gather", "start_index_map", "axis 2"}));
  a = rows;
  a.offset_dims = {0, 1};
  EXPECT_TRUE(infer_throws<ValueError>(k, a, {f64_23, idx}, {"gather", "offset_dims [0, 1]", "1 entries"}));
  a = rows;
  a.offset_dims = {2};
  EXPECT_TRUE(infer_throws<IndexError>(k, a, {f64_23, idx}, {"gather", "offset_dims", "axis 2"}));
  GatherAttrs windows{.offset_dims = {1, 0},
                      .collapsed_slice_dims = {},
                      .start_index_map = {0},
                      .index_vector_dim = 1,
                      .slice_sizes = {1, 3}};
  EXPECT_TRUE(
      infer_throws<ValueError>(k, windows, {f64_23, idx}, {"gather", "offset_dims [1, 0]", "sorted"}));
}

TEST(InferErrors, Scatter) {
  const OpKind k = OpKind::scatter;
  const ScatterAttrs rows{.update_window_dims = {1},
                          .inserted_window_dims = {0},
                          .scatter_dims_to_operand_dims = {0},
                          .index_vector_dim = 1};
  const TensorMeta idx = m(DType::i32, {4}), upd = m(DType::f64, {4, 3});
  EXPECT_TRUE(infer_throws<DTypeError>(k, rows, {f64_23, m(DType::f64, {4}), upd},
                                       {"scatter", "scatter_indices", "f64"}));
  EXPECT_TRUE(
      infer_throws<DTypeError>(k, rows, {f64_23, idx, m(DType::f32, {4, 3})}, {"scatter", "f64", "f32"}));
  EXPECT_TRUE(infer_throws<DTypeError>(k, rows, {m(DType::bool_, {2, 3}), idx, m(DType::bool_, {4, 3})},
                                       {"scatter", "bool"}));
  EXPECT_TRUE(infer_throws<ShapeError>(k, rows, {f64_23, idx, m(DType::f64, {4, 4})},
                                       {"scatter", "update window axis 1", "(4)", "[2, 3]"}));
  EXPECT_TRUE(infer_throws<ShapeError>(k, rows, {f64_23, idx, m(DType::f64, {5, 3})},
                                       {"scatter", "updates axis 0", "(5)", "extent 4"}));
  EXPECT_TRUE(infer_throws<ShapeError>(k, rows, {f64_23, idx, m(DType::f64, {4, 3, 1})},
                                       {"scatter", "updates shape [4, 3, 1]", "rank 2"}));
  ScatterAttrs a = rows;
  a.inserted_window_dims = {};
  EXPECT_TRUE(infer_throws<ValueError>(k, a, {f64_23, idx, upd}, {"scatter", "cover the operand rank 2"}));
  a = rows;
  a.scatter_dims_to_operand_dims = {0, 1};
  EXPECT_TRUE(
      infer_throws<ValueError>(k, a, {f64_23, idx, upd}, {"scatter", "scatter_dims_to_operand_dims [0, 1]"}));
  a = rows;
  a.index_vector_dim = 3;
  EXPECT_TRUE(infer_throws<IndexError>(k, a, {f64_23, idx, upd}, {"scatter", "index_vector_dim 3"}));
  a = rows;
  a.update_window_dims = {2};
  EXPECT_TRUE(
      infer_throws<IndexError>(k, a, {f64_23, idx, upd}, {"scatter", "update_window_dims", "axis 2"}));
}

// ---- eager calls: errors before any write ------------------------------------------------

TEST(EagerErrors, FailedCallsLeaveOperandsUnchanged) {
  CpuBackend cpu;
  Tensor a = random_tensor({2, 3}, DType::f64, 1), b = random_tensor({3, 2}, DType::f64, 2);
  Tensor a0 = a.duplicate(), b0 = b.duplicate();
  EXPECT_TRUE(throws_with<ShapeError>([&] { ops::add(a, b, cpu); }, {"add", "[2, 3]", "[3, 2]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        ops::dot_general(a, a, {.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}}, cpu);
      },
      {"dot_general", "[2, 3]"}));
  Tensor idx = Tensor::from_vec_col_major<std::int32_t>({1}, {0});
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        ops::dynamic_update_slice(a, b, Tensor::from_vec_col_major<std::int32_t>({2}, {0, 0}), cpu);
      },
      {"dynamic_update_slice", "[3, 2]", "[2, 3]"}));
  EXPECT_TRUE(throws_with<ShapeError>(
      [&] {
        ops::scatter(a, idx, b,
                     {.update_window_dims = {1},
                      .inserted_window_dims = {0},
                      .scatter_dims_to_operand_dims = {0},
                      .index_vector_dim = 1},
                     cpu);
      },
      {"scatter"}));
  EXPECT_TRUE(tensors_equal(a, a0));
  EXPECT_TRUE(tensors_equal(b, b0));
  // Bad element writes and copies leave the destination as it was.
  EXPECT_TRUE(throws_with<IndexError>([&] { a.set<double>({2, 0}, 5.0); }, {"set", "[2, 0]", "[2, 3]"}));
  EXPECT_TRUE(throws_with<DTypeError>([&] { a.set<float>({0, 0}, 5.0f); }, {"set", "f64", "f32"}));
  EXPECT_TRUE(throws_with<ShapeError>([&] { a.copy_from(b); }, {"copy_from", "[3, 2]", "[2, 3]"}));
  EXPECT_TRUE(throws_with<DTypeError>(
      [&] {
        a.copy_from(Tensor::zeros({2, 3}, DType::f32));
      },
      {"copy_from", "f32", "f64"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        Tensor::zeros({3}, DType::f64).broadcast_to({2, 3}).copy_from(a);
      },
      {"copy_from", "broadcast"}));
  EXPECT_TRUE(tensors_equal(a, a0));
}

TEST(EagerErrors, BackendEmptyStridedAcceptsOnlyDenseLayouts) {
  CpuBackend cpu;
  Tensor t = cpu.empty_strided(DType::f32, {2, 3, 4}, {12, 1, 3});
  EXPECT_EQ(t.strides(), (Strides{12, 1, 3}));
  EXPECT_EQ(t.storage()->nbytes(), 24 * sizeof(float));
  EXPECT_NO_THROW(cpu.empty_strided(DType::f64, {1, 3}, {99, 1}));  // extent-1 axes take any stride
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        cpu.empty_strided(DType::f64, {2, 3}, {1, 1});
      },
      {"empty_strided", "[1, 1]", "[2, 3]"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        cpu.empty_strided(DType::f64, {2, 3}, {-1, 2});
      },
      {"empty_strided"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        cpu.empty_strided(DType::f64, {2, 3}, {1, 4});
      },
      {"empty_strided"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        cpu.empty_strided(DType::f64, {2}, {1, 2});
      },
      {"empty_strided", "rank"}));
}

TEST(EagerErrors, UndefinedOperands) {
  CpuBackend cpu;
  Tensor undefined;
  EXPECT_TRUE(
      throws_with<ValueError>([&] { ops::negate(undefined, cpu); }, {"negate", "operand 0", "undefined"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { add(undefined, Tensor::ones({2}), cpu); }, {"add", "undefined"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { undefined.contiguous(); }, {"contiguous", "undefined"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { undefined.at<double>({}); }, {"at", "undefined"}));
}

TEST(EagerErrors, DeviceMismatchNamesBothDevices) {
  CpuBackend cpu;
  Tensor host = Tensor::ones({2, 3}, DType::f64);
  Tensor gpu = fake_device_tensor({2, 3}, DType::f64, Device::cuda(0));
  EXPECT_EQ(gpu.device(), Device::cuda(0));
  EXPECT_TRUE(
      throws_with<DeviceError>([&] { ops::add(host, gpu, cpu); }, {"add", "operand 1", "cuda:0", "cpu"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { ops::exp(gpu, cpu); }, {"exp", "operand 0", "cuda:0", "cpu"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { add(host, gpu, cpu); }, {"add", "cuda:0", "cpu"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { matmul(host, gpu.transpose(), cpu); }, {"cuda:0", "cpu"}));
  const Tensor both[] = {host, gpu};
  EXPECT_TRUE(throws_with<DeviceError>([&] { ops::concatenate(both, 0, cpu); }, {"concatenate", "cuda:0"}));
  // Host-only tensor functions refuse device tensors instead of touching their memory.
  EXPECT_TRUE(throws_with<DeviceError>([&] { gpu.at<double>({0, 0}); }, {"at", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { gpu.set<double>({0, 0}, 1.0); }, {"set", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { gpu.host_data<double>(); }, {"host_data", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { gpu.duplicate(); }, {"duplicate", "cuda:0"}));
  EXPECT_TRUE(
      throws_with<DeviceError>([&] { gpu.to_vec_col_major<double>(); }, {"to_vec_col_major", "cuda:0"}));
  EXPECT_TRUE(throws_with<DeviceError>([&] { host.copy_from(gpu); }, {"copy_from", "cuda:0", "cpu"}));
  // Families check devices too.
  FamilyOp twice{.name = "demo.twice",
                 .num_inputs = 1,
                 .num_outputs = 1,
                 .infer = [](const FamilyAttrs&,
                             std::span<const TensorMeta> in) { return std::vector<TensorMeta>{in[0]}; }};
  const Tensor one[] = {gpu};
  EXPECT_TRUE(
      throws_with<DeviceError>([&] { call_family(twice, {}, one, cpu); }, {"demo.twice", "cuda:0", "cpu"}));
  std::ostringstream os;
  os << gpu;
  EXPECT_NE(os.str().find("device=cuda:0"), std::string::npos) << os.str();
}

TEST(EagerErrors, SizeOverflow) {
  const std::int64_t big = std::int64_t{1} << 32;
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        Tensor::empty({big, big}, DType::f64);
      },
      {"empty", "[4294967296, 4294967296]", "int64"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { Tensor::zeros({std::int64_t{1} << 61}, DType::c128); },
                                      {"[2305843009213693952]", "c128", "overflows"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        Tensor::empty({2, -3}, DType::f32);
      },
      {"empty", "negative extent -3", "[2, -3]"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        Tensor::full({big, big, 4}, Scalar(1.0), DType::f32);
      },
      {"[4294967296, 4294967296, 4]"}));
  CpuBackend cpu;
  EXPECT_TRUE(throws_with<ValueError>([&] { cpu.empty(DType::f64, {big, big}); }, {"empty", "int64"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        infer1(OpKind::broadcast_in_dim, BroadcastInDimAttrs{{big, big}, {}}, {m(DType::f64, {})});
      },
      {"broadcast_in_dim", "[4294967296, 4294967296]"}));
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        infer1(OpKind::reshape, ReshapeAttrs{{big, big}}, {f64_23});
      },
      {"reshape", "[4294967296, 4294967296]"}));
  Tensor s = Tensor::scalar<double>(1.0);
  EXPECT_TRUE(throws_with<ValueError>(
      [&] {
        s.broadcast_to({big, big});
      },
      {"broadcast_to", "[4294967296, 4294967296]"}));
  EXPECT_TRUE(
      throws_with<ValueError>([&] { Tensor::arange(0.0, 1e300, 1e-10, DType::f64); }, {"arange", "1e+300"}));
  // A representable but impossible allocation is refused before allocating
  // (Note [Host memory limit]), so also under AddressSanitizer.
  EXPECT_TRUE(throws_with<MemoryError>([&] { Tensor::empty({std::int64_t{1} << 57}, DType::f64); },
                                       {"empty", "bytes", "the memory available now"}));
}

}  // namespace

// The error contract (tenferro/tensor/error.hpp) under hostile input: every
// bad call throws a tenferro::Error subclass whose message names the
// operation and the offending values, and changes nothing; inputs at the
// edge of int64 are computed exactly or rejected, never wrapped. One test
// per defect of issue 21 (the item number is in the test name).
#include <cmath>
#include <limits>

#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/ops.hpp"
#if TENFERRO_CONTRACT_EINSUM
#include "tenferro/einsum.hpp"
#endif
#if TENFERRO_CONTRACT_AD
#include "tenferro/ad.hpp"
#include "tenferro/runtime.hpp"
#endif

using namespace tenferro;
using namespace tenferro::testing;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

Tensor f64s(const Shape& shape, std::vector<double> v) { return Tensor::from_vec_col_major<double>(shape, v); }

// scatter(x [4], one start index, updates [2]): a window of 2 along axis 0.
const ScatterAttrs kWindow2{.update_window_dims = {0},
                            .inserted_window_dims = {},
                            .scatter_dims_to_operand_dims = {0},
                            .index_vector_dim = 0};

// Checks that `f` throws ValueError "<op>: tensor is undefined ...".
template <class F>
::testing::AssertionResult undefined_in(F&& f, const char* op) {
  return throws_with<ValueError>(std::forward<F>(f), {op, "tensor is undefined"});
}

}  // namespace

// Item 1: a start index near INT64_MAX made `start + extent <= size`
// overflow, so the window counted as inside and the write landed before the
// output buffer; at INT64_MAX itself an internal layout error was thrown.
// Windows outside the operand are skipped (ScatterAttrs).
TEST(ErrorContract, Item01ScatterStartNearInt64MaxIsSkipped) {
  CpuBackend cpu;
  const Tensor x = f64s({4}, {1, 2, 3, 4});
  const Tensor upd = f64s({2}, {10, 20});
  for (ScatterMode mode : {ScatterMode::add, ScatterMode::replace}) {
    ScatterAttrs attrs = kWindow2;
    attrs.mode = mode;
    for (std::int64_t start : {kMax, kMax - 1, kMax - 2, std::int64_t{3}, std::int64_t{-1},
                               std::numeric_limits<std::int64_t>::min()}) {
      SCOPED_TRACE(start);
      Tensor idx = Tensor::from_vec_col_major<std::int64_t>({1}, {start});
      Tensor out = ops::scatter(x, idx, upd, attrs, cpu);
      EXPECT_TRUE(tensors_equal(out, x));                   // the update was skipped
      EXPECT_TRUE(tensors_equal(x, f64s({4}, {1, 2, 3, 4})));  // and the operand is untouched
    }
  }
  // A batch mixing a window far outside with one inside applies only the latter.
  const Tensor idx = Tensor::from_vec_col_major<std::int64_t>({2, 1}, {kMax - 1, 1});
  const Tensor upd2 = f64s({2, 2}, {10, 20, 30, 40});  // batch 0: [10, 30], batch 1: [20, 40]
  ScatterAttrs batched{.update_window_dims = {1},
                       .inserted_window_dims = {},
                       .scatter_dims_to_operand_dims = {0},
                       .index_vector_dim = 1};
  EXPECT_TRUE(tensors_equal(ops::scatter(x, idx, upd2, batched, cpu), f64s({4}, {1, 22, 43, 4})));
  // int32 indices at their own maximum.
  const Tensor idx32 = Tensor::from_vec_col_major<std::int32_t>({1}, {std::numeric_limits<std::int32_t>::max()});
  EXPECT_TRUE(tensors_equal(ops::scatter(x, idx32, upd, kWindow2, cpu), x));
}


#include "support/test_support.hpp"

using namespace tenferro;
using namespace tenferro::testing;

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

#pragma once
// The axes and lengths of one transform call once its defaults are applied;
// shared by the eager transforms (transforms.cpp) and the graph-value
// handles (handles.cpp). Private to src/fft.
#include "tenferro/tensor/shape.hpp"

namespace tenferro::fft::detail {

struct Resolved {
  DimVec axes;
  DimVec lengths;
};

}  // namespace tenferro::fft::detail

#pragma once
/// \file
/// The strided views that express structural primitives without copying
/// (Note [Eager views] in primitives.hpp). The eager runtime returns them;
/// backends materialise them into an output buffer.
///
/// ```cpp
/// // [3] -> [2, 3]: stride 0 along the new axis 0
/// Tensor v = tenferro::ops::broadcast_in_dim_view(x, {.shape = {2, 3}, .broadcast_dimensions = {1}});
/// ```

#include <optional>

#include "tenferro/ops/attrs.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/ops/op.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::ops {

/// broadcast_in_dim as a view (stride 0 on broadcast axes). Attributes must
/// have passed `infer`.
Tensor broadcast_in_dim_view(const Tensor& x, const BroadcastInDimAttrs& attrs);
/// slice as a view. Attributes must have passed `infer`.
Tensor slice_view(const Tensor& x, const SliceAttrs& attrs);
/// reshape as a view, when the layout allows one.
std::optional<Tensor> reshape_view(const Tensor& x, const Shape& shape);
/// The view that stands for the result of `kind` on operand `x` with output
/// metadata `out` (Note [Eager views]), or nullopt when the op must compute.
std::optional<Tensor> eager_view(OpKind kind, const Attrs& attrs, const Tensor& x,
                                 const TensorMeta& out);

}  // namespace tenferro::ops

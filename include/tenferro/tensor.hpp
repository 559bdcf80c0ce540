#pragma once
/// \file
/// The tensor module: dtypes, shapes, storage, `Tensor` and `TypedTensor<T>`.
///
/// ```cpp
/// #include <tenferro/tensor.hpp>
/// auto t = tenferro::TypedTensor<double>::eye(3);
/// std::cout << t << "\n";
/// ```

#include "tenferro/tensor/checked.hpp"
#include "tenferro/tensor/device.hpp"
#include "tenferro/tensor/dtype.hpp"
#include "tenferro/tensor/error.hpp"
#include "tenferro/tensor/scalar.hpp"
#include "tenferro/tensor/shape.hpp"
#include "tenferro/tensor/storage.hpp"
#include "tenferro/tensor/strided_copy.hpp"
#include "tenferro/tensor/tensor.hpp"
#include "tenferro/tensor/typed_tensor.hpp"

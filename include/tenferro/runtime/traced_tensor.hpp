#pragma once
/// \file
/// `TracedTensor`: a tensor whose operations are recorded into a graph that
/// is compiled once (`GraphCompiler`) and run many times (`Runtime`).
///
/// ```cpp
/// using namespace tenferro;
/// auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
/// auto y = (x * x).reduce_sum({0});            // f64[3]
/// GraphCompiler compiler;
/// Program p = compiler.compile(y);
/// CpuBackend backend;
/// auto runtime = Runtime::builder().register_engine(cpu_engine(backend)).build();
/// auto out = runtime.run_compiled(p, {{"x", Tensor::ones({5, 3})}});   // [5, 5, 5]
/// ```
/// Extents may be symbolic (`Dim("n")`); a program runs for any consistent
/// binding without recompiling.

#include <string>
#include <vector>

#include "tenferro/runtime/tensor_handle.hpp"

namespace tenferro {

class TracedTensor : public TensorHandle<TracedTensor> {
 public:
  TracedTensor() = default;
  explicit TracedTensor(Value v) : TensorHandle(std::move(v)) {}

  /// A named program input; extents are constants or single symbols.
  static TracedTensor input(std::string name, DType dtype, SymShape shape);
  /// A constant (host tensor, captured by reference to its storage).
  static TracedTensor constant(const Tensor& value);
  template <class T>
  static TracedTensor from_vec_col_major(const Shape& shape, const std::vector<T>& values) {
    return constant(Tensor::from_vec_col_major<T>(shape, values));
  }

  // Differentiation (grad, vjp, jvp, hvp) is in the layer above:
  // free functions of tenferro/ad.hpp, e.g. grad(y, x).
};

}  // namespace tenferro

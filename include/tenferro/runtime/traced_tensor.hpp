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

  /// A traced value that declares `inputs` (named input values) as inputs of
  /// any program compiled from it, whether or not it reads them. The AD
  /// transforms return their results so, declaring the inputs of the
  /// differentiated function: `compile(grad((x * 3).sum(), x))` takes `x`
  /// (its data is unused, its extents bind the shape of the result).
  /// Declarations belong to this handle: a value computed from it
  /// (`grad(y, x) * 2`) keeps only the inputs it reads.
  TracedTensor(Value v, std::vector<Value> declared_inputs)
      : TensorHandle(std::move(v)), declared_inputs_(std::move(declared_inputs)) {}
  /// The declared inputs (see the constructor above); the compiler appends
  /// those the outputs do not read to the program's inputs, in this order.
  const std::vector<Value>& declared_inputs() const { return declared_inputs_; }

 private:
  std::vector<Value> declared_inputs_;
};

}  // namespace tenferro

#pragma once
/// \file
/// StableHLO lowering of compiled programs (tenferro::xla, docs/xla.md).
///
/// `to_stablehlo` writes the MLIR text of one `func.func @main` that
/// computes a compiled `Program` for the shapes and dtypes of the example
/// inputs. Column-major tensors are described to StableHLO by their
/// reversed shape (Note [Reversed shapes] in src/xla/stablehlo.cpp): the
/// bytes of a column-major `f64[3, 4]` are those of a row-major
/// `tensor<4x3xf64>`, so buffers cross over without any transpose.
///
/// ```cpp
/// using namespace tenferro;
/// auto x = TracedTensor::input("x", DType::f64, {Dim("n"), Dim(3)});
/// Program p = GraphCompiler().compile((x * x).sum());
/// std::string text = xla::to_stablehlo(p, {{"x", Tensor::ones({5, 3})}});
/// // module @tenferro { func.func public @main(%arg0: tensor<3x5xf64>) -> (tensor<f64>) { ... } }
/// ```
///
/// An instruction that StableHLO cannot express (an LAPACK-backed family op,
/// an extent that depends on data, a primitive without a counterpart) is
/// refused with an `UnimplementedError` naming it and the reason, before
/// anything runs.

#include <string>
#include <vector>

#include "tenferro/runtime/program.hpp"
#include "tenferro/runtime/runtime.hpp"

namespace tenferro::xla {

/// The StableHLO module (MLIR text) of `program`, specialised to the dtypes
/// and shapes of `example_inputs` (by name or by position, as
/// `Runtime::run_compiled` takes them; only their metadata is read).
/// The function's arguments are the program's inputs in declaration order;
/// its results are the program's outputs in order.
std::string to_stablehlo(const Program& program, const RunInputs& example_inputs);

/// The program's inputs bound as `Runtime::run_compiled` binds them: one
/// tensor per `program.inputs` entry, in order, with dtypes and shapes
/// checked (ValueError, DTypeError, ShapeError naming the input).
std::vector<Tensor> bind_program_inputs(const Program& program, const RunInputs& inputs, const char* op);

/// Whether `kind` has a StableHLO lowering for operands of `dtype` (the
/// table of docs/xla.md is generated from this).
bool lowerable(OpKind kind, DType dtype);

}  // namespace tenferro::xla

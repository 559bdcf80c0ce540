#pragma once
/// \file
/// The NumPy-style transforms on traced and eager tensors: the same free
/// functions as tenferro/fft/transforms.hpp, without the backend argument
/// (a traced tensor records the op, an eager tensor runs it on its
/// runtime's backend). They lower to the same graph: `slice`/`pad` for the
/// lengths, `convert` for promotion, `conj` for hfft/ihfft, and one
/// `fft.fft` family op, whose JVP and transpose rules make them
/// differentiable in both modes (docs/fft.md, "Automatic differentiation").
///
/// ```cpp
/// #include <tenferro/ad.hpp>
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/fft.hpp>
/// #include <tenferro/runtime.hpp>
/// using namespace tenferro;
/// auto x = TracedTensor::input("x", DType::f64, {Dim(16), Dim("batch")});
/// auto X = fft::rfft(x, {.n = 32, .norm = fft::Norm::ortho});     // c128 [17, batch]
/// auto loss = (X * X.conj()).real().sum();
/// auto g = grad(loss, x);                                           // f64 [16, batch]
/// Program p = GraphCompiler().compile(g);
/// CpuBackend cpu;
/// auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(fft::family()).build();
/// Tensor gx = rt.run_compiled(p, {{"x", Tensor::uniform({16, 4}, DType::f64, 1)}})[0];
///
/// EagerRuntime eager(cpu);
/// auto e = eager.tensor(Tensor::uniform({8}, DType::c128, 2)).requires_grad();
/// backward(fft::ifft(e).abs().sum());                             // e.grad()
/// ```
///
/// Axes, lengths and dtypes follow transforms.hpp. The transformed axes need
/// constant extents (the transform lengths are attributes of `fft.fft`);
/// every other axis may be symbolic, so one compiled program serves any
/// batch size. A symbolic extent along a transformed axis is a ValueError.

#include <concepts>

#include "tenferro/fft/transforms.hpp"
#include "tenferro/ops/graph.hpp"
#include "tenferro/runtime/tensor_handle.hpp"

namespace tenferro::fft {

/// A traced or eager tensor handle (`TracedTensor`, `EagerTensor`).
template <class H>
concept GraphTensor = std::derived_from<H, TensorHandle<H>> && std::constructible_from<H, Value>;

/// The transforms that have handle-level calls.
enum class Transform : std::uint8_t {
  fft, ifft, rfft, irfft, hfft, ihfft,
  fft2, ifft2, rfft2, irfft2,
  fftn, ifftn, rfftn, irfftn,
};

/// "fft.fft", "fft.irfftn", ...: the name errors use.
const char* transform_name(Transform t);

/// The graph lowering of the 1-D transforms (fft ... ihfft) on a graph value;
/// ValueError for an n-D `t`. `fft::lower(x, Transform::rfft, {.n = 8})`
Value lower(const Value& x, Transform t, const Options& options);
/// The graph lowering of the 2-D and n-D transforms; ValueError for a 1-D `t`.
Value lower(const Value& x, Transform t, const NdOptions& options);

// ---- 1-D --------------------------------------------------------------------------
/// `fft::fft(x, {.n = 64, .axis = 1})` on a TracedTensor or EagerTensor.
template <GraphTensor H>
H fft(const H& x, const Options& options = {}) {
  return H(lower(x.graph_value(), Transform::fft, options));
}
template <GraphTensor H>
H ifft(const H& x, const Options& options = {}) {
  return H(lower(x.graph_value(), Transform::ifft, options));
}
/// Real input only (f32, f64).
template <GraphTensor H>
H rfft(const H& x, const Options& options = {}) {
  return H(lower(x.graph_value(), Transform::rfft, options));
}
/// `n` is the output length (default 2 (m - 1)).
template <GraphTensor H>
H irfft(const H& x, const Options& options = {}) {
  return H(lower(x.graph_value(), Transform::irfft, options));
}
template <GraphTensor H>
H hfft(const H& x, const Options& options = {}) {
  return H(lower(x.graph_value(), Transform::hfft, options));
}
template <GraphTensor H>
H ihfft(const H& x, const Options& options = {}) {
  return H(lower(x.graph_value(), Transform::ihfft, options));
}

// ---- 2-D (default axes {0, 1}) ------------------------------------------------------
/// `fft::fft2(x, {.s = Shape{8, 8}})`
template <GraphTensor H>
H fft2(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::fft2, options));
}
template <GraphTensor H>
H ifft2(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::ifft2, options));
}
template <GraphTensor H>
H rfft2(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::rfft2, options));
}
template <GraphTensor H>
H irfft2(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::irfft2, options));
}

// ---- n-D (default: all axes, or the first s.size()) ----------------------------------
/// `fft::fftn(x, {.axes = DimVec{0, 2}})`
template <GraphTensor H>
H fftn(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::fftn, options));
}
template <GraphTensor H>
H ifftn(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::ifftn, options));
}
template <GraphTensor H>
H rfftn(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::rfftn, options));
}
template <GraphTensor H>
H irfftn(const H& x, const NdOptions& options = {}) {
  return H(lower(x.graph_value(), Transform::irfftn, options));
}

}  // namespace tenferro::fft

#pragma once
// A naive einsum for tests: loops over every assignment of every label and
// accumulates the product of the operand entries in complex<double>.
#include <complex>
#include <vector>

#include "support/test_support.hpp"
#include "tenferro/einsum.hpp"

namespace tenferro::testing {

/// The einsum of `operands` by direct summation, as a tensor of `dtype`
/// (complex results are truncated to their real part for real dtypes).
inline Tensor naive_einsum(const EinsumSpec& spec, const std::vector<Tensor>& operands, DType dtype) {
  std::vector<Shape> shapes;
  for (const Tensor& t : operands) shapes.push_back(t.shape());
  const std::vector<std::int64_t> sizes = einsum_label_sizes(spec, shapes);
  Shape out_shape;
  for (auto l : spec.output) out_shape.push_back(sizes[static_cast<std::size_t>(l)]);
  std::vector<std::complex<double>> out(static_cast<std::size_t>(shape_numel(out_shape)), 0.0);
  Shape all(sizes.begin(), sizes.end());
  for (const DimVec& assign : all_indices(all)) {
    std::complex<double> p = 1.0;
    for (std::size_t k = 0; k < operands.size(); ++k) {
      DimVec idx;
      for (std::size_t i = 0; i < spec.inputs[k].size(); ++i)
        idx.push_back(shapes[k][i] == 1 ? 0 : assign[static_cast<std::size_t>(spec.inputs[k][i])]);
      p *= value_at(operands[k], idx);
    }
    std::int64_t flat = 0, stride = 1;
    for (std::size_t i = 0; i < spec.output.size(); ++i) {
      flat += assign[static_cast<std::size_t>(spec.output[i])] * stride;
      stride *= out_shape[i];
    }
    out[static_cast<std::size_t>(flat)] += p;
  }
  Tensor result = Tensor::empty(out_shape, dtype);
  visit_dtype<kNumericDTypes>(dtype, "naive_einsum", [&]<class T>() {
    std::span<T> d = result.host_data<T>();
    for (std::size_t i = 0; i < d.size(); ++i) {
      if constexpr (is_complex_v<T>) d[i] = T(out[i]);
      else d[i] = static_cast<T>(out[i].real());
    }
  });
  return result;
}

}  // namespace tenferro::testing

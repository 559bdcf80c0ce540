#pragma once
// The benchmark inputs shared by bench/linalg and the peer report
// (bench/peer): element k (column-major over [rows, cols, batch]) of input
// `seed` is splitmix64 of (seed, k) mapped to [-1, 1). bench/linalg/peers.py
// (tensor_input) reproduces it exactly, so the peers see the same matrices.
#include <cstdint>

#include "tenferro/tensor.hpp"

namespace tenferro::bench_inputs {

inline double input_value(std::uint64_t seed, std::uint64_t k) {
  std::uint64_t z = seed * 0x632BE59BD9B4E019ull + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/// [rows, cols] (batch 0) or [rows, cols, batch], f64.
inline Tensor input_tensor(std::uint64_t seed, std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  Shape shape{rows, cols};
  if (batch > 0) shape.push_back(batch);
  Tensor t = Tensor::empty(shape, DType::f64);
  auto p = t.host_data<double>();
  for (std::size_t k = 0; k < p.size(); ++k) p[k] = input_value(seed, k);
  return t;
}

}  // namespace tenferro::bench_inputs

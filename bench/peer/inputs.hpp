#pragma once
// Linalg inputs of the peer report. Element k (column-major over
// [rows, cols, batch]) of input `seed` is splitmix64 of (seed, k) mapped to
// [-1, 1), the generator of bench/linalg (bench/linalg/peers.py's
// tensor_input reproduces it, and bench/peer/peers.py uses that).
#include <cstdint>
#include <string>
#include <vector>

#include "tenferro/tensor.hpp"

namespace tenferro::bench_peer {

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

struct LinalgCase {
  std::string op;
  std::int64_t n = 0, batch = 0;
  std::string key() const {
    return op + "/" + std::to_string(n) + "x" + std::to_string(n) + (batch > 0 ? "x" + std::to_string(batch) : "");
  }
};

/// Every primal op on one 256x256 matrix and on 64 batches of 16x16.
inline std::vector<LinalgCase> linalg_cases() {
  std::vector<LinalgCase> out;
  for (const char* op : {"svd", "qr", "eigh", "cholesky", "solve", "lu", "inv", "det"})
    for (auto [n, b] : {std::pair<std::int64_t, std::int64_t>{256, 0}, {16, 64}}) out.push_back({op, n, b});
  return out;
}

/// The matrix operand of `op`: general (svd, qr, lu, inv, det); symmetric
/// (a + a^T) / 2 (eigh); symmetric + n I, positive definite (cholesky);
/// a + n I (solve; its right-hand side is input 2 with one column).
inline Tensor linalg_operand(const std::string& op, std::int64_t n, std::int64_t batch) {
  Tensor a = input_tensor(1, n, n, batch);
  const std::int64_t count = batch > 0 ? batch : 1;
  double* p = a.data<double>();
  if (op == "eigh" || op == "cholesky") {
    Tensor s = Tensor::empty(a.shape(), DType::f64);
    double* q = s.data<double>();
    for (std::int64_t b = 0; b < count; ++b)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i) q[b * n * n + i + j * n] = 0.5 * (p[b * n * n + i + j * n] + p[b * n * n + j + i * n]);
    a = s;
    p = q;
  }
  if (op == "cholesky" || op == "solve")
    for (std::int64_t b = 0; b < count; ++b)
      for (std::int64_t i = 0; i < n; ++i) p[b * n * n + i + i * n] += static_cast<double>(n);
  return a;
}

inline Tensor linalg_operand(const LinalgCase& c) { return linalg_operand(c.op, c.n, c.batch); }

}  // namespace tenferro::bench_peer

#pragma once
// Linalg inputs of the peer report: the generator of bench/linalg
// (bench/linalg/inputs.hpp; bench/peer/peers.py uses its Python twin).
#include <cstdint>
#include <string>
#include <vector>

#include "../linalg/inputs.hpp"
#include "tenferro/tensor.hpp"

namespace tenferro::bench_peer {

using bench_inputs::input_tensor;

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

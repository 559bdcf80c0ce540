// operator<< for Tensor.
#include <ostream>
#include <sstream>

#include "tenferro/tensor/tensor.hpp"

namespace tenferro {
namespace {

constexpr std::int64_t kMaxPrinted = 1000;

template <class T>
void print_value(std::ostream& os, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else if constexpr (is_complex_v<T>) {
    os << v.real() << (v.imag() < 0 || std::signbit(v.imag()) ? "-" : "+") << std::abs(v.imag())
       << "i";
  } else {
    os << +v;
  }
}

template <class T>
void print_values(std::ostream& os, const Tensor& t) {
  std::vector<T> v = t.to_vec_col_major<T>();
  const Shape& s = t.shape();
  if (s.empty()) {
    print_value<T>(os, v[0]);
    return;
  }
  std::int64_t rows = s[0];
  std::int64_t cols = s.size() >= 2 ? s[1] : 1;
  std::int64_t mat = rows * cols;
  std::int64_t nmat = mat == 0 ? 0 : t.numel() / mat;
  auto print_matrix = [&](std::int64_t base, const char* indent) {
    if (s.size() == 1) {
      os << "[";
      for (std::int64_t i = 0; i < rows; ++i) {
        if (i) os << ", ";
        print_value<T>(os, v[static_cast<std::size_t>(i)]);
      }
      os << "]";
      return;
    }
    os << "[";
    for (std::int64_t i = 0; i < rows; ++i) {
      os << (i ? indent : "") << "[";
      for (std::int64_t j = 0; j < cols; ++j) {
        if (j) os << ", ";
        print_value<T>(os, v[static_cast<std::size_t>(base + i + j * rows)]);
      }
      os << "]" << (i + 1 < rows ? ",\n" : "");
    }
    os << "]";
  };
  if (s.size() <= 2) {
    if (mat == 0) os << "[]";
    else print_matrix(0, " ");
    return;
  }
  // Higher ranks: one [:, :, k...] block per trailing multi-index.
  DimVec k(s.size() - 2, 0);
  for (std::int64_t m = 0; m < nmat; ++m) {
    os << (m ? "\n" : "") << "[:, :";
    for (std::int64_t x : k) os << ", " << x;
    os << "] =\n";
    print_matrix(m * mat, " ");
    for (std::size_t a = 0; a < k.size(); ++a) {
      if (++k[a] < s[a + 2]) break;
      k[a] = 0;
    }
  }
  if (nmat == 0) os << "[]";
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "Tensor(undefined)";
  os << "Tensor(" << t.dtype() << ", shape=" << t.shape();
  if (!t.device().is_cpu()) os << ", device=" << t.device();
  if (!t.is_contiguous()) os << ", strides=" << t.strides();
  os << ")";
  if (!t.device().is_cpu()) return os;
  if (t.numel() > kMaxPrinted) return os << " (" << t.numel() << " values not shown)";
  os << "\n";
  visit_dtype(t.dtype(), "print", [&]<class T>() { print_values<T>(os, t); });
  return os;
}

}  // namespace tenferro

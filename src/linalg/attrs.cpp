// Printing of the linalg attribute types (tenferro/linalg/attrs.hpp): the
// form that appears in program text and keys common-subexpression elimination.
#include "tenferro/linalg/attrs.hpp"

#include <cmath>
#include <ostream>

#include "tenferro/tensor/error.hpp"

namespace tenferro::linalg {
namespace {
const char* flag(bool b) { return b ? "true" : "false"; }
}  // namespace

std::ostream& operator<<(std::ostream& os, const SvdOptions& o) {
  return os << "full_matrices=" << flag(o.full_matrices);
}
std::ostream& operator<<(std::ostream& os, SvdDegenerate d) {
  return os << (d == SvdDegenerate::fixed ? "fixed" : "reconstruct");
}
std::ostream& operator<<(std::ostream& os, const SvdAttrs& a) {
  return os << "full_matrices=" << flag(a.full_matrices) << " degenerate=" << a.degenerate;
}
std::ostream& operator<<(std::ostream& os, const SvdTruncatedOptions& o) {
  return os << "max_rank=" << o.max_rank << " rtol=" << o.rtol;
}
std::ostream& operator<<(std::ostream& os, const RankLimit& o) { return os << "max_rank=" << o.max_rank; }
std::ostream& operator<<(std::ostream& os, QrMode m) {
  return os << "mode=" << (m == QrMode::reduced ? "reduced" : m == QrMode::complete ? "complete" : "r");
}
std::ostream& operator<<(std::ostream& os, const LuOptions& o) {
  return os << "permutation_matrix=" << flag(o.permutation_matrix);
}
std::ostream& operator<<(std::ostream& os, const TriangleOptions& o) {
  return os << "lower=" << flag(o.lower);
}
std::ostream& operator<<(std::ostream& os, const TriangularSolveOptions& o) {
  return os << "lower=" << flag(o.lower) << " left=" << flag(o.left)
            << " unit_diagonal=" << flag(o.unit_diagonal);
}
std::ostream& operator<<(std::ostream& os, Transpose t) {
  return os << "trans=" << (t == Transpose::none ? "N" : t == Transpose::transpose ? "T" : "C");
}
std::ostream& operator<<(std::ostream& os, const LstsqOptions& o) { return os << "rcond=" << o.rcond; }
std::ostream& operator<<(std::ostream& os, const RankTolerance& t) {
  return os << "rtol=" << t.rtol << " atol=" << t.atol;
}

std::string NormOrder::to_string() const {
  if (is_named()) return name_;
  if (std::isinf(p_)) return p_ > 0 ? "inf" : "-inf";
  if (p_ == std::floor(p_) && std::abs(p_) < 1e15)
    return std::to_string(static_cast<long long>(p_));
  return ::tenferro::detail::str(p_);
}
std::ostream& operator<<(std::ostream& os, const NormOrder& o) { return os << o.to_string(); }
std::ostream& operator<<(std::ostream& os, const VectorNormAttrs& a) { return os << "ord=" << a.ord; }
std::ostream& operator<<(std::ostream& os, const MatrixNormAttrs& a) { return os << "ord=" << a.ord; }
std::ostream& operator<<(std::ostream& os, const CondAttrs& a) { return os << "ord=" << a.ord; }
std::ostream& operator<<(std::ostream& os, const BandAttrs& a) {
  return os << "lo=" << a.lo << " hi=" << a.hi;
}

}  // namespace tenferro::linalg

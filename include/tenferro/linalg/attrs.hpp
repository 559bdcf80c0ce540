#pragma once
/// \file
/// The attribute types of the linalg ops: one typed struct (or enum) per op
/// (Note [Typed family attributes] in tenferro/ops/family.hpp). The public
/// option structs of the eager and handle functions are these types, so a
/// call passes its options to the op unchanged.
///
/// ```cpp
/// using namespace tenferro;
/// CpuBackend cpu;
/// const FamilyOp& svd = linalg::family().op("linalg.svd");
/// auto usv = call_family(svd, FamilyAttrs::of(linalg::SvdAttrs{.full_matrices = true}), {{a}}, cpu);
/// auto x = linalg::triangular_solve(l, b, cpu, {.lower = true, .unit_diagonal = true});
/// std::cout << linalg::TriangularSolveOptions{};   // "lower=true left=true unit_diagonal=false"
/// ```
/// Every type is equality-comparable and printable (the printed form
/// appears in program text and keys common-subexpression elimination).
/// Ops without attributes take `NoFamilyAttrs`.
///
/// | op | attribute type |
/// |---|---|
/// | linalg.svd | SvdAttrs |
/// | linalg.svd_truncated | SvdTruncatedOptions |
/// | linalg.svd_rank_limit | RankLimit |
/// | linalg.qr | QrMode |
/// | linalg.lu | LuOptions |
/// | linalg.lu_solve, linalg.solve_factored | Transpose |
/// | linalg.cholesky, linalg.eigh | TriangleOptions |
/// | linalg.triangular_solve | TriangularSolveOptions |
/// | linalg.lstsq | LstsqOptions |
/// | linalg.pinv, linalg.matrix_rank | RankTolerance |
/// | linalg.vector_norm | VectorNormAttrs |
/// | linalg.matrix_norm | MatrixNormAttrs |
/// | linalg.cond | CondAttrs |
/// | linalg.band | BandAttrs |
/// | the others | NoFamilyAttrs |

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>

namespace tenferro::linalg {

// ---- decompositions ----------------------------------------------------------------------

/// Options of `svd`.
struct SvdOptions {
  /// U is [m, m] and Vh [n, n] (else [m, k] and [k, n]).
  bool full_matrices = false;
  bool operator==(const SvdOptions&) const = default;
};
std::ostream& operator<<(std::ostream& os, const SvdOptions& o);

/// How the derivative of `linalg.svd` treats a degenerate pair of singular
/// values (Note [SVD gauge attribute] in src/linalg/ad_rules.cpp).
enum class SvdDegenerate {
  /// du s vh + u ds vh + u s dvh = da exactly (gauge-invariant functions).
  reconstruct,
  /// The vectors of a degenerate subspace stay fixed (functions of the
  /// singular values alone; exact second derivatives for them).
  fixed,
};
std::ostream& operator<<(std::ostream& os, SvdDegenerate d);

/// Attributes of the op `linalg.svd`: the `svd` options plus the
/// derivative's treatment of degenerate singular values.
struct SvdAttrs {
  bool full_matrices = false;
  SvdDegenerate degenerate = SvdDegenerate::reconstruct;
  bool operator==(const SvdAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const SvdAttrs& a);

/// Options of `svd_truncated` (the attributes of `linalg.svd_truncated`).
struct SvdTruncatedOptions {
  /// Keep at most this many singular values (-1: no limit).
  std::int64_t max_rank = -1;
  /// Keep s_i > rtol * s_0 (the largest); 0 keeps every nonzero value.
  double rtol = 0.0;
  bool operator==(const SvdTruncatedOptions&) const = default;
};
std::ostream& operator<<(std::ostream& os, const SvdTruncatedOptions& o);

/// The attribute of `linalg.svd_rank_limit`, which keeps the first
/// min(max_rank, r) triplets of SVD factors of rank r.
struct RankLimit {
  /// The most triplets kept (-1: all).
  std::int64_t max_rank = -1;
  bool operator==(const RankLimit&) const = default;
};
std::ostream& operator<<(std::ostream& os, const RankLimit& o);

/// Which factors `qr` returns (the attribute of `linalg.qr`).
enum class QrMode {
  reduced,   ///< q [m, k], r [k, n]
  complete,  ///< q [m, m], r [m, n]
  r,         ///< r [k, n] only; q is empty [0, 0, batch...]
};
std::ostream& operator<<(std::ostream& os, QrMode m);

/// Options of `lu` (the attributes of `linalg.lu`).
struct LuOptions {
  /// Also return the permutation matrix p (else p is empty [0, 0, batch...]).
  bool permutation_matrix = true;
  bool operator==(const LuOptions&) const = default;
};
std::ostream& operator<<(std::ostream& os, const LuOptions& o);

/// Which triangle of a Hermitian (or triangular) operand is read; the other
/// one is ignored (the attributes of `linalg.cholesky` and `linalg.eigh`).
struct TriangleOptions {
  bool lower = true;
  bool operator==(const TriangleOptions&) const = default;
};
std::ostream& operator<<(std::ostream& os, const TriangleOptions& o);

// ---- solvers ------------------------------------------------------------------------------

/// Options of `triangular_solve` (the attributes of `linalg.triangular_solve`).
struct TriangularSolveOptions {
  bool lower = true;           ///< `a` is lower triangular (its upper part is ignored)
  bool left = true;            ///< solve a x = b (else x a = b)
  bool unit_diagonal = false;  ///< assume a's diagonal is 1 (it is not read)
  bool operator==(const TriangularSolveOptions&) const = default;
};
std::ostream& operator<<(std::ostream& os, const TriangularSolveOptions& o);

/// How `lu_solve` applies the factored matrix (the attribute of `linalg.lu_solve`).
enum class Transpose {
  none,       ///< a x = b
  transpose,  ///< a^T x = b
  adjoint,    ///< a^H x = b
};
std::ostream& operator<<(std::ostream& os, Transpose t);

/// Options of `lstsq` (the attributes of `linalg.lstsq`).
struct LstsqOptions {
  /// Singular values s_i <= rcond * s_0 are treated as zero; negative means
  /// eps * max(m, n) (NumPy's and PyTorch's default).
  double rcond = -1.0;
  bool operator==(const LstsqOptions&) const = default;
};
std::ostream& operator<<(std::ostream& os, const LstsqOptions& o);

/// Threshold for treating singular values as zero: s_i <= max(atol, rtol * s_0)
/// (the attributes of `linalg.pinv` and `linalg.matrix_rank`).
struct RankTolerance {
  /// Negative means eps * max(m, n).
  double rtol = -1.0;
  double atol = 0.0;
  bool operator==(const RankTolerance&) const = default;
};
std::ostream& operator<<(std::ostream& os, const RankTolerance& t);

// ---- norms --------------------------------------------------------------------------------

/// +infinity, for norm orders.
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// The order of a norm: a number p or the name "fro" / "nuc" (in the
/// attributes of `linalg.matrix_norm` and `linalg.cond`).
/// Vector norms take any p (including 0 and +-kInf); matrix norms take
/// "fro", "nuc", 1, -1, 2, -2, kInf, -kInf.
/// ```cpp
/// linalg::NormOrder a = 2, b = -linalg::kInf, c = "nuc";
/// ```
class NormOrder {
 public:
  NormOrder(double p) : p_(p) {}
  NormOrder(int p) : p_(p) {}
  /// "fro" or "nuc" (other names throw a ValueError when the norm is computed).
  NormOrder(const char* name) : name_(name) {}
  static NormOrder fro() { return NormOrder("fro"); }
  static NormOrder nuc() { return NormOrder("nuc"); }
  bool is_named() const { return !name_.empty(); }
  const std::string& name() const { return name_; }
  double p() const { return p_; }
  /// The printed spelling: "fro", "nuc", "2", "-inf", ...
  std::string to_string() const;
  /// Named orders compare by name, numeric ones by p.
  bool operator==(const NormOrder& o) const {
    return is_named() || o.is_named() ? name_ == o.name_ : p_ == o.p_;
  }

 private:
  double p_ = 2.0;
  std::string name_;
};
std::ostream& operator<<(std::ostream& os, const NormOrder& o);

/// Attributes of `linalg.vector_norm`: the order p of `vector_norm`.
struct VectorNormAttrs {
  double ord = 2.0;  ///< any p, including 0 and +-kInf
  bool operator==(const VectorNormAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const VectorNormAttrs& a);

/// Attributes of `linalg.matrix_norm` (the default is `matrix_norm`'s).
struct MatrixNormAttrs {
  NormOrder ord = NormOrder::fro();
  bool operator==(const MatrixNormAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const MatrixNormAttrs& a);

/// Attributes of `linalg.cond` (the default is `cond`'s).
struct CondAttrs {
  NormOrder ord = 2;
  bool operator==(const CondAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const CondAttrs& a);

// ---- masking --------------------------------------------------------------------------------

/// An unbounded diagonal offset for `band`.
inline constexpr std::int64_t kNoLimit = std::int64_t{1} << 40;

/// Entries a[i, j] with lo <= j - i <= hi are kept (the attributes of
/// `linalg.band`; the defaults keep everything).
struct BandAttrs {
  std::int64_t lo = -kNoLimit;
  std::int64_t hi = kNoLimit;
  bool operator==(const BandAttrs&) const = default;
};
std::ostream& operator<<(std::ostream& os, const BandAttrs& a);

}  // namespace tenferro::linalg

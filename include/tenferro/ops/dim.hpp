#pragma once
/// \file
/// `Dim`: a symbolic extent, for programs whose shapes are bound at run time.
///
/// ```cpp
/// using namespace tenferro;
/// Dim n("n"), m("m");
/// Dim d = n * m + 1;                        // prints "n*m + 1"
/// DimBindings env{{"n", 3}, {"m", 4}};
/// std::int64_t v = d.evaluate(env);         // 13
/// bool same = (n * 2 == n + n);             // true: polynomials are canonical
/// Dim r = Dim::fresh("rank");               // a data-dependent extent ("rank#1")
/// ```
/// A `Dim` is an integer polynomial over named symbols, kept in canonical
/// form, so equal expressions compare equal. Comparisons that involve
/// symbols are not decided at trace time; concrete inference checks them
/// when the program runs (see `known_equal`, `known_less`).

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/tensor/shape.hpp"

namespace tenferro {

/// Values of symbols when a program runs.
using DimBindings = std::map<std::string, std::int64_t, std::less<>>;

class Dim {
 public:
  /// The constant 0.
  Dim() = default;
  /// A constant extent.
  Dim(std::int64_t value) : constant_(value) {}
  Dim(int value) : constant_(value) {}
  /// A named symbol (letters, digits, '_' and '#'; not starting with a digit).
  explicit Dim(std::string_view symbol);
  /// A new symbol, unique in the process, for an extent known only when an
  /// op runs (e.g. the rank of a truncated SVD): "prefix#k".
  static Dim fresh(std::string_view prefix);

  bool is_constant() const;
  /// The constant value (ValueError when symbolic).
  std::int64_t value() const;
  std::optional<std::int64_t> try_value() const;
  /// True when the expression is exactly one symbol (coefficient 1).
  bool is_symbol() const;
  /// The symbol's name (ValueError unless `is_symbol()`).
  const std::string& symbol() const;
  /// Every symbol the expression mentions.
  std::vector<std::string> symbols() const;
  /// The value under `env`; ValueError naming the unbound symbol.
  std::int64_t evaluate(const DimBindings& env) const;
  /// The expression with symbols renamed (`renames` maps old to new names).
  Dim renamed(const std::map<std::string, std::string, std::less<>>& renames) const;

  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator-(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);
  /// Exact division by a positive constant (ValueError when inexact).
  friend Dim operator/(const Dim& a, std::int64_t b);
  friend bool operator==(const Dim& a, const Dim& b) {
    return a.constant_ == b.constant_ && a.terms_ == b.terms_;
  }

  std::string to_string() const;

 private:
  struct Term {
    std::int64_t coef = 0;
    std::vector<std::string> vars;  // sorted, repeated for powers
    bool operator==(const Term&) const = default;
  };
  static Dim from_terms(std::int64_t constant, std::vector<Term> terms);
  std::int64_t constant_ = 0;  // the constant term (kept inline: most extents are constants)
  std::vector<Term> terms_;    // the other terms, sorted by vars, no zero coefficients
};

std::ostream& operator<<(std::ostream& os, const Dim& d);

/// A symbolic shape.
using SymShape = std::vector<Dim>;

std::ostream& operator<<(std::ostream& os, const SymShape& s);

/// Constant extents as a symbolic shape.
SymShape to_sym_shape(std::span<const std::int64_t> shape);
/// The concrete shape under `env`.
Shape evaluate_shape(const SymShape& s, const DimBindings& env);
/// The concrete shape when every extent is constant, else nullopt.
std::optional<Shape> try_constant_shape(const SymShape& s);

/// Decidable comparisons: true only when the answer is certain at trace time
/// (for constants these are the ordinary comparisons).
bool known_equal(const Dim& a, const Dim& b);
bool known_different(const Dim& a, const Dim& b);
/// a < b is certain (both constant).
bool known_less(const Dim& a, const Dim& b);

}  // namespace tenferro

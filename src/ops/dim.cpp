// Symbolic extents: integer polynomials in canonical form.
#include "tenferro/ops/dim.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <ostream>
#include <sstream>

#include "tenferro/tensor/error.hpp"

namespace tenferro {

Dim Dim::from_terms(std::int64_t constant, std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.vars < b.vars; });
  Dim d;
  d.constant_ = constant;
  for (Term& t : terms) {
    if (t.vars.empty()) {
      TF_CHECK(!__builtin_add_overflow(d.constant_, t.coef, &d.constant_), ValueError, "Dim",
               "constant overflow");
    } else if (!d.terms_.empty() && d.terms_.back().vars == t.vars) {
      TF_CHECK(!__builtin_add_overflow(d.terms_.back().coef, t.coef, &d.terms_.back().coef),
               ValueError, "Dim", "coefficient overflow");
    } else {
      d.terms_.push_back(std::move(t));
    }
  }
  d.terms_.erase(std::remove_if(d.terms_.begin(), d.terms_.end(), [](const Term& t) { return t.coef == 0; }),
                 d.terms_.end());
  return d;
}

Dim Dim::renamed(const std::map<std::string, std::string, std::less<>>& renames) const {
  if (terms_.empty() || renames.empty()) return *this;
  std::vector<Term> terms = terms_;
  for (Term& t : terms) {
    for (std::string& v : t.vars) {
      auto it = renames.find(v);
      if (it != renames.end()) v = it->second;
    }
    std::sort(t.vars.begin(), t.vars.end());
  }
  return from_terms(constant_, std::move(terms));
}

Dim::Dim(std::string_view symbol) {
  bool ok = !symbol.empty() && !std::isdigit(static_cast<unsigned char>(symbol[0]));
  for (char c : symbol) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '#');
  TF_CHECK(ok, ValueError, "Dim", "invalid symbol name '", symbol, "'");
  terms_.push_back({1, {std::string(symbol)}});
}

Dim Dim::fresh(std::string_view prefix) {
  static std::atomic<std::uint64_t> counter{0};
  return Dim(std::string(prefix) + "#" + std::to_string(++counter));
}

bool Dim::is_constant() const { return terms_.empty(); }

std::optional<std::int64_t> Dim::try_value() const {
  if (terms_.empty()) return constant_;
  return std::nullopt;
}

std::int64_t Dim::value() const {
  auto v = try_value();
  TF_CHECK(v.has_value(), ValueError, "Dim", "extent ", to_string(), " is symbolic");
  return *v;
}

bool Dim::is_symbol() const {
  return constant_ == 0 && terms_.size() == 1 && terms_[0].coef == 1 && terms_[0].vars.size() == 1;
}

const std::string& Dim::symbol() const {
  TF_CHECK(is_symbol(), ValueError, "Dim", "extent ", to_string(), " is not a single symbol");
  return terms_[0].vars[0];
}

std::vector<std::string> Dim::symbols() const {
  std::vector<std::string> out;
  for (const Term& t : terms_)
    for (const std::string& v : t.vars)
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

std::int64_t Dim::evaluate(const DimBindings& env) const {
  std::int64_t sum = constant_;
  for (const Term& t : terms_) {
    std::int64_t p = t.coef;
    for (const std::string& v : t.vars) {
      auto it = env.find(v);
      TF_CHECK(it != env.end(), ValueError, "Dim", "symbol '", v, "' of extent ", to_string(),
               " is not bound");
      TF_CHECK(!__builtin_mul_overflow(p, it->second, &p), ValueError, "Dim", "extent ", to_string(),
               " overflows int64");
    }
    TF_CHECK(!__builtin_add_overflow(sum, p, &sum), ValueError, "Dim", "extent ", to_string(),
             " overflows int64");
  }
  return sum;
}

Dim operator+(const Dim& a, const Dim& b) {
  std::int64_t c;
  TF_CHECK(!__builtin_add_overflow(a.constant_, b.constant_, &c), ValueError, "Dim", "extent overflow");
  if (b.terms_.empty()) {
    Dim d = a;
    d.constant_ = c;
    return d;
  }
  std::vector<Dim::Term> t = a.terms_;
  t.insert(t.end(), b.terms_.begin(), b.terms_.end());
  return Dim::from_terms(c, std::move(t));
}

Dim operator-(const Dim& a, const Dim& b) {
  std::int64_t c;
  TF_CHECK(!__builtin_sub_overflow(a.constant_, b.constant_, &c), ValueError, "Dim", "extent overflow");
  std::vector<Dim::Term> t = a.terms_;
  for (Dim::Term x : b.terms_) {
    x.coef = -x.coef;
    t.push_back(std::move(x));
  }
  return Dim::from_terms(c, std::move(t));
}

Dim operator*(const Dim& a, const Dim& b) {
  // (ca + A)(cb + B) = ca cb + ca B + cb A + A B
  std::int64_t c;
  TF_CHECK(!__builtin_mul_overflow(a.constant_, b.constant_, &c), ValueError, "Dim", "extent overflow");
  if (a.terms_.empty() && b.terms_.empty()) return Dim(c);
  std::vector<Dim::Term> t;
  auto scaled = [&](const std::vector<Dim::Term>& terms, std::int64_t k) {
    for (const Dim::Term& x : terms) {
      Dim::Term p = x;
      TF_CHECK(!__builtin_mul_overflow(x.coef, k, &p.coef), ValueError, "Dim", "coefficient overflow");
      t.push_back(std::move(p));
    }
  };
  scaled(b.terms_, a.constant_);
  scaled(a.terms_, b.constant_);
  for (const Dim::Term& x : a.terms_)
    for (const Dim::Term& y : b.terms_) {
      Dim::Term p;
      TF_CHECK(!__builtin_mul_overflow(x.coef, y.coef, &p.coef), ValueError, "Dim", "coefficient overflow");
      p.vars = x.vars;
      p.vars.insert(p.vars.end(), y.vars.begin(), y.vars.end());
      std::sort(p.vars.begin(), p.vars.end());
      t.push_back(std::move(p));
    }
  return Dim::from_terms(c, std::move(t));
}

Dim operator/(const Dim& a, std::int64_t b) {
  TF_CHECK(b > 0, ValueError, "Dim", "division of ", a.to_string(), " by ", b);
  TF_CHECK(a.constant_ % b == 0, ValueError, "Dim", "extent ", a.to_string(), " is not divisible by ", b);
  std::vector<Dim::Term> t = a.terms_;
  for (Dim::Term& x : t) {
    TF_CHECK(x.coef % b == 0, ValueError, "Dim", "extent ", a.to_string(), " is not divisible by ", b);
    x.coef /= b;
  }
  return Dim::from_terms(a.constant_ / b, std::move(t));
}

std::string Dim::to_string() const {
  if (terms_.empty()) return std::to_string(constant_);
  std::ostringstream os;
  bool first = true;
  // Highest degree first reads naturally ("n*m + n + 1").
  std::vector<const Term*> order;
  for (const Term& t : terms_) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(),
                   [](const Term* a, const Term* b) { return a->vars.size() > b->vars.size(); });
  for (const Term* t : order) {
    std::int64_t c = t->coef;
    if (!first) os << (c < 0 ? " - " : " + ");
    else if (c < 0) os << "-";
    std::int64_t ac = c < 0 ? -c : c;
    bool need_star = false;
    if (ac != 1 || t->vars.empty()) {
      os << ac;
      need_star = true;
    }
    for (const std::string& v : t->vars) {
      os << (need_star ? "*" : "") << v;
      need_star = true;
    }
    first = false;
  }
  if (constant_ != 0) os << (constant_ < 0 ? " - " : " + ") << (constant_ < 0 ? -constant_ : constant_);
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Dim& d) { return os << d.to_string(); }

std::ostream& operator<<(std::ostream& os, const SymShape& s) {
  os << "[";
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  return os << "]";
}

SymShape to_sym_shape(std::span<const std::int64_t> shape) {
  return SymShape(shape.begin(), shape.end());
}

Shape evaluate_shape(const SymShape& s, const DimBindings& env) {
  Shape out;
  for (const Dim& d : s) out.push_back(d.evaluate(env));
  return out;
}

std::optional<Shape> try_constant_shape(const SymShape& s) {
  Shape out;
  for (const Dim& d : s) {
    auto v = d.try_value();
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

bool known_equal(const Dim& a, const Dim& b) { return a == b; }

bool known_different(const Dim& a, const Dim& b) {
  auto d = (a - b).try_value();
  return d.has_value() && *d != 0;
}

bool known_less(const Dim& a, const Dim& b) {
  auto d = (b - a).try_value();
  return d.has_value() && *d > 0;
}

}  // namespace tenferro

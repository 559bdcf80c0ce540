// Einsum subscripts: UTF-8 decoding, parsing, ellipsis expansion, implicit
// output, label extents (Note [Einsum notation] in tenferro/einsum/spec.hpp).
#include "tenferro/einsum/spec.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "tenferro/tensor/error.hpp"

namespace tenferro {
namespace {

constexpr const char* kOp = "einsum";
constexpr std::int64_t kEllipsisItem = -1;  // marks '...' inside a parsed term

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The text with control characters and bytes >= 0x80 that are not part of
// valid UTF-8 written as \xNN, so that messages stay printable.
std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string codepoint_name(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  std::string s = "'";
  if (cp >= 0x20 && cp != 0x7F) append_utf8(s, cp);
  s += "' (";
  s += buf;
  s += ")";
  return s;
}

// Code points of UTF-8 text (bytes that do not continue a sequence), and the
// byte offset of code point k (text.size() past the end).
std::size_t code_points(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
std::size_t byte_of(std::string_view text, std::size_t k) {
  std::size_t seen = 0;
  for (std::size_t b = 0; b < text.size(); ++b)
    if ((static_cast<unsigned char>(text[b]) & 0xC0) != 0x80 && seen++ == k) return b;
  return text.size();
}

// A parse error: names the problem, the position (in code points) and shows
// the text with a caret under the offending character (around it, for
// long text: at most 40 code points either side).
[[noreturn]] void syntax_error(std::string_view text, std::size_t pos, const std::string& what) {
  const std::size_t n = code_points(text);
  std::size_t from = 0, to = n;
  if (n > kEinsumEchoCodePoints) {
    from = pos > 40 ? pos - 40 : 0;
    to = std::min(n, pos + 41);
  }
  const std::string lead = from > 0 ? "..." : "";
  const std::size_t b0 = byte_of(text, from), b1 = byte_of(text, to);
  std::string caret(pos - from + 3 + lead.size(), ' ');
  caret += '^';
  TF_THROW(ValueError, kOp, what, " at position ", pos, " of subscripts \"", einsum_echo(text), "\"\n  \"", lead,
           printable(text.substr(b0, b1 - b0)), to < n ? "..." : "", "\"\n", caret);
}

struct CodePoint {
  std::uint32_t value;
  std::size_t byte;
};

[[noreturn]] void bad_utf8(std::string_view text, std::size_t at) {
  std::string shown;
  for (unsigned char c : text) {
    char buf[8];
    if (c >= 0x80 || c < 0x20) {
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      shown += buf;
    } else {
      shown += static_cast<char>(c);
    }
  }
  TF_THROW(ValueError, kOp, "subscripts are not valid UTF-8 (byte ", at, " of \"", shown, "\")");
}

// Strict UTF-8 decoding (no overlong forms, surrogates or values above U+10FFFF).
std::vector<CodePoint> decode_utf8(std::string_view text) {
  std::vector<CodePoint> out;
  std::size_t i = 0;
  auto bad = [&](std::size_t at) { bad_utf8(text, at); };
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::uint32_t cp;
    std::size_t len;
    if (c < 0x80) {
      cp = c;
      len = 1;
    } else if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1F;
      len = 2;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0F;
      len = 3;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07;
      len = 4;
    } else {
      bad_utf8(text, i);
    }
    if (i + len > text.size()) bad(i);
    for (std::size_t k = 1; k < len; ++k) {
      unsigned char d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) bad(i + k);
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr std::uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) bad(i);
    out.push_back({cp, i});
    i += len;
  }
  return out;
}

bool is_label_char(std::uint32_t cp) {
  if (cp >= 0x80) return true;
  return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
}

struct Term {
  std::vector<std::int64_t> items;  // code points, or kEllipsisItem
  std::vector<std::size_t> pos;     // position (code point index) of each item
  std::size_t start = 0;            // position where the term starts
  bool has_ellipsis() const {
    return std::find(items.begin(), items.end(), kEllipsisItem) != items.end();
  }
  std::int64_t num_labels() const {
    return static_cast<std::int64_t>(items.size()) - (has_ellipsis() ? 1 : 0);
  }
};

std::string term_text(const Term& t) {
  std::string s;
  for (auto it : t.items) {
    if (it == kEllipsisItem) s += "...";
    else append_utf8(s, static_cast<std::uint32_t>(it));
  }
  return s;
}

struct Parsed {
  std::vector<Term> inputs;
  std::optional<Term> output;
};

Parsed tokenize(std::string_view text) {
  std::vector<CodePoint> cps = decode_utf8(text);
  Parsed p;
  Term cur;
  bool in_output = false;
  const std::size_t n = cps.size();
  for (std::size_t i = 0; i < n;) {
    std::uint32_t c = cps[i].value;
    if (c == ' ') {
      ++i;
    } else if (c == ',') {
      if (in_output) syntax_error(text, i, "',' after '->' (the output is a single term)");
      p.inputs.push_back(std::move(cur));
      cur = Term{};
      cur.start = ++i;
    } else if (c == '-') {
      if (i + 1 >= n || cps[i + 1].value != '>')
        syntax_error(text, i, "'-' must be followed by '>'");
      if (in_output) syntax_error(text, i, "second '->'");
      p.inputs.push_back(std::move(cur));
      cur = Term{};
      in_output = true;
      i += 2;
      cur.start = i;
    } else if (c == '>') {
      syntax_error(text, i, "'>' without a preceding '-'");
    } else if (c == '.') {
      if (i + 2 >= n || cps[i + 1].value != '.' || cps[i + 2].value != '.')
        syntax_error(text, i, "'.' is only valid as part of '...'");
      if (cur.has_ellipsis()) syntax_error(text, i, "second '...' in one term");
      cur.items.push_back(kEllipsisItem);
      cur.pos.push_back(i);
      i += 3;
    } else if (is_label_char(c)) {
      cur.items.push_back(static_cast<std::int64_t>(c));
      cur.pos.push_back(i);
      ++i;
    } else {
      syntax_error(text, i, "invalid label character " + codepoint_name(c) +
                                " (labels are letters, digits or non-ASCII characters)");
    }
  }
  if (in_output) p.output = std::move(cur);
  else p.inputs.push_back(std::move(cur));
  return p;
}

std::string render_int_lists(const std::vector<std::vector<std::int64_t>>& inputs,
                             const std::vector<std::int64_t>* output) {
  std::ostringstream os;
  auto list = [&](const std::vector<std::int64_t>& v) {
    os << "[";
    for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
    os << "]";
  };
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (k) os << ",";
    list(inputs[k]);
  }
  if (output) {
    os << "->";
    list(*output);
  }
  return os.str();
}

}  // namespace

std::string einsum_echo(std::string_view text) {
  const std::size_t n = code_points(text);
  if (n <= kEinsumEchoCodePoints) return printable(text);
  const std::size_t head = byte_of(text, 60), tail = byte_of(text, n - 40);
  return detail::str(printable(text.substr(0, head)), "...(", n - 100, " more code points)...",
                     printable(text.substr(tail)));
}

std::string EinsumSpec::label_text(std::int64_t id) const {
  TF_CHECK(id >= 0 && id < num_labels(), IndexError, kOp, "label id ", id, " is out of range [0, ",
           num_labels(), ")");
  std::int64_t name = names[static_cast<std::size_t>(id)];
  if (name < 0) return "\xE2\x80\xA6" + std::to_string(-1 - name);  // "…k"
  if (!from_text) return std::to_string(name);
  std::string s;
  append_utf8(s, static_cast<std::uint32_t>(name));
  return s;
}

std::string EinsumSpec::to_string() const {
  std::string s;
  auto term = [&](const DimVec& labels) {
    if (!from_text) s += "[";
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (!from_text && i) s += ",";
      s += label_text(labels[i]);
    }
    if (!from_text) s += "]";
  };
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (k) s += ",";
    term(inputs[k]);
  }
  s += "->";
  term(output);
  return s;
}

EinsumSpec parse_einsum(std::string_view subscripts, const std::vector<std::int64_t>& ranks) {
  Parsed p = tokenize(subscripts);
  const std::string shown = einsum_echo(subscripts);
  TF_CHECK(p.inputs.size() == ranks.size(), ValueError, kOp, "subscripts \"", shown, "\" name ",
           p.inputs.size(), " operand", p.inputs.size() == 1 ? "" : "s", " but ", ranks.size(),
           " operand", ranks.size() == 1 ? " was" : "s were", " given");
  // Ranks, and the number of axes each '...' covers.
  std::int64_t ellipsis_rank = 0;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const Term& t = p.inputs[k];
    std::int64_t m = t.num_labels();
    TF_CHECK(ranks[k] >= 0, ValueError, kOp, "operand ", k, " has negative rank ", ranks[k]);
    if (t.has_ellipsis()) {
      TF_CHECK(m <= ranks[k], ValueError, kOp, "operand ", k, " has rank ", ranks[k],
               ", fewer axes than the ", m, " labels of its subscripts '", einsum_echo(term_text(t)),
               "' in \"", shown, "\"");
      ellipsis_rank = std::max(ellipsis_rank, ranks[k] - m);
    } else {
      TF_CHECK(m == ranks[k], ValueError, kOp, "operand ", k, " has rank ", ranks[k],
               " but its subscripts '", einsum_echo(term_text(t)), "' name ", m, " ax", m == 1 ? "is" : "es",
               " in \"", shown, "\"", ranks[k] > m ? " (use '...' for broadcast axes)" : "");
    }
  }

  EinsumSpec spec;
  spec.text = std::string(subscripts);
  spec.from_text = true;
  std::map<std::int64_t, std::int64_t> id_of;  // name -> id
  auto id_for = [&](std::int64_t name) {
    auto [it, inserted] = id_of.emplace(name, spec.num_labels());
    if (inserted) spec.names.push_back(name);
    return it->second;
  };
  std::map<std::int64_t, int> occurrences;  // code point -> count over all inputs
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const Term& t = p.inputs[k];
    DimVec labels;
    std::int64_t covered = ranks[k] - t.num_labels();
    for (auto it : t.items) {
      if (it == kEllipsisItem) {
        for (std::int64_t j = 0; j < covered; ++j)
          labels.push_back(id_for(-1 - (ellipsis_rank - covered + j)));
      } else {
        labels.push_back(id_for(it));
        ++occurrences[it];
      }
    }
    spec.inputs.push_back(labels);
  }

  if (p.output) {
    const Term& t = *p.output;
    std::vector<std::int64_t> seen;
    for (std::size_t i = 0; i < t.items.size(); ++i) {
      std::int64_t it = t.items[i];
      if (it == kEllipsisItem) {
        for (std::int64_t g = 0; g < ellipsis_rank; ++g) spec.output.push_back(id_for(-1 - g));
        continue;
      }
      if (std::find(seen.begin(), seen.end(), it) != seen.end())
        syntax_error(subscripts, t.pos[i],
                     "output label " + codepoint_name(static_cast<std::uint32_t>(it)) +
                         " appears twice");
      seen.push_back(it);
      if (!occurrences.count(it))
        syntax_error(subscripts, t.pos[i],
                     "output label " + codepoint_name(static_cast<std::uint32_t>(it)) +
                         " does not appear in any operand");
      spec.output.push_back(id_of.at(it));
    }
    TF_CHECK(ellipsis_rank == 0 || t.has_ellipsis(), ValueError, kOp, "the operands' '...' covers ",
             ellipsis_rank, " broadcast ax", ellipsis_rank == 1 ? "is" : "es",
             " but the output of \"", shown, "\" has no '...' to put ",
             ellipsis_rank == 1 ? "it" : "them");
  } else {
    for (std::int64_t g = 0; g < ellipsis_rank; ++g) spec.output.push_back(id_for(-1 - g));
    for (const auto& [cp, count] : occurrences)  // std::map: increasing code points
      if (count == 1) spec.output.push_back(id_of.at(cp));
  }
  return spec;
}

namespace {

EinsumSpec int_spec(const std::vector<std::vector<std::int64_t>>& inputs,
                    const std::vector<std::int64_t>* output) {
  EinsumSpec spec;
  spec.from_text = false;
  spec.text = render_int_lists(inputs, output);
  std::map<std::int64_t, std::int64_t> id_of;
  std::map<std::int64_t, int> occurrences;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    DimVec labels;
    for (std::size_t i = 0; i < inputs[k].size(); ++i) {
      std::int64_t name = inputs[k][i];
      TF_CHECK(name >= 0, ValueError, kOp, "label ", name, " (operand ", k, ", axis ", i,
               ") is negative; integer labels must be >= 0 in ", einsum_echo(spec.text));
      auto [it, inserted] = id_of.emplace(name, spec.num_labels());
      if (inserted) spec.names.push_back(name);
      labels.push_back(it->second);
      ++occurrences[name];
    }
    spec.inputs.push_back(labels);
  }
  if (output) {
    for (std::size_t i = 0; i < output->size(); ++i) {
      std::int64_t name = (*output)[i];
      TF_CHECK(std::count(output->begin(), output->end(), name) == 1, ValueError, kOp,
               "output label ", name, " appears more than once in ", einsum_echo(spec.text));
      auto it = id_of.find(name);
      TF_CHECK(it != id_of.end(), ValueError, kOp, "output label ", name,
               " (output axis ", i, ") does not appear in any operand of ", einsum_echo(spec.text));
      spec.output.push_back(it->second);
    }
  } else {
    for (const auto& [name, count] : occurrences)
      if (count == 1) spec.output.push_back(id_of.at(name));
  }
  return spec;
}

}  // namespace

EinsumSpec einsum_spec(const std::vector<std::vector<std::int64_t>>& inputs,
                       const std::vector<std::int64_t>& output) {
  return int_spec(inputs, &output);
}

EinsumSpec einsum_spec(const std::vector<std::vector<std::int64_t>>& inputs) {
  return int_spec(inputs, nullptr);
}

std::vector<std::int64_t> einsum_label_sizes(const EinsumSpec& spec,
                                             const std::vector<Shape>& shapes) {
  TF_CHECK(shapes.size() == spec.inputs.size(), ValueError, kOp, "subscripts \"", einsum_echo(spec.text),
           "\" name ", spec.inputs.size(), " operands but ", shapes.size(), " were given");
  struct Seen {
    std::int64_t extent = 1;
    std::size_t operand = 0, axis = 0;
    bool any = false;
  };
  std::vector<Seen> seen(static_cast<std::size_t>(spec.num_labels()));
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const DimVec& labels = spec.inputs[k];
    TF_CHECK(shapes[k].size() == labels.size(), ShapeError, kOp, "operand ", k, " has shape ",
             shapes[k], " (rank ", shapes[k].size(), ") but its subscripts in \"", einsum_echo(spec.text),
             "\" name ", labels.size(), " axes");
    for (std::size_t i = 0; i < labels.size(); ++i) {
      std::int64_t n = shapes[k][i];
      TF_CHECK(n >= 0, ShapeError, kOp, "operand ", k, " has negative extent in shape ", shapes[k]);
      for (std::size_t j = 0; j < i; ++j)
        TF_CHECK(labels[j] != labels[i] || shapes[k][j] == n, ShapeError, kOp, "label '",
                 spec.label_text(labels[i]), "' is repeated in operand ", k, " (shape ", shapes[k],
                 ") with extents ", shapes[k][j], " (axis ", j, ") and ", n, " (axis ", i,
                 ") in \"", einsum_echo(spec.text), "\"; a diagonal needs equal extents");
      Seen& s = seen[static_cast<std::size_t>(labels[i])];
      if (n == 1) continue;
      TF_CHECK(!s.any || s.extent == n, ShapeError, kOp, "label '", spec.label_text(labels[i]),
               "' has extent ", s.extent, " in operand ", s.operand, " (axis ", s.axis, ", shape ",
               shapes[s.operand], ") but ", n, " in operand ", k, " (axis ", i, ", shape ",
               shapes[k], ") in \"", einsum_echo(spec.text), "\"; extents of one label must agree or be 1");
      s = {n, k, i, true};
    }
  }
  std::vector<std::int64_t> sizes;
  for (const Seen& s : seen) sizes.push_back(s.extent);
  return sizes;
}

}  // namespace tenferro

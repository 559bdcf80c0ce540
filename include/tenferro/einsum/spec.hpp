#pragma once
/// \file
/// Einsum notation, layer 1: parsing subscripts into a label-level
/// `EinsumSpec` that knows nothing about memory layout.
///
/// ```cpp
/// using namespace tenferro;
/// // Matrix product of a [2, 3] and a [3, 4] operand.
/// EinsumSpec s = parse_einsum("ij,jk->ik", {2, 2});
/// // s.inputs == {{0, 1}, {1, 2}}, s.output == {0, 2}; labels are numbered
/// // in order of first appearance; s.label_text(1) == "j".
/// std::vector<std::int64_t> sizes = einsum_label_sizes(s, {{2, 3}, {3, 4}});  // {2, 3, 4}
///
/// // The same contraction written with integer labels:
/// EinsumSpec t = einsum_spec({{7, 100}, {100, 3}}, {7, 3});
/// ```
///
/// Note [Einsum notation]: the string form follows NumPy. Terms are
/// separated by ',', the output follows '->'; without '->' the output is
/// every label that occurs exactly once, in increasing code-point order
/// (NumPy's implicit mode). Labels are Unicode code points (UTF-8 encoded):
/// ASCII letters and digits and every code point at or above U+0080; spaces
/// are ignored. '...' stands for the leading, broadcast axes of an operand:
/// ellipsis axes of all operands are aligned at their right end and
/// broadcast against each other; the output must then contain '...' (the
/// implicit output puts it first). A label repeated within one operand takes
/// its diagonal ("ii->i"); a label missing from the output is summed; a
/// label in several operands and in the output is a batch (Hadamard) axis.
/// An axis of extent 1 broadcasts against the other occurrences of its label.
/// Labels name axes in shape order: the memory layout of an operand never
/// changes the meaning of its subscripts.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/tensor/shape.hpp"

namespace tenferro {

/// A parsed einsum: each operand axis and each output axis carries a label
/// id in [0, num_labels()). Ids are assigned in order of first appearance
/// (operands left to right, then the output).
struct EinsumSpec {
  /// Label ids of each operand's axes, in shape order.
  std::vector<DimVec> inputs;
  /// Label ids of the output axes.
  DimVec output;
  /// What each id was called: a Unicode code point (string form), the user's
  /// integer (integer form), or -1 - k for the k-th ellipsis axis
  /// (k = 0 is the leftmost broadcast axis).
  std::vector<std::int64_t> names;
  /// True when the spec came from subscripts text (names are code points).
  bool from_text = true;
  /// The subscripts as the user wrote them (string form) or a rendering of
  /// the integer lists; quoted by error messages.
  std::string text;

  std::int64_t num_labels() const { return static_cast<std::int64_t>(names.size()); }
  std::int64_t num_inputs() const { return static_cast<std::int64_t>(inputs.size()); }
  /// The label as written: "j", "ψ", "…0" (an ellipsis axis) or "17".
  std::string label_text(std::int64_t id) const;
  /// A canonical rendering, e.g. "ij,jk->ik" or "[7,100],[100,3]->[7,3]".
  std::string to_string() const;
};

/// `text` (subscripts, or a part of them) as error messages echo it: control
/// characters and invalid UTF-8 bytes as \xNN, and beyond
/// kEinsumEchoCodePoints code points only the start and the end, with
/// "...(N more code points)..." between, so a 100 kB subscript string gives a
/// short message. Every einsum error quotes subscripts through it.
inline constexpr std::size_t kEinsumEchoCodePoints = 120;
std::string einsum_echo(std::string_view text);

/// Parses `subscripts` for operands of the given ranks (the ranks fix how
/// many axes each '...' covers). Throws ValueError for malformed text (the
/// message quotes the text and marks the offending position), wrong operand
/// counts and ranks that do not match the subscripts.
EinsumSpec parse_einsum(std::string_view subscripts, const std::vector<std::int64_t>& ranks);

/// The integer-label form: `inputs[k]` labels operand k's axes, `output`
/// the result's. Labels are any non-negative integers. Throws ValueError for
/// negative labels, repeated output labels and output labels that no
/// operand has.
EinsumSpec einsum_spec(const std::vector<std::vector<std::int64_t>>& inputs,
                       const std::vector<std::int64_t>& output);
/// Integer labels with NumPy's implicit output: the labels that occur once,
/// in increasing order.
EinsumSpec einsum_spec(const std::vector<std::vector<std::int64_t>>& inputs);

/// The extent of every label, checked against the operand shapes: ranks
/// must match, a label repeated within an operand needs equal extents, and
/// across operands the extents of a label must agree except that 1
/// broadcasts. Throws ShapeError naming the label, the operands and axes.
std::vector<std::int64_t> einsum_label_sizes(const EinsumSpec& spec,
                                             const std::vector<Shape>& shapes);

}  // namespace tenferro

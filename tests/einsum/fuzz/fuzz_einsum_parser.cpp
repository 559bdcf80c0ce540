// libFuzzer target for the einsum front end: parsing, label extents, path
// search and costs. Any exception other than tenferro::Error, any crash or
// sanitizer report, and any broken invariant (checked below) is a finding.
//
// Input: byte 0 picks the operand count (1..4), bytes 1..4 the ranks (0..4),
// bytes 5..7 seed the axis extents (1..3); the rest is the subscripts text
// (seed inputs in seeds/).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tenferro/einsum/path.hpp"
#include "tenferro/einsum/spec.hpp"
#include "tenferro/tensor/error.hpp"

using namespace tenferro;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  const std::size_t n = data[0] % 4 + 1;
  std::vector<std::int64_t> ranks;
  for (std::size_t k = 0; k < n; ++k) ranks.push_back(data[1 + k] % 5);
  std::uint32_t state = data[5] | (data[6] << 8) | (data[7] << 16);
  std::string_view text(reinterpret_cast<const char*>(data + 8), size - 8);
  try {
    EinsumSpec s = parse_einsum(text, ranks);
    check(s.inputs.size() == n);
    for (std::size_t k = 0; k < n; ++k) {
      check(static_cast<std::int64_t>(s.inputs[k].size()) == ranks[k]);
      for (auto l : s.inputs[k]) check(l >= 0 && l < s.num_labels());
    }
    for (std::size_t i = 0; i < s.output.size(); ++i) {
      check(s.output[i] >= 0 && s.output[i] < s.num_labels());
      for (std::size_t j = 0; j < i; ++j) check(s.output[i] != s.output[j]);
    }
    bool ellipsis = false;
    for (auto name : s.names) ellipsis = ellipsis || name < 0;
    if (!ellipsis) {  // the canonical text parses back to the same spec
      EinsumSpec t = parse_einsum(s.to_string(), ranks);
      check(t.inputs == s.inputs && t.output == s.output);
    }
    std::vector<Shape> shapes;
    for (std::size_t k = 0; k < n; ++k) {
      Shape sh;
      for (std::int64_t i = 0; i < ranks[k]; ++i) {
        state = state * 1103515245u + 12345u;
        sh.push_back(1 + (state >> 16) % 3);
      }
      shapes.push_back(sh);
    }
    std::vector<std::int64_t> sizes = einsum_label_sizes(s, shapes);
    check(static_cast<std::int64_t>(sizes.size()) == s.num_labels());
    for (PathOptimizer o : {PathOptimizer::greedy, PathOptimizer::optimal}) {
      ContractionPath p = einsum_path(s, shapes, {.optimizer = o, .memory_limit = (state & 1) ? 4.0 : 0.0});
      check(p.pairs.size() == n - 1);
      check(p.cost.flops >= 0 && p.num_slices >= 1);
      ContractionCost c = contraction_cost(s, shapes, p.pairs, p.sliced_labels);
      check(c.flops == p.cost.flops);
    }
  } catch (const Error&) {
    // Rejected input: fine, as long as it is a tenferro::Error.
  }
  return 0;
}

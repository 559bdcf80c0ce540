// FusedElementwise: printing, the fusable set, and the unfused fallback.
#include "tenferro/ops/fused.hpp"

#include <ostream>
#include <sstream>

#include "tenferro/ops/backend.hpp"
#include "tenferro/ops/infer.hpp"
#include "tenferro/ops/views.hpp"

namespace tenferro {

bool is_fusable(OpKind kind) {
  switch (op_info(kind).category) {
    case OpCategory::unary:
    case OpCategory::binary:
    case OpCategory::ternary:
      return true;
    default:
      return false;
  }
}

std::ostream& operator<<(std::ostream& os, const FusedElementwise& k) {
  os << "{";
  for (std::size_t i = 0; i < k.steps.size(); ++i) {
    const auto& s = k.steps[i];
    os << (i ? "; " : "") << "t" << i << " = " << op_name(s.op) << "(";
    for (std::size_t j = 0; j < s.args.size(); ++j) {
      int a = s.args[j];
      os << (j ? ", " : "");
      if (a >= 0) os << "t" << a;
      else os << "in" << (-1 - a);
    }
    os << ")";
    std::ostringstream attrs;
    attrs << s.attrs;
    if (!attrs.str().empty()) os << " {" << attrs.str() << "}";
  }
  return os << "}";
}

void Backend::execute_fused(const FusedElementwise& k, std::span<const Tensor> inputs,
                            const Tensor& output) {
  // Step by step; rank-0 inputs are broadcast to the output shape as views.
  std::vector<Tensor> in;
  for (const Tensor& t : inputs)
    in.push_back(t.ndim() == 0 && output.ndim() > 0
                     ? ops::broadcast_in_dim_view(t, {output.shape(), {}})
                     : t);
  std::vector<Tensor> steps;
  for (std::size_t i = 0; i < k.steps.size(); ++i) {
    const auto& s = k.steps[i];
    std::vector<Tensor> args;
    for (int a : s.args) args.push_back(a >= 0 ? steps[static_cast<std::size_t>(a)] : in[static_cast<std::size_t>(-1 - a)]);
    Tensor out = i + 1 == k.steps.size() ? output : empty(s.dtype, output.shape());
    execute(s.op, s.attrs, args, out);
    steps.push_back(out);
  }
}

}  // namespace tenferro

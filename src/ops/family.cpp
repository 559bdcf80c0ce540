// Operation families: attributes, validation and lookup (eager calls: kernels.cpp).
#include "tenferro/ops/family.hpp"

#include <algorithm>
#include <ostream>

namespace tenferro {

namespace detail {
void throw_attrs_type_mismatch(const std::type_info& want, const std::type_info& have) {
  TF_THROW(InternalError, "attributes", "family attributes hold ", have.name(), ", not ", want.name());
}
}  // namespace detail

bool FamilyAttrs::operator==(const FamilyAttrs& o) const {
  if (!typed_ || !o.typed_) return typed_ == o.typed_;
  return typed_->equals(*o.typed_);
}

std::ostream& operator<<(std::ostream& os, const FamilyAttrs& attrs) {
  if (attrs.typed_) attrs.typed_->print(os);
  return os;
}

OpFamily::OpFamily(std::string name_, std::vector<FamilyOp> ops_, RegisterKernelsFn register_kernels_)
    : name(std::move(name_)), register_kernels(std::move(register_kernels_)) {
  TF_CHECK(!name.empty(), ValueError, "OpFamily", "a family needs a name");
  ops.reserve(ops_.size());
  for (FamilyOp& o : ops_) add(std::move(o));
}

OpFamily::OpFamily(const OpFamily& other)
    : name(other.name), ops(other.ops), register_kernels(other.register_kernels) {
  adopt_ops();
}

OpFamily::OpFamily(OpFamily&& other) noexcept
    : name(std::move(other.name)), ops(std::move(other.ops)), register_kernels(std::move(other.register_kernels)) {
  adopt_ops();
}

OpFamily& OpFamily::operator=(const OpFamily& other) {
  if (this != &other) {
    name = other.name;
    ops = other.ops;
    register_kernels = other.register_kernels;
    adopt_ops();
  }
  return *this;
}

OpFamily& OpFamily::operator=(OpFamily&& other) noexcept {
  if (this != &other) {
    name = std::move(other.name);
    ops = std::move(other.ops);
    register_kernels = std::move(other.register_kernels);
    adopt_ops();
  }
  return *this;
}

void OpFamily::adopt_ops() {
  for (FamilyOp& o : ops) o.family = this;
}

void validate_family_op(std::string_view family_name, const FamilyOp& op) {
  const std::string where = detail::str("family '", family_name, "'");
  const std::string prefix = std::string(family_name) + ".";
  TF_CHECK(op.name.size() > prefix.size() && op.name.compare(0, prefix.size(), prefix) == 0, ValueError, where,
           "op '", op.name, "' must be named '", prefix, "<op>'");
  TF_CHECK(static_cast<bool>(op.infer), ValueError, where, "op '", op.name, "' has no infer rule");
  TF_CHECK(op.num_inputs >= -1, ValueError, where, "op '", op.name, "' has num_inputs ", op.num_inputs,
           " (-1 for variadic)");
  TF_CHECK(op.num_outputs >= 1, ValueError, where, "op '", op.name, "' has num_outputs ", op.num_outputs);
  const bool jvp = static_cast<bool>(op.jvp), transpose = static_cast<bool>(op.transpose);
  switch (op.ad) {
    case AdKind::none:
      TF_CHECK(!jvp && !transpose, ValueError, where, "op '", op.name, "' is declared ad = none but has a ",
               jvp ? "jvp" : "transpose", " rule (declare it nonlinear or linear)");
      break;
    case AdKind::nonlinear:
      // A transpose rule is allowed: an op linear in some operands (solve in b).
      TF_CHECK(jvp, ValueError, where, "op '", op.name, "' is declared ad = nonlinear but has no jvp rule");
      break;
    case AdKind::linear:
      TF_CHECK(jvp && transpose, ValueError, where, "op '", op.name, "' is declared ad = linear but has no ",
               jvp ? "transpose" : "jvp", " rule");
      break;
  }
}

FamilyOp& OpFamily::add(FamilyOp op) {
  validate_family_op(name, op);
  for (const FamilyOp& o : ops)
    TF_CHECK(o.name != op.name, ValueError, detail::str("family '", name, "'"), "op '", op.name,
             "' is declared twice");
  // Growing `ops` moves the ops; their `family` pointer stays this family.
  op.family = this;
  ops.push_back(std::move(op));
  return ops.back();
}

const FamilyOp& OpFamily::op(std::string_view op_name) const {
  for (const FamilyOp& o : ops)
    if (o.name == op_name) return o;
  TF_THROW(ValueError, name, "family '", name, "' has no op '", op_name, "'");
}

}  // namespace tenferro

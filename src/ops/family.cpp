// Operation families: attributes, lookup and eager calls.
#include "tenferro/ops/family.hpp"

#include <algorithm>
#include <ostream>

namespace tenferro {

FamilyAttrs::FamilyAttrs(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  for (const auto& [k, v] : items) set(k, v);
}

FamilyAttrs& FamilyAttrs::set(std::string key, AttrValue value) {
  for (auto& [k, v] : items_)
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  items_.emplace_back(std::move(key), std::move(value));
  return *this;
}

namespace detail {
void throw_attrs_type_mismatch(const std::type_info& want, const std::type_info& have) {
  TF_THROW(InternalError, "attributes", "family attributes hold ", have.name(), ", not ", want.name());
}
}  // namespace detail

bool FamilyAttrs::operator==(const FamilyAttrs& o) const {
  if (typed_ || o.typed_) return typed_ && o.typed_ && typed_->equals(*o.typed_);
  return items_ == o.items_;
}

bool FamilyAttrs::has(std::string_view key) const {
  // Typed attributes have no keys: reading one by key is a bug, never a default.
  TF_INTERNAL_ASSERT(!typed_, "typed family attributes {", *this, "} read by key '", key, "'");
  return std::any_of(items_.begin(), items_.end(), [&](const auto& kv) { return kv.first == key; });
}

const AttrValue& FamilyAttrs::find(std::string_view key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  TF_THROW(ValueError, "attributes", "missing attribute '", key, "' in {", *this, "}");
}

void FamilyAttrs::throw_type_mismatch(std::string_view key) const {
  TF_THROW(ValueError, "attributes", "attribute '", key, "' has another type in {", *this, "}");
}

std::ostream& operator<<(std::ostream& os, const FamilyAttrs& attrs) {
  if (attrs.typed_) {
    attrs.typed_->print(os);
    return os;
  }
  bool first = true;
  for (const auto& [k, v] : attrs.items()) {
    os << (first ? "" : " ") << k << "=";
    first = false;
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, bool>) os << (x ? "true" : "false");
          else os << x;
        },
        v);
  }
  return os;
}

const FamilyOp& OpFamily::op(std::string_view op_name) const {
  for (const FamilyOp& o : ops)
    if (o.name == op_name) return o;
  TF_THROW(ValueError, name, "family '", name, "' has no op '", op_name, "'");
}

std::vector<Tensor> call_family(const FamilyOp& op, const FamilyAttrs& attrs,
                                std::span<const Tensor> inputs, Backend& backend) {
  const char* name = op.name.c_str();
  if (op.num_inputs >= 0)
    TF_CHECK(static_cast<int>(inputs.size()) == op.num_inputs, ValueError, name, "takes ",
             op.num_inputs, " operands, got ", inputs.size());
  std::vector<TensorMeta> metas;
  metas.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    TF_CHECK(t.defined(), ValueError, name, "operand ", i, " is an undefined tensor");
    TF_CHECK(t.device() == backend.device(), DeviceError, name, "operand ", i, " is on ",
             t.device(), " but backend '", backend.name(), "' runs on ", backend.device(),
             "; transfer it explicitly");
    metas.push_back({t.dtype(), t.shape()});
  }
  std::vector<TensorMeta> expected = op.infer(attrs, metas);
  FamilyOp::KernelFn kernel = backend.device().kind == DeviceKind::cpu ? op.cpu_kernel : op.cuda_kernel;
  if (!kernel) kernel = backend.family_kernel(op.name);
  TF_CHECK(static_cast<bool>(kernel), UnimplementedError, name, "has no kernel for ",
           backend.device());
  std::vector<Tensor> out = kernel(attrs, inputs, backend);
  TF_INTERNAL_ASSERT(out.size() == expected.size(), name, " returned ", out.size(),
                     " outputs, inference said ", expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    bool ok = out[i].dtype() == expected[i].dtype && out[i].ndim() == std::int64_t(expected[i].shape.size());
    for (std::size_t d = 0; ok && d < expected[i].shape.size(); ++d)
      ok = expected[i].shape[d] == kDynamicDim || expected[i].shape[d] == out[i].shape()[d];
    TF_INTERNAL_ASSERT(ok, name, " output ", i, " is ", out[i].dtype(), out[i].shape(),
                       ", inference said ", expected[i]);
  }
  return out;
}

}  // namespace tenferro

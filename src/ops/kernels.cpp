// KernelRegistry: providers of primitive and family-op kernels by (op, device kind),
// and the eager family call that picks the first provider accepting it.
#include "tenferro/ops/kernels.hpp"

#include <sstream>

namespace tenferro {

static_assert(static_cast<int>(DeviceKind::webgpu) == 2, "KernelRegistry::kNumDeviceKinds counts the device kinds");

namespace {

const char* kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::cpu: return "cpu";
    case DeviceKind::cuda: return "cuda";
    case DeviceKind::webgpu: return "webgpu";
  }
  return "?";
}

std::string join(const std::vector<std::string>& names) {
  std::ostringstream os;
  for (std::size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i];
  return os.str();
}

template <class Providers>
std::vector<std::string> names_of(const Providers& ps) {
  std::vector<std::string> out;
  for (const auto& p : ps) out.push_back(p.name);
  return out;
}

}  // namespace

void KernelRegistry::add_primitive(OpKind op, DeviceKind device, std::string provider, PrimitiveKernel kernel) {
  TF_CHECK(static_cast<bool>(kernel), ValueError, "KernelRegistry::add", "empty kernel from provider '", provider,
           "' for ", op_name(op), " on ", kind_name(device));
  PrimitiveProviders& ps = primitive_[index(op, device)];
  ps.insert(ps.begin(), {std::move(provider), std::move(kernel)});
}

void KernelRegistry::add_family_kernel(const FamilyOp& op, DeviceKind device, std::string provider,
                                       FamilyKernel kernel) {
  TF_CHECK(static_cast<bool>(kernel), ValueError, "KernelRegistry::add", "empty kernel from provider '", provider,
           "' for ", op.name);
  // The op's family registers first, so its default kernels stay under this provider.
  if (op.family != nullptr) register_family(*op.family);
  std::unique_lock lock(family_mutex_);
  auto& slot = family_[FamilyKey{&op, device}];
  auto next = std::make_shared<FamilyProviders>();
  next->push_back({std::move(provider), std::move(kernel)});
  if (slot) next->insert(next->end(), slot->begin(), slot->end());
  slot = std::move(next);  // readers holding the old list keep it alive
}

void KernelRegistry::register_family(const OpFamily& family) {
  std::lock_guard lock(registration_mutex_);
  if (!registered_.insert(&family).second) return;
  if (!family.register_kernels) return;
  try {
    family.register_kernels(family, *this);
  } catch (...) {
    registered_.erase(&family);
    throw;
  }
}

std::shared_ptr<const FamilyProviders> KernelRegistry::providers(const FamilyOp& op, DeviceKind device) {
  // The op's family first (idempotent), so that its default kernels sit
  // under any provider added for the op before its first use.
  if (op.family != nullptr) register_family(*op.family);
  std::shared_lock lock(family_mutex_);
  auto it = family_.find(FamilyKey{&op, device});
  return it == family_.end() ? nullptr : it->second;
}

std::vector<std::string> KernelRegistry::provider_names(OpKind op, DeviceKind device) const {
  return names_of(providers(op, device));
}

std::vector<std::string> KernelRegistry::provider_names(const FamilyOp& op, DeviceKind device) {
  auto ps = providers(op, device);
  return ps ? names_of(*ps) : std::vector<std::string>{};
}

void KernelRegistry::throw_declined(OpKind op, DeviceKind device) const {
  const PrimitiveProviders& ps = providers(op, device);
  TF_CHECK(!ps.empty(), UnimplementedError, op_name(op), "no kernel registered for ", op_name(op), " on ",
           kind_name(device));
  TF_THROW(UnimplementedError, op_name(op), "every kernel provider for ", op_name(op), " on ", kind_name(device),
           " declined the call (", join(names_of(ps)), ")");
}

std::shared_ptr<const FamilyProviders> find_family_kernels(const FamilyOp& op, Backend& backend) {
  auto ps = backend.kernels().providers(op, backend.device().kind);
  TF_CHECK(ps != nullptr && !ps->empty(), UnimplementedError, op.name, "has no kernel for ", backend.device(),
           " (backend '", backend.name(), "'",
           op.family == nullptr ? "; the op belongs to no family, add a kernel with backend.kernels().add" : "",
           ")");
  return ps;
}

// ---- eager family calls (tenferro/ops/family.hpp) ------------------------------------

namespace {

// Operand checks shared by both call_family forms; returns the inferred outputs.
std::vector<TensorMeta> check_family_call(const FamilyOp& op, const FamilyAttrs& attrs,
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
  return op.infer(attrs, metas);
}

std::vector<Tensor> run_family(const FamilyOp& op, const FamilyProviders& providers,
                               const std::vector<TensorMeta>& expected, const FamilyAttrs& attrs,
                               std::span<const Tensor> inputs, Backend& backend) {
  const char* name = op.name.c_str();
  std::optional<std::vector<Tensor>> result;
  detail::apply_num_threads();  // Note [One thread setting] (tenferro/ops/backend.hpp)
  for (const auto& p : providers)
    if ((result = p.kernel(attrs, inputs, backend))) break;
  if (!result) {
    TF_THROW(UnimplementedError, name, "every kernel provider on ", backend.device(), " declined the call (",
             join(names_of(providers)), ")");
  }
  std::vector<Tensor>& out = *result;
  TF_INTERNAL_ASSERT(out.size() == expected.size(), name, " returned ", out.size(),
                     " outputs, inference said ", expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    bool ok = out[i].dtype() == expected[i].dtype && out[i].ndim() == std::int64_t(expected[i].shape.size());
    for (std::size_t d = 0; ok && d < expected[i].shape.size(); ++d)
      ok = expected[i].shape[d] == kDynamicDim || expected[i].shape[d] == out[i].shape()[d];
    TF_INTERNAL_ASSERT(ok, name, " output ", i, " is ", out[i].dtype(), out[i].shape(),
                       ", inference said ", expected[i]);
  }
  return std::move(out);
}

}  // namespace

std::vector<Tensor> call_family(const FamilyOp& op, const FamilyAttrs& attrs, std::span<const Tensor> inputs,
                                Backend& backend) {
  std::vector<TensorMeta> expected = check_family_call(op, attrs, inputs, backend);
  return run_family(op, *find_family_kernels(op, backend), expected, attrs, inputs, backend);
}

std::vector<Tensor> call_family(const FamilyOp& op, const FamilyProviders& providers, const FamilyAttrs& attrs,
                                std::span<const Tensor> inputs, Backend& backend) {
  std::vector<TensorMeta> expected = check_family_call(op, attrs, inputs, backend);
  return run_family(op, providers, expected, attrs, inputs, backend);
}

}  // namespace tenferro

// The linalg family: every op of the module, assembled once on first use.
#include "tenferro/linalg/family.hpp"

#include "common.hpp"
#include "ops.hpp"
#include "tenferro/ops/kernels.hpp"

namespace tenferro::linalg {

namespace detail {
std::vector<std::pair<std::string, FamilyOp::KernelFn>>& cpu_kernels() {
  static std::vector<std::pair<std::string, FamilyOp::KernelFn>> kernels;
  return kernels;
}
}  // namespace detail

const OpFamily& family() {
  static const OpFamily instance = [] {
    OpFamily f{"linalg", {}, [](const OpFamily& fam, KernelRegistry& registry) {
                 for (const auto& [name, kernel] : detail::cpu_kernels())
                   registry.add(fam.op(name), DeviceKind::cpu, "linalg", kernel);
               }};
    for (auto group :
         {detail::svd_ops, detail::qr_ops, detail::lu_ops, detail::triangular_ops, detail::eig_ops,
          detail::lstsq_ops, detail::matrix_exp_ops, detail::norm_ops})
      for (FamilyOp& op : group()) f.add(std::move(op));
    f.add(detail::band_op());
    f.add(detail::matrix_exp_frechet_op());
    detail::attach_sym_infer(f);
    detail::attach_ad_rules(f);
    return f;
  }();
  return instance;
}

}  // namespace tenferro::linalg

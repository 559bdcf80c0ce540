// The linalg family: every op of the module, assembled once on first use.
#include "tenferro/linalg/family.hpp"

#include "ops.hpp"

namespace tenferro::linalg {

const OpFamily& family() {
  static const OpFamily instance = [] {
    OpFamily f{"linalg", {}};
    for (auto group :
         {detail::svd_ops, detail::qr_ops, detail::lu_ops, detail::triangular_ops, detail::eig_ops,
          detail::lstsq_ops, detail::matrix_exp_ops, detail::norm_ops})
      for (FamilyOp& op : group()) f.ops.push_back(std::move(op));
    f.ops.push_back(detail::band_op());
    f.ops.push_back(detail::matrix_exp_frechet_op());
    detail::attach_sym_infer(f);
    detail::attach_ad_rules(f);
    return f;
  }();
  return instance;
}

}  // namespace tenferro::linalg

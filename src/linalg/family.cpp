// The linalg family: every op of the module (the rows of ops.hpp), assembled
// once on first use.
#include "tenferro/linalg/family.hpp"

#include "ops.hpp"

namespace tenferro::linalg {
namespace {

// Each declaration matches its row (name and position, so that the typed
// references find it) and its `ad` kind matches the rules it was given.
void check_declaration(const FamilyOp& op, const std::string& row_name, std::size_t index,
                       const OpFamily& f) {
  TF_INTERNAL_ASSERT(op.name == row_name, "linalg: row ", index, " (", row_name, ") declares '",
                     op.name, "'");
  TF_INTERNAL_ASSERT(f.ops.size() == index, "linalg: ", row_name, " is declared out of order");
  TF_INTERNAL_ASSERT(op.infer && op.sym_infer && op.cpu_kernel, "linalg: ", row_name,
                     " lacks its inference or CPU kernel");
  TF_INTERNAL_ASSERT((op.ad == AdKind::none) == !op.jvp, "linalg: ", row_name,
                     op.jvp ? " has a JVP rule but ad = none" : " has no JVP rule but is marked differentiable");
  TF_INTERNAL_ASSERT(op.ad != AdKind::linear || op.transpose, "linalg: ", row_name,
                     " is linear but has no transpose rule");
}

}  // namespace

const OpFamily& family() {
  static const OpFamily instance = [] {
    OpFamily f{"linalg", {}};
#define TENFERRO_LINALG_BUILD(name, A)                                                       \
  {                                                                                           \
    FamilyOp op = detail::declare_##name();                                                   \
    check_declaration(op, "linalg." #name, static_cast<std::size_t>(detail::OpIndex::name), f); \
    f.ops.push_back(std::move(op));                                                           \
  }
    TENFERRO_LINALG_OPS(TENFERRO_LINALG_BUILD)
#undef TENFERRO_LINALG_BUILD
    return f;
  }();
  return instance;
}

}  // namespace tenferro::linalg

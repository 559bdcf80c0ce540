// The linalg family: every op of the module (the rows of ops.hpp), assembled
// once on first use, and its default kernels.
#include "tenferro/linalg/family.hpp"

#include <memory>

#include "ops.hpp"

namespace tenferro::linalg {
namespace {

// Each declaration matches its row (name and position, so that the typed
// references find it) and has both inferences and a CPU kernel; OpFamily::add
// checks its `ad` kind against its rules (Note [Family validation]).
void check_declaration(const detail::Declaration& d, const std::string& row_name, std::size_t index,
                       const OpFamily& f) {
  const FamilyOp& op = d.op;
  TF_INTERNAL_ASSERT(op.name == row_name, "linalg: row ", index, " (", row_name, ") declares '", op.name, "'");
  TF_INTERNAL_ASSERT(f.ops.size() == index, "linalg: ", row_name, " is declared out of order");
  TF_INTERNAL_ASSERT(op.infer && op.sym_infer && d.cpu_kernel, "linalg: ", row_name,
                     " lacks its inference or CPU kernel");
}

}  // namespace

const OpFamily& family() {
  static const OpFamily instance = [] {
    OpFamily f{"linalg", {}};
    auto cpu = std::make_shared<std::vector<FamilyKernel>>();
#define TENFERRO_LINALG_BUILD(name, A)                                                             \
  {                                                                                                \
    detail::Declaration d = detail::declare_##name();                                              \
    check_declaration(d, "linalg." #name, static_cast<std::size_t>(detail::OpIndex::name), f);     \
    f.add(std::move(d.op));                                                                        \
    cpu->push_back(std::move(d.cpu_kernel));                                                       \
  }
    TENFERRO_LINALG_OPS(TENFERRO_LINALG_BUILD)
#undef TENFERRO_LINALG_BUILD
    // The default kernels: LAPACK on the CPU (one per op, in row order) and
    // cuSOLVER for the ops CUDA has.
    f.register_kernels = [cpu](const OpFamily& fam, KernelRegistry& registry) {
      for (std::size_t i = 0; i < fam.ops.size(); ++i) registry.add(fam.ops[i], DeviceKind::cpu, "lapack", (*cpu)[i]);
      detail::register_cuda_kernels(fam, registry);
    };
    return f;
  }();
  return instance;
}

}  // namespace tenferro::linalg

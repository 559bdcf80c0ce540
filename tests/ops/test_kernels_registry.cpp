// The kernel registry (tenferro/ops/kernels.hpp): providers by (op, device
// kind), later ones first, declining falls through with the output
// untouched; family kernels registered once on first use; the errors when
// no provider runs a call; and the checks an OpFamily makes when built.
#include <atomic>

#include "support/test_support.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/ops.hpp"

using namespace tenferro;
using namespace tenferro::testing;

namespace {

// Host tensor of f64/f32 values from a list (column-major).
Tensor values(std::vector<double> v, DType dtype) {
  CpuBackend cpu;
  Tensor t = Tensor::from_vec_col_major<double>({static_cast<std::int64_t>(v.size())}, v);
  return dtype == DType::f64 ? t : ops::convert(t, dtype, cpu);
}

std::vector<double> as_doubles(const Tensor& t) {
  CpuBackend cpu;
  return ops::convert(t, DType::f64, cpu).to_vec_col_major<double>();
}

// A backend with an empty registry: only what a test adds runs.
class BareBackend final : public Backend {
 public:
  std::string_view name() const override { return "bare"; }
  Device device() const override { return Device::cpu(); }
  std::shared_ptr<Storage> allocate_storage(std::size_t nbytes) override { return cpu_.allocate_storage(nbytes); }

 private:
  CpuBackend cpu_;
};

}  // namespace

TEST(KernelRegistry, CpuBackendRegistersEveryPrimitive) {
  CpuBackend cpu;
  for (int k = 0; k < kNumOps; ++k) {
    const OpKind op = static_cast<OpKind>(k);
    EXPECT_EQ(cpu.kernels().provider_names(op, DeviceKind::cpu), std::vector<std::string>{"cpu"}) << op_name(op);
    EXPECT_TRUE(cpu.kernels().provider_names(op, DeviceKind::cuda).empty()) << op_name(op);
    EXPECT_TRUE(cpu.kernels().provider_names(op, DeviceKind::webgpu).empty()) << op_name(op);
  }
  // Copies of a backend share its registry.
  CpuBackend copy = cpu;
  EXPECT_EQ(&copy.kernels(), &cpu.kernels());
}

TEST(KernelRegistry, DecliningProviderFallsThroughToTheDefault) {
  CpuBackend cpu;
  int ran = 0, declined = 0;
  // An f32-only multiply, registered after the backend's own kernels: tried first.
  cpu.kernels().add(OpKind::multiply, DeviceKind::cpu, "f32-only",
                    [&](OpKind, const Attrs&, std::span<const Tensor> in, const Tensor& out, Backend&) {
                      if (out.dtype() != DType::f32) {
                        ++declined;
                        return false;
                      }
                      ++ran;
                      auto a = in[0].to_vec_col_major<float>(), b = in[1].to_vec_col_major<float>();
                      auto* o = static_cast<float*>(out.data_ptr());
                      for (std::size_t i = 0; i < a.size(); ++i) o[i] = a[i] * b[i] + 1000.0f;  // marked
                      return true;
                    });
  EXPECT_EQ(cpu.kernels().provider_names(OpKind::multiply, DeviceKind::cpu),
            (std::vector<std::string>{"f32-only", "cpu"}));
  // f32: the provider runs (its mark shows it, not the default).
  Tensor x32 = values({1, 2, 3}, DType::f32), y32 = values({4, 5, 6}, DType::f32);
  EXPECT_EQ(as_doubles(ops::multiply(x32, y32, cpu)), (std::vector<double>{1004, 1010, 1018}));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(declined, 0);
  // f64: it declines, the default computes the plain product.
  Tensor x64 = values({1, 2, 3}, DType::f64), y64 = values({4, 5, 6}, DType::f64);
  EXPECT_EQ(ops::multiply(x64, y64, cpu).to_vec_col_major<double>(), (std::vector<double>{4, 10, 18}));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(declined, 1);
}

TEST(KernelRegistry, DeclineLeavesTheOutputUntouched) {
  BareBackend bare;
  bare.kernels().add(OpKind::add, DeviceKind::cpu, "picky",
                     [](OpKind, const Attrs&, std::span<const Tensor>, const Tensor& out, Backend&) {
                       if (out.dtype() != DType::f32) return false;  // declines before touching out
                       static_cast<float*>(out.data_ptr())[0] = 0;
                       return true;
                     });
  Tensor x = values({1, 2}, DType::f64);
  Tensor out = Tensor::from_vec_col_major<double>({2}, std::vector<double>{-7, -8});
  const Tensor in[] = {x, x};
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { bare.execute(OpKind::add, NoAttrs{}, in, out); },
                                              {"add", "cpu", "declined", "picky"}));
  EXPECT_EQ(out.to_vec_col_major<double>(), (std::vector<double>{-7, -8}));
  // A provider underneath runs what the first declines.
  bare.kernels().add(OpKind::add, DeviceKind::cpu, "loop",
                     [](OpKind, const Attrs&, std::span<const Tensor> in, const Tensor& o, Backend&) {
                       auto a = in[0].to_vec_col_major<double>(), b = in[1].to_vec_col_major<double>();
                       for (std::size_t i = 0; i < a.size(); ++i) static_cast<double*>(o.data_ptr())[i] = a[i] + b[i];
                     });
  // "loop" was added last, so it runs first; it always accepts.
  EXPECT_EQ(bare.kernels().provider_names(OpKind::add, DeviceKind::cpu), (std::vector<std::string>{"loop", "picky"}));
  bare.execute(OpKind::add, NoAttrs{}, in, out);
  EXPECT_EQ(out.to_vec_col_major<double>(), (std::vector<double>{2, 4}));
}

TEST(KernelRegistry, ProviderForASubsetOfOps) {
  CpuBackend cpu;
  std::atomic<int> calls{0};
  cpu.kernels().add({OpKind::add, OpKind::subtract}, DeviceKind::cpu, "counting",
                    [&](OpKind, const Attrs&, std::span<const Tensor>, const Tensor&, Backend&) {
                      ++calls;
                      return false;  // counts, then leaves the work to "cpu"
                    });
  EXPECT_EQ(cpu.kernels().provider_names(OpKind::add, DeviceKind::cpu), (std::vector<std::string>{"counting", "cpu"}));
  EXPECT_EQ(cpu.kernels().provider_names(OpKind::subtract, DeviceKind::cpu),
            (std::vector<std::string>{"counting", "cpu"}));
  EXPECT_EQ(cpu.kernels().provider_names(OpKind::multiply, DeviceKind::cpu), std::vector<std::string>{"cpu"});
  Tensor x = values({3, 5}, DType::f64), y = values({1, 2}, DType::f64);
  EXPECT_EQ(ops::add(x, y, cpu).to_vec_col_major<double>(), (std::vector<double>{4, 7}));
  EXPECT_EQ(ops::subtract(x, y, cpu).to_vec_col_major<double>(), (std::vector<double>{2, 3}));
  EXPECT_EQ(ops::multiply(x, y, cpu).to_vec_col_major<double>(), (std::vector<double>{3, 10}));
  EXPECT_EQ(calls.load(), 2);
}

TEST(KernelRegistry, MissingPrimitiveKernelNamesOpAndDevice) {
  BareBackend bare;
  Tensor x = values({1}, DType::f64);
  Tensor out = Tensor::zeros({1}, DType::f64);
  const Tensor in[] = {x, x};
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { bare.execute(OpKind::multiply, NoAttrs{}, in, out); },
                                              {"multiply", "no kernel registered", "cpu"}));
}

namespace {

struct SameMeta {
  template <class D>
  std::vector<BasicTensorMeta<D>> operator()(const NoFamilyAttrs&, std::span<const BasicTensorMeta<D>> in) const {
    return {in[0]};
  }
};

std::atomic<int> demo_registrations{0};

// "demo.twice" (x + x) with a default CPU kernel, and "demo.nokernel" without one.
const OpFamily& demo_family() {
  static const OpFamily family{
      "demo",
      {define_family_op<NoFamilyAttrs>({.name = "demo.twice"}, SameMeta{}),
       define_family_op<NoFamilyAttrs>({.name = "demo.nokernel"}, SameMeta{})},
      [](const OpFamily& f, KernelRegistry& r) {
        ++demo_registrations;
        r.add(f.op("demo.twice"), DeviceKind::cpu, "demo",
              typed_kernel<NoFamilyAttrs>([](const NoFamilyAttrs&, std::span<const Tensor> in, Backend& b) {
                return std::vector<Tensor>{ops::add(in[0], in[0], b)};
              }));
      }};
  return family;
}

}  // namespace

TEST(KernelRegistry, FamilyKernelsRegisterOnceOnFirstUse) {
  CpuBackend cpu;
  const FamilyOp& twice = demo_family().op("demo.twice");
  EXPECT_EQ(twice.family, &demo_family());
  const int before = demo_registrations.load();
  Tensor x = values({1, 2, 3}, DType::f64);
  EXPECT_EQ(call_family(twice, {}, {{x}}, cpu)[0].to_vec_col_major<double>(), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(call_family(twice, {}, {{x}}, cpu)[0].to_vec_col_major<double>(), (std::vector<double>{2, 4, 6}));
  cpu.kernels().register_family(demo_family());
  EXPECT_EQ(demo_registrations.load(), before + 1) << "once per registry";
  // Another backend has its own registry, registered on its first use.
  CpuBackend other;
  call_family(twice, {}, {{x}}, other);
  EXPECT_EQ(demo_registrations.load(), before + 2);
}

TEST(KernelRegistry, FamilyOpWithACustomProvider) {
  CpuBackend cpu;
  const FamilyOp& twice = demo_family().op("demo.twice");
  cpu.kernels().register_family(demo_family());
  int ran = 0;
  // Runs f32 itself (marked: 2x + 100), declines the rest to the family's kernel.
  cpu.kernels().add(twice, DeviceKind::cpu, "fast",
                    [&](const FamilyAttrs&, std::span<const Tensor> in, Backend& b) -> std::optional<std::vector<Tensor>> {
                      if (in[0].dtype() != DType::f32) return std::nullopt;
                      ++ran;
                      Tensor out = b.empty(DType::f32, in[0].shape());
                      auto v = in[0].to_vec_col_major<float>();
                      for (std::size_t i = 0; i < v.size(); ++i) static_cast<float*>(out.data_ptr())[i] = 2 * v[i] + 100;
                      return std::vector<Tensor>{out};
                    });
  EXPECT_EQ(cpu.kernels().provider_names(twice, DeviceKind::cpu), (std::vector<std::string>{"fast", "demo"}));
  EXPECT_EQ(as_doubles(call_family(twice, {}, {{values({1, 2}, DType::f32)}}, cpu)[0]), (std::vector<double>{102, 104}));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(call_family(twice, {}, {{values({1, 2}, DType::f64)}}, cpu)[0].to_vec_col_major<double>(),
            (std::vector<double>{2, 4}));
  EXPECT_EQ(ran, 1);
  // The runtime's path: providers chosen once, then called.
  auto chosen = find_family_kernels(twice, cpu);
  ASSERT_EQ(chosen->size(), 2u);
  EXPECT_EQ(as_doubles(call_family(twice, *chosen, {}, {{values({3}, DType::f32)}}, cpu)[0]),
            std::vector<double>{106});
}

TEST(KernelRegistry, MissingFamilyKernelNamesOpAndDevice) {
  CpuBackend cpu;
  Tensor x = values({1}, DType::f64);
  EXPECT_TRUE(throws_with<UnimplementedError>(
      [&] { call_family(demo_family().op("demo.nokernel"), {}, {{x}}, cpu); }, {"demo.nokernel", "no kernel", "cpu"}));
  // Every provider declining is an error too, naming them.
  const FamilyOp& twice = demo_family().op("demo.twice");
  CpuBackend fresh;
  fresh.kernels().add(twice, DeviceKind::cpu, "never",
                      [](const FamilyAttrs&, std::span<const Tensor>, Backend&) -> std::optional<std::vector<Tensor>> {
                        return std::nullopt;
                      });
  // Adding a provider registers the family first: its kernel stays under "never" and runs when it declines.
  EXPECT_EQ(fresh.kernels().provider_names(twice, DeviceKind::cpu), (std::vector<std::string>{"never", "demo"}));
  EXPECT_EQ(call_family(twice, {}, {{x}}, fresh)[0].to_vec_col_major<double>(), std::vector<double>{2});
  // An op outside any family has only the kernels added for it.
  const FamilyOp orphan = define_family_op<NoFamilyAttrs>({.name = "demo.orphan"}, SameMeta{});
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { call_family(orphan, {}, {{x}}, cpu); },
                                              {"demo.orphan", "no kernel for cpu", "no family"}));
  cpu.kernels().add(orphan, DeviceKind::cpu, "never",
                    [](const FamilyAttrs&, std::span<const Tensor>, Backend&) -> std::optional<std::vector<Tensor>> {
                      return std::nullopt;
                    });
  EXPECT_TRUE(throws_with<UnimplementedError>([&] { call_family(orphan, {}, {{x}}, cpu); },
                                              {"demo.orphan", "declined", "never"}));
}

// ---- Note [Family validation] ----------------------------------------------------------

namespace {

FamilyOp plain(std::string name) { return define_family_op<NoFamilyAttrs>({.name = std::move(name)}, SameMeta{}); }

std::vector<Value> no_values(const NoFamilyAttrs&, std::span<const Value>, std::span<const Value>, std::span<const Value>) {
  return {Value{}};
}
std::vector<Value> no_transpose(const NoFamilyAttrs&, std::span<const Value>, std::span<const bool>,
                                std::span<const Value>) {
  return {Value{}};
}

}  // namespace

TEST(FamilyValidation, NamesAreUniqueAndPrefixed) {
  EXPECT_NO_THROW((OpFamily("demo", {plain("demo.a"), plain("demo.b")})));
  EXPECT_TRUE(throws_with<ValueError>([] { OpFamily("demo", {plain("demo.a"), plain("demo.a")}); },
                                      {"family 'demo'", "demo.a", "twice"}));
  EXPECT_TRUE(throws_with<ValueError>([] { OpFamily("demo", {plain("demox.a")}); },
                                      {"family 'demo'", "demox.a", "demo.<op>"}));
  EXPECT_TRUE(throws_with<ValueError>([] { OpFamily("demo", {plain("demo.")}); }, {"demo."}));
  OpFamily f("demo", {plain("demo.a")});
  EXPECT_TRUE(throws_with<ValueError>([&] { f.add(plain("demo.a")); }, {"demo.a", "twice"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { f.op("demo.missing"); }, {"demo", "demo.missing"}));
}

TEST(FamilyValidation, InferIsRequired) {
  FamilyOp op;
  op.name = "demo.noinfer";
  EXPECT_TRUE(throws_with<ValueError>([&] { OpFamily("demo", {op}); }, {"demo.noinfer", "no infer"}));
}

TEST(FamilyValidation, RulesMatchTheAdKind) {
  auto with = [](AdKind ad, bool jvp, bool transpose) {
    FamilyRules<NoFamilyAttrs> rules;
    if (jvp) rules.jvp = no_values;
    if (transpose) rules.transpose = no_transpose;
    return define_family_op<NoFamilyAttrs>({.name = "demo.op", .ad = ad}, SameMeta{}, rules);
  };
  EXPECT_NO_THROW((OpFamily("demo", {with(AdKind::none, false, false)})));
  EXPECT_NO_THROW((OpFamily("demo", {with(AdKind::nonlinear, true, false)})));
  // Linear in some operands (as solve is in b): a transpose rule too.
  EXPECT_NO_THROW((OpFamily("demo", {with(AdKind::nonlinear, true, true)})));
  EXPECT_NO_THROW((OpFamily("demo", {with(AdKind::linear, true, true)})));
  EXPECT_TRUE(throws_with<ValueError>([&] { OpFamily("demo", {with(AdKind::none, true, false)}); },
                                      {"demo.op", "ad = none", "jvp"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { OpFamily("demo", {with(AdKind::none, false, true)}); },
                                      {"demo.op", "ad = none", "transpose"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { OpFamily("demo", {with(AdKind::nonlinear, false, false)}); },
                                      {"demo.op", "nonlinear", "no jvp"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { OpFamily("demo", {with(AdKind::linear, true, false)}); },
                                      {"demo.op", "linear", "no transpose"}));
  EXPECT_TRUE(throws_with<ValueError>([&] { OpFamily("demo", {with(AdKind::linear, false, true)}); },
                                      {"demo.op", "linear", "no jvp"}));
}

TEST(FamilyValidation, CopiesRepointTheirOps) {
  OpFamily f("demo", {plain("demo.a"), plain("demo.b")});
  for (const FamilyOp& op : f.ops) EXPECT_EQ(op.family, &f);
  OpFamily copy = f;
  for (const FamilyOp& op : copy.ops) EXPECT_EQ(op.family, &copy);
  OpFamily moved = std::move(copy);
  for (const FamilyOp& op : moved.ops) EXPECT_EQ(op.family, &moved);
  f.add(plain("demo.c"));
  for (const FamilyOp& op : f.ops) EXPECT_EQ(op.family, &f) << op.name;
}

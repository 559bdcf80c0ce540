// Writes a sample of the StableHLO modules tenferro::xla emits, with their
// inputs and our CPU runtime's results, for check_stablehlo_jax.py (jax
// compiles each module and compares). Usage: emit_stablehlo_samples <dir>.
// <dir>/<k>/module.mlir, name.txt, in<i>.npy, out<j>.npy (column-major
// arrays of our shapes: the module's operands are their transposes, Note
// [Reversed shapes] in src/xla/stablehlo.cpp).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "support/op_db.hpp"
#include "tenferro/ad.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/fft.hpp"
#include "tenferro/io.hpp"
#include "tenferro/runtime.hpp"
#include "tenferro/xla.hpp"

using namespace tenferro;
using namespace tenferro::testing;
namespace fs = std::filesystem;

namespace {

int count = 0;

void emit(const fs::path& dir, const std::string& name, const Program& p, const std::vector<std::pair<std::string, Tensor>>& in,
          Runtime& rt) {
  fs::path d = dir / std::to_string(count++);
  fs::create_directories(d);
  RunInputs inputs(in);
  std::ofstream(d / "module.mlir") << xla::to_stablehlo(p, inputs);
  std::ofstream(d / "name.txt") << name << "\n";
  std::vector<Tensor> bound = xla::bind_program_inputs(p, inputs, "emit");
  for (std::size_t i = 0; i < bound.size(); ++i) io::save_npy(d / ("in" + std::to_string(i) + ".npy"), bound[i].contiguous());
  std::vector<Tensor> out = rt.run_compiled(p, inputs);
  for (std::size_t j = 0; j < out.size(); ++j) io::save_npy(d / ("out" + std::to_string(j) + ".npy"), out[j].contiguous());
}

bool plain(const OpSample& s) {
  for (const char* w : {"NaN", "nan", "edge", "inf", "overflow", "subnormal", "extreme", "huge", "tails", "zero"})
    if (s.note.find(w) != std::string::npos) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: emit_stablehlo_samples <dir>\n");
    return 2;
  }
  fs::path dir = argv[1];
  CpuBackend cpu;
  Runtime rt = Runtime::builder().register_engine(cpu_engine(cpu)).register_family(fft::family()).build();
  // One module per lowerable primitive: one plain sample per dtype.
  for (int k = 0; k < kNumOps; ++k) {
    const OpKind kind = static_cast<OpKind>(k);
    std::set<DType> seen;
    std::vector<TracedTensor> outs;
    std::vector<std::pair<std::string, Tensor>> feed;
    for (const OpSample& s : op_samples(kind)) {
      const DType d = s.inputs.front().dtype();
      if (!xla::lowerable(kind, d) || seen.count(d) || !plain(s)) continue;
      seen.insert(d);
      std::vector<Value> in;
      for (std::size_t i = 0; i < s.inputs.size(); ++i) {
        std::string n = "s" + std::to_string(outs.size()) + "_" + std::to_string(i);
        in.push_back(graph::input(n, s.inputs[i].dtype(), to_sym_shape(s.inputs[i].shape())));
        feed.emplace_back(n, s.inputs[i]);
      }
      outs.push_back(TracedTensor(graph::apply(s.kind, to_symbolic(s.attrs), in)));
    }
    if (!outs.empty()) emit(dir, op_name(kind), GraphCompiler().compile(outs), feed, rt);
  }
  // Whole programs: an MLP loss and its gradient, batched complex einsum, FFT.
  {
    auto x = TracedTensor::input("x", DType::f32, {Dim(6), Dim(10)});
    auto w = TracedTensor::input("w", DType::f32, {Dim(4), Dim(6)});
    TracedTensor loss = (tanh(matmul(w, x)) * tanh(matmul(w, x))).sum();
    emit(dir, "mlp loss and gradient", GraphCompiler().compile({loss, grad(loss, w)}),
         {{"x", Tensor::normal({6, 10}, DType::f32, 1)}, {"w", Tensor::normal({4, 6}, DType::f32, 2)}}, rt);
  }
  {
    auto a = TracedTensor::input("a", DType::c128, {Dim(4), Dim(3), Dim(2)});
    auto b = TracedTensor::input("b", DType::c128, {Dim(3), Dim(5), Dim(2)});
    emit(dir, "batched complex einsum", GraphCompiler().compile(einsum("ijt,jkt->ikt", {a, b})),
         {{"a", Tensor::normal({4, 3, 2}, DType::c128, 3)}, {"b", Tensor::normal({3, 5, 2}, DType::c128, 4)}}, rt);
  }
  {
    auto x = TracedTensor::input("x", DType::f64, {Dim(8), Dim(5), Dim(3)});
    TracedTensor X = fft::rfftn(x, {.axes = DimVec{2, 0}, .norm = fft::Norm::ortho});
    emit(dir, "rfftn and its inverse", GraphCompiler().compile({X, fft::irfftn(X, {.s = Shape{3, 8}, .axes = DimVec{2, 0}, .norm = fft::Norm::ortho})}),
         {{"x", Tensor::normal({8, 5, 3}, DType::f64, 5)}}, rt);
  }
  std::printf("%d modules written to %s\n", count, dir.c_str());
  return 0;
}

// The fused elementwise kernel: one pass over the data in cache-sized blocks.
//
// Inputs that share the output's dense layout are read at the same linear
// offsets as the output; others are first copied into that layout. Each
// block of kBlock elements runs every step through the same scalar
// functions as the unfused kernels (elementwise_arrays), keeping the
// intermediates of a block in per-thread scratch that stays in L1.
#include <memory>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"

namespace tenferro::cpu {
namespace {

constexpr std::int64_t kBlock = 256;  // step scratch and operand blocks stay in L1

bool same_layout(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.shape().size(); ++i)
    if (a.shape()[i] > 1 && a.strides()[i] != b.strides()[i]) return false;
  return true;
}

}  // namespace

void fused_elementwise(const FusedElementwise& k, std::span<const Tensor> in, const Tensor& out) {
  const std::int64_t n = out.numel();
  if (n == 0) return;
  const std::size_t ni = in.size();
  std::vector<Tensor> keep(ni);
  std::vector<const char*> base(ni);
  std::vector<std::int64_t> stride(ni);
  for (std::size_t i = 0; i < ni; ++i) {
    const Tensor& t = in[i];
    if (t.numel() == 1 && (t.ndim() == 0 || n == 1)) {
      stride[i] = 0;
      base[i] = static_cast<const char*>(t.data_ptr());
    } else if (same_layout(t, out) && t.numel() == n) {
      stride[i] = 1;
      base[i] = static_cast<const char*>(t.data_ptr());
    } else {
      keep[i] = Tensor(Storage::allocate_host(static_cast<std::size_t>(n) * dtype_size(t.dtype())), t.dtype(),
                       out.shape(), out.strides(), 0);
      parallel_copy(keep[i], t);
      stride[i] = 1;
      base[i] = static_cast<const char*>(keep[i].data_ptr());
    }
  }
  const std::size_t ns = k.steps.size();
  char* obase = static_cast<char*>(out.data_ptr());
  const std::int64_t block = std::min(kBlock, n);
  auto run_blocks = [&](std::int64_t b0, std::int64_t b1) {
    // Uninitialised scratch for the intermediate steps of one block.
    std::vector<std::size_t> at(ns, 0);
    std::size_t total = 0;
    for (std::size_t s = 0; s + 1 < ns; ++s) {
      at[s] = total;
      total += static_cast<std::size_t>(block) * dtype_size(k.steps[s].dtype);
      total = (total + 63) & ~std::size_t{63};
    }
    std::unique_ptr<char[]> buffer(new char[total + 64]);
    auto scratch = [&](std::size_t s) { return buffer.get() + at[s]; };
    const void* args[3];
    std::int64_t st[3];
    DType dts[3];
    for (std::int64_t blk = b0; blk < b1; ++blk) {
      const std::int64_t p = blk * kBlock, len = std::min(kBlock, n - p);
      for (std::size_t s = 0; s < ns; ++s) {
        const auto& step = k.steps[s];
        for (std::size_t j = 0; j < step.args.size(); ++j) {
          int a = step.args[j];
          if (a >= 0) {
            args[j] = scratch(static_cast<std::size_t>(a));
            st[j] = 1;
            dts[j] = k.steps[static_cast<std::size_t>(a)].dtype;
          } else {
            std::size_t i = static_cast<std::size_t>(-1 - a);
            std::int64_t es = static_cast<std::int64_t>(dtype_size(in[i].dtype()));
            args[j] = base[i] + (stride[i] ? p * es : 0);
            st[j] = stride[i];
            dts[j] = in[i].dtype();
          }
        }
        void* dst = s + 1 == ns ? static_cast<void*>(obase + p * std::int64_t(dtype_size(out.dtype())))
                                : static_cast<void*>(scratch(s));
        elementwise_arrays(step.op, step.attrs, dts, step.dtype, args, st, dst, len);
      }
    }
  };
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  parallel_for(blocks, kParallelGrain / kBlock, run_blocks);
}

}  // namespace tenferro::cpu

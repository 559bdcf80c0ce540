// The pocketfft provider: pocketfft's 1-D plans (twiddles and radix passes)
// driven by our own strided, batched, threaded loops.
//
// Note [Pocketfft driver]
// pocketfft (BSD-3, header-only; the FFT inside NumPy and SciPy) supplies
// the 1-D kernels `pocketfft_c<R>` (complex) and `pocketfft_r<R>` (real,
// FFTPACK "halfcomplex" order r0, r1, i1, r2, i2, ...). Both execute on one
// contiguous line, or on a block of V lines interleaved lane by lane when
// the element type is pocketfft's SIMD vector (V = 2 doubles / 4 floats in
// the baseline x86-64 build, 4 / 8 in the AVX2 build that this provider
// picks at run time when the CPU has AVX2 and FMA; pocketfft_driver.hpp is
// compiled once per instruction set).
//
// A multi-axis transform is a sequence of passes, one per axis. A pass runs
// the 1-D kernel along its axis for every line, i.e. every index of the other
// axes; the other axes are coalesced (merged where both layouts are
// contiguous across them, ordered by the destination's strides) so that the
// line loop is short and walks memory forwards. The first pass reads the
// caller's input, whatever its strides, and writes the column-major output;
// the later passes work in place on the output (c2c, r2c), or on a
// temporary complex buffer followed by the final complex-to-real pass (c2r,
// since the input must stay untouched). The scale factor rides on the first
// pass.
//
// Lines are processed V at a time through a lane-interleaved scratch block
// (gather, execute, scatter); the remaining lines one at a time, directly in
// the destination when its line is contiguous (copy in, transform in place)
// and through a scratch line otherwise. Threads split the lines of a pass
// into contiguous chunks. Lines of at least 2^15 points take the long path
// instead (Note [Long transforms] in pocketfft_driver.hpp: four-step,
// Bluestein, real transforms through complex ones), threaded inside the
// transform; its scratch memory is kept by the plan between calls.
//
// Plans are cached by the Provider (keyed by the full description); the 1-D
// pocketfft plans inside them are shared between plans of equal length
// through a table of weak references, so a new layout of a known length
// costs no new twiddles.
#define TF_POCKETFFT_ISA baseline
#include "pocketfft_driver.hpp"

namespace tenferro::fft::detail {

// The other instruction-set builds of the driver (pocketfft_avx2.cpp,
// pocketfft_avx512.cpp), when compiled.
#if TENFERRO_FFT_WITH_AVX2
namespace avx2 {
std::shared_ptr<const Plan> make_plan(const TransformDesc& desc);
}
#endif
#if TENFERRO_FFT_WITH_AVX512
namespace avx512 {
std::shared_ptr<const Plan> make_plan(const TransformDesc& desc);
}
#endif

namespace {

// The most capable instruction set that is compiled in, supported by the
// CPU and allowed by TENFERRO_FFT_ISA (baseline, avx2, avx512; the test
// suite runs once per level).
enum class Isa { baseline, avx2, avx512 };

Isa detect_isa() {
  const char* cap = std::getenv("TENFERRO_FFT_ISA");
  const std::string limit = cap ? cap : "avx512";
  Isa isa = Isa::baseline;
#if TENFERRO_FFT_WITH_AVX2
  if (limit != "baseline" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    isa = Isa::avx2;
#endif
#if TENFERRO_FFT_WITH_AVX512
  if (isa == Isa::avx2 && limit == "avx512" && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw"))
    isa = Isa::avx512;
#endif
  return isa;
}

class PocketfftProvider final : public Provider {
 public:
  std::string_view name() const override { return "pocketfft"; }

 protected:
  std::shared_ptr<const Plan> make_plan(const TransformDesc& desc) override {
#if TENFERRO_FFT_WITH_AVX512
    if (isa_ == Isa::avx512 && desc.precision == DType::f64) return avx512::make_plan(desc);
#endif
#if TENFERRO_FFT_WITH_AVX2
    if (isa_ != Isa::baseline) return avx2::make_plan(desc);
#endif
    return baseline::make_plan(desc);
  }

 private:
  Isa isa_ = detect_isa();
};

}  // namespace

std::unique_ptr<Provider> make_pocketfft_provider() {
  return std::make_unique<PocketfftProvider>();
}

}  // namespace tenferro::fft::detail

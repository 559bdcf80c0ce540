#pragma once
/// \file
/// The FFT module: NumPy-style transforms (`fft`, `rfft`, `irfftn`, ...),
/// frequency helpers, the same transforms on traced and eager tensors
/// (differentiable), the `fft.fft` operation family with its AD rules, and
/// the provider (pocketfft by default, FFTW3 as an option) with its plan cache.
///
/// ```cpp
/// #include <tenferro/cpu.hpp>
/// #include <tenferro/fft.hpp>
/// tenferro::CpuBackend cpu;
/// auto x = tenferro::Tensor::uniform({1024}, tenferro::DType::c128, 1);
/// auto X = tenferro::fft::fft(x, cpu);
/// auto back = tenferro::fft::ifft(X, cpu);   // x again, to rounding
/// ```

#include "tenferro/fft/family.hpp"
#include "tenferro/fft/handles.hpp"
#include "tenferro/fft/provider.hpp"
#include "tenferro/fft/transforms.hpp"

// The pocketfft driver compiled for AVX-512 (F, DQ, VL, BW) + FMA (this file
// gets those flags); pocketfft_provider.cpp uses it for double precision when
// the CPU has them: 8-double lanes (measured on AMD Zen 4: 25-30% faster
// than AVX2 for batched f64 lines). Single precision stays on AVX2, where
// 16-float lanes measured slower for 2-D transforms.
#define TF_POCKETFFT_ISA avx512
#include "pocketfft_driver.hpp"

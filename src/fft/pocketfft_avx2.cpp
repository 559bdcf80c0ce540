// The pocketfft driver compiled for AVX2 + FMA (this file gets -mavx2 -mfma);
// pocketfft_provider.cpp calls it when the CPU has both. Wider SIMD lanes
// (4 doubles, 8 floats) batch more lines per kernel call.
#define TF_POCKETFFT_ISA avx2
#include "pocketfft_driver.hpp"


#pragma once
/// \file
/// The I/O module: tensors to and from NumPy's `.npy` and `.npz` files and
/// Hugging Face's safetensors files, with zero-copy memory-mapped reading
/// where the file's layout allows. See docs/io.md.
///
/// ```cpp
/// #include <tenferro/io.hpp>
/// tenferro::Tensor a = tenferro::Tensor::arange(6).reshape({2, 3});
/// tenferro::io::save_npy("a.npy", a);                 // fortran_order: True, no transpose
/// tenferro::Tensor b = tenferro::io::load_npy("a.npy");
/// ```

#include "tenferro/io/common.hpp"
#include "tenferro/io/npy.hpp"
#include "tenferro/io/npz.hpp"
#include "tenferro/io/safetensors.hpp"

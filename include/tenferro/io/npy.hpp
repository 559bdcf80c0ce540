#pragma once
/// \file
/// NumPy's `.npy` format: one tensor per file, all tenferro dtypes
/// (`<f4 <f8 <c8 <c16 <i4 <i8 |b1`; big-endian files are byte-swapped on
/// reading), format versions 1.0, 2.0 and 3.0.
///
/// Layout travels both ways without a transpose:
/// - writing: a column-major contiguous tensor is written as it is with
///   `fortran_order: True`; a row-major contiguous one as it is with
///   `fortran_order: False`; any other layout (a slice, a broadcast, a
///   negative stride) is written from a column-major copy;
/// - reading: a Fortran-order file gives a column-major tensor, a C-order
///   file a row-major view (strides `row_major_strides(shape)`) of the same
///   bytes, without reordering them.
///
/// ```cpp
/// using namespace tenferro;
/// Tensor a = Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5, 6});
/// io::save_npy("a.npy", a);              // numpy.load gives [[1, 3, 5], [2, 4, 6]]
/// Tensor b = io::load_npy("a.npy");      // column-major again, same values
/// Tensor c = io::load_npy("from_numpy.npy");  // a C-order file: c.is_row_major_contiguous()
/// ```

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "tenferro/io/common.hpp"

namespace tenferro::io {

/// Reads the `.npy` file at `path` (mapped or read as `options.map` says; see
/// `MapMode`). Throws `FormatError` naming the file and the reason for a file
/// that is not a valid `.npy` file or holds a dtype tenferro lacks.
Tensor load_npy(const std::filesystem::path& path, const LoadOptions& options = {});

/// Parses a `.npy` file held in memory; the tensor owns a copy of the data.
/// `name` stands for the file in error messages.
Tensor parse_npy(std::span<const std::byte> bytes, std::string_view name = "<memory>");

/// Writes `t` (a host tensor) to `path`, replacing the file only once the
/// whole file is written.
void save_npy(const std::filesystem::path& path, const Tensor& t);

/// The bytes of the `.npy` file `save_npy` would write.
std::vector<std::byte> to_npy(const Tensor& t);

}  // namespace tenferro::io

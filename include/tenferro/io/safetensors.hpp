#pragma once
/// \file
/// The safetensors format (Hugging Face): an 8-byte little-endian header
/// length, a JSON header mapping each tensor name to its dtype, shape and
/// byte range (`data_offsets`), an optional `__metadata__` object of
/// strings, then the raw little-endian elements in row-major order.
///
/// dtypes: `F32`, `F64`, `I32`, `I64` and `BOOL` map to f32, f64, i32, i64
/// and bool; the format has no complex dtype, so c64 and c128 tensors are
/// refused on writing (store real and imaginary parts, or use .npz).
/// Reading gives row-major views of the file's bytes (mapped, see
/// `MapMode`) without reordering them; writing a column-major tensor
/// writes a row-major copy of it (the format has no column-major flag).
///
/// ```cpp
/// using namespace tenferro;
/// io::save_safetensors("weights.safetensors",
///                      {{"w", Tensor::ones({2, 3}, DType::f32)}},
///                      {{"format", "pt"}});
/// io::SafetensorsFile f = io::load_safetensors("weights.safetensors");
/// Tensor w = io::find(f.tensors, "w");   // row-major view, shape [2, 3]
/// std::string fmt = f.metadata.at("format");
/// ```

#include <cstddef>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/io/common.hpp"

namespace tenferro::io {

/// The content of a safetensors file: the tensors in the order of their
/// data in the file, and the `__metadata__` strings.
struct SafetensorsFile {
  std::vector<NamedTensor> tensors;
  std::map<std::string, std::string> metadata;
};

/// Reads the safetensors file at `path`. Throws `FormatError` naming the
/// file and the reason for a damaged file (truncated, header not JSON,
/// offsets outside the data or not tiling it, sizes that disagree with the
/// shape) or an unsupported dtype (F16, BF16, U8, ...).
SafetensorsFile load_safetensors(const std::filesystem::path& path,
                                 const LoadOptions& options = {});

/// Parses a safetensors file held in memory; the tensors own copies.
SafetensorsFile parse_safetensors(std::span<const std::byte> bytes,
                                  std::string_view name = "<memory>");

/// Writes `tensors` (host tensors of f32, f64, i32, i64 or bool, distinct
/// non-empty names other than `__metadata__`) and `metadata` to `path`,
/// replacing the file only once it is completely written. Tensors are laid
/// out by decreasing element size and the header is padded, so that every
/// tensor's data is aligned for zero-copy reading.
void save_safetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

/// The bytes `save_safetensors` would write.
std::vector<std::byte> to_safetensors(const std::vector<NamedTensor>& tensors,
                                      const std::map<std::string, std::string>& metadata = {});

}  // namespace tenferro::io

#pragma once
/// \file
/// NumPy's `.npz` archives: a ZIP file of `.npy` members, one per named
/// tensor (`numpy.savez` / `numpy.savez_compressed` / `numpy.load`).
/// Members may be stored or deflate-compressed (zlib); ZIP64 records are
/// read, and written when a member or the archive passes 4 GiB or 65535
/// members (NumPy writes them for every member). Each member follows the
/// layout rules of `tenferro/io/npy.hpp`.
///
/// ```cpp
/// using namespace tenferro;
/// Tensor w = Tensor::uniform({3, 4}, DType::f64, 7);
/// Tensor b = Tensor::zeros({4}, DType::f32);
/// io::save_npz("model.npz", {{"w", w}, {"b", b}}, {.compression = io::Compression::deflate});
/// auto all = io::load_npz("model.npz");   // [{"w", ...}, {"b", ...}] in archive order
/// Tensor w2 = io::find(all, "w");
/// ```

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "tenferro/io/common.hpp"

namespace tenferro::io {

/// How members are written.
enum class Compression {
  stored,   ///< as they are (`numpy.savez`); stored members can be mapped on loading
  deflate,  ///< zlib deflate (`numpy.savez_compressed`)
};

/// Options of `save_npz` / `to_npz`.
struct NpzOptions {
  Compression compression = Compression::stored;
  /// zlib level 1 (fastest) .. 9 (smallest) for `Compression::deflate`.
  int level = 6;
  /// Write ZIP64 records even where the sizes do not need them (as NumPy does).
  bool force_zip64 = false;
};

/// Reads every member of the `.npz` archive at `path`, in archive order; a
/// member "x.npy" is named "x". Stored members of a mapped file (see
/// `MapMode`) are views of the mapping where their alignment allows.
/// Throws `FormatError` naming the file (and the member) for a damaged or
/// unsupported archive: encryption, compression other than deflate, split
/// archives, CRC mismatch, members that are not `.npy` files.
std::vector<NamedTensor> load_npz(const std::filesystem::path& path,
                                  const LoadOptions& options = {});

/// Parses an archive held in memory; the tensors own copies of their data.
std::vector<NamedTensor> parse_npz(std::span<const std::byte> bytes,
                                   std::string_view name = "<memory>");

/// Writes `tensors` (host tensors, distinct non-empty names) as an archive
/// at `path`, replacing the file only once the whole archive is written.
void save_npz(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
              const NpzOptions& options = {});

/// The bytes of the archive `save_npz` would write.
std::vector<std::byte> to_npz(const std::vector<NamedTensor>& tensors,
                              const NpzOptions& options = {});

}  // namespace tenferro::io

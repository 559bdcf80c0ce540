#pragma once
/// \file
/// What the file formats of `tenferro::io` share: the error a bad file
/// raises, how a file is read (memory-mapped or into memory), and a named
/// tensor for the formats that hold several (.npz, safetensors).
///
/// ```cpp
/// using namespace tenferro;
/// try {
///   Tensor t = io::load_npy("data.npy", {.map = io::MapMode::always});
/// } catch (const io::FormatError& e) {
///   // e.what(): "io.load_npy: 'data.npy': header declares shape [3, 4] of
///   //            <f8 (96 bytes) but 40 bytes of data follow the header"
/// }
/// ```

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tenferro/tensor/error.hpp"
#include "tenferro/tensor/tensor.hpp"

namespace tenferro::io {

/// A file (or memory buffer) that is not a valid file of its format, or
/// that holds something tenferro cannot represent (an unsupported dtype).
/// The message reads "io.<function>: '<file name>': <reason>". Also raised
/// when the file cannot be opened, read or written (with the system's
/// reason); the code is then `BackendFailure`.
class FormatError : public Error {
 public:
  explicit FormatError(const std::string& m, ErrorCode code = ErrorCode::InvalidArgument)
      : Error(code, m) {}
};

/// Whether a loader maps the file into memory (`mmap`) or reads it.
///
/// A mapped tensor is a view of the mapping, which its `Storage` keeps
/// alive; the mapping is private (copy-on-write), so writing to the tensor
/// never changes the file. Data that cannot be viewed in place (compressed,
/// misaligned for its dtype, big-endian, a bool byte other than 0 or 1) is
/// copied in either mode.
enum class MapMode {
  automatic,  ///< map files of `kMapThreshold` bytes or more, read smaller ones
  always,     ///< always map
  never,      ///< always read into freshly allocated memory
};

/// Files from this size up are mapped under `MapMode::automatic` (1 MiB).
inline constexpr std::size_t kMapThreshold = std::size_t{1} << 20;

/// Options of the `load_*` functions.
struct LoadOptions {
  MapMode map = MapMode::automatic;
};

/// One tensor of a multi-tensor file (.npz member, safetensors entry).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// The tensor called `name` in `tensors`; throws `ValueError` naming the
/// names that exist when there is none.
///
/// ```cpp
/// auto all = tenferro::io::load_npz("arrays.npz");
/// tenferro::Tensor w = tenferro::io::find(all, "w");
/// ```
const Tensor& find(const std::vector<NamedTensor>& tensors, std::string_view name);

}  // namespace tenferro::io

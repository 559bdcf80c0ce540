// libFuzzer target for the safetensors parser (header length, JSON header,
// offsets, dtypes).
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tenferro::io::SafetensorsFile f;
  try {
    f = tenferro::io::parse_safetensors(io_fuzz::bytes(data, size), "fuzz.safetensors");
  } catch (const tenferro::Error&) {
    return 0;
  }
  std::uint64_t total = 0;
  for (const auto& t : f.tensors) {
    io_fuzz::check_tensor(t.tensor, size);
    total += static_cast<std::uint64_t>(t.tensor.numel()) * tenferro::dtype_size(t.tensor.dtype());
  }
  io_fuzz::check(total <= size);
  // Names and metadata came from valid JSON (UTF-8), so writing succeeds
  // unless a name is empty (the writer refuses those), and reads back the same.
  for (const auto& t : f.tensors)
    if (t.name.empty()) return 0;
  auto again = tenferro::io::parse_safetensors(tenferro::io::to_safetensors(f.tensors, f.metadata));
  io_fuzz::check(again.metadata == f.metadata && again.tensors.size() == f.tensors.size());
  for (const auto& t : f.tensors)
    io_fuzz::check(tenferro::io::to_npy(tenferro::io::find(again.tensors, t.name)) ==
                   tenferro::io::to_npy(t.tensor));
  return 0;
}

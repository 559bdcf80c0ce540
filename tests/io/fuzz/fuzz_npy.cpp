// libFuzzer target for the .npy parser (tenferro::io::parse_npy).
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    tenferro::Tensor t = tenferro::io::parse_npy(io_fuzz::bytes(data, size), "fuzz.npy");
    io_fuzz::check_tensor(t, size);
  } catch (const tenferro::Error&) {
    // Rejected input: fine, as long as it is a tenferro::Error.
  }
  return 0;
}

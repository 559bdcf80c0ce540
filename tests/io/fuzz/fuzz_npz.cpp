// libFuzzer target for the .npz reader (ZIP records, inflate, inner .npy).
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto all = tenferro::io::parse_npz(io_fuzz::bytes(data, size), "fuzz.npz");
    for (const auto& m : all) io_fuzz::check_tensor(m.tensor, size);
    // What we write from it reads back with the same names and contents.
    auto again = tenferro::io::parse_npz(
        tenferro::io::to_npz(all, {.compression = size % 2 ? tenferro::io::Compression::deflate
                                                            : tenferro::io::Compression::stored}));
    io_fuzz::check(again.size() == all.size());
    for (std::size_t k = 0; k < all.size(); ++k) {
      io_fuzz::check(again[k].name == all[k].name);
      io_fuzz::check(tenferro::io::to_npy(again[k].tensor) == tenferro::io::to_npy(all[k].tensor));
    }
  } catch (const tenferro::Error&) {
  }
  return 0;
}

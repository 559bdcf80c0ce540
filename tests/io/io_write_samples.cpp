// Writes the files that check_numpy_reads.py loads with NumPy: usage
//   io_write_samples DIR
// Element r in row-major order of every array is value(code, r) of
// io_values.py (io_values.hpp here), except the sliced ones (see there).
#include <cstdio>
#include <tenferro/io.hpp>

#include "io_values.hpp"

using namespace tenferro;
using io_test::make;

namespace {

template <class T>
void write_npy_set(const std::string& dir, const std::string& code) {
  io::save_npy(dir + "/" + code + "_col.npy", make<T>(Shape{2, 3, 4}));
  io::save_npy(dir + "/" + code + "_row.npy", io_test::make_row_major<T>(Shape{2, 3, 4}));
  // array(code, (4, 3, 5))[0:4:2, ::-1, :]
  io::save_npy(dir + "/" + code + "_odd.npy", make<T>(Shape{4, 3, 5}).slice(0, 0, 4, 2).flip({1}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: io_write_samples DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  write_npy_set<float>(dir, "f4");
  write_npy_set<double>(dir, "f8");
  write_npy_set<std::complex<float>>(dir, "c8");
  write_npy_set<std::complex<double>>(dir, "c16");
  write_npy_set<std::int32_t>(dir, "i4");
  write_npy_set<std::int64_t>(dir, "i8");
  write_npy_set<bool>(dir, "b1");
  io::save_npy(dir + "/scalar_f8.npy", make<double>(Shape{}));
  io::save_npy(dir + "/vector_i8.npy", make<std::int64_t>(Shape{5}));
  io::save_npy(dir + "/empty_c8.npy", Tensor::zeros({0, 3}, DType::c64));

  std::vector<io::NamedTensor> members{{"a", make<double>(Shape{3, 4})},
                                       {"b", io_test::make_row_major<std::complex<float>>(Shape{2, 5})},
                                       {"flags", make<bool>(Shape{7})},
                                       {"n", make<std::int32_t>(Shape{})}};
  io::save_npz(dir + "/stored.npz", members);
  io::save_npz(dir + "/deflate.npz", members, {.compression = io::Compression::deflate});
  io::save_npz(dir + "/zip64.npz", members, {.force_zip64 = true});

  io::save_safetensors(dir + "/ours.safetensors",
                       {{"w", make<float>(Shape{3, 4})},
                        {"rows", io_test::make_row_major<double>(Shape{2, 4})},
                        {"ids", make<std::int64_t>(Shape{2, 2})},
                        {"mask", make<bool>(Shape{5})},
                        {"count", make<std::int32_t>(Shape{})}},
                       {{"format", "np"}, {"writer", "tenferro"}});
  std::printf("io_write_samples: wrote %s\n", dir.c_str());
  return 0;
}

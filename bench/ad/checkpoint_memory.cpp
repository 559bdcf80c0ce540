// Peak memory of grad of a 64-step tanh-MLP chain, h <- tanh(w h), loss =
// sum(h_64), with checkpoints every `segment` steps (0: none).
//
//   checkpoint_memory <segment> [width] [batch] [wrt]
//
// wrt: "x" (default), "wx" (gradients of w, then x) or "xw".
//
// Prints the compiled gradient program's peak of live bytes
// (tenferro::peak_live_bytes) and the process's peak resident set growth
// while it runs (getrusage ru_maxrss after the run minus the resident set
// before it), and a checksum of the gradient. Run each configuration in its
// own process: ru_maxrss only grows.
#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tenferro/ad.hpp"
#include "tenferro/cpu/cpu_backend.hpp"
#include "tenferro/runtime/compiler.hpp"
#include "tenferro/runtime/runtime.hpp"

using namespace tenferro;

namespace {

long rss_kib() {  // current resident set, KiB
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4;
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  const int segment = argc > 1 ? std::atoi(argv[1]) : 0;
  const std::int64_t width = argc > 2 ? std::atoll(argv[2]) : 512,
                     batch = argc > 3 ? std::atoll(argv[3]) : 512;
  const int steps = 64;
  auto x = TracedTensor::input("x", DType::f64, {Dim(width), Dim(batch)});
  auto w = TracedTensor::input("w", DType::f64, {Dim(width), Dim(width)});
  auto step = [&](const TracedTensor& h) { return tanh(matmul(w, h)); };
  TracedTensor h = x;
  if (segment == 0) {
    for (int k = 0; k < steps; ++k) h = step(h);
  } else {
    for (int s = 0; s < steps / segment; ++s)
      h = checkpoint(
          [&](const TracedTensor& v) {
            TracedTensor u = v;
            for (int k = 0; k < segment; ++k) u = step(u);
            return u;
          },
          h);
  }
  const std::string wrt = argc > 4 ? argv[4] : "x";
  std::vector<TracedTensor> outs;
  if (wrt == "x")
    outs = grad(h.sum(), std::vector<TracedTensor>{x});
  else if (wrt == "wx")
    outs = grad(h.sum(), {w, x});
  else
    outs = grad(h.sum(), {x, w});
  CompileOptions options;
  options.fusion = std::getenv("TENFERRO_NO_FUSION") == nullptr;
  Program p = GraphCompiler(options).compile(outs);
  CpuBackend cpu;
  auto rt = Runtime::builder().register_engine(cpu_engine(cpu)).build();
  const double scale = std::sqrt(3.0 / static_cast<double>(width));  // unit gain
  RunInputs in{{"x", Tensor::uniform({width, batch}, DType::f64, 1, -1.0, 1.0)},
               {"w", Tensor::uniform({width, width}, DType::f64, 2, -scale, scale)}};
  const long before = rss_kib();
  Tensor g = rt.run_compiled(p, in).back();
  const long after = max_rss_kib();
  double sum = 0;
  for (double v : g.to_vec_col_major<double>()) sum += v;
  std::printf(
      "wrt=%s segment=%d width=%lld batch=%lld peak_live_bytes=%.1f MiB peak_rss_growth=%.1f MiB "
      "checksum=%.17g\n",
      wrt.c_str(), segment, static_cast<long long>(width), static_cast<long long>(batch),
      static_cast<double>(peak_live_bytes(p).value()) / (1 << 20),
      static_cast<double>(after - before) / 1024, sum);
  return 0;
}

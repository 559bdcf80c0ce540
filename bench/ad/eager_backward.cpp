// Fixed cost of eager backward(): loss = (a @ b).sum() with 2x2 a, b
// requiring grad. Prints the median wall time (us) of
//   forward+backward: the loss and backward(loss), per iteration;
//   backward:         backward(loss) alone (the forward outside the timer).
// bench/ad/eager_backward.py runs it and PyTorch's equivalent in one run.
//
//   eager_backward [reps]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tenferro/ad.hpp"
#include "tenferro/cpu/cpu_backend.hpp"
#include "tenferro/runtime/eager.hpp"

using namespace tenferro;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20000;
  set_num_threads(1);
  CpuBackend cpu;
  EagerRuntime rt(cpu);
  auto a = rt.tensor(Tensor::from_vec_col_major<double>({2, 2}, {1, 2, 3, 4})).requires_grad();
  auto b = rt.tensor(Tensor::from_vec_col_major<double>({2, 2}, {5, 6, 7, 8})).requires_grad();
  std::vector<double> both, bwd;
  for (int r = 0; r < reps; ++r) {
    a.zero_grad();
    b.zero_grad();
    auto t0 = Clock::now();
    auto loss = matmul(a, b).sum();
    auto t1 = Clock::now();
    backward(loss);
    auto t2 = Clock::now();
    both.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count());
    bwd.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
  }
  // d sum(ab)/da = 1 b^T: row sums of b, for every row.
  const double ga = a.grad().value().at<double>({0, 0});
  std::printf(
      "{\"framework\": \"tenferro\", \"forward_backward_us\": %.3f, \"backward_us\": %.3f, "
      "\"grad_a00\": %g}\n",
      median(both), median(bwd), ga);
  return ga == 5 + 7 ? 0 : 1;
}

#pragma once
// Adaptive timing shared by the peer-report drivers (bench/peer/). The same
// rule is implemented in bench/peer/peers.py for PyTorch, JAX and NumPy, so
// every framework is measured alike:
//
//   one warm-up call (its duration w is kept);
//   if w >= single: the warm-up is the measurement (one call);
//   else timed calls until at least `budget` seconds have passed and at
//   least 3 calls were made (1 call when w > budget / 2), at most 200;
//   the median wall-clock time of the timed calls is reported in ms.
// (The Python side also interrupts a warm-up after `cap` seconds: a
// timeout. Our calls are not interrupted.)
//
// Wall-clock time, because at 2 threads process CPU time adds both threads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace tenferro::bench_peer {

struct Timing {
  double median_ms = 0;
  int reps = 0;
  double warmup_ms = 0;
  bool first_call = false;  // the warm-up was the measurement
};

struct TimingRule {
  double budget_s = 0.4;
  double cap_s = 20.0;
  double single_s = 2.0;
  int max_reps = 200;
};

template <class F>
Timing measure(F&& fn, const TimingRule& rule) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  Timing t;
  const auto w0 = clock::now();
  fn();
  const double w = seconds(w0, clock::now());
  t.warmup_ms = 1e3 * w;
  if (w >= rule.single_s) {
    t.first_call = true;
    t.median_ms = t.warmup_ms;
    t.reps = 1;
    return t;
  }
  const int min_reps = w > rule.budget_s / 2 ? 1 : 3;
  std::vector<double> times;
  const auto start = clock::now();
  while (static_cast<int>(times.size()) < rule.max_reps) {
    const auto a = clock::now();
    fn();
    const auto b = clock::now();
    times.push_back(seconds(a, b));
    if (static_cast<int>(times.size()) >= min_reps && seconds(start, b) >= rule.budget_s) break;
  }
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  const double med = n % 2 == 1 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  t.median_ms = 1e3 * med;
  t.reps = static_cast<int>(n);
  return t;
}

}  // namespace tenferro::bench_peer

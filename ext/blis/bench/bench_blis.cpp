// The BLIS provider on the einsum instances (tenferro's tests/data/instances),
// with and without it in one process, same operands, same thread count.
//
//   tfblis_bench --instances=DIR [--only=SUBSTRING] [--reps=N] [--threads=T] [--min-work=W] [--check]
//
// --min-work: the provider's Options::min_work (products below it go to the base).
//
// Per instance, along the stored opt_flops path:
// - whole einsum: best of N runs without the provider (base: tenferro's
//   "cpu" dot_general on its BLAS) and with it, alternating which runs
//   first; ratio = base / blis (> 1: BLIS faster); and the time the
//   einsum's dot_generals took in that run (a provider tried first times
//   the others);
// - the dot_generals the einsum ran, recorded once (layouts, not data) by a
//   provider that declines, then replayed alone on fresh data with the same
//   shapes and strides, best of N: those BLIS takes and the base reads in
//   place, those BLIS takes and the base copies an operand or the output
//   first (what general strides save), and those BLIS declines (the base
//   runs them either way; the elements it copies in them).
// Then single products on strided views (no instance: --only empty).
// --check: also compares the two einsum results (relative difference
// <= 1e-10) and fails otherwise.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <tenferro/cpu.hpp>
#include <tenferro/einsum.hpp>
#include <tenferro/ops/dot_plan.hpp>
#include <tenferro/ops/kernels.hpp>
#include <tenferro_blis/blis_provider.hpp>

#include "../tests/common.hpp"
#include "../tests/instances.hpp"

using namespace tenferro;
using namespace tfblis_test;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One dot_general as the einsum ran it (layouts only).
struct Call {
  DotGeneralAttrs attrs;
  DType dtype;
  Shape lhs_shape, rhs_shape, out_shape;
  Strides lhs_strides, rhs_strides, out_strides;
  int count = 0;
};

std::string key(const Call& c) {
  std::ostringstream os;
  os << Attrs(c.attrs) << c.dtype << c.lhs_shape << c.lhs_strides << c.rhs_shape << c.rhs_strides
     << c.out_strides;
  return os.str();
}

// A tensor with this layout over fresh data (non-negative strides: a
// buffer reaching its last element; others: a dense copy's layout).
Tensor with_layout(const Shape& shape, const Strides& strides, DType dtype, std::uint64_t seed) {
  std::int64_t last = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return Tensor::zeros(shape, dtype);
    if (strides[i] < 0) return random(shape, dtype, seed);
    last += (shape[i] - 1) * strides[i];
  }
  const Tensor buf = random({last + 1}, dtype, seed);
  return Tensor(buf.storage(), dtype, shape, strides, 0);
}

struct Replay {
  int calls = 0;              // dot_generals in this class (with multiplicity)
  double base = 0, blis = 0;  // seconds, summed over the calls
  double copied = 0;          // elements the base copies in them
};

template <class F>
double best_of(int reps, F f) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

// Single dot_generals on views, f64: a plain product (kernel speed alone),
// one whose operand has a unit stride the base reads in place, and ones
// whose operands have no unit stride (the base copies them first; BLIS
// reads them as they are).
void synthetic(int reps, const tenferro_blis::Options& options) {
  struct View {
    const char* what;
    std::function<Tensor(std::int64_t n, std::uint64_t seed)> lhs;
  };
  const std::vector<View> views = {
      {"A (column-major)",
       [](std::int64_t n, std::uint64_t s) {
         return random({n, n}, DType::f64, s);
       }},
      {"X[:, 3, :] of X [n, 8, n] (unit row stride)",
       [](std::int64_t n, std::uint64_t s) {
         return random({n, 8, n}, DType::f64, s).select(1, 3);
       }},
      {"X[::2, :] of X [2n, n] (row stride 2)",
       [](std::int64_t n, std::uint64_t s) {
         return random({2 * n, n}, DType::f64, s).slice(0, 0, 2 * n, 2);
       }},
      {"X[0, :, :] of X [8, n, n] (row stride 8)",
       [](std::int64_t n, std::uint64_t s) {
         return random({8, n, n}, DType::f64, s).select(0, 0);
       }},
  };
  const DotGeneralAttrs mm{.lhs_contracting_dimensions = {1}, .rhs_contracting_dimensions = {0}};
  CpuBackend base, blis;
  tenferro_blis::register_provider(blis, options);
  std::printf("\n| C = A B, A = | n | base ms | blis ms | ratio | elements the base copies |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (std::int64_t n : {64, 256, 1024})
    for (const View& v : views) {
      const Tensor a = v.lhs(n, 1), b = random({n, n}, DType::f64, 2);
      const Tensor out = base.empty_strided(DType::f64, {n, n}, {1, n});
      const Tensor in[] = {a, b};
      const ops::DotGeneralPlan plan =
          ops::plan_dot_general(mm, a.shape(), a.strides(), b.shape(), b.strides(), out.strides(),
                                {.blas = true, .min_blas_work = 4097});
      const double tb =
          best_of(reps, [&] { base.execute(OpKind::dot_general, Attrs(mm), in, out); });
      const double tl =
          best_of(reps, [&] { blis.execute(OpKind::dot_general, Attrs(mm), in, out); });
      std::printf("| %s | %lld | %.3f | %.3f | %.2f | %lld |\n", v.what, static_cast<long long>(n),
                  tb * 1e3, tl * 1e3, tb / tl, static_cast<long long>(plan.copied_elements()));
    }
}

}  // namespace

// A provider tried first that runs the others itself and adds up the time
// dot_general takes inside an einsum.
struct DotTimer {
  std::shared_ptr<double> seconds = std::make_shared<double>(0);
  void add_to(Backend& backend) const {
    backend.kernels().add(OpKind::dot_general, DeviceKind::cpu, "timer",
                          [s = seconds](OpKind op, const Attrs& a, std::span<const Tensor> in,
                                        const Tensor& out, Backend& b) {
                            const auto t0 = std::chrono::steady_clock::now();
                            for (const auto& p : b.kernels().providers(op, DeviceKind::cpu))
                              if (p.name != "timer" && p.kernel(op, a, in, out, b)) {
                                *s += seconds_since(t0);
                                return true;
                              }
                            return false;
                          });
  }
};

int main(int argc, char** argv) {
  std::string dir, only;
  int reps = 5, threads = 1;
  bool check = false;
  tenferro_blis::Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--instances=", 12) == 0)
      dir = argv[i] + 12;
    else if (std::strncmp(argv[i], "--only=", 7) == 0)
      only = argv[i] + 7;
    else if (std::strncmp(argv[i], "--reps=", 7) == 0)
      reps = std::max(1, std::atoi(argv[i] + 7));
    else if (std::strncmp(argv[i], "--threads=", 10) == 0)
      threads = std::max(1, std::atoi(argv[i] + 10));
    else if (std::strncmp(argv[i], "--min-work=", 11) == 0)
      options.min_work = std::atoll(argv[i] + 11);
    else if (std::strcmp(argv[i], "--check") == 0)
      check = true;
    else {
      std::fprintf(stderr,
                   "usage: tfblis_bench --instances=DIR [--only=SUBSTRING] [--reps=N] "
                   "[--threads=T] [--min-work=W] [--check]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr,
                 "tfblis_bench: --instances=DIR is required (tenferro's tests/data/instances)\n");
    return 2;
  }
  set_num_threads(threads);
  std::printf("BLIS %s, %d thread(s), best of %d, min_work %lld\n\n",
              tenferro_blis::blis_version().c_str(), threads, reps,
              static_cast<long long>(options.min_work));
  std::printf(
      "| instance | einsum base ms | einsum blis ms | ratio | its dot_generals base / blis ms | "
      "BLIS took | "
      "taken, base reads in place: base / blis ms | taken, base copies: base / blis ms (elements) "
      "| "
      "declined (elements the base copies) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  double log_sum = 0;
  int n = 0, failures = 0;
  std::map<std::string, int> declines;
  for (const Instance& inst : load_instances(dir)) {
    if (!only.empty() && inst.name.find(only) == std::string::npos) continue;
    std::vector<Tensor> ops;
    for (std::size_t k = 0; k < inst.shapes.size(); ++k)
      ops.push_back(instance_operand(inst, k, DType::f64));
    const PathOptions path{.path = inst.opt_flops};
    CpuBackend base, blis;
    tenferro_blis::register_provider(blis, options);
    DotTimer base_dots, blis_dots;
    base_dots.add_to(base);
    blis_dots.add_to(blis);
    EinsumCache base_cache, blis_cache;
    // First runs (planning, page faults, library initialisation), compared.
    const Tensor want = einsum(inst.spec, ops, base, path, &base_cache);
    const Tensor got = einsum(inst.spec, ops, blis, path, &blis_cache);
    const double diff = rel_diff(got, want);
    if (check && !(diff <= 1e-10)) {
      std::fprintf(stderr, "%s: results differ by %.2e\n", inst.name.c_str(), diff);
      ++failures;
    }
    // Best of `reps`, alternating which runs first; the dot_general time is
    // that of the best run.
    double t_base = std::numeric_limits<double>::infinity(), t_blis = t_base, d_base = 0,
           d_blis = 0;
    auto timed = [&](Backend& b, EinsumCache& cache, const DotTimer& dots, double& best,
                     double& best_dots) {
      *dots.seconds = 0;
      const double t = best_of(1, [&] { einsum(inst.spec, ops, b, path, &cache); });
      if (t < best) {
        best = t;
        best_dots = *dots.seconds;
      }
    };
    for (int r = 0; r < reps; ++r) {
      if (r % 2 == 0) {
        timed(base, base_cache, base_dots, t_base, d_base);
        timed(blis, blis_cache, blis_dots, t_blis, d_blis);
      } else {
        timed(blis, blis_cache, blis_dots, t_blis, d_blis);
        timed(base, base_cache, base_dots, t_base, d_base);
      }
    }
    // The dot_generals of one run, by layout.
    std::map<std::string, Call> calls;
    {
      CpuBackend recorder;
      recorder.kernels().add(
          OpKind::dot_general, DeviceKind::cpu, "recorder",
          [&](OpKind, const Attrs& a, std::span<const Tensor> in, const Tensor& out, Backend&) {
            Call c{std::get<DotGeneralAttrs>(a),
                   out.dtype(),
                   in[0].shape(),
                   in[1].shape(),
                   out.shape(),
                   in[0].strides(),
                   in[1].strides(),
                   out.strides()};
            ++calls.try_emplace(key(c), c).first->second.count;
            return false;
          });
      einsum(inst.spec, ops, recorder, path);
    }
    Replay no_copy, copy, declined;
    std::map<std::string, int> reasons;  // why BLIS declined (up to the first axis list)
    std::uint64_t seed = 1;
    for (const auto& [k, c] : calls) {
      const Tensor lhs = with_layout(c.lhs_shape, c.lhs_strides, c.dtype, seed++);
      const Tensor rhs = with_layout(c.rhs_shape, c.rhs_strides, c.dtype, seed++);
      const Tensor out = base.empty_strided(c.dtype, c.out_shape, c.out_strides);
      const Tensor in[] = {lhs, rhs};
      const auto why = tenferro_blis::decline_reason(c.attrs, lhs, rhs, out, options);
      const bool taken = !why.has_value();
      if (why) reasons[why->substr(0, why->find('['))] += c.count;
      const ops::DotGeneralPlan plan =
          ops::plan_dot_general(c.attrs, c.lhs_shape, c.lhs_strides, c.rhs_shape, c.rhs_strides,
                                c.out_strides, {.blas = true, .min_blas_work = 4097});
      Replay& cls = !taken ? declined : plan.copied_elements() > 0 ? copy : no_copy;
      cls.calls += c.count;
      cls.copied += static_cast<double>(plan.copied_elements()) * c.count;
      if (!taken) continue;  // the base runs it either way
      cls.base += c.count * best_of(reps, [&] {
                    base.execute(OpKind::dot_general, Attrs(c.attrs), in, out);
                  });
      cls.blis += c.count * best_of(reps, [&] {
                    blis.execute(OpKind::dot_general, Attrs(c.attrs), in, out);
                  });
    }
    const double ratio = t_base / t_blis;
    log_sum += std::log(ratio);
    ++n;
    auto times = [](const Replay& r, bool elements) {
      if (r.calls == 0) return std::string("-");
      char s[128];
      if (elements)
        std::snprintf(s, sizeof s, "%.3f / %.3f (%d calls, %.3g)", r.base * 1e3, r.blis * 1e3,
                      r.calls, r.copied);
      else
        std::snprintf(s, sizeof s, "%.3f / %.3f (%d calls)", r.base * 1e3, r.blis * 1e3, r.calls);
      return std::string(s);
    };
    char dec[64] = "-";
    if (declined.calls)
      std::snprintf(dec, sizeof dec, "%d calls (%.3g)", declined.calls, declined.copied);
    std::printf("| %s | %.3f | %.3f | %.2f | %.3f / %.3f | %d/%d | %s | %s | %s |\n",
                inst.name.c_str(), t_base * 1e3, t_blis * 1e3, ratio, d_base * 1e3, d_blis * 1e3,
                no_copy.calls + copy.calls, no_copy.calls + copy.calls + declined.calls,
                times(no_copy, false).c_str(), times(copy, true).c_str(), dec);
    for (const auto& [why, count] : reasons) declines[why] += count;
    std::fflush(stdout);
  }
  if (n > 0)
    std::printf("\ngeometric mean of base / blis over %d instances: %.3f\n", n,
                std::exp(log_sum / n));
  if (!declines.empty()) std::printf("\ndeclined calls by reason:\n");
  for (const auto& [why, count] : declines) std::printf("  %5d  %s...\n", count, why.c_str());
  if (only.empty()) synthetic(reps, options);
  if (check) std::printf("\ncheck: %s\n", failures ? "FAILED" : "results agree");
  return failures ? 1 : 0;
}

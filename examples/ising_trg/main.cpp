// Differentiable TRG for the 2D Ising model: ln Z / N by tensor
// renormalization, the internal energy E = -d(ln Z/N)/d(beta) by reverse-mode
// AD through every truncated SVD, and the specific heat
// C = beta^2 d^2(ln Z/N)/d(beta)^2 by forward-over-reverse, compared with
// Onsager's exact solution. The TRG is traced and compiled once; the program
// then runs for every temperature of the sweep (bond dimensions are resolved
// at run time, so nothing recompiles).
//
//   ising_trg [--chi N] [--steps N] [--points N] [--tmin T] [--tmax T]
//             [--csv PATH] [--plot PATH] [--time N] [--help]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <tenferro/ad.hpp>
#include <tenferro/cpu.hpp>

#include "onsager.hpp"
#include "trg.hpp"

namespace {

struct Options {
  ising::TrgOptions trg;
  int points = 21;
  double tmin = 1.9, tmax = 2.7;
  std::string csv, plot;
  int time_repeats = 0;  // --time N: time one point (gradient, and HVP) N times instead of the sweep
};

void usage(std::ostream& os) {
  os << "usage: ising_trg [options]\n"
        "  --chi N      bond dimension (default 16)\n"
        "  --steps N    coarse-graining steps, 2^N sites (default 24)\n"
        "  --points N   temperatures in the sweep (default 21)\n"
        "  --tmin T     lowest temperature (default 1.9)\n"
        "  --tmax T     highest temperature (default 2.7)\n"
        "  --csv PATH   write T, lnZ, E, C, lnZ_exact, E_exact\n"
        "  --plot PATH  write a PNG of E and C versus T with the exact curves (needs gnuplot)\n"
        "  --time N     at T = tmin, time ln Z with its gradient and with its second\n"
        "               derivative too, N runs each after a warm-up; print the medians\n"
        "               (ms) and the values as JSON\n"
        "  --help       this text\n";
}

std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      usage(std::cout);
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::cerr << "ising_trg: " << flag << (flag.rfind("--", 0) == 0 ? " needs a value\n" : ": unknown argument\n");
      return std::nullopt;
    }
    std::string value = argv[++i];
    try {
      std::size_t used = 0;
      auto whole = [&](std::size_t n) {
        if (n != value.size()) throw std::invalid_argument(value);
      };
      if (flag == "--chi") o.trg.chi = std::stoll(value, &used), whole(used);
      else if (flag == "--steps") o.trg.steps = std::stoi(value, &used), whole(used);
      else if (flag == "--points") o.points = std::stoi(value, &used), whole(used);
      else if (flag == "--tmin") o.tmin = std::stod(value, &used), whole(used);
      else if (flag == "--tmax") o.tmax = std::stod(value, &used), whole(used);
      else if (flag == "--time") o.time_repeats = std::stoi(value, &used), whole(used);
      else if (flag == "--csv") o.csv = value;
      else if (flag == "--plot") o.plot = value;
      else {
        std::cerr << "ising_trg: unknown flag " << flag << "\n";
        return std::nullopt;
      }
    } catch (const std::exception&) {
      std::cerr << "ising_trg: bad value '" << value << "' for " << flag << "\n";
      return std::nullopt;
    }
  }
  if (o.trg.chi < 2 || o.trg.steps < 1 || o.points < 1 || !(o.tmin > 0) || !(o.tmax >= o.tmin) ||
      o.time_repeats < 0) {
    std::cerr << "ising_trg: need chi >= 2, steps >= 1, points >= 1, 0 < tmin <= tmax, time >= 0\n";
    return std::nullopt;
  }
  return o;
}

void progress(int done, int total) {
  if (!isatty(STDERR_FILENO)) return;
  const int width = 40, filled = width * done / total;
  std::fprintf(stderr, "\r[%s%s] %d/%d", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
               done, total);
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 16, "");
  std::fflush(stderr);
}

struct Row {
  double t, log_z, energy, heat, log_z_exact, energy_exact;
};

// Specific heat of the exact solution, C = -beta^2 dE/dbeta, by a central difference.
double heat_exact(double beta) {
  const double h = 1e-5;
  return -beta * beta * (ising::energy_exact(beta + h) - ising::energy_exact(beta - h)) / (2 * h);
}

bool write_plot(const std::vector<Row>& rows, const Options& o) {
  const std::string data = o.plot + ".dat", exact = o.plot + ".exact.dat", script = o.plot + ".gp";
  {
    std::ofstream d(data), e(exact), g(script);
    for (const Row& r : rows) d << r.t << " " << r.energy << " " << r.heat << "\n";
    const double lo = o.tmin - 0.05 * (o.tmax - o.tmin + 1), hi = o.tmax + 0.05 * (o.tmax - o.tmin + 1);
    for (int i = 0; i <= 400; ++i) {
      double t = lo + (hi - lo) * i / 400.0;
      e << t << " " << ising::energy_exact(1 / t) << " " << heat_exact(1 / t) << "\n";
    }
    g << "set terminal pngcairo size 1000,420\nset output '" << o.plot << "'\n"
      << "set multiplot layout 1,2 title 'TRG (chi = " << o.trg.chi << ") vs Onsager'\n"
      << "set xlabel 'T'\nset key left top\nset arrow from " << ising::critical_temperature()
      << ", graph 0 to " << ising::critical_temperature() << ", graph 1 nohead dt 2\n"
      << "set ylabel 'E'\nplot '" << exact << "' u 1:2 w l lw 2 t 'exact', '" << data
      << "' u 1:2 w p pt 7 t 'TRG + AD'\n"
      << "set ylabel 'C'\nset yrange [0:*]\nplot '" << exact << "' u 1:3 w l lw 2 t 'exact', '" << data
      << "' u 1:3 w p pt 7 t 'TRG + HVP'\nunset multiplot\n";
  }
  const std::string cmd = "gnuplot '" + script + "'";
  if (std::system(cmd.c_str()) != 0) {
    std::cerr << "ising_trg: gnuplot failed or is missing (the data is in " << data << ")\n";
    return false;
  }
  std::remove(data.c_str());
  std::remove(exact.c_str());
  std::remove(script.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tenferro;
  std::optional<Options> parsed = parse(argc, argv);
  if (!parsed) {
    usage(std::cerr);
    return 2;
  }
  const Options& o = *parsed;
  using clock = std::chrono::steady_clock;

  // Trace ln Z / N as a function of beta, and its first and second derivatives.
  auto t0 = clock::now();
  TracedTensor beta = TracedTensor::input("beta", DType::f64, {});
  TracedTensor log_z = ising::log_z_per_site(beta, o.trg);
  TracedTensor dlog_z = grad(log_z, beta);
  GraphCompiler compiler;
  CpuBackend backend;
  Runtime runtime = Runtime::builder()
                        .register_engine(cpu_engine(backend))
                        .register_family(linalg::family())
                        .build();
  auto beta_value = [](double t) { return Tensor::from_vec_col_major<double>({}, {1.0 / t}); };

  TracedTensor d2log_z = jvp(dlog_z, beta, TracedTensor::from_vec_col_major<double>({}, {1.0}));
  if (o.time_repeats > 0) {
    // One temperature: ln Z with its gradient, and with the second derivative
    // too (forward over reverse); compiling is not timed.
    auto median_ms = [&](const Program& program, std::vector<Tensor>& out) {
      out = runtime.run_compiled(program, {{"beta", beta_value(o.tmin)}});  // warm-up
      std::vector<double> ms;
      for (int i = 0; i < o.time_repeats; ++i) {
        auto s = clock::now();
        out = runtime.run_compiled(program, {{"beta", beta_value(o.tmin)}});
        ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - s).count());
      }
      std::sort(ms.begin(), ms.end());
      return ms[ms.size() / 2];
    };
    std::vector<Tensor> g, h;
    const double grad_ms = median_ms(compiler.compile({log_z, dlog_z}), g);
    const double hvp_ms = median_ms(compiler.compile({log_z, dlog_z, d2log_z}), h);
    const double b = 1.0 / o.tmin;
    std::printf("{\"chi\": %lld, \"steps\": %d, \"T\": %.17g, \"grad_ms\": %.6g, \"hvp_ms\": %.6g, "
                "\"lnZ\": %.17g, \"E\": %.17g, \"C\": %.17g, \"lnZ_exact\": %.17g, \"E_exact\": %.17g, "
                "\"C_exact\": %.17g}\n",
                static_cast<long long>(o.trg.chi), o.trg.steps, o.tmin, grad_ms, hvp_ms,
                h[0].item().to<double>(), -h[1].item().to<double>(), b * b * h[2].item().to<double>(),
                ising::log_z_exact(b), ising::energy_exact(b), heat_exact(b));
    return 0;
  }

  Program program = compiler.compile({log_z, dlog_z, d2log_z});
  const double compile_s = std::chrono::duration<double>(clock::now() - t0).count();

  std::vector<Row> rows;
  auto t1 = clock::now();
  progress(0, o.points);
  for (int i = 0; i < o.points; ++i) {
    const double t = o.points == 1 ? o.tmin : o.tmin + (o.tmax - o.tmin) * i / (o.points - 1);
    const double b = 1.0 / t;
    std::vector<Tensor> out = runtime.run_compiled(program, {{"beta", beta_value(t)}});
    const double lz = out[0].item().to<double>(), d1 = out[1].item().to<double>(), d2 = out[2].item().to<double>();
    rows.push_back({t, lz, -d1, b * b * d2, ising::log_z_exact(b), ising::energy_exact(b)});
    progress(i + 1, o.points);
  }
  const double sweep_s = std::chrono::duration<double>(clock::now() - t1).count();

  std::printf("# TRG, chi = %lld, %d steps (2^%d sites); Tc = %.6f\n", static_cast<long long>(o.trg.chi),
              o.trg.steps, o.trg.steps, ising::critical_temperature());
  std::printf("%8s %14s %14s %12s %11s %11s\n", "T", "lnZ/N", "E", "C", "rel.err lnZ", "rel.err E");
  for (const Row& r : rows)
    std::printf("%8.4f %14.10f %14.10f %12.6f %11.2e %11.2e\n", r.t, r.log_z, r.energy, r.heat,
                std::abs(r.log_z - r.log_z_exact) / std::abs(r.log_z_exact),
                std::abs(r.energy - r.energy_exact) / std::abs(r.energy_exact));
  auto peak = std::max_element(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.heat < b.heat; });
  std::printf("# specific-heat peak at T = %.4f (Tc = %.4f); compile %.2f s, sweep %.2f s (%.3f s per point)\n",
              peak->t, ising::critical_temperature(), compile_s, sweep_s, sweep_s / o.points);

  if (!o.csv.empty()) {
    std::ofstream f(o.csv);
    f.precision(15);
    f << "T,lnZ,E,C,lnZ_exact,E_exact\n";
    for (const Row& r : rows)
      f << r.t << "," << r.log_z << "," << r.energy << "," << r.heat << "," << r.log_z_exact << ","
        << r.energy_exact << "\n";
    if (!f) {
      std::cerr << "ising_trg: cannot write " << o.csv << "\n";
      return 1;
    }
  }
  if (!o.plot.empty() && !write_plot(rows, o)) return 1;
  return 0;
}

#!/usr/bin/env python3
"""The peer benchmark report: runs tenferro's C++ drivers and the peers
(PyTorch, JAX, NumPy) at 1 and 2 threads on the same inputs, and writes
bench/results/REPORT.md with PNG charts of the ratios.

    python3 bench/peer/report.py [--build build-bench] [--budget S] [--cap S] [--quick]
    python3 bench/peer/report.py --sections jvp_vjp --threads 1 --results /tmp/ad-report   # one section

Normally run by `bash scripts/bench.sh` (which sets up the peers and
builds the drivers first). Runs under Debian's /usr/bin/python3 (torch,
numpy, matplotlib); jax runs under .venv-peers/bin/python.

Ratios are best_peer_time / tenferro_time: above 1 tenferro is faster.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RESULTS = os.path.join(ROOT, "bench", "results")
TORCH_PY = "/usr/bin/python3"
JAX_PY = os.path.join(ROOT, ".venv-peers", "bin", "python")
PEERS = os.path.join(HERE, "peers.py")
TRG_PEERS = os.path.join(ROOT, "bench", "trg", "peers_trg.py")
TRG_CHI, TRG_STEPS, TRG_T, TRG_REPEATS = 16, 24, 1.9, 5  # the flagship's defaults, its lowest temperature
JAX_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
PERM_REPETITIONS = 3  # bench_core repetitions per round, in random order (the permutation section)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def thread_env(t):
    env = dict(os.environ, OMP_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t),
               TENFERRO_NUM_THREADS=str(t), JAX_PLATFORMS="cpu")
    if t == 1:
        env["XLA_FLAGS"] = JAX_ONE_THREAD
    else:
        env.pop("XLA_FLAGS", None)  # XLA's default: one thread per core (2 here)
    return env


def pinned_cpus(t):
    """The first t CPUs this process may run on: every process of the t-thread
    section is confined to them (XLA's thread flags alone do not hold JAX to
    one core)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < t:
        sys.exit(f"report.py: {t} threads need {t} CPUs, this process may use {cpus}")
    return set(cpus[:t])


def run_json(cmd, env, out, threads):
    t0 = time.time()
    cpus = pinned_cpus(threads)
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=None, text=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    if res.returncode != 0 or not os.path.exists(out):
        log(f"FAILED ({res.returncode}): {' '.join(cmd)}")
        return None
    log(f"  done in {time.time() - t0:.0f} s: {os.path.basename(out)}")
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def run_stdout_json(cmd, env, threads):
    """A command that prints one JSON object (examples/ising_trg --time)."""
    cpus = pinned_cpus(threads)
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=None, text=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    if res.returncode != 0:
        log(f"FAILED ({res.returncode}): {' '.join(cmd)}")
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def keep_best(into, results, rnd):
    """Merges one round's {case: entry} into `into`: a case keeps the entry
    with the lowest median (an entry with a time beats a timeout or an
    error), and "rounds" lists every round's median (None: no time)."""
    for k, e in (results or {}).items():
        old = into.get(k)
        times = (old or {}).get("rounds", [None] * rnd) + [ms_of(e)]
        if old is None or (ms_of(e) is not None and (ms_of(old) is None or ms_of(e) < ms_of(old))):
            old = dict(e)
        old["rounds"] = times
        into[k] = old
    return into


def round_order(items, rnd):
    """Round 0 runs the frameworks in the given order, round 1 in reverse, and
    so on, so that no framework always runs first or last."""
    return list(items) if rnd % 2 == 0 else list(reversed(items))


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


# ---- collection ----------------------------------------------------------------------------

def collect(args, tmp):
    data = {"einsum": {}, "linalg": {}, "linalg_ad": {}, "jvp_vjp": {}, "perm": {}, "trg": {}, "versions": {},
            "paths": {}}
    exe = os.path.join(args.build, "bench", "peer", "bench_peer")
    exe_ad = os.path.join(args.build, "bench", "peer", "bench_peer_ad")
    core = os.path.join(args.build, "bench", "core", "bench_core")
    paths = os.path.join(tmp, "ours_paths.json")
    if os.path.exists(paths):
        os.remove(paths)
    rule = [f"--budget={args.budget}", f"--cap={args.cap}"]
    prule = ["--budget", str(args.budget), "--cap", str(args.cap)]
    lrule = [f"--budget={args.linalg_budget}", f"--cap={args.cap}"]
    lprule = ["--budget", str(args.linalg_budget), "--cap", str(args.cap)]
    filt = [f"--filter={args.filter}"] if args.filter else []
    pfilt = ["--filter", args.filter] if args.filter else []
    for t in args.threads:
        env = thread_env(t)
        # einsum (paths are planned once, at the first thread count, and reused)
        if "einsum" in args.sections:
            d = data["einsum"].setdefault(t, {})
            for rnd in range(args.rounds):
                log(f"== einsum, {t} thread(s), round {rnd + 1} of {args.rounds}")
                fws = [("tenferro", None), ("torch", TORCH_PY), ("jax", JAX_PY), ("numpy", TORCH_PY)]
                if not os.path.exists(paths):  # our paths are planned by the first tenferro run
                    fws = fws[:1] + round_order(fws[1:], rnd)
                else:
                    fws = round_order(fws, rnd)
                for fw, py in fws:
                    o = os.path.join(tmp, f"einsum_{fw}_{t}_{rnd}.json")
                    if fw == "tenferro":
                        r = run_json([exe, "--mode=einsum", f"--threads={t}", f"--paths={paths}", f"--out={o}"]
                                     + rule + filt, env, o, t)
                        if r and "blas" in r:
                            data["versions"]["tenferro"] = {"blas": r["blas"]}
                        if os.path.exists(paths):
                            with open(paths, encoding="utf-8") as f:
                                data["paths"] = json.load(f)
                    elif not os.path.exists(paths):
                        continue  # no paths: tenferro's planning failed
                    else:
                        r = run_json([py, PEERS, "--framework", fw, "--mode", "einsum", "--threads", str(t),
                                      "--paths", paths, "--out", o] + prule + pfilt, env, o, t)
                        if r:
                            data["versions"][fw] = r["versions"]
                    keep_best(d.setdefault(fw, {}), r["results"] if r else {}, rnd)
        # linalg primal and AD
        for mode in ("linalg", "linalg_ad", "jvp_vjp"):
            if mode not in args.sections:
                continue
            d = data[mode].setdefault(t, {})
            binary = exe if mode == "linalg" else exe_ad
            for rnd in range(args.short_rounds):
                log(f"== {mode}, {t} thread(s), round {rnd + 1} of {args.short_rounds}")
                for fw, py in round_order((("tenferro", None), ("torch", TORCH_PY), ("jax", JAX_PY)), rnd):
                    o = os.path.join(tmp, f"{mode}_{fw}_{t}_{rnd}.json")
                    if fw == "tenferro":
                        cmd = [binary, f"--threads={t}", f"--out={o}"] + lrule
                        if mode in ("linalg", "jvp_vjp"):
                            cmd.insert(1, f"--mode={mode}")
                        r = run_json(cmd, env, o, t)
                        if r and "blas" in r:
                            data["versions"]["tenferro"] = {"blas": r["blas"]}
                    else:
                        r = run_json([py, PEERS, "--framework", fw, "--mode", mode, "--threads", str(t),
                                      "--out", o] + lprule, env, o, t)
                        if r:
                            data["versions"][fw] = r["versions"]
                    keep_best(d.setdefault(fw, {}), r["results"] if r else {}, rnd)
        # permutation vs memcpy (bench_core, Google Benchmark)
        if "perm" in args.sections:
            perm = data["perm"].setdefault(t, {})
            base = "memcpy" if t == 1 else "memcpy_threads"
            for rnd in range(args.short_rounds):
                log(f"== permutation, {t} thread(s), round {rnd + 1} of {args.short_rounds}")
                o = os.path.join(tmp, f"perm_{t}_{rnd}.json")
                # Repetitions in random order (Google Benchmark's random interleaving): the machine's
                # bandwidth drifts within a run, and a baseline measured in one fast spell that ours
                # never saw made a ratio of 0.73 in one report where re-runs gave 1.0-1.5.
                r = run_json([core, f"--benchmark_filter=^(permute|{base})/",
                              f"--benchmark_min_time={args.perm_min_time}", f"--benchmark_out={o}",
                              f"--benchmark_repetitions={PERM_REPETITIONS}",
                              "--benchmark_enable_random_interleaving=true",
                              "--benchmark_out_format=json"], env, o, t)
                for b in (r or {}).get("benchmarks", []):
                    if b.get("run_type") == "aggregate":
                        continue
                    kind, pid = b["run_name"].replace("/real_time", "").split("/", 1)
                    gbs = b["bytes_per_second"] / 1e9
                    e = perm.setdefault(pid, {})
                    e[kind] = max(e.get(kind, 0.0), gbs)  # each side's best round
        # the flagship TRG: one temperature with gradient, and with the second derivative
        if "trg" in args.sections and t == args.threads[0]:  # the first thread count: one temperature point
            log(f"== trg, {t} thread(s)")
            d = data["trg"].setdefault(t, {})
            trg = ["--chi", str(TRG_CHI), "--steps", str(TRG_STEPS)]
            out = run_stdout_json([os.path.join(args.build, "examples", "ising_trg"), "--tmin", str(TRG_T),
                                   "--time", str(TRG_REPEATS)] + trg, env, t)
            d["tenferro"] = out
            for fw, py in (("torch", TORCH_PY), ("jax", JAX_PY)):
                o = os.path.join(tmp, f"trg_{fw}_{t}.json")
                d[fw] = run_json([py, TRG_PEERS, "--framework", fw, "--temperature", str(TRG_T), "--repeats",
                                  str(TRG_REPEATS), "--out", o] + trg, env, o, t)
    return data


# ---- formatting ------------------------------------------------------------------------------

def ms_of(entry):
    if not entry or "ms" not in entry:
        return None
    return entry["ms"]


def fmt_ms(entry):
    if entry is None:
        return "-"
    if "timeout_s" in entry:
        return f"> {entry['timeout_s']:.0f} s" + (" (not run)" if entry.get("not_run") else "")
    if "error" in entry:
        return "error"
    v = entry["ms"]
    return f"{v:.3f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"


class LowerBound(float):
    """A ratio known only from below (every peer timed out)."""


def fmt_ratio(r):
    return "-" if r is None else (f"> {float(r):.2f}" if isinstance(r, LowerBound) else f"{r:.2f}")


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ratio_rows(section, peers):
    """{t: [(key, ours_entry, {peer: entry}, best_peer_name, ratio)]}."""
    out = {}
    for t, d in section.items():
        ours = d.get("tenferro")
        keys = list(ours.keys()) if ours else sorted(set().union(*[set(d.get(p) or {}) for p in peers]))
        rows = []
        for k in keys:
            o = (ours or {}).get(k)
            pe = {p: (d.get(p) or {}).get(k) for p in peers}
            times = {p: ms_of(e) for p, e in pe.items() if ms_of(e) is not None}
            best = min(times, key=times.get) if times else None
            r = times[best] / ms_of(o) if best and ms_of(o) else None
            if best is None and ms_of(o):
                caps = [e["timeout_s"] for e in pe.values() if e and "timeout_s" in e]
                if caps:  # every peer timed out: a lower bound
                    r = LowerBound(1e3 * min(caps) / ms_of(o))
            rows.append((k, o, pe, best, r))
        out[t] = rows
    return out


def table(rows, peers, pending=False):
    lines = ["| case | tenferro ms | " + " | ".join(f"{p} ms" for p in peers) + " | best peer | ratio |",
             "|---|---:|" + "---:|" * len(peers) + "---|---:|"]
    for k, o, pe, best, r in rows:
        ours = "pending" if pending else fmt_ms(o)
        lines.append(f"| {k} | {ours} | " + " | ".join(fmt_ms(pe[p]) for p in peers) +
                     f" | {best or '-'} | {fmt_ratio(r)} |")
    return "\n".join(lines)


def chart(name, title, series, ylabel="best peer time / tenferro time"):
    """series: {t: [(label, ratio)]}; horizontal grouped bars, log x axis."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing: no charts")
        return None
    labels = []
    for t in series:
        for lab, _ in series[t]:
            if lab not in labels:
                labels.append(lab)
    if not labels:
        return None
    h = max(3.0, 0.28 * len(labels) * len(series) / 1.6 + 1.5)
    fig, ax = plt.subplots(figsize=(9, h))
    width = 0.8 / len(series)
    colors = {1: "#4c72b0", 2: "#dd8452"}
    for i, (t, vals) in enumerate(series.items()):
        d = dict(vals)
        ys = [j + i * width for j in range(len(labels))]
        xs = [d.get(lab) or float("nan") for lab in labels]
        ax.barh(ys, xs, height=width, label=f"{t} thread{'s' if t > 1 else ''}", color=colors.get(t))
    ax.set_yticks([j + width * (len(series) - 1) / 2 for j in range(len(labels))])
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    from matplotlib.ticker import FormatStrFormatter
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(FormatStrFormatter("%g"))
    ax.tick_params(axis="x", which="minor", labelsize=6)
    ax.axvline(1.0, color="black", lw=1)
    ax.set_xlabel(ylabel + " (log; >1: tenferro faster)")
    ax.set_title(title)
    ax.legend(loc="best")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(RESULTS, f"{name}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return os.path.basename(path)


def machine_info():
    model = sh("lscpu | sed -n 's/^Model name:[ \\t]*//p'")
    cpus = sh("nproc")
    cores = sh("lscpu | sed -n 's/^Core(s) per socket:[ \\t]*//p'")
    mem = sh("free -g | awk '/^Mem:/{print $2}'")
    return model, cpus, cores, mem


def write_report(data, args, started, load_start, load_end, elapsed):
    os.makedirs(RESULTS, exist_ok=True)
    vt, vj, vn = (data["versions"].get(fw, {}) for fw in ("torch", "jax", "numpy"))
    model, cpus, cores, mem = machine_info()
    gxx = sh("g++ --version | head -1")
    openblas = sh("dpkg-query -W -f='${Version}' libopenblas0-openmp 2>/dev/null") or "?"
    L = []
    L.append("# tenferro peer benchmark report\n")
    L.append("Generated by `bash scripts/bench.sh` (bench/peer/report.py); regenerated, never hand-edited.\n")
    L.append(f"- date: {started} UTC, total run time {elapsed / 60:.1f} min")
    L.append(f"- machine: {model}, {cpus} CPUs ({cores} cores per socket), {mem} GiB RAM, {platform.system()} "
             f"{platform.release()}")
    L.append(f"- load average (1/5/15 min) at start: {load_start}; at end: {load_end} "
             "(the machine is shared: other jobs inflate and scatter timings)")
    L.append(f"- versions: {gxx}; OpenBLAS {openblas} (Debian, OpenMP build, OPENBLAS_CORETYPE="
             f"{os.environ.get('OPENBLAS_CORETYPE', 'unset')}); "
             f"torch {vt.get('torch', '?')} (Debian, Python {vt.get('python', '?')}); "
             f"jax {vj.get('jax', '?')} / jaxlib {vj.get('jaxlib', '?')} (PyPI, venv Python {vj.get('python', '?')}, "
             f"numpy {vj.get('numpy', '?')}); numpy {vn.get('numpy') or vt.get('numpy', '?')} (Debian, the numpy "
             "peer)")
    blas = data["versions"].get("tenferro", {}).get("blas")
    if blas:
        L.append(f"- tenferro's BLAS, as tenferro::blas_info() reports it in bench_peer: {blas}")
    L.append(f"- threads: each thread count t in ({', '.join(map(str, args.threads))}) runs every framework with OMP_NUM_THREADS = "
             "OPENBLAS_NUM_THREADS = MKL_NUM_THREADS = t, tenferro::set_num_threads(t), torch.set_num_threads(t); "
             f"JAX at 1 thread: XLA_FLAGS=\"{JAX_ONE_THREAD}\", at 2 threads XLA's default (one per core, 2 here); "
             "every process of the t-thread section is pinned to t CPUs (sched_setaffinity, inherited by all its "
             "threads), tenferro's included")
    L.append(f"- timing: one warm-up call (JAX: after compiling, which is not timed); a warm-up of 2 s or more "
             f"is the measurement (one call); else calls until {args.budget} s (linalg: {args.linalg_budget} s) "
             "have passed and at least 3 calls were made (1 when the warm-up took over half the budget), at most "
             "200; the **median wall-clock time** in ms. A peer's warm-up is interrupted after "
             f"{args.cap:.0f} s (between library calls, e.g. between path steps): \"> {args.cap:.0f} s\", and "
             "that peer skips the instance's remaining paths (\"not run\"); where every peer timed out the "
             "ratio is a lower bound (\">\"). tenferro's times come from C++ drivers "
             "(bench/peer/bench_peer*.cpp), the peers' from bench/peer/peers.py, with the same rule. "
             f"**Rounds:** einsum runs {args.rounds} time(s) per thread count, linalg, linalg AD and "
             f"JVP/VJP {args.short_rounds} times (a round of each takes about a minute, and the machine's "
             "slow spells last minutes), the frameworks in "
             "alternating order (first round tenferro, torch, jax, numpy; the next in reverse), and each "
             "framework keeps its lowest median per case (raw.json lists every round's): on a shared machine a "
             "round that another job slowed is dropped for every framework alike.")
    L.append("- **ratio = best peer time / tenferro time: above 1 tenferro is faster.** Inputs are identical "
             "(the same generators on both sides), f64 throughout.\n")

    summary = []
    sections = []
    # ---- einsum
    if data["einsum"]:
        peers = ["torch", "jax", "numpy"]
        rows = ratio_rows(data["einsum"], peers)
        s = ["## Einsum\n",
             "Every instance of `tests/data/instances/` along the stored `opt_flops` and `opt_size` paths "
             "and our optimizer's path (annealing, effort 1; planned once, reused at both thread counts and by "
             "the peers). tenferro: `tenferro::einsum` with the path given (plan cached, execution timed). "
             "torch: one `torch.einsum` per path step (what opt_einsum's torch backend runs for that path). "
             "jax: `jnp.einsum(..., optimize=path)` under `jax.jit`. numpy: `np.einsum(optimize=['einsum_path', "
             "*path])` when the instance has at most 52 labels, else `np.einsum(optimize=True)` per path step.\n"]
        for t, rr in rows.items():
            s.append(f"### {t} thread{'s' if t > 1 else ''}\n")
            s.append(table(rr, peers) + "\n")
            summary.append(summary_row("einsum", t, rr))
        if data["paths"]:
            s.append("### Path costs: our optimizer against the stored paths\n")
            s.append("Objective: flops + 128 x elements read and written, what our optimizer minimises "
                     "(Note [Executor cost model] in include/tenferro/einsum/path.hpp).\n")
            s.append("| instance | ours log10 objective | opt_flops | opt_size | ours log10 flops | opt_flops | "
                     "opt_size | ours log2 largest | opt_flops | opt_size | planning s |")
            s.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

            def objective(c):
                return f"{c['log10_objective']:.3f}" if "log10_objective" in c else "-"
            for name, c in sorted(data["paths"].items()):
                s.append(f"| {name} | {objective(c['ours'])} | {objective(c['opt_flops'])} | "
                         f"{objective(c['opt_size'])} | {c['ours']['log10_flops']:.3f} | "
                         f"{c['opt_flops']['log10_flops']:.3f} | "
                         f"{c['opt_size']['log10_flops']:.3f} | {c['ours']['log2_size']:.2f} | "
                         f"{c['opt_flops']['log2_size']:.2f} | {c['opt_size']['log2_size']:.2f} | "
                         f"{c['planning_s']:.2f} |")
            s.append("")
        png = chart("einsum_ratios", "Einsum: best peer / tenferro",
                    {t: [(k, r) for k, _, _, _, r in rr] for t, rr in rows.items()})
        if png:
            s.append(f"![einsum ratios]({png})\n")
        sections.append("\n".join(s))
    # ---- linalg primal
    for mode, title, desc in (
            ("linalg", "Linalg (primal)",
             "f64, one 256x256 matrix and 64 batches of 16x16 (`x64`). Operands: general (svd, qr, lu, inv, "
             "det), symmetric (eigh), symmetric + n I (cholesky), a + n I with one right-hand side (solve). "
             "Reduced SVD and QR; lu returns P, L, U (jax: `jax.scipy.linalg.lu`). "
             "jax under `jax.jit`, torch eager."),
            ("linalg_ad", "Linalg AD",
             "Value and gradient of a scalar: sum of singular values (svd), sum of eigenvalues (eigh), "
             "sum(solve(a, b)) with one right-hand side, sum(cholesky(a)), same operands as the primal table. "
             "tenferro: `TracedTensor` through `tenferro/linalg/traced.hpp`, `grad`, compiled once, "
             "the compiled program (value and gradient) timed; torch: eager `torch.autograd.grad`; jax: "
             "`jax.jit(jax.value_and_grad(f))`."),
            ("jvp_vjp", "AD: JVP and VJP",
             "f64, one n x n matrix, n = 4, 64, 256, 512. Scalar objectives: sum of singular values (svd), "
             "sum(q) + sum(r) (reduced qr), sum of eigenvalues (eigh, symmetric operand), sum(l) + sum(u) (lu "
             "with partial pivoting), sum(solve(a, b)) (a + n I, one right-hand side), sum of the lstsq "
             "solution (tall 2n x n, one right-hand side). `jvp_`: value and directional derivative along a "
             "fixed tangent; `vjp_`: value and the vector-Jacobian product with cotangent 1. tenferro: "
             "`TracedTensor`, `jvp` / `vjp`, compiled once, `run_compiled` timed (bench_peer_ad "
             "--mode=jvp_vjp); torch: `torch.func.jvp` / `torch.func.vjp` (`functorch` on torch 1.x), "
             "eager; jax: `jax.jit` of `jax.jvp` / `jax.vjp` (compilation not timed). torch and jax "
             "differentiate `svdvals` / `eigvalsh` (jax: `svd(compute_uv=False)`), tenferro the full "
             "decomposition.")):
        if not data[mode]:
            continue
        peers = ["torch", "jax"]
        rows = ratio_rows(data[mode], peers)
        pending = all(d.get("tenferro") is None for d in data[mode].values())
        s = [f"## {title}\n", desc + "\n"]
        if pending:
            s.append("**tenferro: pending** — the AD driver (bench/peer/bench_peer_ad.cpp) needs "
                     "`include/tenferro/linalg/traced.hpp`, which was not available to this build; "
                     "the peers' times are shown.\n")
        for t, rr in rows.items():
            s.append(f"### {t} thread{'s' if t > 1 else ''}\n")
            s.append(table(rr, peers, pending) + "\n")
            summary.append(summary_row(mode, t, rr, pending))
        if not pending:
            png = chart(f"{mode}_ratios", f"{title}: best peer / tenferro",
                        {t: [(k, r) for k, _, _, _, r in rr] for t, rr in rows.items()})
            if png:
                s.append(f"![{mode} ratios]({png})\n")
        sections.append("\n".join(s))
    # ---- permutation
    if data["perm"]:
        s = ["## Permutation vs memcpy\n",
             "`bench/core/bench_core` (Google Benchmark, mean over its adaptive iteration count, "
             f"min time {args.perm_min_time} s): permuting each pattern of "
             "`permutation_patterns.json` (f64) against memcpy of the same bytes between two tensors' buffers, so both "
             "sides use the same memory (2 MiB-aligned, on transparent huge pages) (1 thread: `memcpy`; 2 threads: "
             "memcpy split over 2 OpenMP threads). Ratio = our bandwidth / memcpy's (time of memcpy / ours). "
             f"bench_core runs {args.short_rounds} time(s) per thread count, each time {PERM_REPETITIONS} repetitions of "
             "every benchmark in random order (`--benchmark_enable_random_interleaving`), so that memcpy and the "
             "permutations sample the same spells of the machine; each side keeps its best repetition.\n"]
        series = {}
        for t, perm in data["perm"].items():
            base = "memcpy" if t == 1 else "memcpy_threads"
            s.append(f"### {t} thread{'s' if t > 1 else ''}\n")
            s.append(f"| pattern | tenferro GB/s | {base} GB/s | ratio |")
            s.append("|---|---:|---:|---:|")
            rr = []
            for pid, d in perm.items():
                ours, m = d.get("permute"), d.get(base)
                r = ours / m if ours and m else None
                rr.append((pid, r))
                s.append(f"| {pid} | {ours or 0:.2f} | {m or 0:.2f} | {fmt_ratio(r)} |")
            s.append("")
            series[t] = rr
            rs = [r for _, r in rr if r is not None]
            summary.append(("permutation vs memcpy", t, len(rr), geomean(rs), min(rs) if rs else None,
                            sum(1 for r in rs if r >= 1)))
        png = chart("permutation_ratios", "Permutation: memcpy time / tenferro time", series,
                    "memcpy time / tenferro time")
        if png:
            s.append(f"![permutation ratios]({png})\n")
        sections.append("\n".join(s))
    # ---- TRG
    s = ["## TRG\n"]
    if data.get("trg"):
        s.append(f"The flagship example (examples/ising_trg: chi = {TRG_CHI}, {TRG_STEPS} steps, one temperature "
                 f"T = {TRG_T}), at the first thread count only: ln Z / N with its gradient (\"grad\"), and also with its second derivative "
                 "(\"HVP\", forward over reverse). tenferro: the compiled program (`ising_trg --time "
                 f"{TRG_REPEATS}`); torch: eager autograd with torch.linalg.svd and the rank chosen per step "
                 "(double backward for the second derivative); jax: jax.jit of value_and_grad and of jvp of grad, "
                 "with the per-step ranks fixed to the ones the eager rule picks at this temperature (JAX needs "
                 "static shapes). Median of "
                 f"{TRG_REPEATS} calls after a warm-up (JAX: after compiling). E = -d lnZ/d beta and "
                 "C = beta^2 d2 lnZ/d beta2 are each framework's own derivatives (\"nan\": its SVD derivative "
                 "broke down).\n")
        s.append("| threads | derivative | tenferro ms | torch ms | jax ms | best peer | ratio |")
        s.append("|---:|---|---:|---:|---:|---|---:|")
        vals = []
        for t in sorted(data["trg"]):
            row = data["trg"][t]
            for key, label in (("grad_ms", "grad"), ("hvp_ms", "HVP")):
                ours = (row.get("tenferro") or {}).get(key)
                peers = {fw: (row.get(fw) or {}).get(key) for fw in ("torch", "jax")}
                peers = {k: v for k, v in peers.items() if v is not None}
                best = min(peers, key=peers.get) if peers else None
                r = peers[best] / ours if best and ours else None
                f1 = lambda x: "-" if x is None else f"{x:.1f}"
                s.append(f"| {t} | {label} | {f1(ours)} | {f1(peers.get('torch'))} | {f1(peers.get('jax'))} | "
                         f"{best or '-'} | {fmt_ratio(r)} |")
                summary.append((f"TRG ({label})", t, 1, r, r, int(r is not None and r >= 1)))
            if t == min(data["trg"]):
                for fw in ("tenferro", "torch", "jax"):
                    v = row.get(fw) or {}
                    g = lambda k: "nan" if v.get(k) is None else f"{v[k]:.12g}"
                    vals.append(f"| {fw} | {g('lnZ')} | {g('E')} | {g('C')} |")
        s.append("\nValues (the exact row: Onsager's solution of the infinite lattice, which the TRG "
                 "approximates):\n")
        s.append("| framework | ln Z / N | E | C |")
        s.append("|---|---:|---:|---:|")
        s.extend(vals)
        ex = (data["trg"][min(data["trg"])].get("tenferro") or {})
        if ex.get("lnZ_exact") is not None:
            s.append(f"| exact | {ex['lnZ_exact']:.12g} | {ex['E_exact']:.12g} | {ex['C_exact']:.12g} |")
    else:
        s.append("not measured (run with `--sections` including `trg`).")
    s.append("")
    sections.append("\n".join(s))

    L.append("## Summary\n")
    L.append("| section | threads | cases | geomean ratio | min ratio | cases with ratio >= 1 |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for name, t, n, g, mn, fast in summary:
        if g is None and mn is None:
            L.append(f"| {name} | {t} | {n} | pending | pending | - |")
        else:
            L.append(f"| {name} | {t} | {n} | {fmt_ratio(g)} | {fmt_ratio(mn)} | {fast} |")
    L.append("")
    L.extend(sections)
    with open(os.path.join(RESULTS, "REPORT.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(L))
    log(f"wrote {os.path.join(RESULTS, 'REPORT.md')}")


def summary_row(name, t, rows, pending=False):
    if pending:
        return (name, t, len(rows), None, None, 0)
    rs = [r for _, _, _, _, r in rows if r is not None]
    return (name, t, len(rows), geomean(rs), min(rs) if rs else None, sum(1 for r in rs if r >= 1))


def main():
    global RESULTS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--budget", type=float, default=0.3, help="seconds of timed calls per case")
    ap.add_argument("--linalg-budget", type=float, default=0.5, help="the same for linalg cases")
    ap.add_argument("--cap", type=float, default=8.0, help="interrupt a peer's warm-up after this many seconds")
    ap.add_argument("--perm-min-time", default="0.2")
    ap.add_argument("--rounds", type=int, default=2,
                    help="runs of every section per thread count, frameworks in alternating order; each case "
                         "keeps each framework's best round")
    ap.add_argument("--short-rounds", type=int, default=4,
                    help="the same for the sections of about a minute a round (linalg, linalg_ad, jvp_vjp, "
                         "permutation)")
    ap.add_argument("--sections", default="einsum,linalg,linalg_ad,jvp_vjp,perm,trg")
    ap.add_argument("--threads", default="1,2", help="thread counts, e.g. 1 or 1,2")
    ap.add_argument("--results", default=RESULTS,
                    help="folder of REPORT.md, raw.json and the charts (another one for a partial run)")
    ap.add_argument("--filter", default="", help="substring of the einsum instance names (for trials)")
    ap.add_argument("--tmp", default=os.path.join(ROOT, "build-bench", "peer-report"))
    ap.add_argument("--from-raw", default="", help="rewrite the report from a raw.json of an earlier run")
    args = ap.parse_args()
    RESULTS = os.path.abspath(args.results)
    args.threads = [int(t) for t in args.threads.split(",")]
    if args.from_raw:
        with open(args.from_raw, encoding="utf-8") as f:
            data = json.load(f)
        for sec in ("einsum", "linalg", "linalg_ad", "jvp_vjp", "perm", "trg"):
            data[sec] = {int(t): d for t, d in data.get(sec, {}).items()}
        m = data.pop("meta")
        for k in ("budget", "linalg_budget", "cap", "perm_min_time"):
            setattr(args, k, m[k])
        args.rounds = m.get("rounds", 1)
        args.short_rounds = m.get("short_rounds", args.rounds)
        write_report(data, args, m["started"], m["load_start"], m["load_end"], m["elapsed"])
        return
    args.sections = args.sections.split(",")
    args.build = os.path.abspath(args.build)
    os.makedirs(args.tmp, exist_ok=True)
    started = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    t0 = time.time()
    data = collect(args, args.tmp)
    load_end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    elapsed = time.time() - t0
    os.makedirs(RESULTS, exist_ok=True)
    meta = {"started": started, "load_start": load_start, "load_end": load_end, "elapsed": elapsed,
            "budget": args.budget, "linalg_budget": args.linalg_budget, "cap": args.cap,
            "perm_min_time": args.perm_min_time, "rounds": args.rounds,
            "short_rounds": args.short_rounds}
    with open(os.path.join(RESULTS, "raw.json"), "w", encoding="utf-8") as f:  # first: --from-raw can redo
        json.dump(dict(data, meta=meta), f, indent=1)
    write_report(data, args, started, load_start, load_end, elapsed)


if __name__ == "__main__":
    main()

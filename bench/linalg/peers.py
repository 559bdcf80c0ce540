#!/usr/bin/env python3
"""tenferro::linalg against PyTorch and JAX, side by side, one thread.

One command runs all three on identical inputs and prints a markdown table
of times and ratios:

    python3 bench/linalg/peers.py --build build-linalg [--filter REGEX] [--quick]

1. Runs <build>/bench/linalg/bench_linalg (Google Benchmark, JSON output).
2. Runs this script again as `--peer torch` under /usr/bin/python3 (Debian's
   torch) and as `--peer jax` under .venv-peers/bin/python, which rebuild
   every input with the same splitmix64 generator as bench_linalg.cpp and
   time the same calls (mean over a timed loop, after a warm-up call).
3. Repeats 1 and 2 for several rounds (--rounds, default 3) and keeps each
   framework's fastest round per case: on a shared machine the minimum is
   the estimate least disturbed by other load, and interleaving the rounds
   exposes all three to the same load.
4. Prints time per call (microseconds) and peer / tenferro ratios (> 1 means
   tenferro is faster), in process CPU time by default (--metric cpu: what
   each single-threaded process consumed, which other load on a shared
   machine disturbs far less than the wall clock) or wall-clock time
   (--metric wall).

Every process is limited to one thread: OMP_NUM_THREADS=1,
OPENBLAS_NUM_THREADS=1, MKL_NUM_THREADS=1, torch.set_num_threads(1),
XLA_FLAGS=--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1.
OPENBLAS_CORETYPE is left as the environment has it (never set here).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TORCH_PYTHON = "/usr/bin/python3"
JAX_PYTHON = os.path.join(ROOT, ".venv-peers", "bin", "python")

ONE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TENFERRO_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "JAX_PLATFORMS": "cpu",
}

# ---- the cases (must match bench_linalg.cpp) ------------------------------------

SMALL = [(n, b) for n in (2, 4, 8) for b in (16, 64)]
LARGE = [(n, 0) for n in (64, 128, 256, 512)]


def cases():
    """(name as Google Benchmark prints it, op, n, batch, nrhs)."""
    out = []
    for op in ("svd", "qr", "eigh"):
        for n, b in SMALL + LARGE:
            out.append((f"BM_{op}/n:{n}/batch:{b}", op, n, b, 0))
    for r in (1, 16, 64):
        for n, b in SMALL + LARGE:
            out.append((f"BM_solve/n:{n}/batch:{b}/rhs:{r}", "solve", n, b, r))
    for n, b in SMALL + LARGE:
        out.append((f"BM_matrix_exp/n:{n}/batch:{b}", "matrix_exp", n, b, 0))
    return out


# ---- inputs: splitmix64, as in bench_linalg.cpp --------------------------------------

def input_values(seed, count):
    import numpy as np
    with np.errstate(over="ignore"):
        k = np.arange(count, dtype=np.uint64)
        z = np.uint64(seed) * np.uint64(0x632BE59BD9B4E019) + (k + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 * 2.0 - 1.0


def tensor_input(seed, rows, cols, batch):
    """The column-major [rows, cols, batch] tensor as a (batch, rows, cols) array."""
    nb = max(batch, 1)
    v = input_values(seed, rows * cols * nb)
    a = v.reshape(nb, cols, rows).transpose(0, 2, 1).copy()  # element (i, j, b) = v[i + rows j + rows cols b]
    return a if batch > 0 else a[0]


def operands(op, n, batch, nrhs):
    import numpy as np
    a = tensor_input(1, n, n, batch)
    if op == "eigh":
        return [0.5 * (a + np.swapaxes(a, -1, -2))]
    if op == "solve":
        return [a + n * np.eye(n), tensor_input(2, n, nrhs, batch)]
    return [a]


# ---- peers -------------------------------------------------------------------------------

def time_call(fn, budget):
    """(wall, cpu) seconds per call: the fastest of 3 repetitions of a loop
    lasting ~budget / 3 seconds; cpu is the process time (all threads)."""
    fn()
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    iters = max(1, int(budget / 3 / once))
    wall, cpu = [], []
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(iters):
            fn()
        wall.append((time.perf_counter() - t0) / iters)
        cpu.append((time.process_time() - c0) / iters)
    return [min(wall), min(cpu)]


def run_torch(selected, budget):
    import torch
    torch.set_num_threads(1)
    funcs = {
        "svd": lambda a: torch.linalg.svd(a, full_matrices=False),
        "qr": lambda a: torch.linalg.qr(a),
        "eigh": lambda a: torch.linalg.eigh(a),
        "solve": lambda a, b: torch.linalg.solve(a, b),
        "matrix_exp": lambda a: torch.linalg.matrix_exp(a),
    }
    out = {}
    for name, op, n, batch, nrhs in selected:
        args = [torch.from_numpy(x) for x in operands(op, n, batch, nrhs)]
        f = funcs[op]
        out[name] = time_call(lambda: f(*args), budget)
    return out


def run_jax(selected, budget):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    funcs = {
        "svd": jax.jit(lambda a: jnp.linalg.svd(a, full_matrices=False)),
        "qr": jax.jit(lambda a: jnp.linalg.qr(a)),
        "eigh": jax.jit(lambda a: jnp.linalg.eigh(a)),
        "solve": jax.jit(lambda a, b: jnp.linalg.solve(a, b)),
        "matrix_exp": jax.jit(lambda a: jsl.expm(a)),
    }
    out = {}
    for name, op, n, batch, nrhs in selected:
        args = [jax.device_put(jnp.asarray(x)) for x in operands(op, n, batch, nrhs)]
        f = funcs[op]
        out[name] = time_call(lambda: jax.block_until_ready(f(*args)), budget)
    return out


# ---- driver ----------------------------------------------------------------------------------

def run_ours(build, pattern, min_time):
    exe = os.path.join(build, "bench", "linalg", "bench_linalg")
    cmd = [exe, "--benchmark_format=json", f"--benchmark_filter={pattern}",
           f"--benchmark_min_time={min_time}", "--benchmark_repetitions=3"]
    env = dict(os.environ, **ONE_THREAD_ENV)
    data = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
    out = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "iteration":
            unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
            t = [b["real_time"] * unit, b["cpu_time"] * unit]
            old = out.get(b["run_name"], t)
            out[b["run_name"]] = [min(t[0], old[0]), min(t[1], old[1])]
    return out


def run_peer(python, peer, pattern, budget):
    if not os.path.exists(python):
        print(f"# {peer}: {python} not found, skipped", file=sys.stderr)
        return {}
    cmd = [python, os.path.abspath(__file__), "--peer", peer, "--filter", pattern, "--budget", str(budget)]
    env = dict(os.environ, **ONE_THREAD_ENV)
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"# {peer} failed:\n{res.stderr}", file=sys.stderr)
        return {}
    return json.loads(res.stdout.strip().splitlines()[-1])


def fmt_us(t):
    return "-" if t is None else f"{t * 1e6:.1f}" if t < 1e-2 else f"{t * 1e6:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--filter", default=".", help="regex on the case name, e.g. 'svd|qr'")
    ap.add_argument("--quick", action="store_true", help="shorter timing loops")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the fastest is kept)")
    ap.add_argument("--metric", choices=["cpu", "wall"], default="cpu",
                    help="the table printed first (both are printed): process CPU time "
                         "(default; robust on a shared machine) or wall-clock time")
    ap.add_argument("--peer", choices=["torch", "jax"], help=argparse.SUPPRESS)
    ap.add_argument("--budget", type=float, default=0.5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    selected = [c for c in cases() if re.search(args.filter, c[0])]
    if args.peer:
        timings = (run_torch if args.peer == "torch" else run_jax)(selected, args.budget)
        print(json.dumps(timings))
        return
    budget = 0.15 if args.quick else 0.4
    pattern = "|".join("^" + re.escape(c[0]) + "$" for c in selected)
    ours, torch_t, jax_t = {}, {}, {}

    def keep_min(acc, new):
        for k, v in new.items():
            old = acc.get(k, v)
            acc[k] = [min(v[0], old[0]), min(v[1], old[1])]

    for r in range(args.rounds):
        print(f"# round {r + 1}/{args.rounds}", file=sys.stderr)
        keep_min(ours, run_ours(args.build, pattern, budget / 3))
        keep_min(torch_t, run_peer(TORCH_PYTHON, "torch", args.filter, budget))
        keep_min(jax_t, run_peer(JAX_PYTHON, "jax", args.filter, budget))
    metrics = {"cpu": 1, "wall": 0}
    order = [args.metric] + [m for m in metrics if m != args.metric]
    for metric in order:
        print_table(selected, ours, torch_t, jax_t, metrics[metric], args.rounds)
        print()


def print_table(selected, ours, torch_t, jax_t, col, rounds):
    pick = lambda d, k: d[k][col] if k in d else None
    print(f"Times per call in microseconds ({'wall-clock' if col == 0 else 'process CPU'} time, "
          f"fastest of {rounds} interleaved rounds), f64, one thread.\n")
    print("| case | tenferro (us) | PyTorch (us) | JAX (us) | PyTorch / tenferro | JAX / tenferro |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = None
    for name, op, n, batch, nrhs in selected:
        t = pick(ours, name)
        p, j = pick(torch_t, name), pick(jax_t, name)
        rp = p / t if t and p else None
        rj = j / t if t and j else None
        label = f"{op} {n}x{n}" + (f" x{batch}" if batch else "") + (f" rhs {nrhs}" if nrhs else "")
        print(f"| {label} | {fmt_us(t)} | {fmt_us(p)} | {fmt_us(j)} | "
              f"{'-' if rp is None else f'{rp:.2f}'} | {'-' if rj is None else f'{rj:.2f}'} |")
        peers = [r for r in (rp, rj) if r is not None]
        if peers and (worst is None or min(peers) < worst[0]):
            worst = (min(peers), label)
    if worst:
        print(f"\nSmallest peer/tenferro ratio: {worst[0]:.2f} ({worst[1]}); "
              "below 1 means the faster peer beats tenferro there.")


if __name__ == "__main__":
    main()

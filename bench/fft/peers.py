#!/usr/bin/python3
"""tenferro's FFT next to numpy.fft, scipy.fft and torch.fft, in one run.

    /usr/bin/python3 bench/fft/peers.py \
        --bench build-fft/bench/fft/bench_fft

Runs the Google Benchmark program bench_fft (steady state: plan cached;
first call: plan cache cleared before each call) and times the same
transforms in the peers on identical inputs (the hash values of
tests/fft/gen_reference.py, in the same column-major layout: Fortran-ordered
arrays, same logical axes), all on one thread. For each case, tenferro and
the peers run alternately `--repetitions` times (at least `--min-time`
seconds each) and the best is kept; times are CPU time per call (the
machine is shared, so wall-clock time mostly measures the other load; the
wall-clock ratio is printed too). Prints a markdown table; ratio = best peer
time / tenferro time (> 1: tenferro is faster). First calls are wall-clock.

Peers' "first" is the first call of the case in this process (NumPy 1.24
plans on every call; SciPy and torch keep small plan caches, which earlier
cases of the same length may have filled).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.fft  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
MASK = np.uint64(0xFFFFFFFF)


def values(count, seed=1):
    """Same generator as tests/fft/gen_reference.py and bench_fft.cpp."""
    j = np.arange(count, dtype=np.uint64)
    h = (j * np.uint64(2654435761) + np.uint64(seed) * np.uint64(40503) + np.uint64(12345)) & MASK
    h = ((h ^ (h >> np.uint64(13))) * np.uint64(1274126177)) & MASK
    return ((h % np.uint64(2001)).astype(np.int64) - 1000) / 1000.0


def make_input(shape, real, dtype):
    n = int(np.prod(shape))
    if real:
        flat = values(n).astype(dtype)
    else:
        v = values(2 * n)
        flat = (v[0::2] + 1j * v[1::2]).astype(np.complex64 if dtype == np.float32 else np.complex128)
    return flat.reshape(shape, order="F")


def cases():
    out = []
    for dname, dtype in (("f64", np.float64), ("f32", np.float32)):
        for real in (False, True):
            kind = ("r2c" if real else "c2c") + "/" + dname + "/"
            for n in (1024, 65536, 1048576, 59049, 1000003):
                out.append((kind + str(n), real, dtype, (n,), False))
            out.append((kind + "1024x1024", real, dtype, (1024, 1024), True))
            out.append((kind + "64x4096", real, dtype, (64, 4096), False))
    return out


def peer_calls(real, two_d, x):
    t = torch.from_numpy(x)  # same memory, same strides
    if two_d:
        if real:
            return {"numpy": lambda: np.fft.rfft2(x, axes=(0, 1)),
                    "scipy": lambda: scipy.fft.rfft2(x, axes=(0, 1)),
                    "torch": lambda: torch.fft.rfft2(t, dim=(0, 1))}
        return {"numpy": lambda: np.fft.fft2(x, axes=(0, 1)),
                "scipy": lambda: scipy.fft.fft2(x, axes=(0, 1)),
                "torch": lambda: torch.fft.fft2(t, dim=(0, 1))}
    if real:
        return {"numpy": lambda: np.fft.rfft(x, axis=0),
                "scipy": lambda: scipy.fft.rfft(x, axis=0),
                "torch": lambda: torch.fft.rfft(t, dim=0)}
    return {"numpy": lambda: np.fft.fft(x, axis=0),
            "scipy": lambda: scipy.fft.fft(x, axis=0),
            "torch": lambda: torch.fft.fft(t, dim=0)}


def time_call(f, min_time):
    """(cpu seconds, real seconds) per call, over at least min_time seconds."""
    k, start, cpu0 = 0, time.perf_counter(), time.process_time()
    while True:
        f()
        k += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            break
    return (time.process_time() - cpu0) / k, elapsed / k


def run_ours(bench, name, min_time):
    """(cpu, real) seconds of steady/<name> and first/<name> from one bench_fft run."""
    cmd = [bench, "--benchmark_format=json", f"--benchmark_min_time={min_time}",
           f"--benchmark_filter=^(steady|first)/{name}/"]
    data = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    out = {}
    for b in data["benchmarks"]:
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        out[b["name"].split("/")[0]] = (b["cpu_time"] * unit, b["real_time"] * unit)
    return out, data.get("context", {})


def fmt(sec):
    if sec < 1e-3:
        return f"{sec * 1e6:.1f} us"
    if sec < 1:
        return f"{sec * 1e3:.2f} ms"
    return f"{sec:.2f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="path of the bench_fft binary")
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--json-out", help="also write the raw times here")
    ap.add_argument("--filter", default="", help="only cases whose name matches this regex")
    args = ap.parse_args()

    rows, raw, context = [], {}, {}
    best = lambda a, b: b if a is None else (min(a[0], b[0]), min(a[1], b[1]))
    for name, real, dtype, shape, two_d in cases():
        if not re.search(args.filter, name):
            continue
        x = make_input(shape, real, dtype)
        calls = peer_calls(real, two_d, x)
        first = {}
        for peer, f in calls.items():  # first calls, before any timing of the case
            t0 = time.perf_counter()
            f()
            first[peer] = time.perf_counter() - t0
        mine = mine_first = None
        steady = {p: None for p in calls}
        for _ in range(args.repetitions):  # interleaved, best of the repetitions
            got, context = run_ours(args.bench, name, args.min_time)
            mine, mine_first = best(mine, got["steady"]), best(mine_first, got["first"])
            for peer, f in calls.items():
                steady[peer] = best(steady[peer], time_call(f, args.min_time))
        best_peer = min(steady, key=lambda p: steady[p][0])
        rows.append((name, mine, steady, best_peer, mine_first, first))
        raw[name] = {"tenferro": mine, "tenferro_first": mine_first, **steady,
                     **{p + "_first": v for p, v in first.items()}}
        print(f"{name}: tenferro {fmt(mine[0])}, {best_peer} {fmt(steady[best_peer][0])}",
              file=sys.stderr)

    print(f"tenferro FFT provider: {context.get('fft_provider', '?')}; numpy {np.__version__}, "
          f"scipy {scipy.__version__}, torch {torch.__version__}; 1 thread; CPU time per call, "
          f"best of {args.repetitions} interleaved runs of >= {args.min_time} s each")
    print("numpy < 2 computes f32 input in f64 (and returns complex128).\n")
    print("| case | tenferro | numpy | scipy | torch | best peer / tenferro (CPU) "
          "| same, wall clock | tenferro first call | numpy / scipy / torch first call |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, mine, steady, best_peer, mine_first, first in rows:
        ratio = steady[best_peer][0] / mine[0]
        wall = min(v[1] for v in steady.values()) / mine[1]
        print(f"| {name} | {fmt(mine[0])} | {fmt(steady['numpy'][0])} | {fmt(steady['scipy'][0])} | "
              f"{fmt(steady['torch'][0])} | **{ratio:.2f}** ({best_peer}) | {wall:.2f} | "
              f"{fmt(mine_first[1])} | "
              f"{fmt(first['numpy'])} / {fmt(first['scipy'])} / {fmt(first['torch'])} |")
    worst = min(rows, key=lambda r: r[2][r[3]][0] / r[1][0])
    print(f"\nlowest CPU-time ratio: {worst[2][worst[3]][0] / worst[1][0]:.2f} ({worst[0]})")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(raw, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

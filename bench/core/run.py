#!/usr/bin/env python3
"""Core benchmark report (issue 2): runs bench_core (Google Benchmark) and the
PyTorch eager peer in one command, same inputs and thread counts, and prints
markdown tables of ratios.

    python3 bench/core/run.py [--build build] [--min-time 0.5]

Needs a build with -DTENFERRO_BUILD_BENCHMARKS=ON; PyTorch is Debian's
python3-torch (/usr/bin/python3), run with the same thread count.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TORCH_SNIPPET = r"""
import json, sys, timeit, torch
torch.set_num_threads(int(sys.argv[1]))
a = torch.rand(2, 2, dtype=torch.float64); b = torch.rand(2, 2, dtype=torch.float64)
out = {}
for name, f in [("add_2x2", lambda: torch.add(a, b)), ("matmul_2x2", lambda: torch.matmul(a, b))]:
    n = 100000
    out[name] = min(timeit.repeat(f, number=n, repeat=7)) / n * 1e9
out["version"] = torch.__version__
print(json.dumps(out))
"""


def run_bench(binary, filt, threads, min_time):
    env = dict(os.environ, TENFERRO_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads))
    cmd = [binary, f"--benchmark_filter={filt}", "--benchmark_format=json",
           f"--benchmark_min_time={min_time}"]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    data = json.loads(res.stdout)
    return {b["name"].replace("/real_time", ""): b for b in data["benchmarks"]}


def ms(b):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    return b["real_time"] * scale


def gbps(b):
    return b["bytes_per_second"] / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--min-time", default="0.5")
    args = ap.parse_args()
    binary = os.path.join(args.build, "bench", "core", "bench_core")
    if not os.path.exists(binary):
        sys.exit(f"{binary} not found: configure with -DTENFERRO_BUILD_BENCHMARKS=ON and build bench_core")

    print("## dot_general vs OpenBLAS dgemm on the same data (1 thread)\n")
    r = run_bench(binary, "dot_general|dgemm_direct", 1, args.min_time)
    print("| instance | dot_general ms | dgemm ms | ratio (dgemm time / ours) |")
    print("|---|---:|---:|---:|")
    for name, b in r.items():
        if not name.startswith("dot_general/"):
            continue
        inst = name.split("/", 1)[1]
        d = r["dgemm_direct/" + inst]
        print(f"| {inst} | {ms(b):.3f} | {ms(d):.3f} | {ms(d) / ms(b):.3f} |")

    for threads in (1, 2):
        print(f"\n## permutation vs memcpy ({threads} thread{'s' if threads > 1 else ''})\n")
        r = run_bench(binary, "permute|memcpy", threads, args.min_time)
        base = "memcpy_threads" if threads > 1 else "memcpy"
        print(f"| pattern | ours GB/s | {base} GB/s | ratio | ratio to 1-thread memcpy |")
        print("|---|---:|---:|---:|---:|")
        for name, b in r.items():
            if not name.startswith("permute/"):
                continue
            pid = name.split("/", 1)[1]
            m = r[f"{base}/{pid}"]
            m1 = r[f"memcpy/{pid}"]
            print(f"| {pid} | {gbps(b):.2f} | {gbps(m):.2f} | {gbps(b) / gbps(m):.2f} | {gbps(b) / gbps(m1):.2f} |")

    print("\n## eager per-op overhead, 2x2 f64 (1 thread)\n")
    r = run_bench(binary, "eager/", 1, args.min_time)
    torch = json.loads(subprocess.run(["/usr/bin/python3", "-c", TORCH_SNIPPET, "1"],
                                      capture_output=True, text=True, check=True).stdout)
    print(f"| op | tenferro ns | PyTorch {torch['version']} eager ns | PyTorch / tenferro |")
    print("|---|---:|---:|---:|")
    for op in ("add_2x2", "matmul_2x2"):
        ours = ms(r[f"eager/{op}"]) * 1e6
        print(f"| {op} | {ours:.0f} | {torch[op]:.0f} | {torch[op] / ours:.1f}x |")


if __name__ == "__main__":
    main()

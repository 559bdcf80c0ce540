#!/usr/bin/env python3
"""One command for the einsum comparison: tenferro (bench_einsum) against
torch.einsum, jax.numpy.einsum under jax.jit and numpy.einsum, every
instance of tests/data/instances/ along the stored opt_flops and
opt_size paths and our annealing path, one thread, same operands.

    python3 bench/einsum/run_einsum_bench.py --build build-einsum [--filter NAME] [--effort E]

Prints two Markdown tables: process CPU times (ms; one thread everywhere,
CPU time because the machine is shared) with the ratio of ours to the
best peer (< 1: we are faster), and the costs of our path against the
stored ones with our planning time.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(ROOT, ".venv-peers", "bin", "python")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build-einsum"))
    ap.add_argument("--filter", default="")
    ap.add_argument("--effort", default="1")
    ap.add_argument("--min-time", default="1s")
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    tmp = tempfile.mkdtemp(prefix="einsum_bench_")
    paths = os.path.join(tmp, "ours_paths.json")
    ours_json = os.path.join(tmp, "ours.json")
    exe = os.path.join(args.build, "bench", "einsum", "bench_einsum")
    cmd = [exe, f"--effort={args.effort}", f"--paths-out={paths}", f"--benchmark_out={ours_json}",
           "--benchmark_out_format=json", f"--benchmark_min_time={args.min_time}"]
    if args.filter:
        cmd.append(f"--benchmark_filter={args.filter}")
    subprocess.run(cmd, env=env, check=True, stdout=sys.stderr)
    peers = {}
    for py, which in (("/usr/bin/python3", "torch,numpy"), (VENV, "jax")):
        out = os.path.join(tmp, f"peers_{which.split(',')[0]}.json")
        c = [py, os.path.join(HERE, "peers.py"), "--peers", which, "--paths", paths, "--out", out]
        if args.filter:
            c += ["--filter", args.filter]
        subprocess.run(c, env=env, check=True)
        with open(out, encoding="utf-8") as f:
            for k, v in json.load(f).items():
                peers.setdefault(k, {}).update(v)
    with open(ours_json, encoding="utf-8") as f:
        bench = json.load(f)
    with open(paths, encoding="utf-8") as f:
        costs = json.load(f)
    ours = {}
    for b in bench["benchmarks"]:
        key = b["name"].rsplit("/", 1)[0]  # strip "/real_time"
        ours[key] = b["cpu_time"]  # ms (Unit kMillisecond); CPU time like the peers
    print("| instance / path | tenferro ms | torch ms | jax ms | numpy ms | ratio to best peer |")
    print("|---|---:|---:|---:|---:|---:|")
    for key in sorted(ours):
        p = peers.get(key, {})
        best = min(p.values()) if p else float("nan")
        cells = [f"{p[k]:.3f}" if k in p else "-" for k in ("torch", "jax", "numpy")]
        print(f"| {key} | {ours[key]:.3f} | " + " | ".join(cells) + f" | {ours[key] / best:.2f} |")
    print()
    print("| instance | ours log10 flops | opt_flops | opt_size | ours log2 size | opt_flops | opt_size | planning s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in sorted(costs):
        c = costs[name]
        print(f"| {name} | {c['ours']['log10_flops']:.4f} | {c['opt_flops']['log10_flops']:.4f} | "
              f"{c['opt_size']['log10_flops']:.4f} | {c['ours']['log2_size']:.3f} | {c['opt_flops']['log2_size']:.3f} | "
              f"{c['opt_size']['log2_size']:.3f} | {c['planning_seconds']:.3f} |")


if __name__ == "__main__":
    main()

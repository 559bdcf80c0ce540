#!/usr/bin/env python3
"""Traced-runtime report (issue 5): per-op overhead of the 100-op elementwise
chain on 2x2 f64 (tenferro traced fused/unfused and eager, jax.jit, PyTorch
eager) and the fusion speed-up of exp(a) * b + c on 2048x2048 f64, one
thread, in one command.

    python3 bench/runtime/run.py [--build build]

The chain is x -> x*1.0001 -> +0.5 -> sin -> *x, repeated 25 times, exactly
as in bench_runtime.cpp.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PEER = r"""
import json, sys, timeit
which = sys.argv[1]
out = {}
if which == "torch":
    import torch
    torch.set_num_threads(1)
    x = torch.rand(2, 2, dtype=torch.float64)
    def chain():
        y = x
        for i in range(100):
            k = i % 4
            y = y * 1.0001 if k == 0 else y + 0.5 if k == 1 else torch.sin(y) if k == 2 else y * x
        return y
    out["version"] = torch.__version__
    out["chain_ns_per_op"] = min(timeit.repeat(chain, number=2000, repeat=5)) / 2000 / 100 * 1e9
else:
    import jax, jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    x = jnp.asarray([[0.1, 0.2], [0.3, 0.4]], dtype=jnp.float64)
    @jax.jit
    def chain(x):
        y = x
        for i in range(100):
            k = i % 4
            y = y * 1.0001 if k == 0 else y + 0.5 if k == 1 else jnp.sin(y) if k == 2 else y * x
        return y
    chain(x).block_until_ready()
    f = lambda: chain(x).block_until_ready()
    out["version"] = jax.__version__
    out["chain_ns_per_op"] = min(timeit.repeat(f, number=2000, repeat=5)) / 2000 / 100 * 1e9
print(json.dumps(out))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--min-time", default="0.5")
    args = ap.parse_args()
    binary = os.path.join(args.build, "bench", "runtime", "bench_runtime")
    if not os.path.exists(binary):
        sys.exit(f"{binary} not found: build with -DTENFERRO_BUILD_BENCHMARKS=ON")
    env = dict(os.environ, TENFERRO_NUM_THREADS="1", OMP_NUM_THREADS="1")
    res = subprocess.run([binary, "--benchmark_format=json", f"--benchmark_min_time={args.min_time}"],
                         env=env, capture_output=True, text=True, check=True)
    ours = {b["name"].replace("/real_time", ""): b for b in json.loads(res.stdout)["benchmarks"]}
    peer_env = dict(env, XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    torch = json.loads(subprocess.run(["/usr/bin/python3", "-c", PEER, "torch"], env=peer_env,
                                      capture_output=True, text=True, check=True).stdout)
    venv = os.path.join(ROOT, ".venv-peers", "bin", "python")
    jax = None
    if os.path.exists(venv):
        jax = json.loads(subprocess.run([venv, "-c", PEER, "jax"], env=peer_env,
                                        capture_output=True, text=True, check=True).stdout)

    def ns(name):
        b = ours[name]
        return b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]

    print("## 100 elementwise ops on 2x2 f64, time per op (1 thread)\n")
    print("| implementation | ns per op | instructions run |")
    print("|---|---:|---:|")
    rows = [("tenferro traced, fused", ns("chain100_2x2/traced_fused") / 100, ours["chain100_2x2/traced_fused"]["instructions"]),
            ("tenferro traced, unfused", ns("chain100_2x2/traced_unfused") / 100, ours["chain100_2x2/traced_unfused"]["instructions"]),
            ("tenferro eager (Tensor ops)", ns("chain100_2x2/eager_tensor_ops") / 100, 100),
            ("tenferro eager (EagerTensor)", ns("chain100_2x2/eager_runtime") / 100, 100)]
    if jax:
        rows.append((f"jax.jit ({jax['version']})", jax["chain_ns_per_op"], "-"))
    rows.append((f"PyTorch eager ({torch['version']})", torch["chain_ns_per_op"], 100))
    for name, v, n in rows:
        print(f"| {name} | {v:.1f} | {n} |")
    unf = ours["chain100_2x2/traced_unfused"]
    print(f"\nUnfused traced: {ns('chain100_2x2/traced_unfused') / unf['instructions']:.1f} ns per instruction.")
    f, u = ours["fusion_2048/fused"], ours["fusion_2048/unfused"]
    print("\n## exp(a) * b + c, 2048x2048 f64 (1 thread)\n")
    print("| program | ms |")
    print("|---|---:|")
    print(f"| fused | {f['real_time']:.2f} |")
    print(f"| unfused | {u['real_time']:.2f} |")
    print(f"\nFusion speed-up: {u['real_time'] / f['real_time']:.2f}x")


if __name__ == "__main__":
    main()

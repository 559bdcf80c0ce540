#!/usr/bin/env python3
"""torch.einsum on CUDA for the einsum instances that bench_gpu timed, on the
same operand values (the generator of tests/einsum/make_instance_reference.py)
and along the same stored opt_flops path (one torch.einsum call per
pairwise step, as bench/einsum/peers.py does on the CPU), timed with CUDA
events (two warm-ups, then at least 5 runs and min-time seconds; median).

    torch_peer.py --instances DIR --ours tenferro.json [--min-time S]

Prints the table: instance | tenferro ms | torch ms | ratio torch/tenferro.
"""
import argparse
import importlib.util
import json
import os
import statistics
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ref = load("ref", os.path.join(ROOT, "tests", "einsum", "make_instance_reference.py"))
peers = load("peers", os.path.join(ROOT, "bench", "einsum", "peers.py"))


def median_ms(torch, fn, min_time):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (len(times) < 200 and time.perf_counter() - start < min_time):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--min-time", type=float, default=0.3)
    args = ap.parse_args()
    import torch
    assert torch.cuda.is_available(), "torch sees no CUDA device"
    with open(args.ours, encoding="utf-8") as f:
        ours = json.load(f)
    print(f"## Einsum on the GPU: tenferro vs torch.einsum {torch.__version__} (same path, same operands)\n")
    print("| instance | log10 flops | tenferro ms | torch ms | ratio torch/tenferro |")
    print("|---|---|---|---|---|")
    for name, mine in sorted(ours.get("einsum", {}).items()):
        with open(os.path.join(args.instances, name + ".json"), encoding="utf-8") as f:
            inst = json.load(f)
        lhs, output = inst["format_string"].split("->")
        terms = lhs.split(",")
        shapes = inst["shapes"]
        size, count = {}, {}
        for t, s in zip(terms, shapes):
            for label, n in zip(t, s):
                size[label] = n
            for label in set(t):
                count[label] = count.get(label, 0) + 1
        arrays = [torch.from_numpy(ref.operand(name, k, terms, shapes, output, size, count).reshape(shapes[k])).cuda()
                  for k in range(len(terms))]
        path = [tuple(p) for p in inst["paths"]["opt_flops"]["path"]]
        steps, final = peers.pairwise_steps(terms, output, path)
        t = median_ms(torch, lambda: peers.run_steps(torch.einsum, arrays, steps, final), args.min_time)
        print(f"| {name} | {mine['log10_flops']:.2f} | {mine['tenferro_ms']:.3f} | {t:.3f} | {t / mine['tenferro_ms']:.3f} |",
              flush=True)
        del arrays
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

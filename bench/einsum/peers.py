#!/usr/bin/env python3
"""Peer timings for the einsum benchmark (bench/einsum/run_einsum_bench.py).

    peers.py --peers torch,numpy --paths ours_paths.json --out peers.json   (Debian python3)
    peers.py --peers jax --paths ours_paths.json --out peers.json           (.venv-peers python)

For every instance of tests/data/instances/ and every path (the
stored opt_flops and opt_size paths and ours, read from --paths) it times
the contraction on the same operands as bench_einsum (the generator of
tests/einsum/make_instance_reference.py), one thread:

  torch   torch.einsum, one call per path step (torch's own opt_einsum
          hook is not installed for Debian's python3, and the steps are
          exactly what it would run for the given path)
  jax     jax.numpy.einsum(subscripts, *operands, optimize=path) under jax.jit
          (compiled once before timing)
  numpy   numpy.einsum(optimize=True) per path step (NumPy accepts only 52
          distinct labels per call; optimize=True makes each step a BLAS
          tensordot where possible, as einsum(optimize=path) does)

Each case runs once to warm up (a first run over 2 s is the measurement),
then repeatedly until it has run 3 times and 1 second has passed (at most
20 times); the median process CPU time
is reported in ms (CPU time, because the benchmark machine is shared: wall
time there measures the other users too; every peer runs one thread).
"""
import argparse
import importlib.util
import json
import os
import statistics
import string
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
INSTANCES = os.path.join(ROOT, "tests", "data", "instances")

_spec = importlib.util.spec_from_file_location("ref", os.path.join(ROOT, "tests", "einsum", "make_instance_reference.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def median_ms(fn):
    t0 = time.process_time()
    fn()
    first = time.process_time() - t0
    if first > 2.0:  # long cases: the first run is the measurement
        return 1e3 * first
    times = []
    start = time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < 1.0 and len(times) < 20):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return 1e3 * statistics.median(times)


def pairwise_steps(terms, output, path):
    """For each step: (i, j, subscripts with at most 52 letters)."""
    terms = [list(t) for t in terms]
    steps = []
    for i, j in path:
        a, b = terms[i], terms[j]
        for k in sorted((i, j), reverse=True):
            del terms[k]
        later = set(output).union(*[set(t) for t in terms]) if terms else set(output)
        kept = [l for l in dict.fromkeys(a + b) if l in later]
        letters = {l: string.ascii_letters[n] for n, l in enumerate(dict.fromkeys(a + b))}
        sub = "".join(letters[l] for l in a) + "," + "".join(letters[l] for l in b) + "->" + "".join(
            letters[l] for l in kept)
        steps.append((i, j, sub))
        terms.append(kept)
    (last,) = terms
    letters = {l: string.ascii_letters[n] for n, l in enumerate(last)}
    final = "".join(letters[l] for l in last) + "->" + "".join(letters[l] for l in output)
    return steps, final


def run_steps(einsum, arrays, steps, final):
    arrays = list(arrays)
    for i, j, sub in steps:
        x, y = arrays[i], arrays[j]
        for k in sorted((i, j), reverse=True):
            del arrays[k]
        arrays.append(einsum(sub, x, y))
    return einsum(final, arrays[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peers", required=True)
    ap.add_argument("--paths", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    peers = args.peers.split(",")
    with open(args.paths, encoding="utf-8") as f:
        ours = json.load(f)
    import numpy as np
    if "torch" in peers:
        import torch
        torch.set_num_threads(1)
    if "jax" in peers:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
    results = {}
    for fname in sorted(f for f in os.listdir(INSTANCES) if f.endswith(".json")):
        name = fname[:-5]
        if args.filter and args.filter not in name:
            continue
        with open(os.path.join(INSTANCES, fname), encoding="utf-8") as f:
            inst = json.load(f)
        if "paths" not in inst or name not in ours:
            continue
        lhs, output = inst["format_string"].split("->")
        terms = lhs.split(",")
        shapes = inst["shapes"]
        size, count = {}, {}
        for t, s in zip(terms, shapes):
            for label, n in zip(t, s):
                size[label] = n
            for label in set(t):
                count[label] = count.get(label, 0) + 1
        arrays = [ref.operand(name, k, terms, shapes, output, size, count).reshape(shapes[k]) for k in range(len(terms))]
        paths = {"opt_flops": inst["paths"]["opt_flops"]["path"], "opt_size": inst["paths"]["opt_size"]["path"],
                 "ours": ours[name]["path"]}
        for pname, path in paths.items():
            path = [tuple(p) for p in path]
            steps, final = pairwise_steps(terms, output, path)
            key = f"{name}/{pname}"
            results[key] = {}
            if "numpy" in peers:
                results[key]["numpy"] = median_ms(
                    lambda: run_steps(lambda s, *x: np.einsum(s, *x, optimize=True), arrays, steps, final))
            if "torch" in peers:
                tarr = [torch.from_numpy(a) for a in arrays]
                results[key]["torch"] = median_ms(lambda: run_steps(torch.einsum, tarr, steps, final))
            if "jax" in peers:
                jarr = [jnp.asarray(a) for a in arrays]
                fn = jax.jit(lambda *ops, p=path: jnp.einsum(inst["format_string"], *ops, optimize=p))
                results[key]["jax"] = median_ms(lambda: fn(*jarr).block_until_ready())
            print(key, results[key], file=sys.stderr, flush=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

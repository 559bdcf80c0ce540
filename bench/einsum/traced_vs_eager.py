#!/usr/bin/env python3
"""Tabulates bench_einsum_traced output: median ms per instance in eager and
traced mode and their ratio (traced / eager; below 1 means traced is faster),
in CPU time (the benchmark runs on one thread; on a shared machine CPU time is
less disturbed by other processes than wall time) and in wall time.

    build/bench/einsum/bench_einsum_traced \
        --benchmark_repetitions=15 --benchmark_enable_random_interleaving=true \
        --benchmark_out=traced.json --benchmark_out_format=json
    python3 bench/einsum/traced_vs_eager.py traced.json
"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    with open(path) as f:
        data = json.load(f)
    times = defaultdict(lambda: defaultdict(lambda: {"cpu": [], "real": []}))  # instance -> mode -> ms
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        instance, mode = b["run_name"].split("/")[:2]
        scale = {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b["time_unit"]]
        times[instance][mode]["cpu"].append(b["cpu_time"] * scale)
        times[instance][mode]["real"].append(b["real_time"] * scale)
    print("| instance | eager cpu ms | traced cpu ms | traced / eager (cpu) | eager wall ms | traced wall ms "
          "| traced / eager (wall) | runs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for instance, modes in times.items():
        if "eager" not in modes or "traced" not in modes:
            continue
        e, t = modes["eager"], modes["traced"]
        ec, tc = statistics.median(e["cpu"]), statistics.median(t["cpu"])
        er, tr = statistics.median(e["real"]), statistics.median(t["real"])
        print(f"| {instance} | {ec:.3f} | {tc:.3f} | {tc / ec:.2f} | {er:.3f} | {tr:.3f} | {tr / er:.2f} "
              f"| {len(e['cpu'])} |")

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "traced.json")

#!/usr/bin/env python3
"""Fixed cost of eager backward() against PyTorch, in one run.

    taskset -c 1 /usr/bin/python3 bench/ad/eager_backward.py [--build build] [--reps 20000]

loss = (a @ b).sum() with 2x2 f64 a, b requiring grad. Runs tenferro's
bench/ad/eager_backward (C++) and the same loop in PyTorch (Debian's
python3-torch) one after the other in this process's CPU set, one thread
each (OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = 1, torch.set_num_threads(1)).
Both report the median over the iterations of forward+backward and of
backward() alone (gradients reset with zero_grad / grad = None, outside the
timer). Prints both and the ratios tenferro / torch.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def torch_run(reps):
    import torch
    torch.set_num_threads(1)
    a = torch.tensor([[1.0, 3.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[5.0, 7.0], [6.0, 8.0]], dtype=torch.float64, requires_grad=True)
    both, bwd = [], []
    for _ in range(reps):
        a.grad = None
        b.grad = None
        t0 = time.perf_counter()
        loss = (a @ b).sum()
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        both.append((t2 - t0) * 1e6)
        bwd.append((t2 - t1) * 1e6)
    assert a.grad[0, 0].item() == 12.0
    return {"framework": "torch " + torch.__version__, "forward_backward_us": statistics.median(both),
            "backward_us": statistics.median(bwd)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=20000)
    args = ap.parse_args()
    os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    exe = os.path.join(args.build, "bench", "ad", "eager_backward")
    ours = json.loads(subprocess.run([exe, str(args.reps)], check=True, capture_output=True, text=True).stdout)
    theirs = torch_run(args.reps)
    print(f"cpus {sorted(os.sched_getaffinity(0))}, reps {args.reps}")
    for k in ("forward_backward_us", "backward_us"):
        print(f"{k:20s} tenferro {ours[k]:8.2f}  {theirs['framework']} {theirs[k]:8.2f}  "
              f"ratio {ours[k] / theirs[k]:.2f}")


if __name__ == "__main__":
    sys.exit(main())

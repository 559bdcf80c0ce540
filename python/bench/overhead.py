#!/usr/bin/env python3
"""Per-call overhead from Python of small operations, tenferro and NumPy in
one run (timeit, best of 5 x 100000 calls). PyTorch and jax.jit are not in
the project venv yet, so they are not compared here.

    .venv-py/bin/python python/bench/overhead.py"""
import timeit

import numpy as np

import tenferro as tf

a = np.ones((2, 2))
t = tf.from_dlpack(a)
cases = [
    ("2x2 f64 add", "t + t", "a + a"),
    ("2x2 f64 matmul", "t @ t", "a @ a"),
    ("from_dlpack (NumPy array in)", "tf.from_dlpack(a)", "np.asarray(a)"),
    ("NumPy view of a tensor", "np.from_dlpack(t)", "np.from_dlpack(a)"),
]
env = {"t": t, "a": a, "tf": tf, "np": np}
print("| call | tenferro ns | NumPy ns | ratio |\n|---|---|---|---|")
for name, ours, theirs in cases:
    o = min(timeit.repeat(ours, globals=env, number=100000, repeat=5)) / 1e5 * 1e9
    n = min(timeit.repeat(theirs, globals=env, number=100000, repeat=5)) / 1e5 * 1e9
    print(f"| {name} (NumPy: `{theirs}`) | {o:.0f} | {n:.0f} | {o / n:.2f} |")

#!/usr/bin/env python3
"""tenferro.io against NumPy on the same 400 MB f64 array, in one run
(best of 3; files in /tmp, so the page cache holds them: this measures the
libraries, not the disk).

    .venv-py/bin/python python/bench/io_vs_numpy.py [ROWS COLS]"""
import os
import sys
import tempfile
import time

import numpy as np

import tenferro as tf

rows, cols = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) == 3 else (5000, 10000)
d = tempfile.mkdtemp(dir="/tmp")
x = np.random.default_rng(0).random((rows, cols))
t = tf.from_dlpack(x)


def best(f, n=3):
    times = []
    for _ in range(n):
        s = time.perf_counter()
        f()
        times.append(time.perf_counter() - s)
    return min(times)


def row(what, ours, theirs):
    print(f"| {what} | {ours:.4f} | {theirs:.4f} | {ours / theirs:.2f} |")


pn, pt = os.path.join(d, "np.npy"), os.path.join(d, "tf.npy")
print(f"array {rows} x {cols} f64 ({x.nbytes / 1e6:.0f} MB), NumPy {np.__version__}\n")
print("| operation | tenferro s | NumPy s | ratio |\n|---|---|---|---|")
row("save .npy (new file)", best(lambda: (os.path.exists(pt) and os.remove(pt), tf.io.save_npy(pt, t))),
    best(lambda: (os.path.exists(pn) and os.remove(pn), np.save(pn, x))))
row("save .npy (replace existing)", best(lambda: tf.io.save_npy(pt, t)), best(lambda: np.save(pn, x)))
row("load .npy (read)", best(lambda: tf.io.load_npy(pt, map="never")), best(lambda: np.load(pn)))
row("load .npy (mapped)", best(lambda: tf.io.load_npy(pt, map="always")),
    best(lambda: np.load(pn, mmap_mode="r")))
assert np.array_equal(np.asarray(tf.io.load_npy(pt)), x)
y = x[: max(1, rows // 5)]
ty = tf.from_dlpack(y)
pz, ptz = os.path.join(d, "np.npz"), os.path.join(d, "tf.npz")
row(f"save .npz deflate ({y.nbytes / 1e6:.0f} MB)",
    best(lambda: tf.io.save_npz(ptz, {"y": ty}, compress=True), 1),
    best(lambda: np.savez_compressed(pz, y=y), 1))
row("load .npz deflate", best(lambda: tf.io.load_npz(ptz), 1), best(lambda: np.load(pz)["y"], 1))
for f in os.listdir(d):
    os.remove(os.path.join(d, f))
os.rmdir(d)

"""The SciPy peer of sparse_bench: reads the inputs sparse_bench --dump wrote
(same matrix, same dense operand) and times A @ B with scipy.sparse (CSR,
converted once outside the timing, and COO as given, whose product converts
internally) and with NumPy's dense product, median of --reps runs after one
warm-up. Run it pinned with one thread (bench/run_peer.sh does).

    python3 scipy_peer.py DIR [--reps R]
"""
import argparse
import time

import numpy as np
import scipy
import scipy.sparse as sp


def median_seconds(f, reps):
    f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--reps", type=int, default=11)
    args = ap.parse_args()
    m, k, n, nnz, dtype = open(f"{args.dir}/meta.txt").read().split()
    m, k, n, nnz = int(m), int(k), int(n), int(nnz)
    np_dtype = {"f32": np.float32, "f64": np.float64}[dtype]
    rows = np.fromfile(f"{args.dir}/rows.i64", dtype=np.int64)
    cols = np.fromfile(f"{args.dir}/cols.i64", dtype=np.int64)
    values = np.fromfile(f"{args.dir}/values.{dtype}", dtype=np_dtype)
    # Column-major [k, n] on disk: read as [n, k] row-major and transpose (a view).
    dense = np.fromfile(f"{args.dir}/dense.{dtype}", dtype=np_dtype).reshape(n, k).T
    dense = np.asfortranarray(dense)
    coo = sp.coo_matrix((values, (rows, cols)), shape=(m, k))
    csr = coo.tocsr()
    a_dense = coo.toarray()
    t_csr = median_seconds(lambda: csr @ dense, args.reps)
    t_coo = median_seconds(lambda: coo @ dense, args.reps)
    t_np = median_seconds(lambda: a_dense @ dense, args.reps)
    diff = np.abs(csr @ dense - a_dense @ dense).max()
    print(f"scipy {scipy.__version__} numpy {np.__version__}: m={m} k={k} n={n} nnz={nnz} {dtype}")
    print(f"scipy.sparse csr @ dense  {t_csr * 1e3:10.3f} ms")
    print(f"scipy.sparse coo @ dense  {t_coo * 1e3:10.3f} ms")
    print(f"numpy dense @ dense       {t_np * 1e3:10.3f} ms")
    print(f"max |csr - dense|         {diff:10.3g}")


if __name__ == "__main__":
    main()

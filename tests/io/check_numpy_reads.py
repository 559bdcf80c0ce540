#!/usr/bin/env python3
"""Files tenferro writes load in NumPy with the expected values and layout.

    check_numpy_reads.py WRITER WORK_DIR

runs WRITER (io_write_samples) into WORK_DIR, then loads every file with
NumPy (numpy.load; safetensors by its documented layout and, when the
`safetensors` package is installed, with safetensors.numpy too). Exits 77
(skipped) without NumPy."""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("check_numpy_reads: skipped, numpy is not importable by", sys.executable)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_values import CODES, array, read_safetensors  # noqa: E402

writer, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
subprocess.run([writer, work], check=True)
failures = []


def check(name, got, want, fortran=None):
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        failures.append(f"{name}: got {got.dtype} {got.shape} {got.ravel()[:6]}, "
                        f"want {want.dtype} {want.shape} {want.ravel()[:6]}")
    if fortran is not None and got.ndim > 1 and bool(got.flags.f_contiguous) != fortran:
        failures.append(f"{name}: fortran order {got.flags.f_contiguous}, want {fortran}")


for code in CODES:
    a = array(code, (2, 3, 4))
    check(f"{code}_col.npy", np.load(os.path.join(work, f"{code}_col.npy")), a, fortran=True)
    check(f"{code}_row.npy", np.load(os.path.join(work, f"{code}_row.npy")), a, fortran=False)
    odd = array(code, (4, 3, 5))[0:4:2, ::-1, :]
    check(f"{code}_odd.npy", np.load(os.path.join(work, f"{code}_odd.npy")), odd)
check("scalar_f8.npy", np.load(os.path.join(work, "scalar_f8.npy")), array("f8", ()))
check("vector_i8.npy", np.load(os.path.join(work, "vector_i8.npy")), array("i8", (5,)))
check("empty_c8.npy", np.load(os.path.join(work, "empty_c8.npy")), np.zeros((0, 3), np.complex64))

want = {"a": array("f8", (3, 4)), "b": array("c8", (2, 5)), "flags": array("b1", (7,)),
        "n": array("i4", ())}
for file in ("stored.npz", "deflate.npz", "zip64.npz"):
    with np.load(os.path.join(work, file)) as z:
        if sorted(z.files) != sorted(want):
            failures.append(f"{file}: members {z.files}")
        for k, v in want.items():
            check(f"{file}:{k}", z[k], v)
    import zipfile
    with zipfile.ZipFile(os.path.join(work, file)) as zf:
        bad = zf.testzip()  # CRC of every member
        if bad is not None:
            failures.append(f"{file}: zipfile reports a bad CRC in {bad}")

st_want = {"w": array("f4", (3, 4)), "rows": array("f8", (2, 4)), "ids": array("i8", (2, 2)),
           "mask": array("b1", (5,)), "count": array("i4", ())}
tensors, meta = read_safetensors(os.path.join(work, "ours.safetensors"))
if meta != {"format": "np", "writer": "tenferro"}:
    failures.append(f"safetensors metadata {meta}")
for k, v in st_want.items():
    check(f"ours.safetensors:{k}", tensors[k], v)
try:
    from safetensors.numpy import load_file
except ImportError:
    print("check_numpy_reads: the safetensors package is not installed; "
          "checked safetensors by its documented layout only")
else:
    loaded = load_file(os.path.join(work, "ours.safetensors"))
    for k, v in st_want.items():
        check(f"safetensors.numpy:{k}", loaded[k], v)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"check_numpy_reads: every file tenferro wrote loads in NumPy {np.__version__}")

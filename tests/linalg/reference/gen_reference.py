#!/usr/bin/env python3
"""Reference values for tests/linalg/test_reference.cpp (NumPy / SciPy).

Run by hand, never by CI:

    /usr/bin/python3 tests/linalg/reference/gen_reference.py

It rewrites linalg_reference.json next to this script. Inputs are drawn from
a seeded generator, rounded to the case's dtype, and stored; the expected
values are computed from the rounded inputs in float64 / complex128, so the
C++ test compares against the exact answer for the stored input.

Tensors are stored the way tenferro lays them out: a NumPy stack of shape
(batch, m, n) becomes the column-major tensor [m, n, batch], flattened in
column-major order ("re" and "im" lists; "im" is omitted for real data).
"""
import json
import os

import numpy as np
import scipy
import scipy.linalg

RNG = np.random.default_rng(20240611)
DTYPES = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


def draw(shape, dtype):
    x = RNG.uniform(-1, 1, size=shape)
    if np.issubdtype(DTYPES[dtype], np.complexfloating):
        x = x + 1j * RNG.uniform(-1, 1, size=shape)
    return x.astype(DTYPES[dtype])


def with_spectrum(batch, m, n, s, dtype):
    """u diag(s) v^H for random unitary u, v, per batch element."""
    out = []
    cplx = np.issubdtype(DTYPES[dtype], np.complexfloating)
    for _ in range(batch):
        def unitary(k):
            z = RNG.normal(size=(k, k)) + (1j * RNG.normal(size=(k, k)) if cplx else 0)
            q, r = np.linalg.qr(z)
            return q
        d = np.zeros((m, n))
        d[: len(s), : len(s)] = np.diag(s)
        out.append(unitary(m) @ d @ unitary(n).conj().T)
    return np.array(out).astype(DTYPES[dtype])


def encode(x, single):
    """An array in tenferro's layout -> {"shape", "re", "im"} (column-major).

    Single-precision cases keep 9 significant digits, which round-trip float32
    exactly and are more than their tolerances resolve."""
    x = np.asarray(x)

    def values(part):
        flat = part.flatten(order="F").astype(float)
        return [float(f"{v:.9g}") for v in flat] if single else flat.tolist()

    data = {"shape": list(x.shape), "re": values(np.real(x))}
    if np.iscomplexobj(x):
        data["im"] = values(np.imag(x))
    return data


def batch_last(x):
    """(batch, ...) -> (..., batch), the tenferro order."""
    return np.moveaxis(np.asarray(x), 0, -1)


def wide(x):
    return x.astype(np.complex128) if np.iscomplexobj(x) else x.astype(np.float64)


CASES = []


def kappa(a):
    """Largest 2-norm condition number over the batch (nonzero singular values)."""
    worst = 1.0
    for x in np.asarray(a):
        s = np.linalg.svd(wide(x), compute_uv=False)
        s = s[s > s[0] * 1e-12] if s.size and s[0] > 0 else s
        if s.size:
            worst = max(worst, float(s[0] / s[-1]))
    return worst


def add(op, dtype, inputs, expected, **attrs):
    single = dtype in ("f32", "c64")
    CASES.append({
        "op": op,
        "dtype": dtype,
        "attrs": attrs,
        "kappa": kappa(inputs["a"]),
        "inputs": {k: encode(batch_last(v), single) for k, v in inputs.items()},
        "expected": {k: encode(batch_last(v), single) for k, v in expected.items()},
    })


for dtype in DTYPES:
    # Singular values: square, tall, wide, small-kernel and LAPACK sizes, ill-conditioned.
    for (m, n, batch) in [(1, 1, 1), (3, 3, 2), (7, 4, 2), (4, 7, 2), (20, 20, 1), (24, 15, 1), (40, 34, 1)]:
        a = draw((batch, m, n), dtype)
        add("svdvals", dtype, {"a": a}, {"s": np.linalg.svd(wide(a), compute_uv=False)})
    k = 12
    a = with_spectrum(2, k, k, np.logspace(0, -10, k), dtype)
    add("svdvals", dtype, {"a": a}, {"s": np.linalg.svd(wide(a), compute_uv=False)})

    # Hermitian eigenvalues (ascending).
    for (n, batch) in [(1, 1), (4, 3), (16, 2), (20, 1), (40, 1)]:
        x = draw((batch, n, n), dtype)
        h = ((x + np.conj(np.swapaxes(x, 1, 2))) / 2).astype(DTYPES[dtype])
        add("eigvalsh", dtype, {"a": h}, {"w": np.linalg.eigvalsh(wide(h))})

    # General eigenvalues (compared as multisets).
    for (n, batch) in [(1, 1), (3, 2), (6, 2), (20, 1)]:
        a = draw((batch, n, n), dtype)
        add("eigvals", dtype, {"a": a}, {"w": np.linalg.eigvals(wide(a)).astype(np.complex128)})

    # Determinants and slogdet.
    for (n, batch) in [(1, 2), (3, 2), (8, 2), (40, 1)]:
        a = draw((batch, n, n), dtype)
        sign, logabs = np.linalg.slogdet(wide(a))
        add("det", dtype, {"a": a}, {"det": np.linalg.det(wide(a)), "sign": sign, "logabsdet": logabs})

    # Least squares: over- and underdetermined, rank-deficient.
    for (m, n, r, nrhs) in [(6, 3, 3, 2), (3, 6, 3, 2), (8, 5, 3, 1), (24, 18, 18, 2)]:
        s = np.zeros(min(m, n))
        s[:r] = np.linspace(2, 1, r)
        a = with_spectrum(1, m, n, s, dtype) if r < min(m, n) else draw((1, m, n), dtype)
        b = draw((1, m, nrhs), dtype)
        # rcond as tenferro's default: eps of the case's dtype times max(m, n).
        rcond = np.finfo(DTYPES[dtype]).eps * max(m, n)
        x, _, rank, sv = np.linalg.lstsq(wide(a[0]), wide(b[0]), rcond=rcond)
        res = np.sum(np.abs(wide(b[0]) - wide(a[0]) @ x) ** 2, axis=0) if m > n else np.zeros(0)
        add("lstsq", dtype, {"a": a, "b": b},
            {"x": x[None], "residuals": res[None], "rank": np.array([float(rank)]), "s": sv[None]})

    # Matrix exponential over every Pade degree and the scaling path.
    for (n, scale, batch) in [(2, 0.01, 2), (5, 0.3, 2), (5, 1.5, 1), (12, 4.0, 2), (20, 20.0, 1)]:
        a = (draw((batch, n, n), dtype) * (scale / n)).astype(DTYPES[dtype])
        add("matrix_exp", dtype, {"a": a}, {"e": np.array([scipy.linalg.expm(wide(x)) for x in a])})

    # Inverse, pseudo-inverse and solve.
    for (n, batch) in [(3, 2), (36, 1)]:
        a = draw((batch, n, n), dtype)
        b = draw((batch, n, 2), dtype)
        add("inv", dtype, {"a": a}, {"inv": np.linalg.inv(wide(a))})
        add("solve", dtype, {"a": a, "b": b}, {"x": np.linalg.solve(wide(a), wide(b))})
    a = with_spectrum(2, 7, 4, [3.0, 1.0, 0.5, 0.0], dtype)
    add("pinv", dtype, {"a": a}, {"pinv": np.linalg.pinv(wide(a), rcond=1e-4)})

    # Matrix norms and condition numbers in every order.
    a = draw((2, 5, 5), dtype)
    for ord_name, ord_val in [("fro", "fro"), ("nuc", "nuc"), ("1", 1), ("-1", -1), ("2", 2),
                              ("-2", -2), ("inf", np.inf), ("-inf", -np.inf)]:
        add("matrix_norm", dtype, {"a": a},
            {"norm": np.linalg.norm(wide(a), ord=ord_val, axis=(1, 2)),
             "cond": np.linalg.cond(wide(a), p=ord_val)}, ord=ord_name)

out = {
    "generator": "tests/linalg/reference/gen_reference.py",
    "numpy": np.__version__,
    "scipy": scipy.__version__,
    "cases": CASES,
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_reference.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
print(f"wrote {len(CASES)} cases to {path}")

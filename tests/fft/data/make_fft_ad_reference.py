#!/usr/bin/python3
"""Writes fft_ad_reference.json: PyTorch gradients of real losses through FFTs.

Run by hand (not by CI) from the repository root:
    /usr/bin/python3 tests/fft/data/make_fft_ad_reference.py   (system python: torch, numpy)

Each case is loss = sum(w * g(y)) with y = torch.fft.<op>(x, n/s, dim, norm)
and g one of abs2 (|y|^2), real, imag, square (y^2, real y), identity (real y);
the file records x, w and x.grad (PyTorch's convention for complex inputs:
dL/dRe(x) + i dL/dIm(x), the same as tenferro's). Arrays are stored in
column-major (Fortran) order, complex values as interleaved (re, im) pairs;
axes are the same logical axes in both libraries. tests/fft/test_fft_ad.cpp
(FftAdReference) recomputes the gradients with tenferro and compares them.
"""
import json
import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)


def flat(a):
    a = np.asarray(a)
    v = a.flatten(order="F")
    if np.iscomplexobj(v):
        v = np.stack([v.real, v.imag], axis=-1).reshape(-1)
    return [float(t) for t in v]


def g_of(kind, y):
    if kind == "abs2":
        return (y * y.conj()).real
    if kind == "real":
        return y.real
    if kind == "imag":
        return y.imag
    if kind == "square":
        return y * y
    if kind == "identity":
        return y
    raise ValueError(kind)


def run(op, x, norm, n=None, dim=None, s=None):
    f = getattr(torch.fft, op)
    if op in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        return f(x, n=n, dim=dim, norm=norm)
    return f(x, s=s, dim=dim, norm=norm)


def case(rng, cases, op, shape, complex_in, loss, norm, n=None, axis=0, s=None, axes=None):
    x = rng.standard_normal(shape)
    if complex_in:
        x = x + 1j * rng.standard_normal(shape)
    xt = torch.tensor(x, requires_grad=True)
    nd = op not in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
    y = run(op, xt, norm, n=n, dim=(tuple(axes) if axes is not None else None) if nd else axis,
            s=tuple(s) if s is not None else None)
    w = rng.uniform(0.5, 1.5, size=tuple(y.shape))
    value = (torch.tensor(w) * g_of(loss, y)).sum()
    value.backward()
    cases.append({
        "op": op,
        "norm": norm,
        "n": n,
        "axis": axis,
        "s": list(s) if s is not None else None,
        "axes": list(axes) if axes is not None else None,
        "loss": loss,
        "x_shape": list(shape),
        "x_dtype": "c128" if complex_in else "f64",
        "x": flat(x),
        "w_shape": list(y.shape),
        "w": flat(w),
        "loss_value": float(value.detach()),
        "grad": flat(xt.grad.detach().resolve_conj().numpy()),
    })


def main():
    rng = np.random.default_rng(20260)
    cases = []
    for norm in ("backward", "ortho", "forward"):
        for n in (None, 7, 11):
            case(rng, cases, "rfft", (8, 3), False, "abs2", norm, n=n, axis=0)
        for n in (None, 4, 9):
            case(rng, cases, "ifft", (6, 2), True, "real", norm, n=n, axis=0)
        case(rng, cases, "fft", (3, 5), False, "abs2", norm, n=8, axis=1)  # real input promotes
        case(rng, cases, "fft", (4, 3), True, "imag", norm, n=None, axis=-1)
        for n in (None, 7, 12):
            case(rng, cases, "hfft", (5, 2), True, "square", norm, n=n, axis=0)
        for n in (None, 7, 9):
            case(rng, cases, "irfft", (5, 3), True, "square", norm, n=n, axis=0)
        case(rng, cases, "irfft", (2, 6), True, "identity", norm, n=10, axis=1)
        for n in (None, 6):
            case(rng, cases, "ihfft", (7, 2), False, "abs2", norm, n=n, axis=0)
        case(rng, cases, "ihfft", (7, 2), False, "imag", norm, n=None, axis=0)
        case(rng, cases, "fft2", (4, 6, 2), True, "abs2", norm, s=(3, 8), axes=(0, 1))
        case(rng, cases, "ifft2", (4, 5), True, "real", norm, axes=(0, 1))
        case(rng, cases, "rfft2", (4, 6), False, "abs2", norm, axes=(0, 1))
        case(rng, cases, "irfft2", (4, 4, 2), True, "square", norm, s=(4, 7), axes=(0, 1))
        case(rng, cases, "fftn", (5, 4), True, "abs2", norm, s=(3, 6), axes=(0, 1))
        case(rng, cases, "ifftn", (3, 4, 2), True, "real", norm, axes=(2, 0))
        case(rng, cases, "rfftn", (5, 4, 3), False, "abs2", norm, axes=(2, 0))
        case(rng, cases, "irfftn", (3, 4, 5), True, "square", norm, s=(6, 8), axes=(0, 2))
        case(rng, cases, "irfftn", (3, 4), True, "identity", norm, axes=(1, 0))
    out = {
        "generator": "tests/fft/data/make_fft_ad_reference.py",
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
        "layout": "column-major, complex as (re, im) pairs",
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fft_ad_reference.json")
    with open(path, "w") as f:
        json.dump(out, f)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {path} (torch {torch.__version__})")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Reference values for tests/fft (run by hand, never by CI; the output is committed).

    /usr/bin/python3 tests/fft/gen_reference.py      # numpy 1.24, torch 1.13 (Debian)

Writes tests/fft/data/numpy_reference.json (numpy.fft outputs for sizes too
large for the naive DFT of the C++ tests) and tests/fft/data/torch_vjp.json
(vector-Jacobian products of torch.fft functions: the adjoints that
reverse-mode AD needs).

Inputs are not stored: both sides generate them with `values` below (a hash
of the element index, exact in binary floating point), in column-major order;
complex tensors take the real part from the even and the imaginary part from
the odd positions of one stream. Axes are always passed explicitly, so
tenferro's leading-axis defaults play no role; shapes and axis numbers mean
the same on both sides (arrays are laid out in Fortran order).
"""
import json
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MASK = np.uint64(0xFFFFFFFF)


def values(count, seed):
    """count numbers in [-1, 1], multiples of 1/1000."""
    j = np.arange(count, dtype=np.uint64)
    h = (j * np.uint64(2654435761) + np.uint64(seed) * np.uint64(40503) + np.uint64(12345)) & MASK
    h = ((h ^ (h >> np.uint64(13))) * np.uint64(1274126177)) & MASK
    return ((h % np.uint64(2001)).astype(np.int64) - 1000) / 1000.0


def make_input(shape, dtype, seed):
    n = int(np.prod(shape))
    if dtype in ("c64", "c128"):
        v = values(2 * n, seed)
        flat = v[0::2] + 1j * v[1::2]
    else:
        flat = values(n, seed)
    return flat.reshape(shape, order="F")


def short(x):
    """x rounded to 15 significant digits (the tests compare to 1e-12)."""
    return float("%.15g" % x)


def flat_out(a):
    a = np.asarray(a)
    f = a.flatten(order="F")
    if np.iscomplexobj(f):
        out = np.empty(2 * f.size)
        out[0::2] = f.real
        out[1::2] = f.imag
        return [short(x) for x in out]
    return [short(x) for x in f]


def out_dtype(a):
    return "c128" if np.iscomplexobj(a) else "f64"


# ---- numpy.fft reference outputs ---------------------------------------------------------

def numpy_cases():
    cases = []

    def add(op, shape, dtype, seed, norm="backward", n=None, axis=None, s=None, axes=None):
        x = make_input(shape, dtype, seed)
        f = getattr(np.fft, op)
        if axis is not None:
            y = f(x, n=n, axis=axis, norm=norm)
        else:
            y = f(x, s=s, axes=axes, norm=norm)
        cases.append({"op": op, "shape": list(shape), "dtype": dtype, "seed": seed, "norm": norm,
                      "n": n, "axis": axis, "s": s, "axes": axes, "out_shape": list(y.shape),
                      "out_dtype": out_dtype(y), "out": flat_out(y)})

    seed = 1
    add("fft", (1000,), "c128", seed, axis=0)                  # 2^3 5^3
    add("fft", (1024,), "c128", seed + 1, "ortho", axis=0)     # 2^10
    add("fft", (1009,), "c128", seed + 2, "forward", axis=0)   # prime (Bluestein)
    add("fft", (729,), "c128", seed + 3, axis=0)               # 3^6
    add("ifft", (625,), "c128", seed + 4, axis=0)              # 5^4
    add("rfft", (1000,), "f64", seed + 5, axis=0)
    add("rfft", (729,), "f64", seed + 6, "forward", axis=0)
    add("irfft", (513,), "c128", seed + 7, axis=0, n=1024)
    add("irfft", (505,), "c128", seed + 8, "ortho", axis=0, n=1009)
    seed += 9
    add("fft", (150, 2), "c128", seed, axis=0, n=256)      # zero-padding
    add("fft", (2, 300), "c128", seed + 1, axis=1, n=200)  # cropping
    add("rfft", (499, 2), "f64", seed + 2, "ortho", axis=0)
    add("irfft", (200, 2), "c128", seed + 3, "forward", axis=0, n=399)   # odd output, cropped
    add("irfft", (2, 100), "c128", seed + 4, axis=1, n=300)              # even output, padded
    add("hfft", (151,), "c128", seed + 5, axis=0)
    add("hfft", (100,), "c128", seed + 6, "ortho", axis=0, n=201)
    add("ihfft", (301,), "f64", seed + 7, axis=0)
    add("ihfft", (300,), "f64", seed + 8, "forward", axis=0)
    seed += 9
    add("fft2", (16, 24), "c128", seed, axes=[0, 1])
    add("ifft2", (15, 10, 2), "c128", seed + 1, "ortho", axes=[0, 1])
    add("fftn", (8, 6, 9), "c128", seed + 2, axes=[2, 0])
    add("fftn", (8, 6, 9), "c128", seed + 3, "forward", s=[11, 7], axes=[0, 2])
    add("ifftn", (5, 6, 7), "c128", seed + 4, axes=[0, 1, 2])
    add("rfft2", (17, 20), "f64", seed + 5, axes=[0, 1])
    add("rfftn", (8, 6, 9), "f64", seed + 6, axes=[2, 0])
    add("rfftn", (8, 6, 9), "f64", seed + 7, "ortho", s=[7, 10], axes=[1, 0])
    add("irfft2", (12, 9), "c128", seed + 8, axes=[0, 1])
    add("irfftn", (8, 6, 5), "c128", seed + 9, axes=[0, 2])
    add("irfftn", (8, 6, 5), "c128", seed + 10, "ortho", s=[9, 13], axes=[2, 1])
    add("irfftn", (7, 6, 5), "c128", seed + 11, axes=[0, 1, 2], s=[7, 6, 9])
    return cases


# ---- torch.fft vector-Jacobian products ----------------------------------------------------

def torch_cases():
    torch.set_num_threads(1)
    cases = []

    def add(op, shape, dtype, seed, norm, dims, lengths):
        x = torch.tensor(make_input(shape, dtype, seed), requires_grad=True)
        f = getattr(torch.fft, op)
        if op in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
            y = f(x, n=lengths[0], dim=dims[0], norm=norm)
        else:
            y = f(x, s=lengths, dim=dims, norm=norm)
        g_np = make_input(tuple(y.shape), "c128" if y.is_complex() else "f64", seed + 1000)
        g = torch.tensor(g_np)
        (gx,) = torch.autograd.grad(y, x, grad_outputs=g)
        gx = gx.detach().resolve_conj()
        cases.append({"op": op, "shape": list(shape), "dtype": dtype, "seed": seed,
                      "cotangent_seed": seed + 1000, "norm": norm, "axes": dims,
                      "lengths": lengths, "out_shape": list(y.shape),
                      "grad_dtype": out_dtype(gx.numpy()),
                      "grad": flat_out(gx.numpy())})

    seed = 500
    for norm in ("backward", "ortho", "forward"):
        for n in (5, 6, 7, 8):
            add("fft", (n, 2), "c128", seed, norm, [0], [n])
            add("ifft", (3, n), "c128", seed + 1, norm, [1], [n])
            add("rfft", (n, 2), "f64", seed + 2, norm, [0], [n])
            add("irfft", (n // 2 + 1, 3), "c128", seed + 3, norm, [0], [n])
            add("hfft", (n // 2 + 1,), "c128", seed + 4, norm, [0], [n])
            add("ihfft", (2, n), "f64", seed + 5, norm, [1], [n])
            seed += 6
        add("fftn", (4, 3, 5), "c128", seed, norm, [2, 0], [5, 4])
        add("rfftn", (4, 3, 5), "f64", seed + 1, norm, [0, 2], [4, 5])
        add("rfftn", (5, 3, 6), "f64", seed + 2, norm, [2, 1, 0], [6, 3, 5])
        add("irfftn", (4, 3, 3), "c128", seed + 3, norm, [0, 2], [4, 5])
        add("irfftn", (6, 4, 2), "c128", seed + 4, norm, [2, 1, 0], [2, 4, 10])
        seed += 5
    return cases


def main():
    data_dir = os.path.join(HERE, "data")
    os.makedirs(data_dir, exist_ok=True)
    meta = {"generator": "tests/fft/gen_reference.py", "numpy": np.__version__,
            "torch": torch.__version__}
    with open(os.path.join(data_dir, "numpy_reference.json"), "w") as f:
        json.dump({**meta, "cases": numpy_cases()}, f, separators=(",", ":"))
    with open(os.path.join(data_dir, "torch_vjp.json"), "w") as f:
        json.dump({**meta, "cases": torch_cases()}, f, separators=(",", ":"))


if __name__ == "__main__":
    main()

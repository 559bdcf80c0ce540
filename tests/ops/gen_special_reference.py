#!/usr/bin/python3
"""Reference values of tenferro's special functions, for test_special_accuracy.

    /usr/bin/python3 tests/ops/gen_special_reference.py   # SciPy 1.10, NumPy 1.24, mpmath 1.2 (Debian 12)

Writes tests/ops/data/special_reference.txt: for each function, dtype
(f64, f32) and argument x on a grid over the function's domain (dense in the
middle, geometric into both tails, plus the points where the function has a
corner: zeros, poles' neighbourhoods, the ends of the domain), one line

    <function> <dtype> <x> <scipy(x)> <mpmath(x)>

with every number as a C99 hex float (exact). x is a value of the dtype
(f32 arguments are float32 numbers); both references are evaluated at that
x in float64 (SciPy) and at 40 digits (mpmath, rounded to float64). The test
measures our error in ulps of the dtype against each. Also prints the Taylor
coefficients of digamma at its positive root used by src/ops/special_math.hpp.
"""
import math
import os

import mpmath as mp
import numpy as np
import scipy
import scipy.special as sc

mp.mp.dps = 40


def grid(lo, hi, n):
    return list(np.linspace(lo, hi, n))


def geo(a, b, n):
    """n points from a to b (same sign), geometrically spaced."""
    s = 1.0 if a > 0 else -1.0
    return list(s * np.geomspace(abs(a), abs(b), n))


def mp_ndtri_any(p):
    p = mp.mpf(p)
    if p == 0:
        return -mp.inf
    if p == 1:
        return mp.inf
    if p == 0.5:
        return mp.mpf(0)
    if p < 0.5:
        # solve ncdf(t) = p from the tail (erfinv loses 2p - 1 to cancellation)
        t0 = -mp.sqrt(-2 * mp.log(p))
        return mp.findroot(lambda t: mp.log(mp.ncdf(t)) - mp.log(p), t0)
    return -mp_ndtri_any(1 - p)


def mp_erfinv(y):
    y = mp.mpf(y)
    if abs(y) == 1:
        return mp.inf * mp.sign(y)
    if abs(y) < mp.mpf("0.5"):
        return mp.erfinv(y)
    # erfc(x) = 1 - |y| from the tail
    q = 1 - abs(y)
    x = mp.findroot(lambda t: mp.log(mp.erfc(t)) - mp.log(q), mp.sqrt(-mp.log(q)))
    return x * mp.sign(y)


def mp_erfcx(x):
    x = mp.mpf(x)
    if x > 1e6:  # asymptotic series (3 terms: below 1e-36 relative here)
        r = 1 / (2 * x * x)
        return (1 - r + 3 * r * r - 15 * r ** 3) / (x * mp.sqrt(mp.pi))
    return mp.exp(x * x) * mp.erfc(x)


def mp_log_ndtr(x):
    x = mp.mpf(x)
    if x < -1e6:
        r = 1 / (x * x)
        return -x * x / 2 - mp.log(-x) - mp.log(2 * mp.pi) / 2 + mp.log(1 - r + 3 * r * r - 15 * r ** 3)
    if x > 0:  # ncdf(x) = 1 - ncdf(-x) would round to 1 at 40 digits
        return mp.log1p(-mp.ncdf(-x))
    return mp.log(mp.ncdf(x))


def mp_bessel_scaled(nu, x):
    x = mp.mpf(x)
    ax = abs(x)
    if ax > 1e6:  # asymptotic expansion, 4 terms
        mu = 4 * nu * nu
        s, term = mp.mpf(1), mp.mpf(1)
        for k in range(1, 5):
            term *= -(mu - (2 * k - 1) ** 2) / (8 * k * ax)
            s += term
        v = s / mp.sqrt(2 * mp.pi * ax)
    else:
        v = mp.besseli(nu, ax) * mp.exp(-ax)
    return -v if (nu == 1 and x < 0) else v


def mp_lgamma(x):
    x = mp.mpf(x)
    return mp.loggamma(x) if x > 0 else mp.log(abs(mp.gamma(x)))


FUNCS = {
    # name: (scipy function, mpmath function, domain points)
    "erf": (sc.erf, mp.erf, grid(-6, 6, 400) + geo(1e-300, 1, 60) + geo(-1e-300, -1, 60)),
    "erfc": (sc.erfc, mp.erfc, grid(-6, 6, 300) + grid(6, 27, 200) + geo(1e-300, 1, 40)),
    "erfinv": (sc.erfinv, mp_erfinv, grid(-0.999, 0.999, 400) + geo(1e-300, 0.5, 60) + list(1 - np.geomspace(1e-16, 0.5, 80)) + list(-1 + np.geomspace(1e-16, 0.5, 40))),
    "erfcx": (sc.erfcx, mp_erfcx, grid(-26, 26, 400) + geo(26, 1e300, 80) + geo(1e-300, 1, 40)),
    "lgamma": (sc.gammaln, mp_lgamma, grid(0.01, 30, 400) + geo(30, 1e300, 60) + geo(1e-300, 0.01, 40) + list(np.linspace(0.9, 1.1, 40)) + list(np.linspace(1.9, 2.1, 40)) + [k + f for k in range(-8, 0) for f in (0.1, 0.3, 0.5, 0.7, 0.9)]),
    "digamma": (sc.psi, mp.digamma, grid(0.01, 30, 400) + geo(30, 1e300, 60) + geo(1e-300, 0.01, 40) + list(np.linspace(1.3, 1.6, 60))),
    "i0": (sc.i0, lambda x: mp.besseli(0, x), grid(-40, 40, 400) + grid(40, 713, 120) + geo(1e-300, 1, 40)),
    "i0e": (sc.i0e, lambda x: mp_bessel_scaled(0, x), grid(-40, 40, 400) + geo(40, 1e300, 80) + geo(1e-300, 1, 40)),
    "i1": (sc.i1, lambda x: mp.besseli(1, x), grid(-40, 40, 400) + grid(40, 713, 120) + geo(1e-300, 1, 40) + geo(-1e-300, -1, 20)),
    "i1e": (sc.i1e, lambda x: mp_bessel_scaled(1, x), grid(-40, 40, 400) + geo(40, 1e300, 80) + geo(1e-300, 1, 40) + geo(-1e-300, -1, 20)),
    "ndtr": (sc.ndtr, mp.ncdf, grid(-8, 8, 400) + grid(-38, -8, 200) + grid(8, 40, 40) + geo(1e-300, 1, 30)),
    "ndtri": (sc.ndtri, mp_ndtri_any, grid(0.001, 0.999, 400) + geo(1e-300, 0.001, 120) + list(1 - np.geomspace(1e-16, 0.001, 60)) + geo(0.5 - 1e-3, 0.5 - 1e-15, 20)),
    "log_ndtr": (sc.log_ndtr, mp_log_ndtr, grid(-30, 8, 400) + geo(-30, -1e150, 80) + grid(8, 37, 40)),
}
for n in (1, 2, 3, 4):
    FUNCS[f"polygamma{n}"] = (
        (lambda n: lambda x: sc.polygamma(n, x))(n),
        (lambda n: lambda x: mp.polygamma(n, x))(n),
        grid(0.01, 30, 300) + geo(30, 1e30, 40) + geo(1e-100, 0.01, 30),
    )


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "special_reference.txt")
    lines = [f"# generated by tests/ops/gen_special_reference.py (scipy {scipy.__version__}, numpy {np.__version__}, mpmath {mp.__version__})"]
    for name, (fs, fm, xs) in FUNCS.items():
        for dt, np_t in (("f64", np.float64), ("f32", np.float32)):
            seen = set()
            for x in xs:
                xv = np_t(x)
                if not np.isfinite(xv) or float(xv) in seen:
                    continue
                seen.add(float(xv))
                xd = float(xv)
                with np.errstate(all="ignore"):
                    s = float(fs(np.float64(xd)))
                try:
                    m = float(fm(mp.mpf(xd)))
                except (ValueError, ZeroDivisionError, OverflowError, RecursionError) as e:  # a pole hit exactly, or mpmath gave up
                    print(f"{name} {dt} x={xd!r}: mpmath: {e}")
                    m = math.nan
                lines.append(f"{name} {dt} {xd.hex()} {s.hex()} {m.hex()}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} points to {out}")
    # The Taylor coefficients of digamma at its positive root (special_math.hpp).
    x0 = mp.findroot(mp.digamma, 1.46)
    print("digamma root", repr(float(x0)), repr(float(x0 - float(x0))))
    print(", ".join("%.17e" % float(mp.polygamma(k, x0) / mp.factorial(k)) for k in range(1, 41)))


if __name__ == "__main__":
    main()

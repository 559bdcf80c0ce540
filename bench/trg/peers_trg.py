#!/usr/bin/env python3
"""The flagship TRG step (examples/ising_trg) in PyTorch and JAX, for the
TRG row of the peer report (bench/peer/report.py, section "trg").

    peers_trg.py --framework torch|jax --chi N --steps N --temperature T --out FILE [--repeats N]

Same algorithm as examples/ising_trg/trg.hpp: the site tensor
T[l,u,r,d] = sum_s W[s,l] W[s,u] W[s,r] W[s,d]; per step two truncated
SVDs (rows (l,u) and (u,r)) with sqrt(s) on each side, the plaquette
contraction "eap,abq,sbc,tce->ptsq", and the Frobenius normalisation; ln Z / N
accumulates the logs of the norms. Truncation keeps at most chi singular
values and drops those at or below rtol * s_max (rtol = 1e-9, as in the
example).

  torch  eager autograd: torch.linalg.svd, the rank chosen per step from
         the values (data-dependent, as eager code does); "grad" is
         ln Z and d lnZ/d beta (torch.autograd.grad), "hvp" also the second
         derivative (create_graph=True, then a second grad).
  jax    jax.jit of jax.value_and_grad (and of the second derivative by
         jax.jvp of the gradient, forward over reverse). JAX needs static
         shapes, so the per-step ranks are fixed: they are the ones a NumPy
         forward pass at the same temperature chooses (the same rule), and
         are traced in as constants; compiling is not timed.

Timing: one warm-up call, then --repeats calls; the median wall time in ms.
The values (ln Z, E = -d lnZ/d beta, C = beta^2 d2 lnZ/d beta2) are written
too, so the report can check that every framework computed the same numbers
(a NaN means that framework's SVD derivative broke down, e.g. at a
degenerate pair of singular values).
"""
import argparse
import json
import math
import statistics
import time

RTOL = 1e-9


def site_weights(xp, beta):
    """W[s, i]: column 0 = sqrt(cosh b) (1, 1), column 1 = sqrt(sinh b) (1, -1)."""
    c = xp.sqrt(xp.cosh(beta))
    s = xp.sqrt(xp.sinh(beta))
    return xp.stack([xp.stack([c, s]), xp.stack([c, -s])])


def rank_for(s, chi):
    smax = float(s[0])
    return max(1, min(chi, int(sum(1 for v in s if float(v) > RTOL * smax))))


def numpy_ranks(beta, chi, steps):
    """The per-step ranks of the eager algorithm at this beta (for JAX's static shapes)."""
    import functools
    import types
    import numpy as np
    # NumPy's einsum contracts four operands in one loop nest unless asked to pair them.
    xp = types.SimpleNamespace(**{n: getattr(np, n) for n in ("sqrt", "cosh", "sinh", "stack", "sum", "log", "transpose")},
                               einsum=functools.partial(np.einsum, optimize=True))
    chosen = []
    log_z(xp, lambda m: np.linalg.svd(m, full_matrices=False), np.float64(beta), chi, steps, chosen=chosen)
    return list(zip(chosen[0::2], chosen[1::2]))


def log_z(xp, linalg_svd, beta, chi, steps, ranks=None, chosen=None):
    """ln Z / N; `ranks` fixes the rank of every split (JAX), else it is chosen from the values
    (and appended to `chosen`, two per step, when given)."""
    w = site_weights(xp, beta)
    t = xp.einsum("si,sj,sk,sl->ijkl", w, w, w, w)
    g = xp.sqrt(xp.sum(t * t))
    t = t / g
    lz = xp.log(g)
    weight = 1.0

    def split(m, d, r):
        u, s, vh = linalg_svd(m)
        if r is None:
            r = rank_for(s.detach() if hasattr(s, "detach") else s, chi)
            if chosen is not None:
                chosen.append(r)
        root = xp.sqrt(s[:r])
        return (u[:, :r] * root).reshape(d, d, r), (root[:, None] * vh[:r]).reshape(r, d, d)

    for k in range(steps):
        d = t.shape[0]
        ra, rb = ranks[k] if ranks is not None else (None, None)
        al, ar = split(t.reshape(d * d, d * d), d, ra)
        perm = (1, 2, 3, 0)
        tt = t.permute(*perm) if hasattr(t, "permute") else xp.transpose(t, perm)
        bl, br = split(tt.reshape(d * d, d * d), d, rb)
        t = xp.einsum("eap,abq,sbc,tce->ptsq", bl, al, br, ar)
        g = xp.sqrt(xp.sum(t * t))
        t = t / g
        weight *= 0.5
        lz = lz + xp.log(g) * weight
    return lz + xp.log(xp.einsum("ijij->", t)) * weight


def timed(fn, repeats):
    fn()  # warm-up (JAX: compiles)
    ms = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms)


def run_torch(a):
    import torch
    torch.set_num_threads(int(__import__("os").environ.get("OMP_NUM_THREADS", "1")))
    svd = lambda m: torch.linalg.svd(m, full_matrices=False)

    def grad():
        b = torch.tensor(1.0 / a.temperature, dtype=torch.float64, requires_grad=True)
        lz = log_z(torch, svd, b, a.chi, a.steps)
        (d1,) = torch.autograd.grad(lz, b)
        return float(lz), float(d1)

    def hvp():
        b = torch.tensor(1.0 / a.temperature, dtype=torch.float64, requires_grad=True)
        lz = log_z(torch, svd, b, a.chi, a.steps)
        (d1,) = torch.autograd.grad(lz, b, create_graph=True)
        (d2,) = torch.autograd.grad(d1, b)
        return float(lz), float(d1), float(d2)

    return grad, hvp, torch.__version__


def run_jax(a):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    ranks = numpy_ranks(1.0 / a.temperature, a.chi, a.steps)
    svd = lambda m: jnp.linalg.svd(m, full_matrices=False)
    f = lambda b: log_z(jnp, svd, b, a.chi, a.steps, ranks)
    vg = jax.jit(jax.value_and_grad(f))
    df = jax.grad(f)
    second = jax.jit(lambda b: (f(b),) + jax.jvp(df, (b,), (jnp.ones_like(b),)))
    b = jnp.float64(1.0 / a.temperature)

    def grad():
        lz, d1 = vg(b)
        return float(lz), float(d1)

    def hvp():
        lz, d1, d2 = second(b)
        return float(lz), float(d1), float(d2)

    return grad, hvp, jax.__version__


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", required=True, choices=["torch", "jax"])
    ap.add_argument("--chi", type=int, default=16)
    ap.add_argument("--steps", type=int, default=24)
    ap.add_argument("--temperature", type=float, default=1.9)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    grad, hvp, version = (run_torch if a.framework == "torch" else run_jax)(a)
    beta = 1.0 / a.temperature
    lz, d1 = grad()
    _, _, d2 = hvp()
    res = {
        "framework": a.framework, "version": version, "chi": a.chi, "steps": a.steps, "T": a.temperature,
        "grad_ms": timed(grad, a.repeats), "hvp_ms": timed(hvp, a.repeats),
        "lnZ": lz, "E": -d1, "C": beta * beta * d2,
    }
    res = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in res.items()}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

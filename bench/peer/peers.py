#!/usr/bin/env python3
"""Peer side of the benchmark report (scripts/bench.sh, bench/peer/report.py).

    peers.py --framework torch|jax|numpy --mode einsum|linalg|linalg_ad|jvp_vjp --threads N --out FILE
             [--paths FILE] [--budget S] [--cap S] [--filter SUB]

torch and numpy run under Debian's /usr/bin/python3, jax under
.venv-peers/bin/python. The caller sets the thread environment
(OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, and XLA_FLAGS for one thread);
torch.set_num_threads is called here.

Inputs are exactly tenferro's: the einsum operands come from
tests/einsum/make_instance_reference.py (as in bench/einsum/peers.py,
whose path-step helpers are reused), the linalg matrices from
bench/linalg/peers.py's splitmix64 generator (bench/peer/inputs.hpp).

Einsum, along the given path (stored opt_flops / opt_size, or ours from
--paths):
  torch  torch.einsum once per path step (what opt_einsum's torch backend
         runs for that path);
  jax    jax.numpy.einsum(subscripts, *ops, optimize=path) under jax.jit;
  numpy  numpy.einsum(subscripts, *ops, optimize=['einsum_path', *path]) when
         the instance has at most 52 labels (NumPy's limit), else
         numpy.einsum(optimize=True) once per path step (the same
         tensordot/einsum calls); each case runs in a forked child that
         is killed after cap + 5 s (one NumPy C call cannot be
         interrupted).
Linalg AD: value and gradient of a scalar (sum of the singular values, of
the eigenvalues, of solve(a, b), of cholesky(a)): torch.autograd.grad in
eager mode, jax.jit(jax.value_and_grad(f)).
AD, JVP and VJP (--mode jvp_vjp; bench_peer_ad --mode=jvp_vjp has the
objectives): (f(a), J t) and (f(a), J^T 1) with torch.func's jvp / vjp
(functorch.jvp / functorch.vjp on torch 1.x, the same functions) and
jax.jit of jax.jvp / jax.vjp.

Timing rule (the one of bench/peer/timing.hpp): one warm-up call (jax:
after compiling); a warm-up interrupted after --cap seconds is a timeout,
and the remaining paths of that instance are not run; a warm-up of 2 s or
more is the measurement; else timed calls until --budget seconds and 3
calls (1 when the warm-up took more than half the budget), at most 200.
The median wall time in ms is written.
"""
import argparse
import importlib.util
import json
import os
import signal
import string
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
INSTANCES = os.path.join(ROOT, "tests", "data", "instances")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


einsum_peers = load("einsum_peers", os.path.join(ROOT, "bench", "einsum", "peers.py"))
linalg_peers = load("linalg_peers", os.path.join(ROOT, "bench", "linalg", "peers.py"))


class CallTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise CallTimeout()


def measure(fn, budget, cap, single=2.0, max_reps=200):
    """The timing rule (module docstring). The warm-up call is interrupted
    after `cap` seconds (SIGALRM; Python code runs the handler between
    library calls, e.g. between the steps of a path)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, cap)
    try:
        t0 = time.perf_counter()
        fn()
        w = time.perf_counter() - t0
    except CallTimeout:
        return {"timeout_s": cap}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if w >= single:
        return {"warmup_ms": 1e3 * w, "ms": 1e3 * w, "reps": 1, "first_call": True}
    min_reps = 1 if w > budget / 2 else 3
    times = []
    start = time.perf_counter()
    while len(times) < max_reps:
        a = time.perf_counter()
        fn()
        b = time.perf_counter()
        times.append(b - a)
        if len(times) >= min_reps and b - start >= budget:
            break
    times.sort()
    n = len(times)
    med = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
    return {"warmup_ms": 1e3 * w, "ms": 1e3 * med, "reps": n}


def forked(run, hard, cap):
    """run() in a forked child, killed after `hard` seconds (NumPy's einsum
    can spend minutes in one C call, which SIGALRM cannot interrupt)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            out = json.dumps(run()).encode()
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            out = json.dumps({"error": f"{type(e).__name__}: {e}"[:200]}).encode()
        os.write(w, out)
        os.close(w)
        os._exit(0)
    os.close(w)
    import select
    chunks, deadline = [], time.monotonic() + hard
    while True:
        left = deadline - time.monotonic()
        ready = select.select([r], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            return {"timeout_s": cap}
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks).decode())


# ---- einsum -----------------------------------------------------------------------------

def einsum_instances(filt):
    for fname in sorted(f for f in os.listdir(INSTANCES) if f.endswith(".json")):
        name = fname[:-5]
        if filt and filt not in name:
            continue
        with open(os.path.join(INSTANCES, fname), encoding="utf-8") as f:
            inst = json.load(f)
        if "paths" in inst:
            yield name, inst


def run_einsum(fw, args, ours_paths):
    import numpy as np
    if fw == "torch":
        import torch
    if fw == "jax":
        import jax
        import jax.numpy as jnp
    results = {}
    for name, inst in einsum_instances(args.filter):
        lhs, output = inst["format_string"].split("->")
        terms = lhs.split(",")
        shapes = inst["shapes"]
        size, count = {}, {}
        for t, s in zip(terms, shapes):
            for label, n in zip(t, s):
                size[label] = n
            for label in set(t):
                count[label] = count.get(label, 0) + 1
        arrays = [einsum_peers.ref.operand(name, k, terms, shapes, output, size, count).reshape(shapes[k])
                  for k in range(len(terms))]
        labels = list(dict.fromkeys("".join(terms)))
        ascii_map = {l: string.ascii_letters[i] for i, l in enumerate(labels)} if len(labels) <= 52 else None
        paths = {"opt_flops": inst["paths"]["opt_flops"]["path"], "opt_size": inst["paths"]["opt_size"]["path"],
                 "ours": ours_paths[name]["path"]}
        if fw == "torch":
            ops = [torch.from_numpy(a) for a in arrays]
        elif fw == "jax":
            ops = [jnp.asarray(a) for a in arrays]
        timed_out = False
        for pname, path in paths.items():
            path = [tuple(p) for p in path]
            key = f"{name}/{pname}"
            if timed_out:
                results[key] = {"timeout_s": args.cap, "not_run": True}
                continue
            if fw == "torch":
                steps, final = einsum_peers.pairwise_steps(terms, output, path)
                fn = lambda: einsum_peers.run_steps(torch.einsum, ops, steps, final)
            elif fw == "numpy":
                if ascii_map is not None:
                    sub = "".join(ascii_map.get(c, c) for c in inst["format_string"])
                    opt = ["einsum_path"] + path
                    fn = lambda: np.einsum(sub, *arrays, optimize=opt)
                else:
                    steps, final = einsum_peers.pairwise_steps(terms, output, path)
                    fn = lambda: einsum_peers.run_steps(lambda s, *x: np.einsum(s, *x, optimize=True),
                                                        arrays, steps, final)
            else:
                jf = jax.jit(lambda *o, p=path: jnp.einsum(inst["format_string"], *o, optimize=p))
                compiled = jf.lower(*ops).compile()  # compilation is not timed
                fn = lambda: compiled(*ops).block_until_ready()
            if fw == "numpy":  # a hard limit: cap + the longest legitimate timing loop
                results[key] = forked(lambda: measure(fn, args.budget, args.cap), args.cap + 5.0, args.cap)
            else:
                results[key] = measure(fn, args.budget, args.cap)
            timed_out = "timeout_s" in results[key]
            print(f"  {fw} {args.threads}t {key} {results[key]}", file=sys.stderr, flush=True)
    return results


# ---- linalg ----------------------------------------------------------------------------

LINALG_OPS = ["svd", "qr", "eigh", "cholesky", "solve", "lu", "inv", "det"]
LINALG_SIZES = [(256, 0), (16, 64)]
AD_OPS = ["svd", "eigh", "solve", "cholesky"]


def case_key(op, n, batch):
    return f"{op}/{n}x{n}" + (f"x{batch}" if batch else "")


def linalg_operands(op, n, batch):
    """(a, b) as numpy arrays, (batch, n, n) / (batch, n, 1) when batched."""
    import numpy as np
    a = linalg_peers.tensor_input(1, n, n, batch)
    if op in ("eigh", "cholesky"):
        a = 0.5 * (a + np.swapaxes(a, -1, -2))
    if op in ("cholesky", "solve"):
        a = a + n * np.eye(n)
    b = linalg_peers.tensor_input(2, n, 1, batch)
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


def run_linalg(fw, args, ad):
    results = {}
    if fw == "torch":
        import torch
        prim = {
            "svd": lambda a, b: torch.linalg.svd(a, full_matrices=False),
            "qr": lambda a, b: torch.linalg.qr(a),
            "eigh": lambda a, b: torch.linalg.eigh(a),
            "cholesky": lambda a, b: torch.linalg.cholesky(a),
            "solve": lambda a, b: torch.linalg.solve(a, b),
            "lu": lambda a, b: torch.linalg.lu(a),
            "inv": lambda a, b: torch.linalg.inv(a),
            "det": lambda a, b: torch.linalg.det(a),
        }
        conv = torch.from_numpy
        done = lambda r: r
    else:
        import jax
        import jax.numpy as jnp
        import jax.scipy.linalg as jsl
        prim = {
            "svd": lambda a, b: jnp.linalg.svd(a, full_matrices=False),
            "qr": lambda a, b: jnp.linalg.qr(a),
            "eigh": lambda a, b: jnp.linalg.eigh(a),
            "cholesky": lambda a, b: jnp.linalg.cholesky(a),
            "solve": lambda a, b: jnp.linalg.solve(a, b),
            "lu": lambda a, b: jsl.lu(a),
            "inv": lambda a, b: jnp.linalg.inv(a),
            "det": lambda a, b: jnp.linalg.det(a),
        }
        conv = lambda x: jax.device_put(jnp.asarray(x))
        done = jax.block_until_ready
    scalar = {  # the AD objectives
        "svd": lambda a, b: prim["svd"](a, b)[1].sum(),
        "eigh": lambda a, b: prim["eigh"](a, b)[0].sum(),
        "solve": lambda a, b: prim["solve"](a, b).sum(),
        "cholesky": lambda a, b: prim["cholesky"](a, b).sum(),
    }
    for op in (AD_OPS if ad else LINALG_OPS):
        for n, batch in LINALG_SIZES:
            key = ("grad_" if ad else "") + case_key(op, n, batch)
            if args.filter and args.filter not in key:
                continue
            a, b = (conv(x) for x in linalg_operands(op, n, batch))
            f = prim[op]
            if not ad:
                if fw == "jax":
                    jf = jax.jit(f)
                    fn = lambda: done(jf(a, b))
                    fn()
                else:
                    fn = lambda: f(a, b)
            elif fw == "torch":
                s = scalar[op]
                a.requires_grad_(True)

                def fn(a=a, b=b, s=s):
                    y = s(a, b)
                    (g,) = torch.autograd.grad(y, a)
                    return y, g
            else:
                vg = jax.jit(jax.value_and_grad(scalar[op]))
                fn = lambda: done(vg(a, b))
                fn()
            try:
                results[key] = measure(fn, args.budget, args.cap)
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                results[key] = {"error": f"{type(e).__name__}: {e}"[:200]}
            print(f"  {fw} {args.threads}t {key} {results[key]}", file=sys.stderr, flush=True)
    return results


AD_JV_OPS = ["svd", "qr", "eigh", "lu", "solve", "lstsq"]
AD_JV_SIZES = [4, 64, 256, 512]


def ad_operands(op, n):
    """(a, b, t) as numpy arrays: the twin of bench_peer_ad.cpp's ad_operands."""
    import numpy as np
    rows = 2 * n if op == "lstsq" else n
    a, b, t = (linalg_peers.tensor_input(seed, rows, c, 0) for seed, c in ((1, n), (2, 1), (3, n)))
    if op == "eigh":
        a, t = 0.5 * (a + a.T), 0.5 * (t + t.T)
    if op == "solve":
        a = a + n * np.eye(n)
    return tuple(np.ascontiguousarray(x) for x in (a, b, t))


def run_jvp_vjp(fw, args):
    results = {}
    if fw == "torch":
        import torch
        try:
            from torch.func import jvp, vjp
        except ImportError:  # torch 1.x: the same functions in functorch
            from functorch import jvp, vjp
        L = torch.linalg
        f = {
            "svd": lambda a, b: L.svdvals(a).sum(),
            "qr": lambda a, b: sum(x.sum() for x in L.qr(a)),
            "eigh": lambda a, b: L.eigvalsh(a).sum(),
            "lu": lambda a, b: (lambda p, l, u: l.sum() + u.sum())(*L.lu(a)),
            "solve": lambda a, b: L.solve(a, b).sum(),
            "lstsq": lambda a, b: L.lstsq(a, b).solution.sum(),
        }
        conv = torch.from_numpy
        done = lambda r: r
    else:
        import jax
        import jax.numpy as jnp
        import jax.scipy.linalg as jsl
        f = {
            "svd": lambda a, b: jnp.linalg.svd(a, compute_uv=False).sum(),
            "qr": lambda a, b: sum(x.sum() for x in jnp.linalg.qr(a)),
            "eigh": lambda a, b: jnp.linalg.eigvalsh(a).sum(),
            "lu": lambda a, b: (lambda p, l, u: l.sum() + u.sum())(*jsl.lu(a)),
            "solve": lambda a, b: jnp.linalg.solve(a, b).sum(),
            "lstsq": lambda a, b: jnp.linalg.lstsq(a, b)[0].sum(),
        }
        conv = lambda x: jax.device_put(jnp.asarray(x))
        done = jax.block_until_ready
    for op in AD_JV_OPS:
        for n in AD_JV_SIZES:
            for mode in ("jvp", "vjp"):
                key = f"{mode}_{op}/{n}"
                if args.filter and args.filter not in key:
                    continue
                a, b, t = (conv(x) for x in ad_operands(op, n))
                g = (lambda fo: lambda a: fo(a, b))(f[op])
                try:
                    if fw == "torch":
                        if mode == "jvp":
                            fn = lambda g=g, a=a, t=t: jvp(g, (a,), (t,))
                        else:
                            def fn(g=g, a=a):
                                y, back = vjp(g, a)
                                return y, back(torch.ones_like(y))
                    else:
                        if mode == "jvp":
                            jf = jax.jit(lambda a, t, g=g: jax.jvp(g, (a,), (t,)))
                            fn = lambda jf=jf, a=a, t=t: done(jf(a, t))
                        else:
                            def vj(a, g=g):
                                y, back = jax.vjp(g, a)
                                return y, back(jnp.ones_like(y))
                            jf = jax.jit(vj)
                            fn = lambda jf=jf, a=a: done(jf(a))
                        fn()  # compile (not timed)
                    results[key] = measure(fn, args.budget, args.cap)
                except Exception as e:  # noqa: BLE001 - reported, not fatal
                    results[key] = {"error": f"{type(e).__name__}: {e}"[:200]}
                print(f"  {fw} {args.threads}t {key} {results[key]}", file=sys.stderr, flush=True)
    return results


def versions(fw):
    import numpy as np
    v = {"numpy": np.__version__, "python": sys.version.split()[0]}
    if fw == "torch":
        import torch
        v["torch"] = torch.__version__
    if fw == "jax":
        import jax
        import jaxlib
        v["jax"] = jax.__version__
        v["jaxlib"] = jaxlib.__version__
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--framework", required=True, choices=["torch", "jax", "numpy"])
    ap.add_argument("--mode", required=True, choices=["einsum", "linalg", "linalg_ad", "jvp_vjp", "versions"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--paths", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=0.4)
    ap.add_argument("--cap", type=float, default=20.0)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    if args.framework == "torch":
        import torch
        torch.set_num_threads(args.threads)
    if args.framework == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
    out = {"framework": args.framework, "threads": args.threads, "versions": versions(args.framework)}
    if args.mode == "einsum":
        with open(args.paths, encoding="utf-8") as f:
            ours_paths = json.load(f)
        out["results"] = run_einsum(args.framework, args, ours_paths)
    elif args.mode in ("linalg", "linalg_ad"):
        out["results"] = run_linalg(args.framework, args, args.mode == "linalg_ad")
    elif args.mode == "jvp_vjp":
        out["results"] = run_jvp_vjp(args.framework, args)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()

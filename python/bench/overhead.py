#!/usr/bin/env python3
"""Per-call overhead from Python, tenferro side by side with NumPy, PyTorch
and jax.jit in one run, same inputs, one thread each (timeit, best of 5
repeats; run pinned to one CPU):

    taskset -c 0 .venv-py/bin/python python/bench/overhead.py

1. a 2x2 f64 add: tenferro eager (`t + t`), an EagerTensor add, NumPy,
   PyTorch eager, a jax.jit'd add;
2. a small traced program, f(p) = sum((p * p + 1) / 2, axis 0) on a 2x2 f64
   input: a tenferro compiled program (`prog(p=t)`), jax.jit of the same
   function, PyTorch eager and torch.jit.script of it.
Each row prints nanoseconds per call and the ratio to tenferro's."""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
import timeit  # noqa: E402

import numpy as np  # noqa: E402

import tenferro as tf  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    torch = None
try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

NUMBER = 20000


def per_call_ns(stmt, env):
    return min(timeit.repeat(stmt, globals=env, number=NUMBER, repeat=5)) / NUMBER * 1e9


def table(title, rows, env):
    print(f"\n{title}\n\n| implementation | call | ns per call | ratio to tenferro |\n|---|---|---|---|")
    base = None
    for name, stmt in rows:
        if stmt is None:
            continue
        ns = per_call_ns(stmt, env)
        base = base or ns
        print(f"| {name} | `{stmt}` | {ns:.0f} | {ns / base:.2f} |")


a = np.ones((2, 2))
env = {"np": np, "tf": tf, "a": a, "t": tf.from_dlpack(a), "e": tf.from_dlpack(a).requires_grad_().detach()}
p = tf.TracedTensor.input("p", tf.float64, (tf.Dim("n"), 2))
env["prog"] = tf.compile(((p * p + 1.0) / 2.0).sum(0))
add_rows = [("tenferro Tensor", "t + t"), ("tenferro EagerTensor", "e + e"), ("NumPy", "a + a")]
prog_rows = [("tenferro compiled program", "prog(p=t)")]
if torch is not None:
    env["x"] = torch.ones((2, 2), dtype=torch.float64)

    def tf_fn(v):
        return ((v * v + 1.0) / 2.0).sum(0)

    env["torch_f"] = tf_fn
    env["torch_script"] = torch.jit.script(tf_fn)
    add_rows.append(("PyTorch eager", "x + x"))
    prog_rows += [("PyTorch eager", "torch_f(x)"), ("torch.jit.script", "torch_script(x)")]
if jax is not None:
    env["j"] = jnp.ones((2, 2), dtype=jnp.float64)
    env["jadd"] = jax.jit(lambda u, v: u + v)
    env["jf"] = jax.jit(lambda v: ((v * v + 1.0) / 2.0).sum(0))
    env["jadd"](env["j"], env["j"]).block_until_ready()
    env["jf"](env["j"]).block_until_ready()
    add_rows.append(("jax.jit", "jadd(j, j).block_until_ready()"))
    prog_rows.append(("jax.jit", "jf(j).block_until_ready()"))
# Same inputs, same results.
ref = ((a * a + 1.0) / 2.0).sum(0)
np.testing.assert_allclose(np.asarray(env["prog"](p=env["t"])[0]), ref)
if jax is not None:
    np.testing.assert_allclose(np.asarray(env["jf"](env["j"])), ref)
print(f"tenferro, NumPy {np.__version__}" + (f", PyTorch {torch.__version__}" if torch else "")
      + (f", jax {jax.__version__}" if jax else "") + f"; best of 5 x {NUMBER} calls, 1 thread")
table("2x2 f64 add", add_rows, env)
table("traced program f(p) = sum((p * p + 1) / 2, 0), p: 2x2 f64", prog_rows, env)

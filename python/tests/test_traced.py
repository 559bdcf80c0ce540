"""Traced programs: inputs with symbolic extents, compiled once and run at
several sizes; einsum, linalg and fft on traced tensors; errors."""
import numpy as np
import pytest

import tenferro as tf

rng = np.random.default_rng(7)


def test_symbolic_program_compiled_once_runs_at_two_sizes():
    n = tf.Dim("n")
    p = tf.TracedTensor.input("p", tf.float64, (n, 3))
    assert p.shape == (n, 3) and p.dtype == tf.float64
    prog = tf.compile((p * p).sum(0))
    assert "p: f64[n, 3]" in prog.text and prog.inputs == ["p"]
    ident = prog.id
    cached = []
    for size in (4, 9):
        x = rng.standard_normal((size, 3))
        outs = prog(p=tf.from_dlpack(x))
        cached.append(tf._cached_programs())
        assert isinstance(outs, list) and len(outs) == 1
        np.testing.assert_allclose(np.asarray(outs[0]), (x * x).sum(0), rtol=1e-14)
    outs = prog(rng.standard_normal((2, 3)))  # by position, a NumPy array directly
    assert outs[0].shape == (3,)
    # One program, one runtime cache entry (plans per input shape inside
    # it): the second size added no program, nothing was recompiled.
    assert prog.id == ident
    assert cached[1] == cached[0] == tf._cached_programs()


def test_traced_einsum_linalg_fft_against_numpy():
    m, k = tf.Dim("m"), tf.Dim("k")
    a = tf.TracedTensor.input("a", tf.float64, (m, k))
    b = tf.TracedTensor.input("b", tf.float64, (k, 4))
    c = tf.einsum("ij,jk->ik", a, b, optimizer="greedy")
    assert c.shape == (m, 4)
    s = tf.linalg.svdvals(a)
    f = tf.fft.rfft(b, axis=1)  # transformed extents are constants; the others may be symbolic
    q = a.transpose() @ a + 1.0
    prog = tf.compile([c, s, f, q])
    for mm, kk in ((5, 3), (8, 2)):
        x, y = rng.standard_normal((mm, kk)), rng.standard_normal((kk, 4))
        oc, os_, of, oq = (np.asarray(o) for o in prog(a=x, b=y))
        np.testing.assert_allclose(oc, x @ y, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(os_, np.linalg.svd(x, compute_uv=False), rtol=1e-13)
        np.testing.assert_allclose(of, np.fft.rfft(y, axis=1), rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(oq, x.T @ x + 1.0, rtol=1e-13)


def test_traced_constants_and_mixed_operands():
    x = tf.TracedTensor.input("x", tf.float64, (3,))
    w = np.array([1.0, -2.0, 0.5])
    y = x * tf.from_dlpack(w) + tf.TracedTensor.constant(w)
    (out,) = tf.compile(y)(x=np.ones(3))
    np.testing.assert_allclose(np.asarray(out), 2 * w)


def test_traced_errors_carry_the_cpp_message():
    x = tf.TracedTensor.input("x", tf.float64, (tf.Dim("n"), 3))
    with pytest.raises(tf.ShapeError):
        x @ tf.TracedTensor.input("y", tf.float64, (4, 2))
    prog = tf.compile(x.sum())
    with pytest.raises(tf.Error) as e:
        prog(x=np.zeros((2, 4)))  # 4 is not the declared 3
    assert "x" in str(e.value)
    with pytest.raises(tf.ValueError, match="no input named 'z'"):
        prog(z=np.zeros((2, 3)))
    with pytest.raises(tf.ValueError, match="Program"):
        prog(np.zeros((2, 3)), x=np.zeros((2, 3)))
    with pytest.raises(tf.ValueError):
        tf.Dim("1bad")


def test_trace_helper_names_inputs_and_compiles_once():
    n = tf.Dim("n")
    prog = tf.trace(lambda x, y: [(x * y).sum(0), x @ y.transpose()], x=(tf.float64, (n, 2)), y=(tf.float64, (n, 2)))
    assert sorted(prog.inputs) == ["x", "y"]
    for size in (3, 5):
        a, b = rng.standard_normal((size, 2)), rng.standard_normal((size, 2))
        s, m = prog(x=a, y=b)
        np.testing.assert_allclose(np.asarray(s), (a * b).sum(0), rtol=1e-14)
        np.testing.assert_allclose(np.asarray(m), a @ b.T, rtol=1e-13)

"""Eager AD (requires_grad_, backward, grad) against PyTorch's autograd,
traced grad / jvp / vjp / hvp and the functional eager vjp / jvp against
closed forms and finite differences."""
import numpy as np
import pytest

import tenferro as tf

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs python3-torch)")

rng = np.random.default_rng(3)


def test_grad_through_svdvals_matches_torch():
    a = rng.standard_normal((5, 3))
    w = tf.from_dlpack(a).requires_grad_()
    tf.linalg.svdvals(w).sum().backward()
    ta = torch.tensor(a, requires_grad=True)
    torch.linalg.svdvals(ta).sum().backward()
    assert w.grad is not None and w.grad.shape == (5, 3)
    np.testing.assert_allclose(np.asarray(w.grad), ta.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_grad_through_svd_matches_torch():
    a = rng.standard_normal((4, 6))
    c = rng.standard_normal((4, 6))
    w = tf.from_dlpack(a).requires_grad_()
    u, s, vh = tf.linalg.svd(w)
    # Invariant under the sign / phase choice of the singular vectors.
    loss = (tf.einsum("ij,j,jk->ik", u, s, vh) * tf.from_dlpack(c)).sum() + (s * s * s).sum()
    loss.backward()
    ta = torch.tensor(a, requires_grad=True)
    tu, ts, tvh = torch.linalg.svd(ta, full_matrices=False)
    tloss = ((tu * ts) @ tvh * torch.tensor(c)).sum() + (ts ** 3).sum()
    tloss.backward()
    np.testing.assert_allclose(float(np.asarray(loss.value)), tloss.item(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(w.grad), ta.grad.numpy(), rtol=1e-10, atol=1e-11)


def test_eager_arithmetic_grads_accumulate_and_reset():
    x = np.array([1.0, 2.0, 3.0])
    e = tf.from_dlpack(x).requires_grad_()
    assert e.grad is None and e.is_leaf
    (e * e + 3.0 * e).sum().backward()
    np.testing.assert_allclose(np.asarray(e.grad), 2 * x + 3)
    (e.exp()).sum().backward()  # accumulates
    np.testing.assert_allclose(np.asarray(e.grad), 2 * x + 3 + np.exp(x), rtol=1e-14)
    e.zero_grad()
    (e / 2.0).sum().backward()
    np.testing.assert_allclose(np.asarray(e.grad), [0.5, 0.5, 0.5])
    # A plain tensor mixed in is a constant.
    (e * tf.from_dlpack(x)).sum().backward()
    np.testing.assert_allclose(np.asarray(e.grad), 0.5 + x)


def test_backward_of_non_scalar_needs_a_seed():
    e = tf.from_dlpack(np.ones(3)).requires_grad_()
    with pytest.raises(tf.ValueError, match="backward"):
        (e * 2.0).backward()
    seed = tf.from_dlpack(np.array([1.0, 2.0, 3.0])).requires_grad_().detach()
    (e * 2.0).backward(seed)
    np.testing.assert_allclose(np.asarray(e.grad), [2.0, 4.0, 6.0])


def test_traced_grad_jvp_vjp_hvp():
    n = tf.Dim("n")
    x = tf.TracedTensor.input("x", tf.float64, (n,))
    t = tf.TracedTensor.input("t", tf.float64, (n,))
    y = (x * x * x).sum()
    prog = tf.compile([tf.grad(y, x), tf.jvp(y, x, t), tf.vjp(x.sin(), x, t), tf.hvp(y, x, t)])
    for size in (3, 6):
        xv, tv = rng.standard_normal(size), rng.standard_normal(size)
        g, d, v, h = (np.asarray(o) for o in prog(x=xv, t=tv))
        np.testing.assert_allclose(g, 3 * xv ** 2, rtol=1e-14)
        np.testing.assert_allclose(d, np.dot(3 * xv ** 2, tv), rtol=1e-13)
        np.testing.assert_allclose(v, np.cos(xv) * tv, rtol=1e-14)
        np.testing.assert_allclose(h, 6 * xv * tv, rtol=1e-14)


def test_traced_grad_of_svdvals_matches_eager():
    a = rng.standard_normal((5, 3))
    x = tf.TracedTensor.input("a", tf.float64, (tf.Dim("m"), 3))
    (g,) = tf.compile(tf.grad(tf.linalg.svdvals(x).sum(), x))(a=a)
    w = tf.from_dlpack(a).requires_grad_()
    tf.linalg.svdvals(w).sum().backward()
    np.testing.assert_allclose(np.asarray(g), np.asarray(w.grad), rtol=1e-12, atol=1e-13)


def test_functional_eager_vjp_and_jvp_against_finite_differences():
    a, b = rng.standard_normal(4), rng.standard_normal(4)

    def f(u, v):
        return (u * v.sin()).sum()

    outs, cts = tf.vjp(f, [a, b], [np.array(1.0)])
    np.testing.assert_allclose(np.asarray(outs[0].value), np.sum(a * np.sin(b)), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(cts[0].value), np.sin(b), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(cts[1].value), a * np.cos(b), rtol=1e-14)
    du, dv = rng.standard_normal(4), rng.standard_normal(4)
    _, tans = tf.jvp(f, [a, b], [du, dv])
    h = 1e-6
    fd = (np.sum((a + h * du) * np.sin(b + h * dv)) - np.sum((a - h * du) * np.sin(b - h * dv))) / (2 * h)
    np.testing.assert_allclose(float(np.asarray(tans[0].value)), fd, rtol=1e-7)

"""Arithmetic, matmul, sum and einsum on the CPU backend against NumPy."""
import numpy as np
import pytest

import tenferro as tf

rng = np.random.default_rng(5)


def arr(t):
    return np.asarray(t)


def test_arithmetic_with_tensors_and_numbers():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    ta, tb = tf.from_dlpack(a), tf.from_dlpack(b)
    np.testing.assert_allclose(arr(ta + tb), a + b, rtol=0, atol=0)
    np.testing.assert_allclose(arr(ta - tb), a - b, rtol=0, atol=0)
    np.testing.assert_allclose(arr(ta * tb), a * b, rtol=0, atol=0)
    np.testing.assert_allclose(arr(ta / tb), a / b, rtol=1e-15)
    np.testing.assert_allclose(arr(2.0 - ta), 2.0 - a, rtol=0, atol=0)
    np.testing.assert_allclose(arr(1 / ta), 1 / a, rtol=1e-15)
    np.testing.assert_allclose(arr(ta * 3), a * 3, rtol=0, atol=0)
    np.testing.assert_allclose(arr(-ta), -a, rtol=0, atol=0)
    z = arr(ta * 1j)
    assert z.dtype == np.complex128
    np.testing.assert_allclose(z, a * 1j)
    row = tf.from_dlpack(rng.standard_normal(4))  # broadcasting along the leading axis
    np.testing.assert_allclose(arr(ta + row), a + arr(row), rtol=0, atol=0)


def test_matmul_sum_einsum_match_numpy():
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 4))
    ta, tb = tf.from_dlpack(a), tf.from_dlpack(b)
    np.testing.assert_allclose(arr(ta @ tb), a @ b, rtol=1e-13)
    np.testing.assert_allclose(arr(ta.sum()), a.sum(), rtol=1e-13)
    np.testing.assert_allclose(arr(ta.sum([0])), a.sum(0), rtol=1e-13)
    c = rng.standard_normal((4, 5))
    tc = tf.from_dlpack(c)
    np.testing.assert_allclose(arr(tf.einsum("ij,jk->ik", ta, tb)), a @ b, rtol=1e-13)
    np.testing.assert_allclose(arr(tf.einsum("ij,jk,ki->", ta, tb, tc)),
                               np.einsum("ij,jk,ki->", a, b, c), rtol=1e-12)


def test_shape_errors_carry_the_cpp_message():
    with pytest.raises(tf.ShapeError) as e:
        tf.zeros([2, 3]) @ tf.zeros([2, 3])
    assert "matmul" in str(e.value) or "dot_general" in str(e.value)
    with pytest.raises(tf.Error):
        tf.einsum("ij,jk->ik", tf.zeros([2, 3]), tf.zeros([4, 5]))


def test_einsum_path_options_and_einsum_path():
    a, b, c = rng.standard_normal((6, 2)), rng.standard_normal((2, 6)), rng.standard_normal((6, 3))
    ta, tb, tc = tf.from_dlpack(a), tf.from_dlpack(b), tf.from_dlpack(c)
    ref = np.einsum("ij,jk,kl->il", a, b, c)
    for opt in ("automatic", "greedy", "optimal", "annealing"):
        np.testing.assert_allclose(arr(tf.einsum("ij,jk,kl->il", ta, tb, tc, optimizer=opt)), ref, rtol=1e-13)
    info = tf.einsum_path("ij,jk,kl->il", ta, tb, tc, optimizer="optimal")
    assert info["path"] == [(1, 2), (0, 1)]  # (b c) first: 2*6*3 then 6*2*3, the cheapest order
    assert info["flops"] > 0 and info["num_slices"] == 1
    # Traffic: b, c and their product jl (12 + 18 + 6), then a, jl and il (12 + 6 + 18).
    assert info["traffic"] == 72
    assert tf.einsum_path("ij,jk,kl->il", ta, tb, tc, optimizer="optimal", objective="flops")["path"] == info["path"]
    with pytest.raises(tf.ValueError, match="objective"):
        tf.einsum_path("ij,jk,kl->il", ta, tb, tc, objective="speed")
    given = tf.einsum("ij,jk,kl->il", ta, tb, tc, path=[(0, 1), (0, 1)])
    np.testing.assert_allclose(arr(given), ref, rtol=1e-13)
    assert tf.einsum_path("ij,jk->ik", (6, 2), (2, 6))["path"] == [(0, 1)]
    sliced = tf.einsum("ij,jk,kl->il", ta, tb, tc, memory_limit=4)
    np.testing.assert_allclose(arr(sliced), ref, rtol=1e-13)
    np.testing.assert_allclose(arr(tf.einsum("ii->i", tf.from_dlpack(a[:2, :2].copy()))), np.diag(a[:2, :2]))
    with pytest.raises(tf.ValueError, match="optimizer"):
        tf.einsum("ij->ji", ta, optimizer="fastest")
    with pytest.raises(tf.ValueError):
        tf.einsum("ij,jk->ik", ta, tb, path=[(0, 5)])


def test_elementwise_math_reductions_comparisons():
    x = rng.uniform(0.1, 2.0, (3, 4))
    t = tf.from_dlpack(x)
    for name in ("exp", "log", "sin", "cos", "tanh", "sqrt", "square", "expm1", "log1p", "floor", "abs"):
        np.testing.assert_allclose(arr(getattr(t, name)()), getattr(np, name)(x), rtol=1e-14, err_msg=name)
    np.testing.assert_allclose(arr(t ** 2.0), x ** 2, rtol=1e-14)
    np.testing.assert_allclose(arr(t.maximum(1.0)), np.maximum(x, 1.0))
    np.testing.assert_allclose(arr(t.mean(1)), x.mean(1), rtol=1e-14)
    np.testing.assert_allclose(arr(t.max([0, 1])), x.max(), rtol=0)
    np.testing.assert_allclose(arr(t.min(0)), x.min(0), rtol=0)
    np.testing.assert_allclose(arr(t.prod(0)), x.prod(0), rtol=1e-14)
    np.testing.assert_allclose(arr(t.norm()), np.linalg.norm(x), rtol=1e-14)
    np.testing.assert_array_equal(arr(t > 1.0), x > 1.0)
    np.testing.assert_array_equal(arr(t.le(t * 0.5 + 0.5)), x <= x * 0.5 + 0.5)
    assert (t > 1.0).dtype == tf.bool_
    np.testing.assert_allclose(arr(t.astype(tf.float32)), x.astype(np.float32))
    with pytest.raises(tf.IndexError):
        t.sum(5)


def test_unsupported_operands_raise_type_error():
    t = tf.from_dlpack(np.ones(3))
    with pytest.raises(TypeError):
        t + "x"  # the operator answers NotImplemented, Python raises
    with pytest.raises(TypeError):
        t.maximum("x")
    e = t.requires_grad_()
    np.testing.assert_allclose(np.asarray((t + e).value), 2 * np.ones(3))  # Tensor + EagerTensor: reflected form

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

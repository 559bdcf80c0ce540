"""tenferro.linalg against NumPy (values computed independently by LAPACK
through NumPy; decompositions checked by reconstruction)."""
import numpy as np
import pytest

import tenferro as tf

rng = np.random.default_rng(11)


def arr(t):
    return np.asarray(t)


def test_svd_and_svdvals():
    a = rng.standard_normal((5, 3))
    u, s, vh = tf.linalg.svd(tf.from_dlpack(a))
    np.testing.assert_allclose(arr(s), np.linalg.svd(a, compute_uv=False), rtol=1e-13)
    np.testing.assert_allclose(arr(u) @ np.diag(arr(s)) @ arr(vh), a, atol=1e-13)
    np.testing.assert_allclose(arr(tf.linalg.svdvals(tf.from_dlpack(a))), arr(s), rtol=1e-14)
    uf, _, vf = tf.linalg.svd(tf.from_dlpack(a), full_matrices=True)
    assert uf.shape == (5, 5) and vf.shape == (3, 3)


def test_qr_eigh_solve_inv_det():
    a = rng.standard_normal((4, 4))
    q, r = tf.linalg.qr(tf.from_dlpack(a))
    np.testing.assert_allclose(arr(q) @ arr(r), a, atol=1e-13)
    h = a + a.T
    w, v = tf.linalg.eigh(tf.from_dlpack(h))
    np.testing.assert_allclose(arr(w), np.linalg.eigvalsh(h), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(h @ arr(v), arr(v) * arr(w), atol=1e-12)
    b = rng.standard_normal((4, 2))
    np.testing.assert_allclose(arr(tf.linalg.solve(tf.from_dlpack(a), tf.from_dlpack(b))),
                               np.linalg.solve(a, b), rtol=1e-11)
    np.testing.assert_allclose(arr(tf.linalg.inv(tf.from_dlpack(a))), np.linalg.inv(a), rtol=1e-11)
    np.testing.assert_allclose(arr(tf.linalg.det(tf.from_dlpack(a))), np.linalg.det(a), rtol=1e-12)


def test_singular_solve_raises_linalg_error():
    a = np.zeros((3, 3))
    with pytest.raises(tf.LinalgError, match="singular"):
        tf.linalg.solve(tf.from_dlpack(a), tf.from_dlpack(np.ones((3, 1))))

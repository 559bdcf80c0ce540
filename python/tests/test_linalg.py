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


def test_cholesky_slogdet_pinv_matrix_exp_vector_norm():
    a = rng.standard_normal((4, 4))
    spd = a @ a.T + 4 * np.eye(4)
    ts = tf.from_dlpack(spd)
    l = arr(tf.linalg.cholesky(ts))
    np.testing.assert_allclose(l, np.linalg.cholesky(spd), rtol=1e-12, atol=1e-13)
    sign, logabs = tf.linalg.slogdet(tf.from_dlpack(a))
    ns, nl = np.linalg.slogdet(a)
    assert arr(sign) == ns
    np.testing.assert_allclose(arr(logabs), nl, rtol=1e-12)
    r = rng.standard_normal((5, 3))
    np.testing.assert_allclose(arr(tf.linalg.pinv(tf.from_dlpack(r))), np.linalg.pinv(r), rtol=1e-11, atol=1e-12)
    # exp of a block of commuting rotations: exp([[0, -t], [t, 0]]) = [[cos t, -sin t], [sin t, cos t]]
    rot = np.array([[0.0, -0.7], [0.7, 0.0]])
    np.testing.assert_allclose(arr(tf.linalg.matrix_exp(tf.from_dlpack(rot))),
                               [[np.cos(0.7), -np.sin(0.7)], [np.sin(0.7), np.cos(0.7)]], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(arr(tf.linalg.vector_norm(tf.from_dlpack(r), 3.0)),
                               np.sum(np.abs(r) ** 3, axis=0) ** (1 / 3), rtol=1e-13)  # along axis 0


def test_linalg_on_eager_tensors_records_and_matches():
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    e = tf.from_dlpack(a).requires_grad_()
    tf.linalg.det(e).backward()
    # d det(A) / dA = det(A) A^{-T}
    np.testing.assert_allclose(arr(e.grad), np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-11)


def test_not_positive_definite_is_a_linalg_error():
    with pytest.raises(tf.LinalgError) as e:
        tf.linalg.cholesky(tf.from_dlpack(-np.eye(3)))
    assert "cholesky" in str(e.value)


def test_lu_eig_lstsq_triangular_solve():
    a = rng.standard_normal((4, 4))
    perm, l, u, p = tf.linalg.lu(tf.from_dlpack(a))
    perm, l, u, p = arr(perm), arr(l), arr(u), arr(p)
    np.testing.assert_allclose(l @ u, a[perm], atol=1e-13)
    np.testing.assert_allclose(p @ a, l @ u, atol=1e-13)
    assert np.allclose(np.triu(l, 1), 0) and np.allclose(np.diag(l), 1) and np.allclose(np.tril(u, -1), 0)
    w, v = tf.linalg.eig(tf.from_dlpack(a))
    w, v = arr(w), arr(v)
    np.testing.assert_allclose(a @ v, v * w, atol=1e-12)
    np.testing.assert_allclose(np.sort_complex(arr(tf.linalg.eigvals(tf.from_dlpack(a)))),
                               np.sort_complex(np.linalg.eigvals(a)), rtol=1e-12)
    tall, rhs = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    x, res, rank, sv = tf.linalg.lstsq(tf.from_dlpack(tall), tf.from_dlpack(rhs))
    nx, nres, nrank, nsv = np.linalg.lstsq(tall, rhs, rcond=None)
    np.testing.assert_allclose(arr(x), nx, rtol=1e-11)
    np.testing.assert_allclose(arr(res), nres, rtol=1e-10)
    assert int(arr(rank)) == nrank
    np.testing.assert_allclose(arr(sv), nsv, rtol=1e-13)
    low = np.tril(a) + 4 * np.eye(4)
    b = rng.standard_normal((4, 2))
    np.testing.assert_allclose(arr(tf.linalg.triangular_solve(tf.from_dlpack(low), tf.from_dlpack(b))),
                               np.linalg.solve(low, b), rtol=1e-12)
    bt = rng.standard_normal((2, 4))  # x a = b with a upper triangular
    up = low.T.copy()
    np.testing.assert_allclose(arr(tf.linalg.triangular_solve(tf.from_dlpack(up), tf.from_dlpack(bt), lower=False,
                                                              left=False)), bt @ np.linalg.inv(up), rtol=1e-12)


def test_matrix_norm_cond_rank():
    a = rng.standard_normal((4, 3))
    t = tf.from_dlpack(a)
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        np.testing.assert_allclose(arr(tf.linalg.matrix_norm(t, ord)), np.linalg.norm(a, ord), rtol=1e-13,
                                   err_msg=str(ord))
    sq = rng.standard_normal((3, 3))
    np.testing.assert_allclose(arr(tf.linalg.cond(tf.from_dlpack(sq))), np.linalg.cond(sq), rtol=1e-12)
    np.testing.assert_allclose(arr(tf.linalg.cond(tf.from_dlpack(sq), "fro")), np.linalg.cond(sq, "fro"), rtol=1e-12)
    low_rank = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))
    assert int(arr(tf.linalg.matrix_rank(tf.from_dlpack(low_rank)))) == np.linalg.matrix_rank(low_rank) == 2
    with pytest.raises(tf.ValueError):
        tf.linalg.matrix_norm(t, "bogus")

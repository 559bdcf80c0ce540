"""tenferro.fft against numpy.fft (eager, eager-AD and traced forms);
tenferro's default axes are the leading ones, so axes are passed explicitly."""
import numpy as np
import pytest

import tenferro as tf

rng = np.random.default_rng(13)


def arr(t):
    return np.asarray(t)


def test_one_dimensional_transforms():
    x = rng.standard_normal((8, 5)) + 1j * rng.standard_normal((8, 5))
    r = rng.standard_normal((7, 5))
    tx, tr = tf.from_dlpack(x), tf.from_dlpack(r)
    np.testing.assert_allclose(arr(tf.fft.fft(tx)), np.fft.fft(x, axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(arr(tf.fft.ifft(tx, axis=1)), np.fft.ifft(x, axis=1), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(arr(tf.fft.fft(tx, n=12, norm="ortho")), np.fft.fft(x, n=12, axis=0, norm="ortho"),
                               rtol=1e-12, atol=1e-12)
    R = tf.fft.rfft(tr)
    assert R.shape == (4, 5) and R.dtype == tf.complex128
    np.testing.assert_allclose(arr(R), np.fft.rfft(r, axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(arr(tf.fft.irfft(R, n=7)), r, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(arr(tf.fft.hfft(tx, axis=0)), np.fft.hfft(x, axis=0), rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(arr(tf.fft.ihfft(tr, axis=-1)), np.fft.ihfft(r, axis=-1), rtol=1e-12, atol=1e-13)


def test_multi_dimensional_transforms():
    x = rng.standard_normal((4, 6, 3))
    t = tf.from_dlpack(x)
    np.testing.assert_allclose(arr(tf.fft.fft2(t)), np.fft.fft2(x, axes=(0, 1)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(arr(tf.fft.fftn(t)), np.fft.fftn(x), rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(arr(tf.fft.rfftn(t, axes=[2, 0])), np.fft.rfftn(x, axes=(2, 0)), rtol=1e-12,
                               atol=1e-12)
    X = tf.fft.rfft2(t)
    np.testing.assert_allclose(arr(tf.fft.irfft2(X, s=[4, 6])), x, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(arr(tf.fft.ifftn(tf.fft.fftn(t))).real, x, atol=1e-13)
    np.testing.assert_allclose(arr(tf.fft.fftfreq(5, 0.1)), np.fft.fftfreq(5, 0.1), rtol=1e-15)
    np.testing.assert_allclose(arr(tf.fft.rfftfreq(6)), np.fft.rfftfreq(6), rtol=1e-15)
    f = tf.fft.fftfreq(5)
    np.testing.assert_allclose(arr(tf.fft.fftshift(f)), np.fft.fftshift(np.fft.fftfreq(5)))
    np.testing.assert_allclose(arr(tf.fft.ifftshift(tf.fft.fftshift(f))), np.fft.fftfreq(5))


def test_fft_gradient_against_finite_differences():
    x = rng.standard_normal(6)
    w = tf.from_dlpack(x).requires_grad_()
    tf.fft.rfft(w).abs().sum().backward()

    def f(v):
        return np.abs(np.fft.rfft(v)).sum()

    h = 1e-6
    fd = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(6)])
    np.testing.assert_allclose(arr(w.grad), fd, rtol=1e-6, atol=1e-8)


def test_fft_errors():
    with pytest.raises(tf.ValueError, match="norm"):
        tf.fft.fft(tf.zeros([4]), norm="sideways")
    with pytest.raises(tf.DTypeError):
        tf.fft.rfft(tf.zeros([4], tf.complex128))
    with pytest.raises(tf.IndexError):
        tf.fft.fft(tf.zeros([4]), axis=3)

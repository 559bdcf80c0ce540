"""DLPack both ways with PyTorch and JAX: the same memory (data pointers
asserted equal), strides kept. NumPy round trips are in test_basic.py."""
import numpy as np
import pytest

import tenferro as tf

torch = pytest.importorskip("torch", reason="PyTorch is not installed (scripts/setup.sh installs python3-torch)")


def test_torch_to_tenferro_and_back_shares_memory():
    x = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    t = tf.from_dlpack(x)
    assert t.data_ptr == x.data_ptr()
    assert t.shape == (3, 4) and t.strides == (4, 1)
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.data_ptr()
    assert y.stride() == (4, 1)
    assert torch.equal(y, x)
    y[0, 0] = 42.0  # one buffer: a write through torch is seen by tenferro and NumPy
    assert np.asarray(t)[0, 0] == 42.0


def test_torch_strided_views_keep_their_strides():
    base = torch.arange(30, dtype=torch.float32).reshape(5, 6)
    v = base.t()[1:, ::2]  # shape (5, 3), strides (1, 12) in elements, offset 1
    t = tf.from_dlpack(v)
    assert t.strides == v.stride() == (1, 12)
    assert t.data_ptr == v.data_ptr()
    np.testing.assert_array_equal(np.asarray(t), v.numpy())
    col = tf.arange(6).reshape([2, 3])  # column-major
    c = torch.from_dlpack(col)
    assert c.stride() == (1, 2) and c.data_ptr() == col.data_ptr
    assert c.tolist() == [[0, 2, 4], [1, 3, 5]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int32", "int64", "bool"])
def test_torch_dtypes_round_trip(dtype):
    if dtype == "bool" and int(torch.__version__.split(".")[0]) < 2:
        pytest.skip("PyTorch < 2 has no bool in DLPack")
    x = (torch.arange(6).reshape(2, 3) % 2).to(getattr(torch, dtype))
    t = tf.from_dlpack(x)
    y = torch.from_dlpack(t)
    assert y.dtype == x.dtype and y.data_ptr() == x.data_ptr() and torch.equal(y, x)


def test_jax_to_tenferro_and_back_shares_memory():
    jax = pytest.importorskip("jax", reason="jax is not installed (scripts/setup_python.sh installs it)")
    import jax.numpy as jnp

    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    t = tf.from_dlpack(x)
    assert t.data_ptr == x.unsafe_buffer_pointer()
    assert t.shape == (3, 4) and t.strides == (4, 1)
    np.testing.assert_array_equal(np.asarray(t), np.asarray(x))
    r = tf.from_dlpack(np.arange(12.0, dtype=np.float32).reshape(3, 4))  # row-major tenferro tensor
    y = jax.dlpack.from_dlpack(r)
    assert y.unsafe_buffer_pointer() == r.data_ptr
    np.testing.assert_array_equal(np.asarray(y), np.arange(12.0).reshape(3, 4))
    # JAX (0.4.30) imports row-major layouts only: the transpose of a
    # column-major tensor is one, a view of the same memory.
    col = tf.arange(6, tf.float32).reshape([2, 3])  # column-major [[0, 2, 4], [1, 3, 5]]
    cj = jax.dlpack.from_dlpack(col.transpose())
    assert cj.unsafe_buffer_pointer() == col.data_ptr
    np.testing.assert_array_equal(np.asarray(cj), [[0, 1], [2, 3], [4, 5]])


def test_numpy_asarray_of_eager_tensors_and_device():
    x = np.arange(4.0)
    e = tf.from_dlpack(x).requires_grad_()
    assert np.asarray(e).__array_interface__["data"][0] == x.__array_interface__["data"][0]
    assert tf.from_dlpack(x).__dlpack_device__() == (1, 0)

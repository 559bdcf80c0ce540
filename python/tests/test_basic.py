"""The first part of the Python package: DLPack round trips with NumPy
(pointer equality, strides kept), numpy.asarray, io round trips read back by
NumPy, and errors carrying the C++ message."""
import numpy as np
import pytest

import tenferro as tf


def ptr(a):
    return a.__array_interface__["data"][0]


def test_c_order_array_arrives_as_row_major_view():
    x = np.arange(12.0).reshape(3, 4)
    t = tf.from_dlpack(x)
    assert t.shape == (3, 4)
    assert t.strides == (4, 1)  # elements
    assert t.is_row_major_contiguous() and not t.is_contiguous()
    assert t.data_ptr == ptr(x)
    assert t.dtype == tf.float64


def test_fortran_and_strided_arrays_keep_their_strides():
    f = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    t = tf.from_dlpack(f)
    assert t.strides == (1, 2) and t.is_contiguous() and t.data_ptr == ptr(f)
    s = np.arange(20.0).reshape(4, 5)[::2, ::-1]  # negative stride
    ts = tf.from_dlpack(s)
    assert ts.strides == (10, -1)
    assert ts.data_ptr == ptr(s)
    np.testing.assert_array_equal(np.from_dlpack(ts), s)


def test_back_to_numpy_without_copy():
    x = np.arange(12.0).reshape(3, 4)
    t = tf.from_dlpack(x)
    y = np.from_dlpack(t)
    assert ptr(y) == ptr(x)
    np.testing.assert_array_equal(y, x)
    z = np.asarray(tf.arange(5))
    np.testing.assert_array_equal(z, np.arange(5.0))
    col = tf.arange(6).reshape([2, 3])  # column-major [[0, 2, 4], [1, 3, 5]]
    c = np.asarray(col)
    assert c.flags.f_contiguous
    np.testing.assert_array_equal(c, [[0, 2, 4], [1, 3, 5]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128,
                                   np.int32, np.int64, np.bool_])
def test_every_dtype_round_trips(dtype):
    x = (np.arange(6).reshape(2, 3) % 2).astype(dtype)
    t = tf.from_dlpack(x)
    y = np.asarray(t)  # NumPy's array interface: every dtype
    assert y.dtype == x.dtype and ptr(y) == ptr(x) and y.strides == x.strides
    np.testing.assert_array_equal(y, x)
    if dtype is not np.bool_ or np.lib.NumpyVersion(np.__version__) >= "1.25.0":  # bool DLPack: NumPy >= 1.25
        z = np.from_dlpack(t)
        assert z.dtype == x.dtype and ptr(z) == ptr(x)


def test_the_source_outlives_its_name():
    t = tf.from_dlpack(np.full((100, 100), 7.0))
    import gc
    gc.collect()
    assert np.from_dlpack(t).sum() == 70000.0


def test_unsupported_dtype_is_a_tenferro_error():
    with pytest.raises(tf.DTypeError, match="from_dlpack: DLPack dtype"):
        tf.from_dlpack(np.zeros(3, dtype=np.float16))


def test_io_round_trips_read_by_numpy(tmp_path):
    x = np.arange(12.0).reshape(3, 4)
    tf.io.save_npy(tmp_path / "x.npy", tf.from_dlpack(x))
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), x)
    col = tf.arange(6).reshape([2, 3])
    tf.io.save_npy(str(tmp_path / "c.npy"), col)
    loaded = np.load(tmp_path / "c.npy")
    assert loaded.flags.f_contiguous
    np.testing.assert_array_equal(loaded, [[0, 2, 4], [1, 3, 5]])
    back = tf.io.load_npy(tmp_path / "x.npy", map="always")
    assert back.is_row_major_contiguous()
    np.testing.assert_array_equal(np.asarray(back), x)

    np.savez_compressed(tmp_path / "a.npz", a=x, b=np.array([True, False]))
    members = tf.io.load_npz(tmp_path / "a.npz")
    assert list(members) == ["a", "b"]
    np.testing.assert_array_equal(np.asarray(members["b"]), [True, False])
    tf.io.save_npz(tmp_path / "o.npz", {"x": tf.from_dlpack(x), "c": col}, compress=True)
    with np.load(tmp_path / "o.npz") as z:
        np.testing.assert_array_equal(z["x"], x)

    tf.io.save_safetensors(tmp_path / "w.st", {"w": col}, {"k": "v"})
    tensors, meta = tf.io.load_safetensors(tmp_path / "w.st")
    assert meta == {"k": "v"}
    np.testing.assert_array_equal(np.asarray(tensors["w"]), [[0, 2, 4], [1, 3, 5]])


def test_bad_files_raise_format_error_with_the_cpp_message(tmp_path):
    p = tmp_path / "bad.npy"
    p.write_bytes(b"\x93NUMPY\x01\x00" + b"garbage")
    with pytest.raises(tf.FormatError) as e:
        tf.io.load_npy(p)
    assert "io.load_npy" in str(e.value) and "bad.npy" in str(e.value)
    assert isinstance(e.value, tf.Error)


def test_view_errors_carry_the_cpp_message():
    with pytest.raises(tf.Error, match="reshape"):
        tf.arange(6).reshape([4])


def test_error_hierarchy_mirrors_cpp_and_python_builtins():
    for name, builtin in [("ShapeError", ValueError), ("DTypeError", TypeError), ("IndexError", IndexError),
                          ("ValueError", ValueError), ("UnimplementedError", NotImplementedError),
                          ("LinalgError", ArithmeticError), ("FormatError", ValueError),
                          ("DeviceError", Exception), ("BackendError", RuntimeError),
                          ("InternalError", RuntimeError), ("MemoryError", MemoryError)]:
        cls = getattr(tf, name)
        assert issubclass(cls, tf.Error) and issubclass(cls, builtin), name
    with pytest.raises(ValueError) as e:  # a Python ValueError too
        tf.zeros([2, 3]) + tf.zeros([4, 5])
    assert isinstance(e.value, tf.ShapeError) and "[2, 3]" in str(e.value)
    with pytest.raises(TypeError):
        tf.from_dlpack(np.zeros(2, dtype=np.uint8))
    with pytest.raises(MemoryError) as e:  # over the host memory limit, refused before allocating
        tf.zeros([1 << 20, 1 << 20], tf.float64)
    assert isinstance(e.value, tf.MemoryError) and "8796093022208 bytes" in str(e.value)


def test_indexing_makes_views_like_numpy():
    x = np.arange(60.0).reshape(3, 4, 5)
    t = tf.from_dlpack(x)
    for index in [1, -1, (1, 2), (slice(None), 2), (slice(1, None), slice(None, None, 2)),
                  (Ellipsis, -1), (0, Ellipsis, slice(None, None, -1)), slice(None, None, -2),
                  (slice(3, 0, -2), slice(4, 5)), (slice(2, 2),), (1, 3, 4), Ellipsis]:
        v = t[index]
        ref = x[index]
        assert v.shape == ref.shape, index
        np.testing.assert_array_equal(np.asarray(v), ref, err_msg=str(index))
        if not isinstance(ref, np.ndarray):  # NumPy returns a scalar: compare with its address in x
            assert v.data_ptr == ptr(x) + int(np.dot(index, x.strides)), index
        elif ref.size:
            assert v.data_ptr == ptr(ref), index  # the same element first: a view, no copy
    assert len(t) == 3
    np.testing.assert_array_equal(np.asarray(t.flip([0, 2])), x[::-1, :, ::-1])
    np.testing.assert_array_equal(np.asarray(tf.from_dlpack(x[0]).diagonal()), np.diagonal(x[0]))
    np.testing.assert_array_equal(np.asarray(tf.arange(3).broadcast_to([2, 3])), np.broadcast_to(np.arange(3.0), (2, 3)))
    with pytest.raises(tf.IndexError, match="out of range"):
        t[3]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0, 0]
    with pytest.raises(tf.IndexError, match="unsupported index"):
        t[[0, 1]]

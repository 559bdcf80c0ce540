"""Tensor files across libraries: files the `safetensors` package writes load
in tenferro with identical values and metadata, and tenferro's files load in
the package (its NumPy API), column-major tensors included."""
import numpy as np
import pytest

import tenferro as tf

st = pytest.importorskip("safetensors.numpy")


def test_files_of_the_safetensors_package_load_in_tenferro(tmp_path):
    rng = np.random.default_rng(7)
    arrays = {
        "w": rng.standard_normal((3, 4)),
        "b": rng.standard_normal(5).astype(np.float32),
        "i": np.arange(6, dtype=np.int64).reshape(2, 3),
        "j": np.array([-3, 9], dtype=np.int32),
        "m": np.array([True, False, True]),
        "empty": np.zeros((0, 2)),
    }
    path = tmp_path / "theirs.safetensors"
    st.save_file(arrays, str(path), metadata={"format": "np", "who": "safetensors"})
    tensors, meta = tf.io.load_safetensors(path)
    assert meta == {"format": "np", "who": "safetensors"}
    assert set(tensors) == set(arrays)
    for name, want in arrays.items():
        got = np.asarray(tensors[name])
        assert got.dtype == want.dtype and got.shape == want.shape, name
        np.testing.assert_array_equal(got, want)


def test_tenferro_files_load_in_the_safetensors_package(tmp_path):
    x = np.arange(12.0).reshape(3, 4)
    col = tf.from_dlpack(np.asfortranarray(x))  # a column-major tensor
    row = tf.from_dlpack(x)                     # a row-major view
    ints = tf.from_dlpack(np.arange(5, dtype=np.int32))
    path = tmp_path / "ours.safetensors"
    tf.io.save_safetensors(path, {"col": col, "row": row, "ints": ints}, {"who": "tenferro"})
    loaded = st.load_file(str(path))
    np.testing.assert_array_equal(loaded["col"], x)
    np.testing.assert_array_equal(loaded["row"], x)
    np.testing.assert_array_equal(loaded["ints"], np.arange(5, dtype=np.int32))
    assert loaded["ints"].dtype == np.int32

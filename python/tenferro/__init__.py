"""tenferro from Python: column-major strided tensors that cross to and from
NumPy, PyTorch and JAX without copies (DLPack), and tensor file I/O.

    import numpy as np, tenferro as tf
    t = tf.from_dlpack(np.arange(12.0).reshape(3, 4))   # zero-copy, a row-major view
    a = np.from_dlpack(t)                                # zero-copy back
    tf.io.save_npy("t.npy", t); tf.io.load_npy("t.npy")

Errors raise tenferro.Error (subclasses mirror the C++ ones) with the C++
message."""
from ._tenferro import (  # noqa: F401
    BackendError,
    DeviceError,
    DType,
    DTypeError,
    Error,
    FormatError,
    IndexError,
    InternalError,
    LinalgError,
    ShapeError,
    Tensor,
    UnimplementedError,
    ValueError,
    arange,
    einsum,
    from_dlpack,
    ones,
    zeros,
)
from . import io  # noqa: F401
from ._tenferro import linalg  # noqa: F401

float32 = DType.float32
float64 = DType.float64
complex64 = DType.complex64
complex128 = DType.complex128
int32 = DType.int32
int64 = DType.int64
bool_ = DType.bool


def _array(self, dtype=None, copy=None):
    """numpy.asarray(t): a NumPy view of the tensor's memory (no copy)."""
    import numpy as np

    a = np.from_dlpack(self)
    if dtype is not None:
        a = a.astype(dtype, copy=False)
    return a


Tensor.__array__ = _array

__all__ = ["Tensor", "DType", "Error", "FormatError", "from_dlpack", "einsum", "zeros", "ones", "arange",
           "io", "linalg", "float32", "float64", "complex64", "complex128", "int32", "int64", "bool_"]

"""tenferro from Python: column-major strided tensors that cross to and from
NumPy, PyTorch and JAX without copies (DLPack), einsum, linalg, fft, eager
automatic differentiation, traced programs compiled once and run many
times, and tensor file I/O.

    import numpy as np, tenferro as tf
    t = tf.from_dlpack(np.arange(12.0).reshape(3, 4))   # zero-copy, a row-major view
    a = np.from_dlpack(t)                                # zero-copy back
    c = tf.einsum("ij,jk->ik", t, t.transpose())
    u, s, vh = tf.linalg.svd(t)
    w = tf.from_dlpack(np.eye(3)).requires_grad_()       # eager AD
    tf.linalg.svdvals(w).sum().backward(); w.grad
    p = tf.TracedTensor.input("p", tf.float64, (tf.Dim("n"), 4))
    prog = tf.compile((p * p).sum(0))                    # traced, compiled once
    outs = prog(p=t)                                     # a list of tensors
    tf.io.save_npy("t.npy", t); tf.io.load_npy("t.npy")

Errors raise tenferro.Error (subclasses mirror the C++ ones) with the C++
message."""
from ._tenferro import (  # noqa: F401
    BackendError,
    DeviceError,
    Dim,
    DType,
    DTypeError,
    EagerTensor,
    Error,
    FormatError,
    IndexError,
    InternalError,
    LinalgError,
    MemoryError,
    Program,
    ShapeError,
    Tensor,
    TracedTensor,
    UnimplementedError,
    ValueError,
    _cached_programs,
    _einsum,
    _einsum_path,
    arange,
    compile,
    fft,
    from_dlpack,
    grad,
    hvp,
    jvp,
    linalg,
    ones,
    vjp,
    zeros,
)
from . import io  # noqa: F401

float32 = DType.float32
float64 = DType.float64
complex64 = DType.complex64
complex128 = DType.complex128
int32 = DType.int32
int64 = DType.int64
bool_ = DType.bool


def einsum(subscripts, *operands, optimizer="automatic", path=None, memory_limit=0.0, seed=0, effort=1.0,
           objective="executor"):
    """einsum("ij,jk->ik", a, b): contraction along an optimised path.

    Operands are positional: Tensors or DLPack arrays (eager, on the CPU),
    EagerTensors (recorded for backward) or TracedTensors (recorded into a
    program). `optimizer` is "automatic", "greedy", "optimal" or
    "annealing"; `path` a list of pairs (opt_einsum's format) used as given;
    `memory_limit` the largest intermediate in elements (0: none; labels are
    sliced to meet it); `seed` and `effort` drive "annealing"; `objective`
    is what "optimal" and "annealing" minimise: "executor" (flops plus
    weighted memory traffic, a model of this library's executor) or
    "flops"."""
    return _einsum(subscripts, list(operands), optimizer, path, float(memory_limit), seed, float(effort), objective)


def einsum_path(subscripts, *operands, optimizer="automatic", path=None, memory_limit=0.0, seed=0, effort=1.0,
                objective="executor"):
    """The contraction path einsum would take, as a dict: "path" (pairs),
    "flops", "largest_intermediate", "total_intermediate", "traffic"
    (elements read and written by the steps), "num_slices", "optimizer",
    "planning_seconds". Operands may be arrays, tensors or shapes (tuples of
    ints); the options are einsum's."""
    shapes = [list(o) if isinstance(o, (tuple, list)) else list(o.shape) for o in operands]
    return _einsum_path(subscripts, shapes, optimizer, path, float(memory_limit), seed, float(effort), objective)


def trace(fn, **inputs):
    """Traces `fn` on named program inputs and compiles it once.

    Each keyword gives an input as (dtype, shape), extents ints or `Dim`s;
    `fn` is called with TracedTensors of those names and returns one
    TracedTensor or a list of them. Returns the `Program`:

        prog = tf.trace(lambda x: (x * x).sum(0), x=(tf.float64, (tf.Dim("n"), 3)))
        outs = prog(x=np.ones((5, 3)))"""
    traced = {name: TracedTensor.input(name, dtype, tuple(shape)) for name, (dtype, shape) in inputs.items()}
    return compile(fn(**traced))


_TYPESTR = {DType.float32: "<f4", DType.float64: "<f8", DType.complex64: "<c8", DType.complex128: "<c16",
            DType.int32: "<i4", DType.int64: "<i8", DType.bool: "|b1"}
_ITEMSIZE = {DType.float32: 4, DType.float64: 8, DType.complex64: 8, DType.complex128: 16, DType.int32: 4,
             DType.int64: 8, DType.bool: 1}


def _array_interface(self):
    """NumPy's array interface: numpy.asarray(t) views the tensor's memory
    (no copy, strides kept, every dtype, any NumPy version; the array keeps
    the tensor alive)."""
    t = self.value if isinstance(self, EagerTensor) else self
    size = _ITEMSIZE[t.dtype]
    return {"version": 3, "shape": t.shape, "typestr": _TYPESTR[t.dtype], "data": (t.data_ptr, False),
            "strides": tuple(s * size for s in t.strides)}


Tensor.__array_interface__ = property(_array_interface)
EagerTensor.__array_interface__ = property(_array_interface)

__all__ = ["Tensor", "EagerTensor", "TracedTensor", "Dim", "Program", "DType", "Error", "ShapeError",
           "DTypeError", "DeviceError", "IndexError", "ValueError", "UnimplementedError", "BackendError",
           "LinalgError", "MemoryError", "InternalError", "FormatError", "from_dlpack", "einsum", "einsum_path", "zeros",
           "ones", "arange", "compile", "trace", "grad", "vjp", "jvp", "hvp", "io", "linalg", "fft", "float32",
           "float64", "complex64", "complex128", "int32", "int64", "bool_"]

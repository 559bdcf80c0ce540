"""Tensor files: NumPy's .npy / .npz and safetensors (see docs/io.md).

A Fortran-order file loads column-major, a C-order file as a row-major view
of its bytes; large files are memory-mapped (map="automatic" | "always" |
"never"). Bad files raise tenferro.FormatError naming the file and reason."""
from ._tenferro import io as _io

MapMode = _io.MapMode


def _mode(map):
    return map if isinstance(map, MapMode) else getattr(MapMode, map)


def load_npy(path, map="automatic"):
    """The tensor in the .npy file at `path`."""
    return _io.load_npy(path, _mode(map))


def save_npy(path, tensor):
    """Writes `tensor`; column-major tensors with fortran_order=True, no transpose."""
    _io.save_npy(path, tensor)


def load_npz(path, map="automatic"):
    """The members of the .npz archive at `path` as a dict name -> tensor (archive order)."""
    return dict(_io.load_npz(path, _mode(map)))


def save_npz(path, tensors, compress=False):
    """Writes a dict name -> tensor as an .npz archive (deflated when `compress`)."""
    _io.save_npz(path, list(tensors.items()), compress)


def load_safetensors(path, map="automatic"):
    """(dict name -> tensor, metadata dict) of the safetensors file at `path`."""
    tensors, metadata = _io.load_safetensors(path, _mode(map))
    return dict(tensors), metadata


def save_safetensors(path, tensors, metadata=None):
    """Writes a dict name -> tensor (no complex dtypes) and string metadata."""
    _io.save_safetensors(path, list(tensors.items()), metadata or {})

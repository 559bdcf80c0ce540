"""The values every io interop file holds, shared by make_reference.py and
check_numpy_reads.py (the C++ tests compute the same formula in
tests/io/io_values.hpp): element r in row-major (C) order of an array of
dtype code is value(code, r)."""
import json
import struct

import numpy as np

CODES = ["f4", "f8", "c8", "c16", "i4", "i8", "b1"]


def value(code, r):
    if code in ("f4", "f8"):
        return r * 0.5 - 3.0
    if code in ("c8", "c16"):
        return complex(r * 0.5 - 3.0, 1.0 - r * 0.25)
    if code == "i4":
        return r * 7 - 20
    if code == "i8":
        return r * 3000000000 - 5
    if code == "b1":
        return r % 3 == 0
    raise ValueError(code)


def array(code, shape):
    n = int(np.prod(shape, dtype=np.int64))
    flat = np.array([value(code, r) for r in range(n)], dtype=np.dtype(code if code != "b1" else "?"))
    return flat.reshape(shape)  # C order: element r is flat[r]


# safetensors without the `safetensors` package: the documented layout
# (u64 little-endian header length, JSON header, row-major little-endian data).
ST_NAMES = {"f4": "F32", "f8": "F64", "i4": "I32", "i8": "I64", "b1": "BOOL"}


def write_safetensors(path, tensors, metadata=None):
    """Lays tensors out as the reference implementation does: by decreasing
    alignment, then by name; the header padded with spaces to 8 bytes."""
    items = sorted(tensors.items(), key=lambda kv: (-kv[1].dtype.itemsize, kv[0]))
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    offset = 0
    blobs = []
    for name, a in items:
        a = np.array(a, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
        data = a.astype(a.dtype.newbyteorder("<")).tobytes(order="C")
        code = a.dtype.str[1:]
        header[name] = {"dtype": ST_NAMES[code], "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    """The documented layout, read with numpy; returns (tensors, metadata)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    codes = {v: k for k, v in ST_NAMES.items()}
    out = {}
    base = 8 + n
    for name, e in header.items():
        b, end = e["data_offsets"]
        dt = np.dtype("<" + codes[e["dtype"]] if e["dtype"] != "BOOL" else "?")
        out[name] = np.frombuffer(raw[base + b:base + end], dtype=dt).reshape(e["shape"])
    return out, meta

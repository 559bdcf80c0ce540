#!/usr/bin/env python3
"""Writes the reference files of tests/io/data with NumPy (run by hand:
`/usr/bin/python3 tests/io/make_reference.py`; Debian's python3-numpy).

- <code>_c.npy / <code>_f.npy: a [2, 3, 4] array of each dtype in C and in
  Fortran order; scalar_f8.npy (0-d), vector_i8.npy (1-d), empty_f8.npy
  ([0, 3]), big_f8.npy and big_c16.npy (big-endian), v2_f4.npy and
  v3_f4.npy (format versions 2.0 and 3.0);
- arrays.npz (numpy.savez: stored members, ZIP64 extras as NumPy always
  writes them) and arrays_deflate.npz (numpy.savez_compressed);
- reference.safetensors: written by io_values.write_safetensors from the
  format's documented layout, because the `safetensors` package is not
  installed here (Debian has no package of it).

Element r in C order of every array is io_values.value(code, r); the C++
test (test_io_interop.cpp) computes the same formula."""
import os

import numpy as np

from io_values import CODES, array, write_safetensors

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "data")
os.makedirs(out, exist_ok=True)

for code in CODES:
    a = array(code, (2, 3, 4))
    np.save(os.path.join(out, f"{code}_c.npy"), a)
    np.save(os.path.join(out, f"{code}_f.npy"), np.asfortranarray(a))

np.save(os.path.join(out, "scalar_f8.npy"), array("f8", ()))
np.save(os.path.join(out, "vector_i8.npy"), array("i8", (5,)))
np.save(os.path.join(out, "empty_f8.npy"), array("f8", (0, 3)))
np.save(os.path.join(out, "big_f8.npy"), array("f8", (3, 2)).astype(">f8"))
np.save(os.path.join(out, "big_c16.npy"), np.asfortranarray(array("c16", (3, 2)).astype(">c16")))
for version in (2, 3):
    with open(os.path.join(out, f"v{version}_f4.npy"), "wb") as f:
        np.lib.format.write_array(f, array("f4", (4, 3)), version=(version, 0))

members = {"a": array("f8", (3, 4)), "b": np.asfortranarray(array("c8", (2, 5))),
           "flags": array("b1", (7,)), "n": array("i4", ())}
np.savez(os.path.join(out, "arrays.npz"), **members)
np.savez_compressed(os.path.join(out, "arrays_deflate.npz"), **members)

write_safetensors(os.path.join(out, "reference.safetensors"),
                  {"w": array("f4", (3, 4)), "b": array("f8", (4,)), "ids": array("i8", (2, 2)),
                   "mask": array("b1", (5,)), "count": array("i4", ())},
                  metadata={"format": "np", "source": "make_reference.py"})
print("wrote", sorted(os.listdir(out)))

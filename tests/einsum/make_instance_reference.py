#!/usr/bin/env python3
"""Reference values for tests/einsum/test_einsum_instances.cpp.

Run by hand (never by CI) with Debian's python3 + NumPy:

    /usr/bin/python3 tests/einsum/make_instance_reference.py

For every einsum instance in tests/data/instances/ it generates the
operands with the counter-based generator that the C++ test reproduces
(splitmix64 of seed + (i + 1) * golden, mapped to [-1, 1) and scaled so
that the result stays of order one), contracts them with numpy.einsum
along the instance's opt_size path (one numpy.einsum call per pairwise
step, because NumPy accepts at most 52 distinct labels per call), and
writes tests/einsum/data/instance_reference.json with the result's
entries (all of them up to 1024, else 256 sampled positions), its maximum
magnitude and its Frobenius norm. NumPy works on the row-major form
(format_string, shapes); the C++ test on the column-major form, which is
the same memory.
"""
import json
import math
import os
import string
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
INSTANCES = os.path.join(HERE, "..", "data", "instances")
OUT = os.path.join(HERE, "data", "instance_reference.json")
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MAX_FULL = 1024
SAMPLES = 256


def fnv1a(text):
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


def splitmix(seed, n):
    """The first n outputs of splitmix64 started at `seed` (vectorised)."""
    i = np.arange(1, n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + i * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z


def operand_seed(name, k):
    return (fnv1a(name) ^ (((k + 1) * GOLDEN) & MASK)) & MASK


def operand(name, k, terms, shapes, output, size, count):
    """Operand k as a flat buffer: uniform [-1, 1) times sqrt(3) times
    prod over its summed labels of extent^(-1 / (2 * occurrences))."""
    n = math.prod(shapes[k])
    u = (splitmix(operand_seed(name, k), n) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    scale = math.sqrt(3.0)
    for label in dict.fromkeys(terms[k]):
        if label not in output:
            scale *= size[label] ** (-1.0 / (2.0 * count[label]))
    return (2.0 * u - 1.0) * scale


def contract(terms, arrays, output, path):
    terms = [list(t) for t in terms]
    arrays = list(arrays)
    for i, j in path:
        a, b = terms[i], terms[j]
        ta, tb = arrays[i], arrays[j]
        for k in sorted((i, j), reverse=True):
            del terms[k]
            del arrays[k]
        later = set(output).union(*[set(t) for t in terms]) if terms else set(output)
        kept = [l for l in dict.fromkeys(a + b) if l in later]
        letters = {l: string.ascii_letters[n] for n, l in enumerate(dict.fromkeys(a + b))}
        sub = "".join(letters[l] for l in a) + "," + "".join(letters[l] for l in b) + "->" + "".join(
            letters[l] for l in kept)
        arrays.append(np.einsum(sub, ta, tb, optimize=True))
        terms.append(kept)
    (last,), (res,) = terms, arrays
    letters = {l: string.ascii_letters[n] for n, l in enumerate(last)}
    return np.einsum("".join(letters[l] for l in last) + "->" + "".join(letters[l] for l in output), res)


def main():
    out = {"generator": "tests/einsum/make_instance_reference.py", "numpy": np.__version__, "instances": {}}
    for fname in sorted(f for f in os.listdir(INSTANCES) if f.endswith(".json")):
        with open(os.path.join(INSTANCES, fname), encoding="utf-8") as f:
            inst = json.load(f)
        if "paths" not in inst:
            continue
        name = fname[:-5]
        lhs, output = inst["format_string"].split("->")
        terms = lhs.split(",")
        shapes = inst["shapes"]
        size, count = {}, {}
        for t, s in zip(terms, shapes):
            for label, n in zip(t, s):
                size[label] = n
            for label in set(t):
                count[label] = count.get(label, 0) + 1
        arrays = [operand(name, k, terms, shapes, output, size, count).reshape(shapes[k]) for k in range(len(terms))]
        result = contract(terms, arrays, output, inst["paths"]["opt_size"]["path"])
        flat = np.ascontiguousarray(result).reshape(-1)
        entry = {"max_abs": float(np.max(np.abs(flat))), "norm": float(np.linalg.norm(flat)), "numel": int(flat.size)}
        if flat.size <= MAX_FULL:
            entry["indices"] = list(range(flat.size))
        else:
            picks = splitmix(fnv1a(name) ^ 0x5EED, SAMPLES) % np.uint64(flat.size)
            entry["indices"] = [int(p) for p in picks]
        entry["values"] = [float(flat[p]) for p in entry["indices"]]
        out["instances"][name] = entry
        print(f"{name}: {flat.size} elements, max |x| {entry['max_abs']:.3e}", file=sys.stderr, flush=True)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

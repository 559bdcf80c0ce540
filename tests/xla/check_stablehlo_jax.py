#!/usr/bin/env python3
"""A second opinion on tenferro::xla's StableHLO: jax's CPU backend compiles
a sample of our emitted modules and runs them; the results must equal our
CPU runtime's.

    check_stablehlo_jax.py <path of emit_stablehlo_samples>

The emitter writes, per module, module.mlir, the inputs in<i>.npy and our
results out<j>.npy, all column-major arrays of our shapes. The module's
operands are their transposes (Note [Reversed shapes] in
src/xla/stablehlo.cpp): a column-major f64[3, 4] is a row-major 4x3 tensor.
Exits 77 (CTest: skipped) when jax cannot be imported, 1 on any mismatch.
"""
import pathlib
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import jax
    from jax.extend import backend as jax_backend
except ImportError as e:  # the peer venv is absent or incomplete
    print(f"skipped: jax is not importable ({e}); run scripts/setup_peers.sh")
    sys.exit(77)

jax.config.update("jax_enable_x64", True)  # f64, c128 and i64 operands stay as they are


def tolerance(dtype):
    if dtype.kind in "iub":
        return 0.0
    eps = np.finfo(dtype).eps
    return 4096 * eps  # the special functions of CHLO and XLA's own libm


def main():
    emitter = sys.argv[1]
    cpu = jax_backend.get_backend("cpu")
    device = cpu.devices()[:1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([emitter, tmp], check=True)
        dirs = sorted(pathlib.Path(tmp).iterdir(), key=lambda p: int(p.name))
        for d in dirs:
            name = (d / "name.txt").read_text().strip()
            text = (d / "module.mlir").read_text()
            ins = [np.load(d / f"in{i}.npy") for i in range(len(list(d.glob("in*.npy"))))]
            want = [np.load(d / f"out{j}.npy") for j in range(len(list(d.glob("out*.npy"))))]
            try:
                exe = cpu.compile_and_load(text, device)
                args = [jax.device_put(np.ascontiguousarray(a.T), device[0]) for a in ins]
                got = [np.asarray(r).T for r in exe.execute(args)]
            except Exception as e:  # a module jax rejects is a failure
                print(f"FAIL {name}: jax rejected the module: {str(e).splitlines()[0]}")
                failures += 1
                continue
            bad = []
            for j, (g, w) in enumerate(zip(got, want)):
                tol = tolerance(w.dtype)
                if g.shape != w.shape or g.dtype != w.dtype:
                    bad.append(f"result {j}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}")
                elif not np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True):
                    err = np.max(np.abs(g.astype(np.complex128) - w.astype(np.complex128)))
                    bad.append(f"result {j}: max |difference| {err:.3g} (tolerance {tol:.3g})")
            if len(got) != len(want):
                bad.append(f"{len(got)} results, expected {len(want)}")
            if bad:
                print(f"FAIL {name}: " + "; ".join(bad))
                failures += 1
            else:
                print(f"ok   {name}")
    print(f"jax {jax.__version__}: {len(dirs) - failures} of {len(dirs)} modules accepted with equal results")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

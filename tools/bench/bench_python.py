"""The Python package's cost over the C library, measured in one process (issue 19's targets).

  PYTHONPATH=build/python /usr/bin/python3 tools/bench/bench_python.py [--runs N] [--mb MB]

1. blend_rotations on 100,000 sets of K = 4 (inputs 30 degrees apart, fixed weights) against
   the C job it wraps, mb_blend_run, called through the same cffi module on the same data
   already laid out as poses (what a C caller holds). Target: <= 1.3x.
2. mblend.load of a ~150 MB BVH against the C reader mb_bvh_read_file on the same file (in
   the page cache), and load + .rotations + .translations (the arrays a researcher asks for
   next) for information. Target for load: <= 1.1x.

Runs alternate (Python, C, Python, C ...) and the report gives the median of the per-pair
ratios with the spread: the machine's state shifts both sides of a pair alike. The BVH is
written to a temporary file from data/bvh/walk.bvh's motion, repeated (never kept)."""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import mblend
from mblend._lib import ffi, lib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def qexp(v):
    a = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.concatenate([v * np.sin(a) / np.maximum(a, 1e-30), np.cos(a)], axis=-1)


def qmul(a, b):
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz],
                    axis=-1)


def rotation_sets(n, k, spread_deg, seed=1):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(n, 4))
    c /= np.linalg.norm(c, axis=-1, keepdims=True)
    ax = rng.normal(size=(k, n, 3))
    ax /= np.linalg.norm(ax, axis=-1, keepdims=True)
    half = np.radians(spread_deg) / 2 / 2  # inputs within spread of each other
    return qmul(c[None], qexp(ax * half)).astype(np.float32)


def c_blend_job(q, w):
    """mb_blend_run over poses built once: returns a callable timing one run."""
    k, n, _ = q.shape
    x = np.zeros((k + 1, n, 7), np.float32)
    x[:k, :, :4] = q
    mem = [ffi.from_buffer("mb_xform[]", x[i]) for i in range(k + 1)]
    poses = ffi.new("mb_pose[]", k + 1)
    for i in range(k + 1):
        poses[i].joints = mem[i]
        poses[i].count = n
    layers = ffi.new("mb_blend_layer[]", k)
    for i in range(k):
        layers[i].pose = ffi.addressof(poses, i)
        layers[i].weight = float(w[i])
    d = ffi.new("mb_blend_desc *")
    d.layers = layers
    d.layer_count = k
    d.out = poses[k]
    keep = (x, mem, poses, layers)

    def run():
        assert keep and lib.mb_blend_run(d) == lib.MB_OK
        return x[k, :, :4]
    return run


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def alternate(name, py, c, runs):
    py(), c()  # warm
    ratios, tp, tc = [], [], []
    for _ in range(runs):
        a, b = timed(py), timed(c)
        tp.append(a)
        tc.append(b)
        ratios.append(a / b)
    print(f"{name}: python {statistics.median(tp) * 1e3:.2f} ms, C {statistics.median(tc) * 1e3:.2f}"
          f" ms, ratio median {statistics.median(ratios):.3f}x (min {min(ratios):.3f}, max "
          f"{max(ratios):.3f}, {runs} pairs)")
    return statistics.median(ratios)


def big_bvh(path, mb):
    text = open(os.path.join(REPO, "data", "bvh", "walk.bvh")).read().splitlines()
    i = next(k for k, ln in enumerate(text) if ln.startswith("Frames:"))
    head, motion = text[:i], text[i + 2:]
    per = sum(len(ln) + 1 for ln in motion)
    reps = max(1, int(mb * 1e6 / per))
    with open(path, "w") as f:
        f.write("\n".join(head) + f"\nFrames: {reps * len(motion)}\n{text[i + 1]}\n")
        block = "\n".join(motion) + "\n"
        for _ in range(reps):
            f.write(block)
    return os.path.getsize(path)


def c_reader(path):
    p = path.encode()

    def run():
        s, c = ffi.new("mb_skeleton **"), ffi.new("mb_clip **")
        err = ffi.new("mb_error *")
        assert lib.mb_bvh_read_file(p, ffi.NULL, s, c, err) == lib.MB_OK
        lib.mb_clip_destroy(c[0])
        lib.mb_skeleton_destroy(s[0])
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--mb", type=float, default=150.0)
    ap.add_argument("--sets", type=int, default=100_000)
    a = ap.parse_args()

    q = rotation_sets(a.sets, 4, 30.0)
    w = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    job = c_blend_job(q, w)
    same = np.array_equal(mblend.blend_rotations(q, w), job())
    print(f"blend_rotations == mb_blend_run bit for bit: {same}")
    r1 = alternate(f"blend_rotations, {a.sets} sets, K=4, 30 deg", lambda: mblend.blend_rotations(q, w),
                   job, a.runs)

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.bvh")
        size = big_bvh(path, a.mb)
        print(f"BVH: {size / 1e6:.0f} MB")
        c = c_reader(path)
        r2 = alternate("load", lambda: mblend.load(path), c, max(3, a.runs // 2))
        alternate("load + rotations + translations",
                  lambda: (lambda x: (x.rotations, x.translations))(mblend.load(path)), c,
                  max(3, a.runs // 2))
    print(f"targets: blend_rotations {r1:.3f}x (<= 1.3x: {'met' if r1 <= 1.3 else 'MISSED'}), "
          f"load {r2:.3f}x (<= 1.1x: {'met' if r2 <= 1.1 else 'MISSED'})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

"""Whole-clip operations: transition-point search (match), and the analysis they share."""
import numpy as np

from ._lib import ffi, lib, check, InvalidArgumentError, MismatchError
from .clip import Clip

__all__ = ["match", "MATCH_DTYPE"]

MATCH_DTYPE = np.dtype([("a_frame", np.int32), ("b_frame", np.int32), ("cost", np.float32),
                        ("theta", np.float32), ("dx", np.float32), ("dz", np.float32)])


def _check_clip(c, name):
    if not isinstance(c, Clip):
        raise TypeError(f"{name}: expected an mblend.Clip, got {type(c).__name__}")


def same_skeleton(a, b, name_a="a", name_b="b"):
    """MismatchError unless a and b share joint names and parents (offsets may differ)."""
    diff = ffi.new("int *")
    if not lib.mb_skeleton_same_topology(a._skel, b._skel, diff):
        j = diff[0]
        na, nb = a.node_names, b.node_names
        left = f"'{na[j]}'" if j < len(na) else "nothing"
        right = f"'{nb[j]}'" if j < len(nb) else "nothing"
        raise MismatchError(f"{name_a} and {name_b} differ at node {j}: {left} vs {right} "
                            f"(they must share a skeleton)")


def analyze(clip, up_axis=0, name="clip"):
    """The C analysis of a clip (mb_motion_info), up_axis 0 (detect) or 1..3 (X, Y, Z)."""
    info = ffi.new("mb_motion_info *")
    desc = ffi.new("mb_analyze_desc *")
    desc.up_axis = up_axis
    err = ffi.new("mb_error *")
    src = ffi.new("char[]", (clip.path or name).encode())
    check(lib.mb_motion_analyze(clip._skel, clip._clip, desc, src, info, err), err, name)
    return info


def match(a, b, k=5, window=0.0, use_double=False):
    """The best transition points from clip a to clip b (the pairs ``mblend match`` prints),
    best first: a numpy structured array with fields a_frame, b_frame, cost (root-mean-square
    distance of the aligned joint positions, file units), theta (radians: rotate b about the
    up axis by theta, then translate by dx, dz to carry its window onto a's). window: seconds
    compared from each frame (0: 0.25 s)."""
    _check_clip(a, "a")
    _check_clip(b, "b")
    k = int(k)
    if k < 1:
        raise InvalidArgumentError(f"k must be >= 1, got {k}")
    same_skeleton(a, b)
    for c, n in ((a, "a"), (b, "b")):
        if c.frame_count < 2:
            raise InvalidArgumentError(f"{c.path or n} has fewer than 2 frames")
    info_a = analyze(a, a._up_axis, "a")
    info_b = analyze(b, info_a.up_axis + 1, "b")
    d = ffi.new("mb_match_desc *")
    d.skeleton_a, d.skeleton_b, d.a, d.b = a._skel, b._skel, a._clip, b._clip
    d.info_a, d.info_b = info_a, info_b
    d.window = float(window)
    d.use_double = 1 if use_double else 0
    pairs = ffi.new("mb_match_pair[]", k)
    found = ffi.new("int *")
    err = ffi.new("mb_error *")
    check(lib.mb_match_find(d, pairs, k, found, ffi.NULL, err), err, "match")
    out = np.empty(found[0], MATCH_DTYPE)
    for i in range(found[0]):
        p = pairs[i]
        out[i] = (p.a, p.b, p.cost, p.theta, p.dx, p.dz)
    return out

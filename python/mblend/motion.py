"""Whole-clip operations over the library's preparation stage (mblend/offline/prepare.h): cycle
selection, phase-aligned clip blending with root motion, transitions and transition-point
search, with the rules `mblend blend`, `mblend transition` and `mblend match` use."""
import contextlib
import os
import warnings

import numpy as np

from ._lib import ffi, lib, check, axis_code, InvalidArgumentError, MismatchError
from .clip import Clip, MblendWarning
from .rotations import method_code

__all__ = ["match", "blend", "transition", "select_cycles", "analyze", "MATCH_DTYPE"]

_SELECTION = {"MB_SELECT_GIVEN": "given", "MB_SELECT_LEFT_FOOT": "left foot",
              "MB_SELECT_RIGHT_FOOT": "right foot", "MB_SELECT_WHOLE_LOOP": "whole loop",
              "MB_SELECT_MOTION": "whole motion", "MB_SELECT_PENDING": "pending"}

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


def _name(c, i):
    return c.path or f"clip {i}"


@contextlib.contextmanager
def _prepared(clips, up_axis=None, ranges=None, feet=None, pair=False):
    """Prepared clips for the inputs (destroyed on exit). Each input's up axis is up_axis,
    else its loader's (glTF: +Y; BVH: detected) as `mblend blend` does; pair=True prepares
    them as one character (later clips on the first one's axis), as `mblend transition` and
    `mblend match` do."""
    n = len(clips)
    keep = []
    descs = ffi.new("mb_prepare_desc[]", n)
    for i, c in enumerate(clips):
        d = descs[i]
        d.skeleton, d.clip = c._skel, c._clip
        keep.append(ffi.new("char[]", _name(c, i).encode()))
        d.source = keep[-1]
        d.up_axis = axis_code(up_axis) or (c._up_axis if (i == 0 or not pair) else 0)
        if feet is not None:
            keep += [ffi.new("char[]", str(feet[0]).encode()), ffi.new("char[]", str(feet[1]).encode())]
            d.left_foot, d.right_foot = keep[-2], keep[-1]
        if ranges is not None and ranges[i] is not None:
            d.range.start, d.range.end = (int(x) for x in ranges[i])
    out = ffi.new("mb_prepared_clip *[]", n)
    err = ffi.new("mb_error *")
    if pair:
        check(lib.mb_clips_prepare(descs, n, out, err), err, "prepare")
    else:
        for i in range(n):
            st = lib.mb_clip_prepare(descs + i, out + i, err)
            if st != lib.MB_OK:
                for k in range(i):
                    lib.mb_prepared_clip_destroy(out[k])
                check(st, err, "prepare")
    try:
        yield out
    finally:
        for i in range(n):
            lib.mb_prepared_clip_destroy(out[i])


def _select(prepared, n, cycle, err):
    mode = lib.MB_CYCLE_NONE if cycle == "none" else lib.MB_CYCLE_AUTO
    check(lib.mb_prepared_select_cycles(prepared, n, mode, err), err, "select_cycles")
    out = []
    for i in range(n):
        info = lib.mb_prepared_clip_info(prepared[i])
        name = ffi.string(info.source).decode("utf-8", "replace")
        notes = [ffi.string(info.warnings[w]).decode("utf-8", "replace")
                 for w in range(info.warning_count)]
        sel = next(k for k in _SELECTION if getattr(lib, k) == info.selection)
        out.append({"start": info.range.start, "end": info.range.end,
                    "seconds": info.range_seconds, "selection": _SELECTION[sel],
                    "clamped": bool(info.range_clamped), "warnings": notes, "source": name})
    return out


def _check_inputs(clips, weights=None):
    clips = [c for c in clips]
    if not clips:
        raise ValueError("clips: at least one clip")
    if len(clips) > lib.MB_BLEND_MAX_LAYERS:
        raise ValueError(f"clips: at most {lib.MB_BLEND_MAX_LAYERS}")
    for i, c in enumerate(clips):
        _check_clip(c, f"clips[{i}]")
        if i:
            same_skeleton(clips[0], c, _name(clips[0], 0), _name(c, i))
        if c.frame_count < 2:
            raise InvalidArgumentError(f"{_name(c, i)} has {c.frame_count} frame(s): a clip "
                                       f"blend needs 2 or more (blend poses with "
                                       f"blend_rotations)")
    return clips


def _cycle_args(cycle, n):
    """("auto" | "none", ranges or None) from the cycle argument."""
    if isinstance(cycle, str):
        if cycle not in ("auto", "none"):
            raise InvalidArgumentError(f"cycle: 'auto', 'none' or one (start, end) frame range "
                                       f"per clip, got {cycle!r}")
        return cycle, None
    ranges = list(cycle)
    if len(ranges) != n:
        raise ValueError(f"cycle: {len(ranges)} ranges for {n} clips")
    return "auto", [None if r is None else tuple(int(x) for x in r) for r in ranges]


def select_cycles(clips, cycle="auto", up_axis=None, feet=None):
    """The frames `mblend blend` would play of each clip, by the library's one rule: one gait
    cycle per clip from the same foot for all (left, else right), whole in-place loops, given
    (start, end) ranges (cycle=[...], one per clip, None to select), or cycle="none": the
    whole motion. Returns one dict per clip: start, end (frame end continues frame start
    for a cycle), seconds, selection ("left foot", "right foot", "whole loop", "given",
    "whole motion"), clamped, warnings, source."""
    clips = _check_inputs(clips)
    mode, ranges = _cycle_args(cycle, len(clips))
    err = ffi.new("mb_error *")
    with _prepared(clips, up_axis, ranges, feet) as p:
        return _select(p, len(clips), mode, err)


def blend(clips, weights, cycle="auto", method="logexp", exact=False, up_axis=None, feet=None):
    """Blends whole clips as `mblend blend` does: each clip's cycle (see select_cycles) is
    sampled in normalised time, poses blended with the method, and the root's per-frame
    motion (displacement and turn in its own heading frame) blended and integrated, so the
    result travels at the blended speed (run + walk = jog). cycle="none" stretches the
    clips' whole motions onto each other instead. Returns a new Clip on the first clip's
    skeleton; the selection's warnings come as MblendWarning."""
    clips = _check_inputs(clips)
    n = len(clips)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.size != n:
        raise ValueError(f"weights: {w.size} values for {n} clips")
    if not (np.isfinite(w).all() and (w >= 0).all() and w.sum() > 0):
        raise InvalidArgumentError("weights must be finite, >= 0 and not all 0")
    mode, ranges = _cycle_args(cycle, n)
    code = method_code(method)
    err = ffi.new("mb_error *")
    with _prepared(clips, up_axis, ranges, feet) as p:
        sel = _select(p, n, mode, err)
        for s in sel:
            for note in s["warnings"]:
                warnings.warn(f"{s['source']}: {note}", MblendWarning, stacklevel=2)
        inputs = ffi.new("mb_clip_input[]", n)
        for i in range(n):
            inputs[i].weight = float(w[i])
        d = ffi.new("mb_clip_blend_desc *")
        d.inputs, d.input_count = inputs, n
        d.cyclic = 1 if mode == "auto" else 0
        d.method = code
        d.solver = lib.MB_EIGEN_LAPACKE if exact else lib.MB_EIGEN_AUTO
        d.up_axis = axis_code(up_axis) or clips[0]._up_axis
        d.prepared = ffi.cast("const mb_prepared_clip *const *", p)
        out = ffi.new("mb_clip **")
        check(lib.mb_clip_blend(d, out, err), err, "blend")
        up = lib.mb_prepared_clip_info(p[0]).motion.up_axis
    first = clips[0]
    c = ffi.gc(out[0], lib.mb_clip_destroy)
    return Clip(first._skel, c, first._keep + (c,), _file="", _scene=first._scene,
                _up_axis=first._up_axis or up)


_MODES = {"crossfade": "MB_TRANSITION_CROSSFADE", "inertialize": "MB_TRANSITION_INERTIALIZE"}
_CURVES = {"smoothstep": "MB_CURVE_SMOOTHSTEP", "linear": "MB_CURVE_LINEAR"}


def _time_arg(v, name):
    if isinstance(v, str):
        if v != "auto":
            raise InvalidArgumentError(f"{name}: seconds or 'auto', got {v!r}")
        return 1, 0.0
    t = float(v)
    if not np.isfinite(t) or t < 0:
        raise InvalidArgumentError(f"{name}: seconds >= 0 or 'auto', got {v!r}")
    return 0, t


def transition(a, b, at="auto", duration=0.5, mode="crossfade", sync=False, b_start="auto",
               curve="smoothstep", up_axis=None, return_info=False):
    """One continuous clip as `mblend transition` makes it: a up to the transition point,
    the transition (a cross-fade, optionally in gait phase, or an inertialization), then the
    rest of b, rotated and moved so its root continues a's path. at / b_start: seconds (file
    time) or "auto" (found by pose matching, the library's rule). With return_info=True also
    a dict: a_frame, b_frame, b_start, cost (-1 when no match ran), frames,
    transition_start, transition_end."""
    _check_clip(a, "a")
    _check_clip(b, "b")
    same_skeleton(a, b)
    if mode not in _MODES or curve not in _CURVES:
        raise InvalidArgumentError(f"mode is one of {list(_MODES)}, curve one of {list(_CURVES)}")
    at_auto, at_s = _time_arg(at, "at")
    b_auto, b_s = _time_arg(b_start, "b_start")
    dur = float(duration)
    if not (np.isfinite(dur) and dur >= 0):
        raise InvalidArgumentError(f"duration: seconds >= 0, got {duration!r}")
    for c, n in ((a, "a"), (b, "b")):
        if c.frame_count < 2:
            raise InvalidArgumentError(f"{c.path or n} has fewer than 2 frames")
    err = ffi.new("mb_error *")
    with _prepared([a, b], up_axis, pair=True) as p:
        pd = ffi.new("mb_transition_plan_desc *")
        pd.prepared_a, pd.prepared_b = p[0], p[1]  # clips, analyses and names
        pd.at_auto, pd.at, pd.b_auto, pd.b_start = at_auto, at_s, b_auto, b_s
        pd.duration, pd.sync = dur, 1 if sync else 0
        plan = ffi.new("mb_transition_plan *")
        check(lib.mb_transition_plan_find(pd, plan, err), err, "transition")
        bd = ffi.new("mb_transition_build_desc *")
        bd.skeleton = a._skel
        bd.prepared_a, bd.prepared_b = p[0], p[1]
        bd.at, bd.b_start = plan.a_frame * a.frame_time, plan.b_start
        bd.transition.duration = dur
        bd.transition.mode = getattr(lib, _MODES[mode])
        bd.transition.curve = getattr(lib, _CURVES[curve])
        bd.transition.sync = 1 if sync else 0
        bd.transition.sync_keep_start = 1
        up = lib.mb_prepared_clip_info(p[0]).motion.up_axis
        bd.up_axis = up
        out = ffi.new("mb_clip **")
        res = ffi.new("mb_transition_result *")
        check(lib.mb_transition_build(bd, out, res, err), err, "transition")
    c = ffi.gc(out[0], lib.mb_clip_destroy)
    clip = Clip(a._skel, c, a._keep + (c,), _file="", _scene=a._scene, _up_axis=a._up_axis or up)
    if not return_info:
        return clip
    return clip, {"a_frame": plan.a_frame, "b_frame": int(np.floor(res.b_start / b.frame_time + 0.5)),
                  "b_start": res.b_start, "cost": plan.cost, "frames": res.frames,
                  "transition_start": res.transition_start,
                  "transition_end": res.transition_end}


def analyze(clip, up_axis=None):
    """What the library finds out about a clip (as `mblend info` reports it): a dict with
    up_axis (0, 1, 2 = X, Y, Z), root (the first joint whose translation moves, a node
    index), left_foot / right_foot (node indices, -1 when not found), first_frame (1 when
    frame 0 is a cgspeed T-pose), height, ground and speed (file units, units per second)."""
    _check_clip(clip, "clip")
    if clip.frame_count < 1:
        raise InvalidArgumentError(f"{clip.path or 'clip'} has no frames to analyse")
    info = ffi.new("mb_motion_info *")
    desc = ffi.new("mb_analyze_desc *")
    desc.up_axis = axis_code(up_axis) or clip._up_axis
    err = ffi.new("mb_error *")
    src = ffi.new("char[]", (clip.path or "clip").encode())
    check(lib.mb_motion_analyze(clip._skel, clip._clip, desc, src, info, err), err,
          clip.path or "analyze")
    return {"up_axis": lib.mb_axis_index(info.up_axis), "root": info.root, "left_foot": info.left_foot,
            "right_foot": info.right_foot, "first_frame": info.first_frame,
            "height": info.height, "ground": info.ground, "speed": info.speed}


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
    pairs = ffi.new("mb_match_pair[]", k)
    found = ffi.new("int *")
    err = ffi.new("mb_error *")
    with _prepared([a, b], pair=True) as p:
        d = ffi.new("mb_match_desc *")
        d.prepared_a, d.prepared_b = p[0], p[1]  # skeletons, clips and analyses
        d.window = float(window)
        d.use_double = 1 if use_double else 0
        check(lib.mb_match_find(d, pairs, k, found, ffi.NULL, err), err, "match")
    out = np.empty(found[0], MATCH_DTYPE)
    for i in range(found[0]):
        p = pairs[i]
        out[i] = (p.a, p.b, p.cost, p.theta, p.dx, p.dz)
    return out

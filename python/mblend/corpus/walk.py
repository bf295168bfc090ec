"""``walk``: a seeded random walk through a motion graph, written as one continuous clip.

The walk enters a clip at an edge's target frame b, plays it for at least the transition
(window) plus a frame, then leaves along an edge whose source frame a lies ahead (chosen
uniformly among the clip's kept edges ahead), and so on until the clip is long enough. Each
edge is played by the C builder mb_transition_build: A up to frame a, a cross-fade of
`window` seconds into B from frame b (smoothstep weights), then B, rotated about the up axis
and moved so its root continues A's path and heading. Edges of the largest strongly
connected component always have an edge ahead, so the walk never gets stuck.

The clip grows by splicing: the builder gets only the last seconds of the walk so far as A
(the cost of a step does not grow with the walk), and its output, which reproduces A up to
the transition, replaces that tail."""
import os
import random

import numpy as np

import mblend
from .._lib import ffi, lib, check
from .graph import read_graph, lead_frames
from ._sources import analysis

__all__ = ["walk_graph", "WalkError"]

TAIL_SECONDS = 3.0  # of the walk given to the builder as A: its heading averages a gait cycle


class WalkError(ValueError):
    """The graph cannot be walked (no edges, missing clips, clips that cannot be joined)."""


def _resolve(path, graph_dir):
    if os.path.isabs(path) or os.path.exists(path.split("#", 1)[0]):
        return path
    alt = os.path.join(graph_dir, path)
    return alt if os.path.exists(alt.split("#", 1)[0]) else path


class _Graph:
    """The graph's edges by source clip, sorted by source frame, and its clips (loaded)."""

    def __init__(self, g, graph_path):
        if not g["edges"]:
            raise WalkError(f"{graph_path}: the graph has no edges to walk")
        self.window = float(g["settings"]["window"])
        gdir = os.path.dirname(os.path.abspath(graph_path))
        self.clips = []
        for n in g["nodes"]:
            p = _resolve(n["path"], gdir)
            try:
                self.clips.append(mblend.load(p))
            except mblend.Error as e:
                raise WalkError(f"{graph_path}: clip {n['clip']} cannot be loaded: {e}") from e
        self.out = {}
        for e in g["edges"]:
            self.out.setdefault(e["from"]["clip"], []).append(
                (e["from"]["frame"], e["to"]["clip"], e["to"]["frame"]))
        for v in self.out.values():
            v.sort()
        self.entries = sorted({(e["to"]["clip"], e["to"]["frame"]) for e in g["edges"]})

    def ahead(self, clip, frame):
        """Edges leaving `clip` at least lead_frames after `frame`."""
        lead = lead_frames(self.window, self.clips[clip].frame_time)
        return [e for e in self.out.get(clip, []) if e[0] >= frame + lead]


def _choose_route(g, rng, seconds):
    """The walk as (start clip, start frame, [(a, next clip, b), ...]), long enough to fill
    `seconds` counting the frames played in each clip."""
    c, f = g.entries[rng.randrange(len(g.entries))]
    start = (c, f)
    route, played = [], 0.0
    while True:
        options = g.ahead(c, f)
        if not options:
            raise WalkError(f"no edge ahead of frame {f} of {g.clips[c].path} (the graph is "
                            f"not pruned to a strongly connected component)")
        a, c2, b = options[rng.randrange(len(options))]
        played += (a - f) * g.clips[c].frame_time
        route.append((a, c2, b))
        c, f = c2, b
        if played >= seconds:
            return start, route


def _wrap(skel_clip, c_clip):
    """A Python Clip around a C clip the builder made (owned: destroyed with the Clip)."""
    owned = ffi.gc(c_clip, lib.mb_clip_destroy)
    return mblend.Clip(skel_clip._skel, owned, skel_clip._keep + (owned,),
                       _up_axis=skel_clip._up_axis)


def _build(skel, a, b, at, b_start, window, up, name_b):
    """mb_transition_build of A (a tail of the walk) into B; returns (Clip, result)."""
    ia = analysis(a, up, "walk")
    ia.first_frame = 0  # the tail is all motion (no cgspeed T-pose frame to skip)
    ib = analysis(b, up, name_b)
    d = ffi.new("mb_transition_build_desc *")
    d.skeleton = skel._skel
    d.a, d.b = a._clip, b._clip
    keep = (ffi.new("char[]", b"walk"), ffi.new("char[]", name_b.encode()))
    d.source_a, d.source_b = keep
    d.info_a, d.info_b = ia, ib
    d.at, d.b_start = at, b_start
    d.transition.duration = window
    d.transition.mode = lib.MB_TRANSITION_CROSSFADE
    d.transition.curve = lib.MB_CURVE_SMOOTHSTEP
    d.up_axis = up
    out = ffi.new("mb_clip **")
    res = ffi.new("mb_transition_result *")
    err = ffi.new("mb_error *")
    check(lib.mb_transition_build(d, out, res, err), err, "walk")
    return _wrap(skel, out[0]), res


def walk_graph(graph_path, seconds, seed, out_path=None, return_route=False):
    """Walks the graph in graph_path for `seconds` seconds (the output's length, at the
    first clip's frame rate) with random.Random(seed); returns the Clip (with
    return_route, also the route: [(exit frame, next clip, entry frame), ...]) and, when
    out_path is given, writes it (.bvh or .glb) atomically. Same graph and seed: same
    clip."""
    if not (np.isfinite(seconds) and seconds > 0):
        raise WalkError(f"seconds must be > 0, got {seconds!r}")
    g = _Graph(read_graph(graph_path), graph_path)
    rng = random.Random(int(seed))
    (c0, f0), route = _choose_route(g, rng, seconds + 1.0)  # a second to spare
    first = g.clips[c0]
    up = analysis(first, first._up_axis, first.path).up_axis
    ft = first.frame_time
    rot = np.array(first.rotations[f0:], np.float32)
    tr = np.array(first.translations[f0:], np.float32)
    entry, cur = 0, (c0, f0)  # walk frame where the current clip's frame cur[1] plays
    for a, c2, b in route:
        src = g.clips[cur[0]]
        # the exit frame a of the current clip, in walk frames (B plays at the walk's rate)
        p = entry + int(round((a - cur[1]) * src.frame_time / ft))
        s = max(0, p - int(round(TAIL_SECONDS / ft)))
        tail = mblend.Clip.from_arrays(rot[s:], tr[s:], first, frame_time=ft)
        dst = g.clips[c2]
        out, res = _build(first, tail, dst, (p - s) * ft, b * dst.frame_time, g.window, up,
                          dst.path)
        rot = np.concatenate([rot[:s], out.rotations])
        tr = np.concatenate([tr[:s], out.translations])
        # output frame k > transition_start plays B at b_start + (k - transition_start) ft
        entry = s + res.transition_start + 1
        cur = (c2, (res.b_start + ft) / dst.frame_time)  # B's frame at walk frame `entry`
    n = int(round(seconds / ft))
    if len(rot) < n:  # cannot happen with the route's margin; never write a short walk
        raise WalkError(f"the walk has {len(rot)} frames, {n} were asked for")
    clip = mblend.Clip.from_arrays(rot[:n], tr[:n], first, frame_time=ft)
    if out_path is not None:
        clip.save(out_path)  # atomic: the C writers write a temporary file and rename it
    return (clip, route) if return_route else clip

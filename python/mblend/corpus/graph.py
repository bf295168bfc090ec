"""``graph``: a motion graph (Kovar, Gleicher and Pighin, "Motion Graphs", SIGGRAPH 2002) over
a corpus, its transition candidates found by the C search of ``mblend match`` (mb_match_find:
all frame pairs through BLAS) on the engine's workers.

Edges are the reported pairs of ``mblend match A B --window W --separation N`` with cost
below the threshold, for every ordered pair of clips with the same skeleton signature (a
clip with itself included, without its trivial near-diagonal pairs a ~ b). An edge from
(A, a) to (B, b) means: play A up to frame a, blend over the window into B from frame b, and
go on in B. The graph is then pruned to its largest strongly connected component, over
points (clip, frame) linked by the edges and by playing forward inside a clip: a walk that
keeps to the kept edges never reaches a dead end.

graph.json (keys sorted, one node or edge per line):
  format       "mblend-motion-graph/1"
  settings     threshold (null: threshold_height x the source clip's body height),
               threshold_height, min_gap, window (seconds)
  report       files, clips_read, clip_pairs searched, edges_found (before pruning),
               edges_kept, clips_kept, seconds and seconds_kept (of motion), the shares
               kept, dropped_clips (read but outside the component)
  nodes        the kept clips in path order: {clip: index, path, frames, frame_time,
               skeleton}
  edges        {from: {clip, frame}, to: {clip, frame}, cost, theta, dx, dz}: clip is a
               node index, frames are the clips' own; cost in file units, theta radians
               (rotate the target about the up axis by theta, then move it by dx, dz in
               the two horizontal axes in axis order, to carry its window onto the
               source's), sorted by (from, to)
  errors       {path, error} for files that could not be read
  pair_errors  {from, to, error} for clip pairs the search refused (e.g. too short for
               the window)

Work is split into tiles (a block of rows times a block of columns of the pair matrix of
one skeleton group) sized to a memory budget, one Dask task each; results are sorted, so
the graph does not depend on the number of workers or the order tiles finish in."""
import json
import math
from dataclasses import dataclass, asdict

import numpy as np

import mblend
from .._lib import ffi, lib, check
from . import _sources
from ._sources import load_ref, load_analysed, error_text, signature, analysis, number

__all__ = ["Settings", "probe_file", "pair_edges", "plan_tiles", "build_graph", "prune",
           "write_graph", "read_graph", "separation_frames", "lead_frames", "GRAPH_FORMAT"]

GRAPH_FORMAT = "mblend-motion-graph/1"

# Memory model of a tile (bytes): a clip in memory is its rotations and translations plus
# the match's per-frame features (joints x 8 window samples x 3 coordinates, for A, B and
# the rotated copy of B, in float and double) -- about 1 KB per node and frame; one pair
# search adds its cost blocks (about 24 MB of BLAS products plus the cost rows and heap).
BYTES_PER_NODE_FRAME = 1024
BYTES_PER_SEARCH = 48 << 20


@dataclass(frozen=True)
class Settings:
    """The graph's parameters. threshold: the largest edge cost (file units); None: the
    share threshold_height of the source clip's body height. min_gap: seconds between two
    edges of one clip pair (``mblend match --separation``, rounded to A's frames). window:
    seconds compared after each frame, and the length of the transition a walk plays."""
    threshold: float = None
    threshold_height: float = 0.04
    min_gap: float = 0.2
    window: float = 0.25

    def check(self):
        """ValueError for values the search cannot use."""
        if self.threshold is not None and not (math.isfinite(self.threshold) and
                                               self.threshold > 0):
            raise ValueError(f"threshold must be > 0, got {self.threshold!r}")
        if not (math.isfinite(self.threshold_height) and self.threshold_height > 0):
            raise ValueError(f"threshold-height must be > 0, got {self.threshold_height!r}")
        if not (math.isfinite(self.min_gap) and self.min_gap > 0):
            raise ValueError(f"min-gap must be > 0 seconds, got {self.min_gap!r}")
        if not (math.isfinite(self.window) and 0 < self.window <= 10):
            raise ValueError(f"window must be in (0, 10] seconds, got {self.window!r}")
        return self


def separation_frames(min_gap, frame_time):
    """min_gap seconds in A's frames (rounded half up, at least 1): the --separation of the
    equivalent ``mblend match``."""
    return max(1, int(math.floor(min_gap / frame_time + 0.5)))


def lead_frames(window, frame_time):
    """Frames a walk must stay in a clip after entering it before it may leave again: the
    transition into it (window seconds) plus one frame."""
    return int(math.ceil(window / frame_time - 1e-9)) + 1


# ---------------------------------------------------------------- per file

def probe_file(ref, data=None):
    """What the planner needs about one file (a dict): frames, frame time, nodes, skeleton
    signature, body height, first motion frame -- or its error."""
    out = {"index": ref.index, "name": ref.name, "error": None}
    try:
        clip, info = load_analysed(ref, data)
    except (mblend.Error, MemoryError) as e:
        out["error"] = error_text(e, ref)
        return out
    out.update(frames=clip.frame_count, frame_time=clip.frame_time,
               nodes=len(clip.node_names), skeleton=signature(clip),
               height=float(info.height), first_frame=int(info.first_frame))
    return out


def _probe_block(block):
    refs, datas = block
    return [probe_file(r, d) for r, d in zip(refs, datas)]


# ---------------------------------------------------------------- per pair

def _find(desc, cap):
    pairs = ffi.new("mb_match_pair[]", cap)
    found = ffi.new("int *")
    err = ffi.new("mb_error *")
    check(lib.mb_match_find(desc, pairs, cap, found, ffi.NULL, err), err, "match")
    return pairs, found[0]


def pair_edges(a, b, info_a, info_b, settings):
    """Edges from clip a to clip b: the pairs ``mblend match`` reports (same analysis, window
    and separation) whose cost is below the threshold, as tuples (a_frame, b_frame, cost,
    theta, dx, dz), best first.

    mb_match_find keeps its best candidates in a heap of 16 x capacity before thinning
    them, so the capacity grows until the list provably holds every pair below the
    threshold: its last pair is at or above it, or the heap could hold every frame pair."""
    d = ffi.new("mb_match_desc *")
    d.skeleton_a, d.skeleton_b, d.a, d.b = a._skel, b._skel, a._clip, b._clip
    d.info_a, d.info_b = info_a, info_b
    d.window = settings.window
    d.min_separation = separation_frames(settings.min_gap, a.frame_time)
    thr = settings.threshold if settings.threshold is not None else \
        settings.threshold_height * float(info_a.height)
    cells = a.frame_count * b.frame_count
    cap = 256
    while True:
        pairs, n = _find(d, cap)
        if (n > 0 and pairs[n - 1].cost >= thr) or 16 * cap >= cells:
            break
        cap *= 8
    out = []
    for i in range(n):
        p = pairs[i]
        if p.cost < thr:
            out.append((int(p.a), int(p.b), float(p.cost), float(p.theta), float(p.dx),
                        float(p.dz)))
    return out


class _Tile:
    """A worker's clips for one tile, each loaded once; analyses cached per up axis."""

    def __init__(self, refs, datas):
        self.refs = {r.index: (r, d) for r, d in zip(refs, datas)}
        self.clips = {}
        self.infos = {}

    def clip(self, i):
        if i not in self.clips:
            r, d = self.refs[i]
            self.clips[i] = load_ref(r, d)
        return self.clips[i]

    def info(self, i, up):
        if (i, up) not in self.infos:
            self.infos[(i, up)] = analysis(self.clip(i), up, self.refs[i][0].name)
        return self.infos[(i, up)]


def _run_tile(task):
    """One tile: every pair (row, column); returns its edges and pair errors."""
    rows, cols, refs, datas, settings = task
    with _sources.one_blas_thread():
        return _tile_pairs(rows, cols, _Tile(refs, datas), settings)


def _tile_pairs(rows, cols, tile, settings):
    edges, errors = [], []
    for i in rows:
        for j in cols:
            try:
                a, b = tile.clip(i), tile.clip(j)
                ia = tile.info(i, a._up_axis)
                ib = tile.info(j, ia.up_axis)
                for e in pair_edges(a, b, ia, ib, settings):
                    edges.append((i, e[0], j) + e[1:])
            except (mblend.Error, MemoryError) as e:
                errors.append((i, j, " ".join(str(e).split())))
    return {"edges": edges, "errors": errors, "pairs": len(rows) * len(cols)}


# ---------------------------------------------------------------- planning

def _chunks(members, probes, budget, frames_target):
    """Consecutive runs of members, each within the byte budget and, unless one clip
    alone is longer, within frames_target frames (a tile's work grows with the product
    of its row and column frames, so equal frames make tiles of about equal work)."""
    out, cur, size, frames = [], [], 0, 0
    for i in members:
        f = probes[i]["frames"]
        s = f * probes[i]["nodes"] * BYTES_PER_NODE_FRAME
        if cur and (size + s > budget or frames + f > frames_target):
            out.append(cur)
            cur, size, frames = [], 0, 0
        cur.append(i)
        size += s
        frames += f
    if cur:
        out.append(cur)
    return out


def plan_tiles(probes, memory, workers, per_worker=8):
    """Tiles (row clips, column clips) covering every ordered pair of usable clips with the
    same signature. A tile's clips fit in `memory` bytes with one pair search; when the
    corpus allows, there are about per_worker tiles of similar work per worker (Dask hands
    them out as workers free up, which balances the rest)."""
    groups = {}
    for i in sorted(probes):
        p = probes[i]
        if p["error"] is None and p["frames"] >= 2:
            groups.setdefault(p["skeleton"], []).append(i)
    work = {s: sum(probes[i]["frames"] for i in g) ** 2 for s, g in groups.items()}
    total = sum(work.values())
    budget = max(1, (memory - BYTES_PER_SEARCH) // 2)
    tiles = []
    for sig in sorted(groups):
        g = groups[sig]
        want = max(1, math.ceil(math.sqrt(per_worker * workers * work[sig] / max(total, 1))))
        target = math.ceil(math.sqrt(work[sig]) / want)
        chunks = _chunks(g, probes, budget, target)
        tiles.extend((r, c) for r in chunks for c in chunks)
    return tiles


# ---------------------------------------------------------------- the graph

def build_graph(refs, engine, settings, memory=1 << 30):
    """The pruned motion graph of the corpus refs (a dict, see :func:`write_graph`)."""
    from .analyze import file_blocks
    settings.check()
    blocks = file_blocks(refs, engine)
    probes = {}
    for part in engine.map(_probe_block, blocks, "graph: read"):
        for p in part:
            probes[p["index"]] = p
    tiles = plan_tiles(probes, memory, engine.worker_count)
    by_index = {}
    for refs_b, datas_b in blocks:
        for r, d in zip(refs_b, datas_b):
            by_index[r.index] = (r, d)
    tasks = []
    for rows, cols in tiles:
        need = sorted(set(rows) | set(cols))
        tasks.append((rows, cols, [by_index[i][0] for i in need],
                      [by_index[i][1] for i in need], settings))
    edges, pair_errors, pairs = [], [], 0
    for res in engine.map(_run_tile, tasks, "graph: match"):
        edges.extend(res["edges"])
        pair_errors.extend(res["errors"])
        pairs += res["pairs"]
    # Trivial self edges: a clip against itself matches along its diagonal (cost ~0 at
    # a == b); those are not transitions.
    kept = []
    for e in edges:
        i, a, j, b = e[:4]
        if i == j and abs(a - b) < separation_frames(settings.min_gap,
                                                     probes[i]["frame_time"]):
            continue
        kept.append(e)
    kept.sort(key=lambda e: e[:4])
    return prune(refs, probes, kept, sorted(pair_errors), pairs, settings)


def _components(n, src, dst):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    m = coo_matrix((np.ones(len(src), np.int8), (src, dst)), shape=(n, n)).tocsr()
    return connected_components(m, directed=True, connection="strong")[1]


def largest_component(edges, frame_time, window):
    """Which edges lie in the largest strongly connected component of the point graph:
    exit points (clip, a) and entry points (clip, b) of the edges; an exit leads to the
    next exit of its clip (playing on) and along its edges; an entry leads to the first
    exit at least lead_frames after it. "Largest": spanning the most clips, then the most
    points, then holding the smallest point. Returns a boolean array over edges."""
    if not edges:
        return np.zeros(0, bool)
    exits = sorted({(e[0], e[1]) for e in edges})
    entries = sorted({(e[2], e[3]) for e in edges})
    nx = len(exits)
    exit_id = {p: k for k, p in enumerate(exits)}
    entry_id = {p: nx + k for k, p in enumerate(entries)}
    src, dst = [], []
    for e in edges:
        src.append(exit_id[(e[0], e[1])])
        dst.append(entry_id[(e[2], e[3])])
    by_clip = {}
    for c, a in exits:
        by_clip.setdefault(c, []).append(a)
    for c, frames in by_clip.items():
        for a0, a1 in zip(frames[:-1], frames[1:]):
            src.append(exit_id[(c, a0)])
            dst.append(exit_id[(c, a1)])
    for c, b in entries:
        frames = by_clip.get(c, [])
        k = int(np.searchsorted(frames, b + lead_frames(window, frame_time[c])))
        if k < len(frames):
            src.append(entry_id[(c, b)])
            dst.append(exit_id[(c, frames[k])])
    labels = _components(nx + len(entries), np.array(src), np.array(dst))
    sizes = np.bincount(labels)
    clip_of = [p[0] for p in exits] + [p[0] for p in entries]
    clips = {}
    for k, lab in enumerate(labels):
        clips.setdefault(int(lab), set()).add(clip_of[k])
    first = {}
    for k, lab in enumerate(labels):
        first.setdefault(int(lab), k)
    best = max(clips, key=lambda c: (len(clips[c]), sizes[c], -first[c]))
    keep = labels == best
    return np.array([keep[exit_id[(e[0], e[1])]] and keep[entry_id[(e[2], e[3])]]
                     for e in edges])


def prune(refs, probes, edges, pair_errors, pairs, settings):
    """The graph dict: kept clips as nodes (renumbered in path order), kept edges, the
    report (how much of the corpus the largest strongly connected component keeps),
    unreadable files and failed pairs."""
    ft = {i: p["frame_time"] for i, p in probes.items() if p["error"] is None}
    keep = largest_component(edges, ft, settings.window)
    kept = [e for e, k in zip(edges, keep) if k]
    clips = sorted({e[0] for e in kept} | {e[2] for e in kept})
    node_of = {c: k for k, c in enumerate(clips)}
    ok = [i for i in sorted(probes) if probes[i]["error"] is None]
    secs = sum(probes[i]["frames"] * probes[i]["frame_time"] for i in ok)
    kept_secs = sum(probes[i]["frames"] * probes[i]["frame_time"] for i in clips)
    nodes = [{"clip": node_of[i], "path": probes[i]["name"], "frames": probes[i]["frames"],
              "frame_time": number(probes[i]["frame_time"], 9),
              "skeleton": probes[i]["skeleton"]} for i in clips]
    out_edges = [{"from": {"clip": node_of[e[0]], "frame": e[1]},
                  "to": {"clip": node_of[e[2]], "frame": e[3]},
                  "cost": number(e[4]), "theta": number(e[5]), "dx": number(e[6]),
                  "dz": number(e[7])} for e in kept]
    report = {
        "files": len(refs), "clips_read": len(ok), "clip_pairs": pairs,
        "edges_found": len(edges), "edges_kept": len(kept),
        "clips_kept": len(clips), "seconds": number(secs, 9), "seconds_kept": number(kept_secs, 9),
        "share_of_clips_kept": number(len(clips) / len(ok), 4) if ok else 0.0,
        "share_of_seconds_kept": number(kept_secs / secs, 4) if secs > 0 else 0.0,
        "dropped_clips": [probes[i]["name"] for i in ok if i not in node_of],
    }
    s = asdict(settings)
    return {"format": GRAPH_FORMAT, "settings": s, "report": report, "nodes": nodes,
            "edges": out_edges,
            "errors": [{"path": probes[i]["name"], "error": probes[i]["error"]}
                       for i in sorted(probes) if probes[i]["error"] is not None],
            "pair_errors": [{"from": probes[i]["name"], "to": probes[j]["name"], "error": m}
                            for i, j, m in pair_errors]}


def _dump(x):
    return json.dumps(x, sort_keys=True, ensure_ascii=False)


def write_graph(graph, path):
    """Writes the graph as JSON (keys sorted, one node and one edge per line, floats rounded
    to 7 significant digits) atomically."""
    lines = ["{"]
    for key in ("format", "settings", "report"):
        lines.append(f"  {_dump(key)}: {_dump(graph[key])},")
    for key in ("nodes", "edges", "errors", "pair_errors"):
        items = graph[key]
        if not items:
            lines.append(f"  {_dump(key)}: []" + ("," if key != "pair_errors" else ""))
            continue
        lines.append(f"  {_dump(key)}: [")
        lines.extend(f"    {_dump(x)}" + ("," if k + 1 < len(items) else "")
                     for k, x in enumerate(items))
        lines.append("  ]" + ("," if key != "pair_errors" else ""))
    lines.append("}")
    _sources.write_atomic(path, "\n".join(lines) + "\n")


def read_graph(path):
    """Reads a graph written by :func:`write_graph`; ValueError when it is not one."""
    with open(path, "r", encoding="utf-8") as f:
        try:
            g = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not a JSON file ({e})") from None
    if not isinstance(g, dict) or g.get("format") != GRAPH_FORMAT:
        raise ValueError(f"{path}: not an mblend motion graph (format {GRAPH_FORMAT})")
    for key in ("settings", "nodes", "edges"):
        if key not in g:
            raise ValueError(f"{path}: the graph has no '{key}'")
    return g

"""``analyze``: one row per file of a corpus, computed by the C library (mb_motion_analyze,
mb_motion_find_cycle, mb_motion_contacts) on the engine's workers.

Columns (clips.csv):
  path                 the file as named on the command line (or found in a directory)
  format               its extension (bvh, glb, ...)
  frames, frame_time   frame count and seconds per frame
  duration             frames * frame_time, seconds
  joints               joints (End Sites excluded)
  skeleton             the skeleton signature: 16 hex digits of SHA-1 over node names and
                       parents; clips with the same signature can be matched and joined
  up_axis              x, y or z (detected from the motion for BVH)
  height               typical body extent along the up axis, file units
  speed                mean horizontal root speed, file units per second
  cycle_frames         one gait cycle (left-foot touchdown to the next; right foot when the
  cycle_seconds        left has too few), empty when the clip has fewer than two touchdowns
  contacts_per_second  foot touchdowns (a contact starting, either foot) per second of motion
                       after the cgspeed T-pose frame; empty when the feet are not found
  error                why the file could not be analysed (the other columns are then empty)
"""
import csv
import io

import numpy as np

import mblend
from .._lib import ffi, lib
from . import _sources
from ._sources import Ref, load_analysed, error_text, signature

__all__ = ["COLUMNS", "analyze_file", "analyze_corpus", "write_csv", "file_blocks"]

COLUMNS = ["path", "format", "frames", "frame_time", "duration", "joints", "skeleton",
           "up_axis", "height", "speed", "cycle_frames", "cycle_seconds",
           "contacts_per_second", "error"]


def _cycle(clip, info, name):
    rng = ffi.new("mb_frame_range *")
    err = ffi.new("mb_error *")
    src = ffi.new("char[]", name.encode("utf-8", "surrogateescape"))
    for foot in (0, 1):
        if lib.mb_motion_find_cycle(clip._skel, clip._clip, info, foot, src, rng,
                                    err) == lib.MB_OK:
            return rng.end - rng.start
    return None


def _touchdowns_per_second(clip, info):
    f = clip.frame_count
    left = ffi.new("unsigned char[]", max(f, 1))
    right = ffi.new("unsigned char[]", max(f, 1))
    if info.left_foot < 0 or info.right_foot < 0 or f < 2:
        return None
    if lib.mb_motion_contacts(clip._skel, clip._clip, info, left, right, ffi.NULL) != lib.MB_OK:
        return None
    first = info.first_frame
    seconds = (f - first) * clip.frame_time
    if seconds <= 0:
        return None
    n = 0
    for buf in (left, right):
        c = np.frombuffer(ffi.buffer(buf, f), dtype=np.uint8)[first:].astype(np.int8)
        # a touchdown: a contact that starts inside the motion (not one held from the start)
        n += int(np.count_nonzero(np.diff(c) > 0))
    return n / seconds


def analyze_file(ref, data=None):
    """The row (a dict over COLUMNS, values as written) for one file; a file that cannot be
    loaded or analysed gives a row with only path, format and error."""
    row = dict.fromkeys(COLUMNS, "")
    row["path"] = ref.name
    row["format"] = _sources.format_of(ref.name)
    try:
        clip, info = load_analysed(ref, data)
    except (mblend.Error, MemoryError) as e:
        row["error"] = error_text(e, ref)
        return row
    ft = clip.frame_time
    row.update(frames=str(clip.frame_count), frame_time=f"{ft:.9g}",
               duration=f"{clip.frame_count * ft:.6f}", joints=str(len(clip.joint_names)),
               skeleton=signature(clip), up_axis="xyz"[lib.mb_axis_index(info.up_axis)],
               height=f"{info.height:.6g}", speed=f"{info.speed:.6g}")
    cyc = _cycle(clip, info, ref.name) if info.left_foot >= 0 else None
    if cyc is not None:
        row["cycle_frames"] = str(cyc)
        row["cycle_seconds"] = f"{cyc * ft:.6f}"
    tps = _touchdowns_per_second(clip, info)
    if tps is not None:
        row["contacts_per_second"] = f"{tps:.4f}"
    return row


def _analyze_block(block):
    refs, datas = block
    return [analyze_file(r, d) for r, d in zip(refs, datas)]


def file_blocks(refs, engine, per_worker=4, largest=64):
    """Consecutive runs of refs as blocks: about per_worker blocks per worker (so a slow file
    does not leave the others idle), at most `largest` files each. With shipping, each
    file's bytes go to the cluster once (scattered) and travel beside their refs."""
    n = len(refs)
    count = max(1, min(n, max(per_worker * engine.worker_count, -(-n // largest))))
    datas = [r.data for r in refs]
    if any(d is not None for d in datas):
        datas = engine.scatter(datas)
    bare = [Ref(r.index, r.name, r.path) for r in refs]
    bounds = np.linspace(0, n, count + 1).round().astype(int)
    return [(bare[a:b], list(datas[a:b])) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def analyze_corpus(refs, engine):
    """Rows for refs (in refs' order) computed on the engine."""
    rows = []
    for part in engine.map(_analyze_block, file_blocks(refs, engine), "analyze"):
        rows.extend(part)
    return rows


def write_csv(rows, path):
    """Writes rows as CSV (header COLUMNS, "\\n" line ends) atomically: the file appears
    complete or not at all."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    _sources.write_atomic(path, buf.getvalue())


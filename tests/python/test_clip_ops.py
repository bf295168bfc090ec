"""mblend.blend, transition and select_cycles against the CLI's output on the same inputs
(the same library calls behind both: byte-identical files), plus their errors."""
import os
import re
import warnings

import numpy as np
import pytest

import mblend
from conftest import REPO, shared, cli, has_assimp

WALK = os.path.join(REPO, "data", "bvh", "walk.bvh")
RUN = os.path.join(REPO, "data", "bvh", "run.bvh")


def same_file(tmp_path, clip, cli_args, name="out.bvh"):
    mine, theirs = tmp_path / ("py_" + name), tmp_path / ("cli_" + name)
    clip.save(mine)
    cli(*cli_args, "-o", theirs)
    assert mine.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("weights,extra", [((0.5, 0.5), {}), ((0.3, 0.7), {"method": "nlerp"}),
                                           ((1, 2), {"cycle": "none"}),
                                           ((0.5, 0.5), {"method": "karcher", "exact": True})])
def test_blend_is_the_cli_blend(tmp_path, walk, run, weights, extra):
    args = ["blend", WALK, RUN, "-w", ",".join(map(str, weights))]
    if "method" in extra:
        args += ["--method", extra["method"]]
    if extra.get("cycle") == "none":
        args += ["--cycle", "none"]
    if extra.get("exact"):
        args += ["--exact"]
    same_file(tmp_path, mblend.blend([walk, run], weights, **extra), args)


def test_blend_with_given_ranges_is_the_cli_blend(tmp_path, walk, run):
    out = mblend.blend([walk, run], [0.5, 0.5], cycle=[(65, 98), None])
    same_file(tmp_path, out, ["blend", WALK, RUN, "-w", "0.5,0.5", "--range", "65:98,-"])


def test_blend_of_real_takes_is_the_cli_blend_and_travels(tmp_path):
    a, b = shared("bvh/cmu_02_01_walk.bvh"), shared("bvh/cmu_02_03_run.bvh")
    ca, cb = mblend.load(a), mblend.load(b)
    out = mblend.blend([ca, cb], [0.5, 0.5])
    same_file(tmp_path, out, ["blend", a, b, "-w", "0.5,0.5"])
    # the jog's root speed lies between the walk's and the run's
    def speed(c, f0=0, f1=None):
        p = c.positions()[f0:f1, 0]
        d = np.linalg.norm(p[-1, [0, 2]] - p[0, [0, 2]])
        return d / ((len(p) - 1) * c.frame_time)
    sel = mblend.select_cycles([ca, cb])
    sw = speed(ca, sel[0]["start"], sel[0]["end"] + 1)
    sr = speed(cb, sel[1]["start"], sel[1]["end"] + 1)
    assert min(sw, sr) < speed(out) < max(sw, sr)


def test_select_cycles_is_what_the_cli_reports(tmp_path, walk, run):
    r = cli("blend", WALK, RUN, "-w", "1,1", "-o", tmp_path / "x.bvh")
    printed = re.findall(r"cycle frames (\d+):(\d+)", r.stderr)
    got = mblend.select_cycles([walk, run])
    assert [(s["start"], s["end"]) for s in got] == [(int(a), int(b)) for a, b in printed]
    assert all(s["selection"] == "left foot" for s in got)
    none = mblend.select_cycles([walk, run], cycle="none")
    assert none[0]["selection"] == "whole motion" and none[0]["end"] == walk.frame_count


def test_fox_loops_blend_as_the_cli(tmp_path):
    fox = shared("mesh/Fox.glb")
    if not has_assimp():
        with pytest.raises(mblend.FileError):
            mblend.load(fox + "#Walk")
        return
    fw, fr = mblend.load(fox + "#Walk"), mblend.load(fox + "#Run")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = mblend.blend([fw, fr], [0.5, 0.5])
    assert any("loop" in str(x.message) for x in w)
    same_file(tmp_path, out, ["blend", fox + "#Walk", fox + "#Run", "-w", "0.5,0.5"])
    assert [s["selection"] for s in mblend.select_cycles([fw, fr])] == ["whole loop"] * 2


@pytest.mark.parametrize("kw,args", [
    ({"at": "auto", "duration": 1.0}, ["--at", "auto", "--duration", "1.0"]),
    ({"at": "auto", "duration": 0.5, "sync": True}, ["--at", "auto", "--duration", "0.5", "--sync"]),
    ({"at": 1.0, "b_start": 0.5, "duration": 0.4}, ["--at", "1.0", "--b-start", "0.5", "--duration", "0.4"]),
    ({"at": 1.0, "duration": 0.4, "mode": "inertialize"},
     ["--at", "1.0", "--duration", "0.4", "--mode", "inertialize"]),
    ({"at": "auto", "duration": 0.6, "curve": "linear"},
     ["--at", "auto", "--duration", "0.6", "--curve", "linear"]),
])
def test_transition_is_the_cli_transition(tmp_path, walk, run, kw, args):
    out, info = mblend.transition(run, walk, return_info=True, **kw)
    same_file(tmp_path, out, ["transition", RUN, WALK, *args])
    assert info["frames"] == out.frame_count
    assert info["transition_start"] < info["transition_end"] <= out.frame_count
    # before the transition the output is the run itself (from its first motion frame)
    np.testing.assert_allclose(out.rotations[: info["transition_start"], 1:],
                               run.rotations[: info["transition_start"], 1:], atol=1e-6)


def test_transition_of_real_takes_is_the_cli_transition(tmp_path):
    a, b = shared("bvh/cmu_09_01_run.bvh"), shared("bvh/cmu_02_01_walk.bvh")
    out = mblend.transition(mblend.load(a), mblend.load(b), at="auto", duration=0.5, sync=True)
    same_file(tmp_path, out, ["transition", a, b, "--at", "auto", "--duration", "0.5", "--sync"])


def test_errors_are_clear(walk, run):
    cmu = mblend.load(shared("bvh/cmu_02_01_walk.bvh"))
    with pytest.raises(mblend.MismatchError, match="differ at node"):
        mblend.blend([walk, cmu], [1, 1])
    with pytest.raises(ValueError, match="1 values for 2 clips"):
        mblend.blend([walk, run], [1])
    with pytest.raises(mblend.InvalidArgumentError):
        mblend.blend([walk, run], [1, -1])
    with pytest.raises(mblend.InvalidArgumentError, match="unknown blend method"):
        mblend.blend([walk, run], [1, 1], method="slerp")
    with pytest.raises(mblend.InvalidArgumentError, match="cycle"):
        mblend.blend([walk, run], [1, 1], cycle="sometimes")
    with pytest.raises(ValueError):
        mblend.blend([walk, run], [1, 1], cycle=[(0, 10)])
    with pytest.raises(mblend.Error):
        mblend.blend([walk, run], [1, 1], cycle=[(500, 900), None])
    with pytest.raises(TypeError):
        mblend.blend([walk, "run.bvh"], [1, 1])
    with pytest.raises(mblend.InvalidArgumentError, match="outside the motion"):
        mblend.transition(run, walk, at=1e9, duration=0.4)
    with pytest.raises(mblend.InvalidArgumentError, match="too short"):
        mblend.transition(run, walk, at="auto", duration=30)
    with pytest.raises(mblend.InvalidArgumentError):
        mblend.transition(run, walk, at="soon")
    with pytest.raises(mblend.MismatchError):
        mblend.transition(run, cmu)

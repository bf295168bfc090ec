"""StateSet and Controller: weights, cross-fade curve, determinism, root motion, errors."""
import os

import numpy as np
import pytest

import mblend
from conftest import REPO


def make_set(walk, run):
    return mblend.StateSet([
        mblend.State("walk", [walk]),
        mblend.State("run", [run]),
        mblend.State("loco", [walk, run], params=[140.0, 350.0], param=140.0),
    ])


def test_cross_fade_follows_smoothstep(walk, run):
    ss = make_set(walk, run)
    c = mblend.Controller(ss, "walk")
    c.update(0.1)
    c.request("run", duration=0.5)
    for _ in range(30):
        f = c.update(1 / 60)
        st = c.status
        w = c.weights
        assert abs(w.sum() - 1) < 1e-6
        if st["transitioning"]:
            s = st["progress"]
            assert abs(w[1] - (3 * s * s - 2 * s ** 3)) < 1e-5, (s, w)
        assert f.rotations.shape == (len(walk.joint_names), 4)
        assert np.allclose(np.linalg.norm(f.rotations, axis=1), 1, atol=1e-5)
    assert c.status["state"] == 1 and not c.status["transitioning"]
    assert np.allclose(c.weights, [0, 1, 0])


def test_same_calls_same_poses_and_the_speed_is_the_clips(walk, run):
    ss = make_set(walk, run)
    a, b = mblend.Controller(ss, "loco"), mblend.Controller(ss, "loco")
    travelled = {}
    for c in (a, b):
        dist, frames = 0.0, []
        for i in range(240):
            f = c.update(1 / 60)
            dist += float(np.linalg.norm(f.root_translation))
            frames.append(f.rotations)
        travelled[id(c)] = (dist, np.stack(frames))
    (da, fa), (db, fb) = travelled.values()
    assert da == db and np.array_equal(fa, fb)
    # at param 140 the blend space plays the walk alone: 4 s of root motion at its speed
    speed = np.linalg.norm(walk.positions()[-1, 0, [0, 2]] - walk.positions()[0, 0, [0, 2]]) / (
        (walk.frame_count - 1) * walk.frame_time)
    assert abs(da / 4.0 - speed) < 0.1 * speed, (da / 4.0, speed)


def test_param_moves_the_blend_space_weights(walk, run):
    ss = make_set(walk, run)
    c = mblend.Controller(ss, "loco")
    c.set_param("loco", 245.0)
    f = c.update(1 / 60)
    assert ss.cycle_duration("loco", 140.0) > ss.cycle_duration("loco", 350.0)
    assert np.isfinite(f.rotations).all()


def test_controller_errors(walk, run):
    ss = make_set(walk, run)
    with pytest.raises(mblend.InvalidArgumentError, match="no state named"):
        mblend.Controller(ss, "swim")
    c = mblend.Controller(ss, 0)
    with pytest.raises(mblend.InvalidArgumentError):
        c.update(-1.0)
    with pytest.raises(mblend.InvalidArgumentError):
        c.update(float("nan"))
    with pytest.raises(mblend.InvalidArgumentError):
        c.request(7)
    with pytest.raises(mblend.InvalidArgumentError):
        c.request("run", mode="teleport")
    with pytest.raises(mblend.InvalidArgumentError):
        c.set_param("loco", float("inf"))
    with pytest.raises(TypeError):
        mblend.Controller("not a set")
    with pytest.raises(mblend.InvalidArgumentError):  # params not increasing
        mblend.StateSet([mblend.State("bad", [walk, run], params=[350.0, 140.0])])
    with pytest.raises(ValueError):
        mblend.StateSet([])

"""mblend.match against the CLI's `mblend match` on the same inputs, and its own invariants."""
import csv
import os

import numpy as np
import pytest

import mblend
from conftest import REPO, shared, cli


def cli_pairs(a, b, k):
    r = cli("match", a, b, "-k", k)
    return list(csv.DictReader(r.stdout.splitlines()))


@pytest.mark.parametrize("a,b", [("data/bvh/run.bvh", "data/bvh/walk.bvh"),
                                 ("shared:bvh/cmu_02_03_run.bvh", "shared:bvh/cmu_02_01_walk.bvh")])
def test_match_is_the_cli_match(a, b):
    pa, pb = (shared(p[7:]) if p.startswith("shared:") else os.path.join(REPO, p) for p in (a, b))
    got = mblend.match(mblend.load(pa), mblend.load(pb), k=6)
    want = cli_pairs(pa, pb, 6)
    assert got.dtype.names == ("a_frame", "b_frame", "cost", "theta", "dx", "dz")
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        assert (g["a_frame"], g["b_frame"]) == (int(w["a_frame"]), int(w["b_frame"]))
        np.testing.assert_allclose(g["cost"], float(w["cost"]), rtol=1e-5)
        np.testing.assert_allclose(np.degrees(g["theta"]), float(w["theta_deg"]), atol=1e-4)
        np.testing.assert_allclose([g["dx"], g["dz"]], [float(w["dx"]), float(w["dz"])],
                                   rtol=1e-5, atol=1e-3)
    assert np.all(np.diff(got["cost"]) >= 0)  # best first


def test_a_clip_matches_itself_at_zero_cost():
    w = mblend.load(os.path.join(REPO, "data", "bvh", "walk.bvh"))
    best = mblend.match(w, w, k=1)[0]
    assert best["a_frame"] == best["b_frame"]
    assert best["cost"] < 1e-3 and abs(best["theta"]) < 1e-4


def test_match_errors():
    w = mblend.load(os.path.join(REPO, "data", "bvh", "walk.bvh"))
    cmu = mblend.load(shared("bvh/cmu_02_01_walk.bvh"))
    with pytest.raises(mblend.MismatchError, match="differ at node"):
        mblend.match(w, cmu)
    with pytest.raises(TypeError):
        mblend.match(w, "walk.bvh")
    with pytest.raises(ValueError):
        mblend.match(w, w, k=0)

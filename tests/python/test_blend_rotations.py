"""blend_rotations against independent numbers: the scipy oracle's blends of real clip frames
(../shared/data/oracle/blend_cases.csv) and a float64 numpy implementation of the method
written here (eigenvector reference, log map, weighted tangent mean, exp map)."""
import csv
import os

import numpy as np
import pytest

import mblend
from conftest import shared


# ---------- the method in numpy (float64), independent of the C code ----------
def qmul(a, b):
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz],
                    axis=-1)


def qconj(q):
    return q * np.array([-1, -1, -1, 1.0])


def qlog(q):
    v = q[..., :3]
    s = np.linalg.norm(v, axis=-1, keepdims=True)
    ang = np.arctan2(s, q[..., 3:4])
    return np.where(s > 1e-12, v / np.maximum(s, 1e-300) * ang, v)


def qexp(v):
    a = np.linalg.norm(v, axis=-1, keepdims=True)
    k = np.where(a > 1e-12, np.sin(a) / np.maximum(a, 1e-300), 1.0)
    return np.concatenate([v * k, np.cos(a)], axis=-1)


def reference(q, w):
    """Top eigenvector of M = sum w q q^T per set: q (K, N, 4), w (K, N)."""
    m = np.einsum("kn,kni,knj->nij", w, q, q)
    vals, vecs = np.linalg.eigh(m)
    return vecs[..., -1], vals


def logexp_numpy(q, w):
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w = w / w.sum(axis=0, keepdims=True)
    ref, vals = reference(q, w)
    sign = np.where(np.einsum("kni,ni->kn", q, ref) < 0, -1.0, 1.0)
    v = qlog(qmul(qconj(ref)[None], q * sign[..., None]))
    out = qmul(ref, qexp(np.einsum("kn,kni->ni", w, v)))
    gap = (vals[..., -1] - vals[..., -2]) / vals[..., -1]
    # the largest rotation angle from the reference: twice the quaternion log's norm
    return out, gap, 2 * np.linalg.norm(v, axis=-1).max(axis=0)


def nlerp_numpy(q, w):
    acc = w[0][:, None] * q[0]
    for k in range(1, q.shape[0]):
        s = np.where(np.einsum("ni,ni->n", acc, q[k]) < 0, -1.0, 1.0)
        acc = acc + (w[k] * s)[:, None] * q[k]
    return acc / np.linalg.norm(acc, axis=-1, keepdims=True)


def angle_between(a, b):
    """Radians between the rotations of quaternions a and b (sign-blind; atan2 form, well
    conditioned near 0 where arccos of the dot product is not)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    s = np.where(np.einsum("...i,...i->...", a, b) < 0, -1.0, 1.0)[..., None]
    return 2 * np.arctan2(np.linalg.norm(a - s * b, axis=-1), np.linalg.norm(a + s * b, axis=-1))


def same_rotation(a, b, atol):
    ang = np.atleast_1d(angle_between(a, b))
    assert ang.max() <= atol, f"largest angle apart {ang.max():.3g} rad (at {ang.argmax()})"


def random_sets(rng, k, n, spread):
    """k rotations per set within `spread` radians of a random centre."""
    centre = rng.normal(size=(n, 4))
    centre /= np.linalg.norm(centre, axis=-1, keepdims=True)
    axis = rng.normal(size=(k, n, 3))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    ang = rng.uniform(0, spread, size=(k, n, 1))
    q = qmul(centre[None], qexp(axis * ang / 2))
    flip = rng.random((k, n)) < 0.5  # q and -q are one rotation
    return np.where(flip[..., None], -q, q)


# ---------- against the oracle ----------
def oracle_cases():
    with open(shared("oracle/blend_cases.csv")) as f:
        rows = list(csv.DictReader(ln for ln in f if not ln.startswith("#")))
    cases = {}
    for r in rows:
        cases.setdefault(r["inputs"], []).append(r)
    return cases


def test_real_clip_frames_match_the_scipy_oracle():
    clips = {}
    worst = 0.0
    for inputs, rows in oracle_cases().items():
        items = [s.split("@") for s in inputs.split(";")]
        qs, ws, names = [], [], None
        for file, rest in items:
            frame, weight = rest.split(":")
            if file not in clips:
                clips[file] = mblend.load(shared("bvh/" + file))
            c = clips[file]
            qs.append(c.rotations[int(frame)])
            ws.append(float(weight))
            names = c.joint_names
        got = mblend.blend_rotations(np.stack(qs), np.array(ws))
        for r in rows:
            j = names.index(r["joint_name"])
            want = np.array([float(r["blend_" + a]) for a in "xyzw"])
            worst = max(worst, float(angle_between(got[j], want)))
    assert worst < 2e-6, f"worst joint {worst:.3g} rad from the oracle"


# ---------- against the numpy implementation ----------
@pytest.mark.parametrize("k,spread", [(2, 0.5), (2, 2.5), (3, 1.0), (4, 0.5), (4, 1.6), (8, 1.0)])
def test_random_sets_match_numpy(k, spread):
    rng = np.random.default_rng(1000 * k + int(10 * spread))
    n = 3000
    q = random_sets(rng, k, n, spread)
    w = rng.uniform(0.05, 1.0, size=k)
    want, gap, max_angle = logexp_numpy(q, np.repeat(w[:, None], n, axis=1))
    got, diag = mblend.blend_rotations(q, w, diagnostics=True)
    assert got.shape == (n, 4) and got.dtype == np.float32
    keep = gap > 1e-3  # below it the reference is ill-defined: any answer is an answer
    same_rotation(got[keep], want[keep], 2e-5)
    np.testing.assert_allclose(diag["eigen_gap"], gap, atol=2e-5)
    np.testing.assert_allclose(diag["max_angle"][keep], max_angle[keep], atol=2e-5)


def test_per_set_weights_and_any_leading_shape():
    rng = np.random.default_rng(7)
    q = random_sets(rng, 3, 60, 1.2).reshape(3, 5, 12, 4)
    w = rng.uniform(0.0, 1.0, size=(3, 5, 12))
    w[:, 0, 0] = [0, 0, 1]  # one input alone
    got = mblend.blend_rotations(q, w)
    assert got.shape == (5, 12, 4)
    want, _, _ = logexp_numpy(q.reshape(3, 60, 4), w.reshape(3, 60))
    same_rotation(got.reshape(60, 4), want, 2e-5)
    same_rotation(got[0, 0], q[2, 0, 0], 1e-6)


def test_nlerp_and_karcher_methods():
    rng = np.random.default_rng(3)
    q = random_sets(rng, 4, 500, 1.0)
    w = np.array([0.1, 0.2, 0.3, 0.4])
    same_rotation(mblend.blend_rotations(q, w, method="nlerp"),
                  nlerp_numpy(q, np.repeat(w[:, None], 500, axis=1)), 2e-6)
    # antipodal inputs: nlerp must fix each input's sign against the running sum
    q2 = q.copy()
    q2[1::2] *= -1
    same_rotation(mblend.blend_rotations(q2, w, method="nlerp"),
                  mblend.blend_rotations(q, w, method="nlerp"), 2e-6)
    # Karcher: the tangent mean around the result vanishes
    kar = mblend.blend_rotations(q, w, method="karcher").astype(np.float64)
    sign = np.where(np.einsum("kni,ni->kn", q, kar) < 0, -1.0, 1.0)
    v = qlog(qmul(qconj(kar)[None], q * sign[..., None]))
    assert np.abs(np.einsum("k,kni->ni", w / w.sum(), v)).max() < 2e-6


def test_invariances():
    rng = np.random.default_rng(11)
    q = random_sets(rng, 5, 400, 1.5)
    w = rng.uniform(0.1, 1, size=5)
    base = mblend.blend_rotations(q, w, exact=True)
    perm = rng.permutation(5)
    same_rotation(mblend.blend_rotations(q[perm], w[perm], exact=True), base, 2e-6)
    same_rotation(mblend.blend_rotations(-q, w, exact=True), base, 2e-6)
    same_rotation(mblend.blend_rotations(q, 7.5 * w, exact=True), base, 2e-6)
    # layouts and dtypes: converted once, same numbers
    qf = np.asfortranarray(q)
    same_rotation(mblend.blend_rotations(qf, w.astype(np.float16), exact=True),
                  mblend.blend_rotations(q, w.astype(np.float16), exact=True), 0)
    strided = np.zeros((5, 400, 8))
    strided[..., ::2] = q
    same_rotation(mblend.blend_rotations(strided[..., ::2], w, exact=True), base, 0)
    # one input gives itself back
    same_rotation(mblend.blend_rotations(q[:1], [2.0]), q[0], 1e-6)


def test_bad_input_raises_clearly():
    q = np.tile([0, 0, 0, 1.0], (3, 10, 1))
    with pytest.raises(ValueError, match="last axis"):
        mblend.blend_rotations(q[..., :3], [1, 1, 1])
    with pytest.raises(ValueError, match="expected shape"):
        mblend.blend_rotations(q, [1, 1])
    with pytest.raises(ValueError, match="K, ..., 4"):
        mblend.blend_rotations(np.array([0, 0, 0, 1.0]), [1])
    with pytest.raises(ValueError, match="1 to 64"):
        mblend.blend_rotations(np.tile([0, 0, 0, 1.0], (65, 2, 1)), np.ones(65))
    with pytest.raises(TypeError):
        mblend.blend_rotations(q.astype(str), [1, 1, 1])
    with pytest.raises(TypeError):
        mblend.blend_rotations(q.astype(complex), [1, 1, 1])
    with pytest.raises(TypeError):
        mblend.blend_rotations(q, [1, 1, 1], method=3)
    with pytest.raises(mblend.InvalidArgumentError, match="unknown blend method"):
        mblend.blend_rotations(q, [1, 1, 1], method="slerp")
    with pytest.raises(mblend.InvalidArgumentError, match="finite and >= 0"):
        mblend.blend_rotations(q, [1, -1, 1])
    with pytest.raises(mblend.InvalidArgumentError, match="finite and >= 0"):
        mblend.blend_rotations(q, [1, np.nan, 1])
    with pytest.raises(mblend.InvalidArgumentError, match="sum to 0"):
        mblend.blend_rotations(q, [0, 0, 0])
    w = np.ones((3, 10))
    w[:, 4] = 0
    with pytest.raises(mblend.InvalidArgumentError, match="set 4 sum to 0"):
        mblend.blend_rotations(q, w)
    bad = q.copy()
    bad[1, 6] = [np.nan, 0, 0, 1]
    with pytest.raises(mblend.NumericError, match="input 1 of set 6"):
        mblend.blend_rotations(bad, [1, 1, 1])
    bad[1, 6] = 0
    with pytest.raises(ValueError):
        mblend.blend_rotations(bad, [1, 1, 1])
    assert mblend.blend_rotations(np.zeros((2, 0, 4)), [1, 1]).shape == (0, 4)

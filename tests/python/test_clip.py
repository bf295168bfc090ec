"""mblend.load, Clip arrays, positions, save and from_arrays against independent numbers: the
scipy oracle's world positions (../shared/data/bvh/expected_fk.csv), the BVH text itself, the
CLI's output, and invariants."""
import csv
import gc
import json
import os
import struct
import warnings

import numpy as np
import pytest

import mblend
from conftest import REPO, shared, cli, has_assimp


def read_expected_fk():
    rows = {}
    with open(shared("bvh/expected_fk.csv")) as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    for r in csv.DictReader(lines):
        rows.setdefault(r["file"], {}).setdefault(int(r["frame"]), []).append(
            (int(r["joint_index"]), r["joint_name"], float(r["x"]), float(r["y"]), float(r["z"])))
    return rows


EXPECTED = read_expected_fk()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_positions_match_the_scipy_oracle(name):
    rel = "bvh/" + name if os.path.exists(os.path.join(os.path.dirname(shared("bvh/SOURCES.md")),
                                                       name)) else "bvh/derived/" + name
    clip = mblend.load(shared(rel))
    extent = 0.0
    for frame, joints in sorted(EXPECTED[name].items()):
        got = clip.positions(frame)[0]
        want = np.array([[x, y, z] for _, _, x, y, z in joints])
        idx = [j for j, _, _, _, _ in joints]
        assert [clip.node_names[j] for j in idx] == [n for _, n, _, _, _ in joints]
        extent = max(extent, float(np.ptp(want, axis=0).max()))
        # float32 FK of numbers printed with 4-6 digits: 2e-5 of the body's extent
        np.testing.assert_allclose(got[idx], want, atol=2e-5 * max(extent, 1.0) + 2e-4,
                                   err_msg=f"{name} frame {frame}")


def test_positions_are_the_cli_positions(walk):
    r = cli("positions", os.path.join(REPO, "data", "bvh", "walk.bvh"), "--frames", "5:9")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    got = walk.positions(slice(5, 9))
    assert len(rows) == got.shape[0] * got.shape[1]
    for row in rows:
        f, j = int(row["frame"]) - 5, int(row["joint_index"])
        assert row["joint_name"] == walk.node_names[j]
        np.testing.assert_allclose(got[f, j], [float(row[k]) for k in "xyz"], rtol=2e-6,
                                   atol=1e-5)


def first_motion_line(path):
    with open(path) as f:
        lines = f.read().splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.strip().lower().startswith("frame time"))
    return np.array(lines[i + 1].split(), dtype=np.float64)


def test_arrays_follow_the_file():
    """Shapes, skeleton and the root's channels against the BVH text read here."""
    path = shared("bvh/cmu_02_01_walk.bvh")
    clip = mblend.load(path)
    assert clip.frame_count == 344 and abs(clip.frame_time - 1 / 120) < 1e-6
    assert clip.rotations.shape == (344, 31, 4) and clip.translations.shape == (344, 31, 3)
    assert clip.rotations.dtype == np.float32 and clip.joint_names[0] == "Hips"
    assert len(clip.node_names) == 38 and clip.parents[0] == -1
    assert all(0 <= p < j for j, p in enumerate(clip.parents) if j > 0)
    assert np.allclose(np.linalg.norm(clip.rotations, axis=-1), 1.0, atol=1e-6)
    # CMU root: Xposition Yposition Zposition Zrotation Yrotation Xrotation (intrinsic)
    v = first_motion_line(path)
    np.testing.assert_allclose(clip.translations[0, 0], v[:3], rtol=1e-6)
    z, y, x = np.radians(v[3:6])
    rz = np.array([0, 0, np.sin(z / 2), np.cos(z / 2)])
    ry = np.array([0, np.sin(y / 2), 0, np.cos(y / 2)])
    rx = np.array([np.sin(x / 2), 0, 0, np.cos(x / 2)])
    want = qmul(qmul(rz, ry), rx)
    q = clip.rotations[0, 0]
    assert abs(abs(np.dot(q, want)) - 1) < 1e-6, (q, want)


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def test_arrays_are_owned_by_python():
    clip = mblend.load(shared("bvh/cmu_02_01_walk.bvh"))
    rot, tr, pos = clip.rotations, clip.translations, clip.positions(slice(0, 3))
    keep = rot.copy(), tr.copy(), pos.copy()
    del clip
    gc.collect()
    junk = [mblend.load(shared("bvh/cmu_02_03_run.bvh")).rotations for _ in range(3)]
    assert junk and np.array_equal(rot, keep[0]) and np.array_equal(tr, keep[1])
    assert np.array_equal(pos, keep[2])
    with pytest.raises(ValueError):
        rot[0, 0, 0] = 2.0  # read-only: a clip changes through from_arrays


def test_from_arrays_round_trip_and_rotation_invariant(walk):
    same = mblend.Clip.from_arrays(walk.rotations, walk.translations, walk)
    assert np.array_equal(same.positions(), walk.positions())
    # turning the root by 90 degrees about up (+Y here) turns every position about the root
    # joint's parent space origin
    rot = walk.rotations.astype(np.float64).copy()
    tr = walk.translations.astype(np.float64).copy()
    turn = np.array([0, np.sin(np.pi / 4), 0, np.cos(np.pi / 4)])
    rot[:, 0] = [qmul(turn, q) for q in rot[:, 0]]
    tr[:, 0] = tr[:, 0] @ np.array([[0, 0, 1], [0, 1, 0], [-1, 0, 0]]).T  # R_y(90)
    turned = mblend.Clip.from_arrays(rot, tr, walk, frame_time=walk.frame_time)
    p, q = walk.positions(), turned.positions()
    np.testing.assert_allclose(q[..., 0], p[..., 2], atol=1e-3)
    np.testing.assert_allclose(q[..., 2], -p[..., 0], atol=1e-3)
    np.testing.assert_allclose(q[..., 1], p[..., 1], atol=1e-3)


def test_from_arrays_rejects_bad_input(walk):
    r, t = walk.rotations, walk.translations
    with pytest.raises(ValueError):
        mblend.Clip.from_arrays(r[:, :5], t, walk)
    with pytest.raises(ValueError):
        mblend.Clip.from_arrays(r, t[:-1], walk)
    with pytest.raises(TypeError):
        mblend.Clip.from_arrays(r.astype(complex), t, walk)
    with pytest.raises(TypeError):
        mblend.Clip.from_arrays(r, t, "walk.bvh")
    bad = r.copy()
    bad[3, 2] = np.nan
    with pytest.raises(mblend.Error):
        mblend.Clip.from_arrays(bad, t, walk)
    bad[3, 2] = 0
    with pytest.raises(mblend.Error):
        mblend.Clip.from_arrays(bad, t, walk)
    with pytest.raises(mblend.Error):
        mblend.Clip.from_arrays(r, t, walk, frame_time=0)


def test_save_bvh_is_the_cli_convert(tmp_path, walk):
    mine, theirs = tmp_path / "mine.bvh", tmp_path / "cli.bvh"
    walk.save(mine)
    cli("convert", os.path.join(REPO, "data", "bvh", "walk.bvh"), "-o", theirs)
    assert mine.read_bytes() == theirs.read_bytes()
    back = mblend.load(mine)
    same = np.minimum(np.abs(back.rotations - walk.rotations).max(axis=-1),
                      np.abs(back.rotations + walk.rotations).max(axis=-1))
    assert same.max() < 1e-6  # the writer keeps the file's own digits
    assert np.array_equal(back.translations, walk.translations)


def test_save_glb_reads_back(tmp_path, walk):
    out = tmp_path / "walk.glb"
    if not has_assimp():
        walk.save(out)  # writing needs no assimp; reading back does
        with pytest.raises(mblend.FileError, match="without assimp"):
            mblend.load(out)
        return
    walk.save(out)
    back = mblend.load(str(out) + "#walk")
    assert back.frame_count == walk.frame_count
    np.testing.assert_allclose(back.positions(), walk.positions(), atol=2e-3)


@pytest.mark.skipif(not has_assimp(), reason="reading glTF needs assimp")
@pytest.mark.parametrize("ext", ["bvh", "glb"])
@pytest.mark.parametrize("rel", ["mesh/Fox.glb#Walk", "mesh/CesiumMan.glb"])
def test_save_of_a_gltf_clip_is_the_cli_convert(tmp_path, ext, rel):
    # the same writer settings as the CLI: BVH with OFFSETs three.js reads the same way,
    # glTF with the character's material, texture and UVs, and the key that closes
    # CesiumMan's loop (its last frame runs on into its first)
    file, _, anim = rel.partition("#")
    spec = shared(file) + ("#" + anim if anim else "")
    mine, theirs = tmp_path / ("mine." + ext), tmp_path / ("cli." + ext)
    mblend.load(spec).save(mine)
    cli("convert", spec, "-o", theirs)
    if ext == "bvh":
        assert mine.read_bytes() == theirs.read_bytes()
        return
    # glb: the animation is named differently (the file's name here, "convert" there)
    def look(path):
        b = path.read_bytes()
        j = json.loads(b[20:20 + struct.unpack_from("<I", b, 12)[0]])
        return [j.get(k) for k in ("materials", "textures", "samplers", "images")] + [
            j["meshes"][0]["primitives"], j["bufferViews"], j["accessors"]]
    got = look(mine)
    assert got == look(theirs)
    assert "baseColorTexture" in got[0][0]["pbrMetallicRoughness"]
    assert "TEXCOORD_0" in got[4][0]["attributes"]


def test_save_failures_leave_nothing(tmp_path, walk):
    (tmp_path / "dir.bvh").mkdir()
    with pytest.raises(mblend.FileError):
        walk.save(tmp_path / "dir.bvh")  # a directory
    with pytest.raises(mblend.FileError):
        walk.save(tmp_path / "missing" / "x.bvh")
    with pytest.raises(mblend.InvalidArgumentError):
        walk.save(tmp_path / "x.txt")
    assert sorted(os.listdir(tmp_path)) == ["dir.bvh"] and not os.listdir(tmp_path / "dir.bvh")


def test_load_errors_say_where(tmp_path):
    bad = tmp_path / "bad.bvh"
    bad.write_text("HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xrotation Yrotation\n}\n")
    with pytest.raises(mblend.ParseError) as e:
        mblend.load(bad)
    r = cli("positions", bad, check=False)
    assert r.returncode == 2 and str(e.value) == r.stderr.strip()
    assert e.value.path == str(bad) and e.value.line == 6 and e.value.column == 1
    with pytest.raises(mblend.FileError):
        mblend.load(tmp_path / "none.bvh")
    with pytest.raises(mblend.InvalidArgumentError):
        mblend.load("#Walk")
    with pytest.raises(mblend.InvalidArgumentError):
        mblend.load(os.path.join(REPO, "data", "bvh", "walk.bvh") + "#Run")
    with pytest.raises(TypeError):
        mblend.load(3.5)


def test_lenient_load_warns(tmp_path):
    text = open(os.path.join(REPO, "data", "bvh", "walk.bvh")).read()
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("Frames:"))
    n = int(lines[i].split()[1])
    lines[i] = f"Frames: {n + 5}"
    p = tmp_path / "short.bvh"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(mblend.ParseError):
        mblend.load(p)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        clip = mblend.load(p, lenient=True)
    assert clip.frame_count == n and any(issubclass(x.category, mblend.MblendWarning) for x in w)


def test_gltf_animations_load_by_name():
    fox = shared("mesh/Fox.glb")
    if not has_assimp():
        with pytest.raises(mblend.FileError, match="without assimp"):
            mblend.load(fox + "#Walk")
        return
    walk, run = mblend.load(fox + "#Walk"), mblend.load(fox + "#Run")
    assert walk.joint_names == run.joint_names and walk.frame_count > 1
    with pytest.raises(mblend.MismatchError, match="'Survey', 'Walk', 'Run'"):
        mblend.load(fox + "#Fly")
    r = cli("positions", fox + "#Run", "--frame", "3")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    got = run.positions(3)[0]
    for row in rows:
        np.testing.assert_allclose(got[int(row["joint_index"])], [float(row[k]) for k in "xyz"],
                                   rtol=2e-6, atol=1e-4)


def test_sample_hits_frames_and_interpolates(walk):
    ft = walk.frame_time
    rot, tr = walk.sample([3 * ft, 10 * ft])
    assert rot.shape == (2, len(walk.joint_names), 4)
    same = np.minimum(np.abs(rot[1] - walk.rotations[10]).max(-1),
                      np.abs(rot[1] + walk.rotations[10]).max(-1))
    assert same.max() < 1e-6 and np.allclose(tr[0], walk.translations[3], atol=1e-5)
    # halfway: translations are the mean, rotations the slerp midpoint (equal angles to both)
    r, t = walk.sample(3.5 * ft)
    np.testing.assert_allclose(t, (walk.translations[3] + walk.translations[4]) / 2, atol=1e-4)
    a = np.abs(np.einsum("ji,ji->j", r, walk.rotations[3]))
    b = np.abs(np.einsum("ji,ji->j", r, walk.rotations[4]))
    np.testing.assert_allclose(a, b, atol=1e-6)
    # loop: one clip length later is the same pose; clamp: past the end is the last frame
    r1, _ = walk.sample(2 * ft + walk.frame_count * ft, loop=True)
    r2, _ = walk.sample(2 * ft, loop=True)
    np.testing.assert_allclose(np.abs(np.einsum("ji,ji->j", r1, r2)), 1, atol=1e-5)
    r3, _ = walk.sample(1e6)
    np.testing.assert_allclose(np.abs(np.einsum("ji,ji->j", r3, walk.rotations[-1])), 1,
                               atol=1e-6)
    with pytest.raises(mblend.InvalidArgumentError):
        walk.sample(float("nan"))

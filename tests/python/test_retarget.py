"""mblend.roles, mirror and retarget: roles of a CMU file against a hand-written table, a
role map's effect and errors, mirroring twice gives the input back and keeps the feet's
heights, retargeted bones have the target's lengths, and the files equal the CLI's (the
same library calls and reference poses behind both)."""
import numpy as np
import pytest

import mblend
from conftest import shared, cli, has_assimp

CMU_WALK = "bvh/cmu_02_01_walk.bvh"
BANDAI_WALK = "bvh/bandai2_walk_normal_001.bvh"
NO_ROLES = "bvh/fairmotion_sinusoidal_xyz_noendsite.bvh"

# cgspeed's CMU skeleton, role by role, from the file's hierarchy (docs/retarget.md: CMU's
# LHipJoint is a zero-length joint above the thigh, Neck1 the upper neck, Spine1 the joint
# the neck and both collars hang from).
CMU_ROLES = {
    "Hips": "hips", "LHipJoint": None, "LeftUpLeg": "upper_leg_l", "LeftLeg": "lower_leg_l",
    "LeftFoot": "foot_l", "LeftToeBase": "toes_l", "RHipJoint": None,
    "RightUpLeg": "upper_leg_r", "RightLeg": "lower_leg_r", "RightFoot": "foot_r",
    "RightToeBase": "toes_r", "LowerBack": "spine", "Spine": "spine", "Spine1": "chest",
    "Neck": "neck", "Neck1": None, "Head": "head", "LeftShoulder": "shoulder_l",
    "LeftArm": "upper_arm_l", "LeftForeArm": "forearm_l", "LeftHand": "hand_l",
    "LeftFingerBase": None, "LeftHandIndex1": None, "LThumb": None,
    "RightShoulder": "shoulder_r", "RightArm": "upper_arm_r", "RightForeArm": "forearm_r",
    "RightHand": "hand_r", "RightFingerBase": None, "RightHandIndex1": None, "RThumb": None,
}


def angles(a, b):
    """Radians between quaternions (..., 4), x y z w, in double precision: the angle of
    conj(a) b from its vector part and scalar (arccos of a dot near 1 loses 3 digits)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    aw, av, bw, bv = a[..., 3], a[..., :3], b[..., 3], b[..., :3]
    w = aw * bw + np.sum(av * bv, axis=-1)
    v = aw[..., None] * bv - bw[..., None] * av - np.cross(av, bv)
    return 2.0 * np.arctan2(np.linalg.norm(v, axis=-1), np.abs(w))


def joint_positions(c):
    """World positions of the joints (End Sites left out), (frames, joints, 3) in double."""
    nodes = [c.node_names.index(n) for n in c.joint_names]
    return c.positions()[:, nodes].astype(np.float64)


def bone_lengths(c, below):
    """|joint - parent| per frame for the joints in below (joint indices), (frames, k)."""
    p = joint_positions(c)
    par = c.parents[below]
    return np.linalg.norm(p[:, below] - p[:, par], axis=-1)


def below_hips(c):
    """Joint indices strictly below the hips (the hips and above carry the root motion)."""
    hips = c.joint_names.index(next(n for n, r in mblend.roles(c).items() if r == "hips"))
    out, par = [], c.parents
    for j in range(len(par)):
        k = par[j]
        while k >= 0 and k != hips:
            k = par[k]
        if k == hips:
            out.append(j)
    return np.array(out)


def test_roles_of_a_cmu_file_by_hand():
    assert mblend.roles(mblend.load(shared(CMU_WALK))) == CMU_ROLES


def test_role_map_changes_roles_and_reports_its_errors(tmp_path):
    walk = mblend.load(shared(CMU_WALK))
    good = tmp_path / "good.map"
    good.write_text("# the toes are not mapped\nnone LeftToeBase\n")
    r = mblend.roles(walk, role_map=good)
    assert r["LeftToeBase"] is None
    assert {k: v for k, v in r.items() if k != "LeftToeBase"} == \
        {k: v for k, v in CMU_ROLES.items() if k != "LeftToeBase"}
    bad = tmp_path / "bad.map"
    bad.write_text("hips Hips\nelbow_l LeftForeArm\n")
    with pytest.raises(mblend.ParseError) as e:
        mblend.roles(walk, role_map=bad)
    assert e.value.line == 2 and e.value.column == 1 and e.value.path == str(bad)
    missing = tmp_path / "missing.map"
    missing.write_text("hips NoSuchJoint\n")
    with pytest.raises(mblend.Error, match="NoSuchJoint") as e:
        mblend.roles(walk, role_map=missing)
    assert e.value.line == 1


@pytest.mark.parametrize("rel", [CMU_WALK, BANDAI_WALK])
def test_mirror_twice_is_the_input(rel):
    c = mblend.load(shared(rel))
    once = mblend.mirror(c)
    twice = mblend.mirror(once)
    assert twice.joint_names == c.joint_names and twice.frame_count == c.frame_count
    assert angles(c.rotations, twice.rotations).max() < 1e-5
    height = mblend.analyze(c)["height"]
    assert np.abs(c.translations - twice.translations).max() < 1e-4 * height
    # and once is not the input
    assert angles(c.rotations, once.rotations).max() > 0.1


def test_mirror_swaps_the_feet():
    """A reflection across a vertical plane keeps heights and distances: the mirrored left
    foot is as high as the input's right foot, frame by frame, and the feet as far apart
    (Bandai's clip tracks every joint's translation: exact up to rounding)."""
    c = mblend.load(shared(BANDAI_WALK))
    m = mblend.mirror(c)
    info = mblend.analyze(c)
    up, height = info["up_axis"], info["height"]
    pc, pm = c.positions().astype(np.float64), m.positions().astype(np.float64)
    left, right = c.node_names.index("Foot_L"), c.node_names.index("Foot_R")
    assert np.abs(pm[:, left, up] - pc[:, right, up]).max() < 1e-3 * height
    assert np.abs(pm[:, right, up] - pc[:, left, up]).max() < 1e-3 * height
    apart_c = np.linalg.norm(pc[:, left] - pc[:, right], axis=-1)
    apart_m = np.linalg.norm(pm[:, left] - pm[:, right], axis=-1)
    assert np.abs(apart_c - apart_m).max() < 1e-3 * height
    # the feet did swap: the input's left foot is not where the mirrored left foot is
    assert np.abs(pm[:, left, up] - pc[:, left, up]).max() > 0.02 * height


@pytest.mark.parametrize("src,dst", [(CMU_WALK, BANDAI_WALK), (BANDAI_WALK, CMU_WALK)])
def test_retarget_bones_have_the_targets_lengths(src, dst):
    s, t = mblend.load(shared(src)), mblend.load(shared(dst))
    out = mblend.retarget(s, to=t)
    assert out.joint_names == t.joint_names and out.frame_count == s.frame_count
    bones = below_hips(t)
    want = bone_lengths(t, bones)[0]  # the target file's own bones
    got = bone_lengths(out, bones)
    long = want > 1e-3 * want.max()  # CMU's zero-length joints (LHipJoint, ...) aside
    assert (np.abs(got[:, long] - want[long]) / want[long]).max() < 1e-4
    assert np.abs(got[:, ~long] - want[~long]).max(initial=0.0) < 1e-4 * want.max()


def test_retarget_report_names_the_mapping():
    s, t = mblend.load(shared(CMU_WALK)), mblend.load(shared(BANDAI_WALK))
    out, text = mblend.retarget(s, to=t, report=True)
    assert "upper_arm_l  LeftArm -> UpperArm_L: direction" in text
    assert "hips         Hips -> Hips: frame" in text
    assert out.frame_count == s.frame_count


def same_file(tmp_path, clip, cli_args, name="out.bvh"):
    mine, theirs = tmp_path / ("py_" + name), tmp_path / ("cli_" + name)
    clip.save(mine)
    cli(*cli_args, "-o", theirs)
    assert mine.read_bytes() == theirs.read_bytes()


def test_mirror_and_retarget_are_the_clis(tmp_path):
    walk, bandai = shared(CMU_WALK), shared(BANDAI_WALK)
    cw, cb = mblend.load(walk), mblend.load(bandai)
    same_file(tmp_path, mblend.mirror(cw), ["mirror", walk], "m.bvh")
    same_file(tmp_path, mblend.mirror(cb), ["mirror", bandai], "mb.bvh")
    same_file(tmp_path, mblend.mirror(cw, plane_from_clip=True),
              ["mirror", walk, "--plane-from-clip"], "mp.bvh")
    same_file(tmp_path, mblend.retarget(cw, to=cb), ["retarget", walk, "--to", bandai], "r.bvh")
    same_file(tmp_path, mblend.retarget(cw, to=cb, foot_ik=False),
              ["retarget", walk, "--to", bandai, "--no-foot-ik"], "rf.bvh")


@pytest.mark.skipif(not has_assimp(), reason="no assimp in this build")
def test_retarget_onto_cesium_man_is_the_clis(tmp_path):
    """CesiumMan's reference pose is its skin's bind pose (an A-pose), as the CLI takes it."""
    walk, cesium = shared(CMU_WALK), shared("mesh/CesiumMan.glb")
    out = mblend.retarget(mblend.load(walk), to=mblend.load(cesium))
    same_file(tmp_path, out, ["retarget", walk, "--to", cesium], "c.bvh")


def test_errors_name_the_missing_roles():
    walk, none = mblend.load(shared(CMU_WALK)), mblend.load(shared(NO_ROLES))
    with pytest.raises(mblend.InvalidArgumentError) as e:
        mblend.retarget(walk, to=none)
    assert "hips" in str(e.value) and "upper_leg_l" in str(e.value) and "forearm_r" in str(e.value)
    with pytest.raises(mblend.InvalidArgumentError, match="hips"):
        mblend.retarget(none, to=walk)
    with pytest.raises(mblend.InvalidArgumentError, match="upper_leg_l"):
        mblend.mirror(none)
    with pytest.raises(TypeError):
        mblend.retarget(walk, to="walk.bvh")
    with pytest.raises(TypeError):
        mblend.roles(None)

"""Humanoid joint roles, mirroring and retargeting (mblend/offline/roles.h, mirror.h,
retarget.h; docs/retarget.md), with the choices `mblend roles`, `mblend mirror` and
`mblend retarget` make: a glTF/FBX character's skin bind pose is its reference pose, else the
skeleton's rest pose."""
import contextlib
import os

from ._lib import ffi, lib, check, axis_code, fspath
from .clip import Clip

__all__ = ["roles", "mirror", "retarget"]


def _check_clip(c, name):
    if not isinstance(c, Clip):
        raise TypeError(f"{name}: expected an mblend.Clip, got {type(c).__name__}")


@contextlib.contextmanager
def _roles_of(clip, role_map):
    """The C roles of clip's skeleton, completed by the role map file role_map (a path or
    None); freed on exit. Raises mblend.Error (a map's errors carry its path, line, column)."""
    err = ffi.new("mb_error *")
    m = ffi.new("mb_role_map **")
    if role_map is not None:
        p = fspath(role_map)
        check(lib.mb_role_map_read(p, m, err), err, os.fsdecode(p))
    r = ffi.new("mb_roles *")
    try:
        check(lib.mb_roles_find(clip._skel, m[0], r, err), err, clip.path or "roles")
    finally:
        lib.mb_role_map_destroy(m[0])
    try:
        yield r
    finally:
        lib.mb_roles_free(r)


def _reference(clip):
    """The reference pose the CLI uses: the skin's bind pose of the clip's scene when it has
    one for this skeleton, else NULL (the rest pose)."""
    if clip._scene is None:
        return ffi.NULL
    mesh = lib.mb_scene_mesh(clip._scene)
    if mesh == ffi.NULL or lib.mb_mesh_skeleton_joint_count(mesh) != len(clip.node_names):
        return ffi.NULL
    return lib.mb_mesh_bind_pose(mesh)


def roles(clip, role_map=None):
    """The humanoid role of every joint of clip's skeleton, as `mblend roles` prints it: a
    dict joint name -> role ("hips", "spine", "chest", "neck", "head", "shoulder_l",
    "upper_arm_l", "forearm_l", "hand_l", "upper_leg_l", "lower_leg_l", "foot_l", "toes_l",
    the same with _r), or None for a joint without one (fingers, End Sites are not joints).
    Roles are found from names and the topology (docs/retarget.md); role_map: a map file
    that fixes or completes them."""
    _check_clip(clip, "clip")
    with _roles_of(clip, role_map) as r:
        out = {}
        for name, node in zip(clip.joint_names, clip._joint_nodes):
            role = r.of_joint[int(node)]
            out[name] = None if role == lib.MB_ROLE_NONE else \
                ffi.string(lib.mb_role_name(role)).decode()
        return out


def mirror(clip, role_map=None, up_axis=None, plane_from_clip=False):
    """Left and right swapped, as `mblend mirror` does: every joint takes the motion of its
    other-side joint (by role, or by Left/Right names), reflected across the character's
    sagittal plane; root motion too (a left turn becomes a right turn of the same angle).
    up_axis: None (detected for BVH, +Y for glTF/FBX), 'x', 'y' or 'z'. plane_from_clip:
    the left-right axis of the first motion frame instead of the reference pose's. Returns
    a new Clip on the same skeleton. Raises InvalidArgumentError naming the missing roles
    (the hips, both upper legs, the other side of every sided role)."""
    _check_clip(clip, "clip")
    if clip.frame_count < 1:
        raise ValueError(f"{clip.path or 'clip'} has no frames to mirror")
    err = ffi.new("mb_error *")
    source = ffi.new("char[]", (clip.path or "clip").encode())
    with _roles_of(clip, role_map) as r:
        d = ffi.new("mb_mirror_desc *")
        d.skeleton, d.clip, d.roles = clip._skel, clip._clip, r
        d.up_axis = axis_code(up_axis) or clip._up_axis
        d.reference = _reference(clip)
        d.plane_from_clip = 1 if plane_from_clip else 0
        d.source = source
        out = ffi.new("mb_clip **")
        check(lib.mb_clip_mirror(d, out, ffi.NULL, err), err, clip.path or "mirror")
    c = ffi.gc(out[0], lib.mb_clip_destroy)
    return Clip(clip._skel, c, clip._keep + (c,), _file=clip.path, _scene=clip._scene,
                _up_axis=clip._up_axis)


def _side(side, clip, roles_ptr, up, source):
    side.skeleton, side.roles, side.reference = clip._skel, roles_ptr, _reference(clip)
    side.up_axis, side.source = up, source


def retarget(clip, to, role_map=None, to_role_map=None, up_axis=None, foot_ik=True,
             report=False):
    """clip's motion played by the skeleton of the clip ``to`` (another file's, a glTF/FBX
    character's), as `mblend retarget` does: joints joined by their roles, rest poses aligned
    bone by bone, the root's path scaled by the ratio of leg lengths, the ankles placed by
    two-bone IK (foot_ik=False: the legs follow the source's bone directions only). Every
    bone keeps ``to``'s length; joints without a role keep ``to``'s reference pose. role_map,
    to_role_map: map files completing either side's roles. up_axis: clip's up axis (None:
    detected for BVH, +Y for glTF/FBX). Returns a new Clip on ``to``'s skeleton (saved as
    .glb it carries ``to``'s mesh), named by clip's path; with report=True also the mapping
    as text (one line per role of the target, as `mblend retarget` prints). Raises
    InvalidArgumentError naming the missing roles of either side."""
    _check_clip(clip, "clip")
    _check_clip(to, "to")
    err = ffi.new("mb_error *")
    names = [ffi.new("char[]", (c.path or n).encode()) for c, n in ((clip, "source"), (to, "target"))]
    with _roles_of(clip, role_map) as rs, _roles_of(to, to_role_map) as rt:
        d = ffi.new("mb_retarget_desc *")
        _side(d.to, to, rt, to._up_axis, names[1])
        _side(getattr(d, "from"), clip, rs, axis_code(up_axis) or clip._up_axis, names[0])
        d.clip, d.to_clip = clip._clip, to._clip
        d.feet = lib.MB_RETARGET_FEET_IK if foot_ik else lib.MB_RETARGET_FEET_FK
        out = ffi.new("mb_clip **")
        rep = ffi.new("mb_retarget_report *")
        check(lib.mb_retarget(d, out, rep, err), err, clip.path or "retarget")
    c = ffi.gc(out[0], lib.mb_clip_destroy)
    result = Clip(to._skel, c, to._keep + (c,), _file=clip.path, _scene=to._scene,
                  _up_axis=to._up_axis, _new_motion=True)
    if not report:
        return result
    size = lib.mb_retarget_report_format(rep, clip._skel, to._skel, ffi.NULL, 0) + 1
    buf = ffi.new("char[]", size)
    lib.mb_retarget_report_format(rep, clip._skel, to._skel, buf, size)
    return result, ffi.string(buf).decode("utf-8", "replace")

"""Clips: loading, arrays, world positions, saving and building from arrays."""
import os
import warnings

import numpy as np

from ._lib import ffi, lib, check, as_float32, fspath, InvalidArgumentError

__all__ = ["Clip", "load", "MblendWarning"]


class MblendWarning(UserWarning):
    """A loader accepted something questionable (e.g. a lenient BVH frame count)."""


class Clip:
    """A skeleton and its motion, as loaded by :func:`load` or built by :meth:`from_arrays`.

    Joints are the skeleton's nodes without the End Sites, parents first. Arrays are numpy
    copies owned by Python (read-only: build a new clip with :meth:`from_arrays` to change
    the motion). Quaternions are x, y, z, w; angles radians; lengths the file's units."""

    def __init__(self, _skel, _clip, _keep, *, _file="", _scene=None, _up_axis=lib.MB_AXIS_DETECT,
                 _new_motion=False):
        # Internal: use load() or Clip.from_arrays(). _keep holds the C objects that own
        # _skel and _clip, so they live as long as this clip. _new_motion: a clip made for
        # another skeleton (a retarget), saved as BVH with portable offsets as the CLI does.
        self._skel = _skel
        self._clip = _clip
        self._keep = tuple(_keep)
        self._file = _file
        self._scene = _scene
        self._up_axis = _up_axis
        self._new_motion = bool(_new_motion)
        n = lib.mb_skeleton_joint_count(_skel)
        self._node_names = [ffi.string(lib.mb_skeleton_name(_skel, i)).decode("utf-8", "replace")
                            for i in range(n)]
        node_parents = np.frombuffer(ffi.buffer(lib.mb_skeleton_parents(_skel), 4 * n),
                                     dtype=np.int32).copy()
        end = np.array([lib.mb_skeleton_is_end_site(_skel, i) != 0 for i in range(n)],
                       dtype=bool)
        self._joint_nodes = np.flatnonzero(~end)
        node_to_joint = np.full(n, -1, dtype=np.int64)
        node_to_joint[self._joint_nodes] = np.arange(self._joint_nodes.size)
        jp = node_parents[self._joint_nodes]
        self._parents = np.where(jp < 0, -1, node_to_joint[np.maximum(jp, 0)]).astype(np.int32)
        self._parents.flags.writeable = False
        self._node_parents = node_parents
        self._rotations = None
        self._translations = None

    # ---------- the skeleton ----------
    @property
    def joint_names(self):
        """Names of the joints (End Sites excluded), parents first."""
        return [self._node_names[i] for i in self._joint_nodes]

    @property
    def parents(self):
        """int32 array: each joint's parent index among the joints, -1 for roots."""
        return self._parents

    @property
    def node_names(self):
        """Names of every node, End Sites included (named ``<parent>_End``), in the order of
        ``mblend positions`` and of :meth:`positions`."""
        return list(self._node_names)

    @property
    def path(self):
        """The file the clip was loaded from ("" for a clip built from arrays)."""
        return self._file

    # ---------- the motion ----------
    @property
    def frame_time(self):
        """Seconds per frame."""
        return float(lib.mb_clip_frame_time(self._clip))

    @property
    def frame_count(self):
        """Number of frames."""
        return int(lib.mb_clip_frame_count(self._clip))

    @property
    def duration(self):
        """frame_count * frame_time, seconds."""
        return self.frame_count * self.frame_time

    def _node_rotations(self):
        f, n = self.frame_count, len(self._node_names)
        if f == 0:
            return np.zeros((0, n, 4), np.float32)
        buf = ffi.buffer(lib.mb_clip_rotations(self._clip), 16 * f * n)
        return np.frombuffer(buf, dtype=np.float32).reshape(f, n, 4)

    @property
    def rotations(self):
        """float32 (frames, joints, 4): local rotations, unit quaternions x, y, z, w."""
        if self._rotations is None:
            r = np.ascontiguousarray(self._node_rotations()[:, self._joint_nodes, :])
            r.flags.writeable = False
            self._rotations = r
        return self._rotations

    @property
    def translations(self):
        """float32 (frames, joints, 3): local translations (position channels where a joint
        has them, else its OFFSET)."""
        if self._translations is None:
            self._translations = self._compute_translations()
        return self._translations

    def _compute_translations(self):
        f, jn = self.frame_count, self._joint_nodes
        offsets = np.array([np.frombuffer(ffi.buffer(lib.mb_skeleton_offset(self._skel, int(i)),
                                                     12), dtype=np.float32) for i in jn],
                           dtype=np.float32).reshape(len(jn), 3)
        out = np.empty((f, len(jn), 3), np.float32)
        out[:] = offsets
        t = lib.mb_clip_translation_count(self._clip)
        if t > 0 and f > 0:
            node_to_joint = np.full(len(self._node_names), -1, np.int64)
            node_to_joint[jn] = np.arange(len(jn))
            joints = np.frombuffer(ffi.buffer(lib.mb_clip_translation_joints(self._clip), 4 * t),
                                   dtype=np.int32)
            tracks = np.frombuffer(ffi.buffer(lib.mb_clip_translations(self._clip), 12 * f * t),
                                   dtype=np.float32).reshape(f, t, 3)
            for slot, j in enumerate(joints):
                if node_to_joint[j] >= 0 and lib.mb_skeleton_has_translation(self._skel, int(j)):
                    out[:, node_to_joint[j], :] = tracks[:, slot, :]
        out.flags.writeable = False
        return out

    def _frame_indices(self, frames):
        f = self.frame_count
        if frames is None:
            return np.arange(f)
        if isinstance(frames, slice):
            return np.arange(f)[frames]
        idx = np.asarray(frames)
        if idx.dtype.kind not in "iu":
            raise TypeError(f"frames: expected an int, a slice or integers, got {idx.dtype}")
        idx = idx.reshape(-1).astype(np.int64)
        bad = idx[(idx < 0) | (idx >= f)]
        if bad.size:
            raise InvalidArgumentError(f"frame {int(bad[0])} is out of range (the clip has {f} "
                                       f"frames, numbered 0 to {f - 1})", path=self._file or None)
        return idx

    def positions(self, frames=None):
        """World positions of every node (End Sites included) as float32 (frames, nodes, 3):
        the numbers ``mblend positions`` prints. frames: None (all), an int, a slice or a
        sequence of frame indices."""
        idx = self._frame_indices(frames)
        n = len(self._node_names)
        pose_mem = ffi.new("mb_xform[]", n)
        pose = ffi.new("mb_pose *", {"joints": pose_mem, "count": n})
        world = ffi.new("float[][16]", n)
        wview = np.frombuffer(ffi.buffer(world), dtype=np.float32).reshape(n, 16)
        out = np.empty((idx.size, n, 3), np.float32)
        for k, fr in enumerate(idx):
            check(lib.mb_clip_frame_pose(self._skel, self._clip, int(fr), pose[0]), None,
                  self._file)
            check(lib.mb_fk(self._skel, pose, world, n), None, self._file)
            out[k] = wview[:, 12:15]
        return out

    def sample(self, times, loop=False):
        """Local poses at times (seconds; a number or an array): rotations slerped between
        the two nearest frames, translations lerped, as the runtime samples. loop: times wrap
        around the clip, and between the last frame and frame 0 the pose interpolates back
        (a cycle); else times are clamped to the clip. Returns (rotations (..., joints, 4),
        translations (..., joints, 3)), float32."""
        t = np.asarray(times, dtype=np.float64)
        if not np.isfinite(t).all():
            raise InvalidArgumentError("times must be finite")
        if self.frame_count < 1:
            raise InvalidArgumentError("the clip has no frames to sample", path=self._file or None)
        n = len(self._node_names)
        pose_mem = ffi.new("mb_xform[]", n)
        pose = ffi.new("mb_pose *", {"joints": pose_mem, "count": n})
        view = np.frombuffer(ffi.buffer(pose_mem), dtype=np.float32).reshape(n, 7)
        wrap = lib.MB_WRAP_LOOP if loop else lib.MB_WRAP_CLAMP
        flat = t.reshape(-1)
        out = np.empty((flat.size, len(self._joint_nodes), 7), np.float32)
        for i, ti in enumerate(flat):
            check(lib.mb_clip_sample(self._skel, self._clip, float(ti), wrap, pose[0]), None,
                  self._file or "Clip.sample")
            out[i] = view[self._joint_nodes]
        out = out.reshape(t.shape + out.shape[1:])
        return out[..., :4].copy(), out[..., 4:].copy()

    # ---------- writing ----------
    def save(self, path, scale=None):
        """Writes the clip as BVH (``.bvh``) or binary glTF (``.glb``: the skeleton, a mesh
        -- the source's own, else a generated capsule skin -- and the animation), atomically:
        a failure leaves no partial file. scale (glb only): e.g. 0.01 for a BVH in cm."""
        p = fspath(path)
        low = p.lower()
        err = ffi.new("mb_error *")
        if low.endswith(b".glb"):
            check(self._save_glb(p, scale, err), err, os.fsdecode(p))
        elif low.endswith(b".bvh"):
            if scale is not None:
                raise InvalidArgumentError("scale applies to .glb output only")
            d = ffi.new("mb_bvh_write_desc *")
            d.drop_still_positions = 1 if self._scene is not None else 0
            # three.js reads it the same (scenes and retargets: as the CLI writes them)
            d.portable_offsets = 1 if (self._scene is not None or self._new_motion) else 0
            check(lib.mb_bvh_write_file(p, self._skel, self._clip, d, err), err, os.fsdecode(p))
        else:
            raise InvalidArgumentError(f"{os.fsdecode(p)}: the output must end in .bvh or .glb")

    def _save_glb(self, p, scale, err):
        mesh = lib.mb_scene_mesh(self._scene) if self._scene is not None else ffi.NULL
        gen = ffi.new("mb_mesh **")
        if mesh == ffi.NULL:
            check(lib.mb_skin_generate(self._skel, ffi.NULL, gen, err), err, "generated skin")
            mesh = gen[0]
        try:
            d = ffi.new("mb_gltf_write_desc *")
            d.skeleton = self._skel
            d.mesh = mesh
            if gen[0] == ffi.NULL:  # the scene's own mesh: its materials, images and UVs
                d.look = lib.mb_scene_look(self._scene)
            d.clip = self._clip
            name = os.path.splitext(os.path.basename(self._file))[0].encode() or b"clip"
            keep_name = ffi.new("char[]", name)
            d.clip_name = keep_name
            if scale is not None:
                s = float(scale)
                if not (1e-6 <= s <= 1e6):
                    raise InvalidArgumentError(f"scale {scale!r} is outside [1e-6, 1e6]")
                d.scale = s
            d.up_axis = self._up_axis or self._analysed_up_axis()
            loop = ffi.new("mb_loop_kind *")  # the library's rule, as the CLI follows it
            status = lib.mb_gltf_loop_kind(self._skel, self._clip, 0, loop, err)
            if status != lib.MB_OK:
                return status
            d.loop = loop[0]
            return lib.mb_gltf_write_file(p, d, err)
        finally:
            if gen[0] != ffi.NULL:
                lib.mb_mesh_destroy(gen[0])

    def _analysed_up_axis(self):
        """The mb_axis from the motion, MB_AXIS_Y when it cannot tell."""
        if self.frame_count < 1:
            return lib.MB_AXIS_Y
        info = ffi.new("mb_motion_info *")
        st = lib.mb_motion_analyze(self._skel, self._clip, ffi.NULL, ffi.NULL, info, ffi.NULL)
        return info.up_axis if st == lib.MB_OK else lib.MB_AXIS_Y

    # ---------- building ----------
    @classmethod
    def from_arrays(cls, rotations, translations, skeleton, frame_time=None):
        """A new clip on the skeleton of another clip ``skeleton``, with the motion given as
        arrays shaped like :attr:`rotations` (frames, joints, 4; normalised here when off unit
        length) and
        :attr:`translations` (frames, joints, 3; only joints with position channels use
        them, the others keep their OFFSET). frame_time defaults to the skeleton clip's."""
        if not isinstance(skeleton, Clip):
            raise TypeError("skeleton: expected an mblend.Clip whose skeleton to use")
        rot = as_float32(rotations, "rotations", 4)
        tr = as_float32(translations, "translations", 3)
        j = len(skeleton._joint_nodes)
        if rot.ndim != 3 or rot.shape[1] != j:
            raise ValueError(f"rotations: expected shape (frames, {j}, 4), got {rot.shape}")
        if tr.shape != rot.shape[:2] + (3,):
            raise ValueError(f"translations: expected shape {rot.shape[:2] + (3,)}, got "
                             f"{tr.shape}")
        if not (np.isfinite(rot).all() and np.isfinite(tr).all()):
            raise InvalidArgumentError("rotations and translations must be finite")
        norms = np.linalg.norm(rot.astype(np.float64), axis=-1)
        if (norms == 0).any():
            raise InvalidArgumentError("rotations: a quaternion is zero")
        ft = skeleton.frame_time if frame_time is None else float(frame_time)
        if not (np.isfinite(ft) and ft > 0):
            raise InvalidArgumentError(f"frame_time must be finite and > 0, got {frame_time!r}")
        # only quaternions off unit length are normalised, so a clip's own arrays round-trip
        # bit for bit
        off = np.abs(norms - 1.0) > 1e-6
        if off.any():
            rot = rot.copy()
            rot[off] = (rot[off] / norms[off][:, None]).astype(np.float32)
        return cls._build(skeleton, rot, tr, ft)

    @classmethod
    def _build(cls, skeleton, rot, tr, ft):
        skel = skeleton._skel
        n = len(skeleton._node_names)
        f = rot.shape[0]
        count = ffi.new("int *")
        tj = lib.mb_skeleton_translation_joints(skel, count)
        t = count[0]
        out = ffi.new("mb_clip **")
        err = ffi.new("mb_error *")
        check(lib.mb_clip_alloc(n, f, ft, tj, t, ffi.NULL, out, err), err, "Clip.from_arrays")
        c = ffi.gc(out[0], lib.mb_clip_destroy)
        node_rot = np.zeros((f, n, 4), np.float32)
        node_rot[..., 3] = 1.0
        node_rot[:, skeleton._joint_nodes, :] = rot
        if f > 0:
            ffi.memmove(lib.mb_clip_rotations_mut(c), node_rot.tobytes(), node_rot.nbytes)
        if t > 0 and f > 0:
            joints = np.frombuffer(ffi.buffer(tj, 4 * t), dtype=np.int32)
            node_to_joint = np.full(n, -1, np.int64)
            node_to_joint[skeleton._joint_nodes] = np.arange(len(skeleton._joint_nodes))
            tracks = np.ascontiguousarray(tr[:, node_to_joint[joints], :])
            ffi.memmove(lib.mb_clip_translations_mut(c), tracks.tobytes(), tracks.nbytes)
        return cls(skel, c, skeleton._keep + (c,), _file="", _scene=skeleton._scene,
                   _up_axis=skeleton._up_axis)

    def __repr__(self):
        name = os.path.basename(self._file) if self._file else "(built in memory)"
        return (f"<mblend.Clip {name}: {len(self._joint_nodes)} joints, {self.frame_count} "
                f"frames at {1.0 / self.frame_time if self.frame_time > 0 else 0:g} Hz>")


def load(path, lenient=False):
    """Loads a clip: a BVH file, or an animation of a glTF/FBX/X file through the same loader
    as the CLI (``"Fox.glb#Walk"``; ``"Fox.glb"`` is its first animation). lenient: accept a
    BVH whose Frames line disagrees with its data (warns with MblendWarning). Raises
    mblend.Error (ParseError with .path, .line, .column for a malformed BVH)."""
    spec = fspath(path)
    err = ffi.new("mb_error *")
    warning = ffi.new("mb_error *")
    d = ffi.new("mb_source_desc *", {"lenient": 1 if lenient else 0, "probe": 1,
                                      "warning": warning})
    out = ffi.new("mb_source **")
    check(lib.mb_source_open(spec, d, out, err), err, os.fsdecode(spec))
    src = ffi.gc(out[0], lib.mb_source_destroy)
    if warning.code != lib.MB_OK and warning.text[0] != b"\0":
        msg = ffi.string(warning.text).decode("utf-8", "replace")
        where = ffi.string(warning.source).decode("utf-8", "replace")
        pos = f":{warning.line}:{warning.column}" if warning.line > 0 else ""
        warnings.warn(f"{where}{pos}: {msg}", MblendWarning, stacklevel=2)
    scene = lib.mb_source_scene(src)
    return Clip(lib.mb_source_skeleton(src), lib.mb_source_clip(src), (src,),
                _file=os.fsdecode(ffi.string(lib.mb_source_file(src))),
                _scene=None if scene == ffi.NULL else scene, _up_axis=lib.mb_source_up_axis(src))

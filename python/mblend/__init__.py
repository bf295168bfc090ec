"""mblend for Python: numpy in, numpy out, over the mblend C library.

    import mblend
    walk = mblend.load("walk.bvh")
    q = mblend.blend_rotations(quats, weights)            # (K, ..., 4) -> (..., 4)
    jog = mblend.blend([walk, run], [0.5, 0.5])          # phase-aligned, with root motion
    mblend.roles(walk)["LeftUpLeg"]                       # 'upper_leg_l'
    cesium_walk = mblend.retarget(walk, to=mblend.load("CesiumMan.glb"))
    mirrored = mblend.mirror(walk)                       # left and right swapped

Quaternions are x, y, z, w; angles radians; lengths the file's units. Every failure raises
mblend.Error (or TypeError / ValueError for arguments of the wrong kind)."""
from ._lib import (Error, InvalidArgumentError, ParseError, FileError, LimitError,
                   MismatchError, NumericError)
from .clip import Clip, load, MblendWarning
from .rotations import blend_rotations
from .controller import State, StateSet, Controller, Frame
from .motion import match, blend, transition, select_cycles, analyze
from .retargeting import roles, mirror, retarget

from ._lib import lib as _lib


def scene_support():
    """Whether this build reads glTF/FBX/X files (through assimp); BVH always works."""
    return bool(_lib.mb_scene_supported())


__all__ = ["scene_support", "Clip", "load", "blend_rotations", "Error", "InvalidArgumentError", "ParseError",
           "FileError", "LimitError", "MismatchError", "NumericError", "MblendWarning",
           "State", "StateSet", "Controller", "Frame", "match", "blend", "transition", "select_cycles", "analyze",
           "roles", "mirror", "retarget"]

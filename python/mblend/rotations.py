"""blend_rotations: the blend method on numpy arrays of quaternions."""
import numpy as np

from ._lib import ffi, lib, check, as_float32, InvalidArgumentError

__all__ = ["blend_rotations", "METHODS"]

METHODS = ("logexp", "nlerp", "karcher")


def method_code(method):
    """The C enum value of a method name ("logexp", "nlerp", "karcher")."""
    if not isinstance(method, str):
        raise TypeError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    out = ffi.new("mb_blend_method *")
    if lib.mb_blend_method_parse(method.encode(), out) != lib.MB_OK:
        raise InvalidArgumentError(f"unknown blend method {method!r} (one of "
                                   f"{', '.join(METHODS)})")
    return out[0]


def blend_rotations(q, w, method="logexp", diagnostics=False, exact=False):
    """Blends K weighted unit quaternions per set, for any number of sets at once.

    q: (K, ..., 4) quaternions x, y, z, w (any real dtype and layout; converted once to
    float32; q and -q are the same rotation). w: (K,) weights for every set, or (K, ...)
    one weight per input and set; finite, >= 0, each set's total > 0 (normalised here).
    method: "logexp" (the eigenvector reference, log map, weighted tangent mean, exp map:
    mblend's method), "nlerp" or "karcher". exact: LAPACKE for every reference.

    Returns (..., 4) float32 unit quaternions; with diagnostics=True, (result, dict) where
    the dict holds "eigen_gap" (relative gap (l1 - l2) / l1 of M = sum w q q^T, exact) and
    "max_angle" (the largest rotation angle, radians, of an input from the reference), each of shape (...)."""
    qa = as_float32(q, "q", 4)
    if qa.ndim < 2:
        raise ValueError(f"q: expected shape (K, ..., 4), got {qa.shape}")
    k = qa.shape[0]
    if not 1 <= k <= lib.MB_BLEND_MAX_LAYERS:
        raise ValueError(f"q: {k} inputs per set; 1 to {lib.MB_BLEND_MAX_LAYERS} are blended")
    sets = qa.shape[1:-1]
    n = int(np.prod(sets)) if sets else 1
    wa = as_float32(w, "w")
    if wa.shape == (k,):
        per_set = 0
    elif wa.shape == (k,) + sets:
        per_set = 1
    else:
        raise ValueError(f"w: expected shape ({k},) or {(k,) + sets} for q of shape "
                         f"{qa.shape}, got {wa.shape}")
    if n > 2**31 - 1:
        raise ValueError(f"q: {n} sets; at most {2**31 - 1} per call")
    out = np.empty(sets + (4,), np.float32)
    d = ffi.new("mb_blend_rotations_desc *")
    d.rotations = ffi.from_buffer("float[]", qa)
    d.weights = ffi.from_buffer("float[]", wa)
    d.per_set_weights = per_set
    d.layer_count = k
    d.count = n
    d.method = method_code(method)
    d.solver = lib.MB_EIGEN_LAPACKE if exact else lib.MB_EIGEN_AUTO
    d.out = ffi.from_buffer("float[]", out)
    diag = None
    if diagnostics:
        diag = {"eigen_gap": np.empty(sets, np.float32), "max_angle": np.empty(sets, np.float32)}
        d.eigen_gap = ffi.from_buffer("float[]", diag["eigen_gap"])
        d.max_angle = ffi.from_buffer("float[]", diag["max_angle"])
    err = ffi.new("mb_error *")
    check(lib.mb_blend_rotations_run(d, err), err, "blend_rotations")
    return (out, diag) if diagnostics else out

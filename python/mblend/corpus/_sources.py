"""The files of a corpus: finding them, naming them, loading them on a worker (by path or
from shipped bytes), and what a worker reports about each (the skeleton signature and the
analysis the match needs)."""
import contextlib
import ctypes
import hashlib
import os
import tempfile
from dataclasses import dataclass

import mblend
from .._lib import ffi, lib, check

__all__ = ["Ref", "find_files", "make_refs", "load_ref", "signature", "analysis",
           "format_of", "UsageError", "number", "write_atomic", "one_blas_thread"]

SCENE_EXTENSIONS = (".glb", ".gltf", ".fbx", ".x")


class UsageError(ValueError):
    """Bad command-line input (a path that does not exist, a bad option value)."""


@dataclass(frozen=True)
class Ref:
    """One clip of the corpus: ``name`` as reported (the path as given, normalised),
    ``path`` absolute (what a worker on a shared filesystem opens) and, with shipping, the
    file's bytes (or a Dask handle to them) in ``data``."""
    index: int
    name: str
    path: str
    data: object = None


def format_of(name):
    """The format column: the file extension without the dot, lower case ("bvh", "glb")."""
    base = name.split("#", 1)[0]
    ext = os.path.splitext(base)[1].lower().lstrip(".")
    return ext or "unknown"


def _wanted(fname, scene):
    low = fname.lower()
    return low.endswith(".bvh") or (scene and low.endswith(SCENE_EXTENSIONS))


def find_files(inputs):
    """The corpus named by inputs (files, ``file.glb#Animation`` specs and directories,
    searched recursively for .bvh -- and .glb/.gltf/.fbx/.x when this build reads them):
    sorted, duplicates removed. UsageError for an input that does not exist (nothing is
    computed for a typo)."""
    scene = mblend.scene_support()
    found = set()
    for raw in inputs:
        p = os.path.normpath(os.fspath(raw))
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for f in files:
                    if _wanted(f, scene):
                        found.add(os.path.normpath(os.path.join(root, f)))
        elif os.path.isfile(p):
            found.add(p)
        elif "#" in p and os.path.isfile(p.split("#", 1)[0]):
            found.add(p)
        else:
            raise UsageError(f"{raw}: no such file or directory")
    if not found:
        raise UsageError("no motion files found in " + ", ".join(map(str, inputs)))
    return sorted(found)


def make_refs(names, ship=False):
    """Refs for names (as from :func:`find_files`). ship: read each file's bytes here, for
    workers that cannot see this machine's files (a file that cannot be read ships as None
    and its worker reports the error)."""
    refs = []
    for i, n in enumerate(names):
        path = os.path.abspath(n.split("#", 1)[0])
        spec = path + ("#" + n.split("#", 1)[1] if "#" in n else "")
        data = None
        if ship:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                data = e.strerror or str(e)
        refs.append(Ref(i, n, spec, data))
    return refs


def load_ref(ref, data=None):
    """Loads a clip on a worker: from ref.path, or from shipped bytes written to a private
    temporary file (error messages then name the original file). Raises mblend.Error."""
    data = ref.data if data is None else data
    if data is None:
        return mblend.load(ref.path)
    if isinstance(data, str):  # the client could not read it
        raise mblend.FileError(data, "MB_IO", ref.name)
    base, _, anim = ref.path.partition("#")
    with tempfile.TemporaryDirectory(prefix="mblend-corpus-") as d:
        tmp = os.path.join(d, os.path.basename(base))
        with open(tmp, "wb") as f:
            f.write(data)
        try:
            return mblend.load(tmp + ("#" + anim if anim else ""))
        except mblend.Error as e:
            raise type(e)(e.message.replace(tmp, ref.name), e.status, ref.name, e.line,
                          e.column) from None


def error_text(e, ref):
    """One line for an error row: the library's message with the file as the user named it."""
    text = str(e).replace(ref.path, ref.name)
    return " ".join(text.split())


def signature(clip):
    """The skeleton signature: 16 hex digits of SHA-1 over every node's name and parent
    (End Sites included, as the C library compares topology). Clips with equal signatures
    can be matched and joined."""
    h = hashlib.sha1()
    parents = clip._node_parents
    for name, parent in zip(clip.node_names, parents):
        h.update(f"{name}\t{int(parent)}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()[:16]


def analysis(clip, up_axis, name):
    """mb_motion_analyze of a clip with up_axis 0 (detect) or 1..3, as ``mblend match``
    analyses its inputs; returns the C struct (mb_motion_info *)."""
    info = ffi.new("mb_motion_info *")
    desc = ffi.new("mb_analyze_desc *")
    desc.up_axis = up_axis
    err = ffi.new("mb_error *")
    src = ffi.new("char[]", name.encode("utf-8", "surrogateescape"))
    check(lib.mb_motion_analyze(clip._skel, clip._clip, desc, src, info, err), err, name)
    return info


def load_analysed(ref, data=None):
    """(clip, analysis) of one file: loaded, at least one frame, analysed on the loader's up
    axis as ``mblend match`` does; raises mblend.Error (or MemoryError) with the reason."""
    clip = load_ref(ref, data)
    if clip.frame_count < 1:
        raise mblend.InvalidArgumentError("the clip has no frames", path=ref.name)
    return clip, analysis(clip, clip._up_axis, ref.name)


def number(x, digits=7):
    """A float rounded to `digits` significant digits, the same on every machine (written
    outputs compare byte for byte)."""
    return float(f"{float(x):.{digits}g}")


def write_atomic(path, data):
    """Writes text or bytes to path through a temporary file in the same folder and a
    rename: the file appears complete or not at all (a failure leaves nothing)."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".mblend-", dir=d)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; outputs get the usual mode
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


_OPENBLAS = []


def _openblas():
    """The OpenBLAS the C library loaded (found in this process's memory map), or None."""
    if not _OPENBLAS:
        lib = None
        try:
            with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
                paths = sorted({line.split()[-1] for line in f if "libopenblas" in line})
            for p in paths:
                cand = ctypes.CDLL(p)  # the loaded library itself (dlopen reuses it)
                if hasattr(cand, "openblas_set_num_threads"):
                    lib = cand
                    break
        except OSError:
            lib = None
        _OPENBLAS.append(lib)
    return _OPENBLAS[0]


@contextlib.contextmanager
def one_blas_thread():
    """Runs the block with OpenBLAS on one thread. sgemm's float rounding depends on how
    OpenBLAS splits the products over threads, and which local minima of the cost the
    search reports can flip with it; Dask's worker processes run one thread each, so the
    in-process engine (and any worker) does the same to give identical graphs."""
    lib = _openblas()
    if lib is None:
        yield
        return
    old = lib.openblas_get_num_threads()
    lib.openblas_set_num_threads(1)
    try:
        yield
    finally:
        lib.openblas_set_num_threads(old)

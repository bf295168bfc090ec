"""The compiled module, status codes and errors: one place where C failures become Python
exceptions."""
import os

import numpy as np

from ._mblend_cffi import ffi, lib

__all__ = ["ffi", "lib", "Error", "InvalidArgumentError", "ParseError", "FileError",
           "LimitError", "MismatchError", "NumericError", "check", "as_float32", "fspath",
           "axis_code"]


class Error(Exception):
    """An mblend failure. ``str(e)`` is the message the CLI prints (``file:line:col: text``).

    Attributes: ``status`` (the C status name, e.g. ``"MB_PARSE"``), ``path`` (the file or
    the name of the operation, None when there is none), ``line`` and ``column`` (1-based,
    0 when the error has no position) and ``message`` (the text without the position)."""

    def __init__(self, message, status="MB_INVALID_ARG", path=None, line=0, column=0):
        self.status = status
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        if path and line > 0:
            text = f"{path}:{line}:{column}: {message}"
        elif path:
            text = f"{path}: {message}"
        else:
            text = message
        super().__init__(text)


class InvalidArgumentError(Error, ValueError):
    """Bad arguments: shapes, ranges, weights, malformed clip names (MB_INVALID_ARG)."""


class ParseError(Error):
    """A malformed file (MB_PARSE)."""


class FileError(Error, OSError):
    """A file that cannot be read or written (MB_IO)."""


class LimitError(Error):
    """Input beyond the library's limits (MB_LIMIT, MB_TOO_SMALL)."""


class MismatchError(Error):
    """Inputs that do not fit together: skeletons, missing animations or feet (MB_MISMATCH)."""


class NumericError(Error, ValueError):
    """Non-finite or degenerate numbers (MB_NUMERIC)."""


_BY_STATUS = {
    "MB_INVALID_ARG": InvalidArgumentError,
    "MB_TOO_SMALL": LimitError,
    "MB_IO": FileError,
    "MB_PARSE": ParseError,
    "MB_LIMIT": LimitError,
    "MB_MISMATCH": MismatchError,
    "MB_NUMERIC": NumericError,
}

_STATUS_NAMES = {getattr(lib, n): n for n in ("MB_OK", "MB_INVALID_ARG", "MB_TOO_SMALL",
                                               "MB_NOMEM", "MB_IO", "MB_PARSE", "MB_LIMIT",
                                               "MB_MISMATCH", "MB_NUMERIC")}


def _error_from(status, err=None, what=None):
    name = _STATUS_NAMES.get(status, f"status {status}")
    if status == lib.MB_NOMEM:
        return MemoryError(f"{what + ': ' if what else ''}out of memory")
    if err is not None and err.code != lib.MB_OK and err.text[0] != b"\0":
        src = ffi.string(err.source).decode("utf-8", "replace") or what
        text = ffi.string(err.text).decode("utf-8", "replace")
        return _BY_STATUS.get(name, Error)(text, name, src, err.line, err.column)
    text = ffi.string(lib.mb_status_str(status)).decode()
    return _BY_STATUS.get(name, Error)(text, name, what)


def check(status, err=None, what=None):
    """Raises the exception for a C status (nothing for MB_OK)."""
    if status != lib.MB_OK:
        raise _error_from(status, err, what)


def axis_code(up):
    """The C up-axis code of an argument: None (detect, or what the file format fixes),
    'x', 'y' or 'z' (any case)."""
    if up is None:
        return 0
    codes = {"x": 1, "y": 2, "z": 3}
    if isinstance(up, str) and up.lower() in codes:
        return codes[up.lower()]
    raise ValueError(f"up_axis: None (detect), 'x', 'y' or 'z', got {up!r}")


def fspath(path):
    """A path (str, bytes or os.PathLike) as bytes for C."""
    p = os.fspath(path)
    if isinstance(p, str):
        p = p.encode("utf-8", "surrogateescape")
    if b"\0" in p:
        raise ValueError("path contains a NUL byte")
    return p


def as_float32(a, name, last=None):
    """a as a C-contiguous float32 array (converted once; no copy when it already is one).
    Real numeric dtypes only: TypeError for strings, objects, complex and bool."""
    arr = np.asarray(a)
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name}: expected real numbers, got an array of dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    if last is not None and (arr.ndim < 1 or arr.shape[-1] != last):
        raise ValueError(f"{name}: the last axis must have {last} values, got shape "
                         f"{arr.shape}")
    return arr

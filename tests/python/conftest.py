"""pytest set-up for the Python package: where the built package, the CLI and the shared data
are. ctest runs this suite with MB_BUILD_DIR and MB_SHARED_DIR set (tests/CMakeLists.txt);
by hand: PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python."""
import os
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("MB_BUILD_DIR", os.path.join(REPO, "build"))
SHARED = os.environ.get("MB_SHARED_DIR", os.path.join(REPO, "..", "shared"))
sys.path.insert(0, os.path.join(BUILD, "python"))

import mblend  # noqa: E402  (after the path is set)


def shared(rel):
    """Path of a file under ../shared/data; fails (never skips) when it is missing."""
    p = os.path.join(SHARED, "data", rel)
    if not os.path.exists(p):
        pytest.fail(f"shared data file missing: {p} (the real-data tests need ../shared/data)")
    return p


def cli(*args, check=True):
    """Runs the mblend CLI of the same build; returns the CompletedProcess (text)."""
    exe = os.path.join(BUILD, "tools", "mblend", "mblend")
    if not os.path.exists(exe):
        pytest.fail(f"the mblend CLI is not built: {exe}")
    r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        pytest.fail(f"mblend {' '.join(map(str, args))} failed ({r.returncode}): {r.stderr}")
    return r


def has_assimp():
    return mblend.scene_support()


@pytest.fixture
def walk():
    return mblend.load(os.path.join(REPO, "data", "bvh", "walk.bvh"))


@pytest.fixture
def run():
    return mblend.load(os.path.join(REPO, "data", "bvh", "run.bvh"))

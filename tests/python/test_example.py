"""The research example (examples/research/compare_methods.py) runs and its numbers obey the
method's theory: for two inputs the log/exp blend lies on their geodesic, so the Karcher
mean equals it, and nlerp equals it at weight 0.5 (by symmetry) but not elsewhere."""
import os
import subprocess
import sys

import numpy as np

from conftest import REPO, BUILD, shared


def test_compare_methods_runs_and_agrees_with_theory(tmp_path):
    sys.path.insert(0, os.path.join(REPO, "examples", "research"))
    try:
        import compare_methods as cm
    finally:
        sys.path.pop(0)
    import mblend
    walk = mblend.load(shared("bvh/cmu_02_01_walk.bvh"))
    run = mblend.load(shared("bvh/cmu_02_03_run.bvh"))
    _, res = cm.experiment(walk, run, [0.25, 0.5], frames=20)
    for r in res:
        assert r["karcher"].max() < 1e-3  # degrees: float rounding only
    assert res[1]["nlerp"].max() < 1e-3
    assert res[0]["nlerp"].max() > 0.05
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    r = subprocess.run([sys.executable, os.path.join(REPO, "examples", "research", "compare_methods.py"),
                        "-o", str(tmp_path), "--weights", "0.3,0.6"], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0, r.stderr
    for name in ("method_differences.png", "eigen_gaps.png", "root_paths.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
    assert np.isfinite(res[0]["gap"]).all()

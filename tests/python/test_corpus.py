"""mblend.corpus (python3 -m mblend.corpus analyze|graph|walk) on the shared BVH files plus a
corrupt one: rows and edges against independent numbers and the CLI's `mblend match`, the
same bytes in process, on a LocalCluster of 2 workers and on a dask-scheduler with two
dask-worker processes this test starts (on 127.0.0.1) and always stops."""
import csv
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import mblend
from conftest import BUILD, SHARED, shared, cli
from mblend import corpus
from mblend.corpus import graph as cgraph

PYPATH = os.path.join(BUILD, "python")
# distributed's client on Debian's tornado warns about a deprecated event-loop call
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
CORRUPT = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition " \
          "Zposition Zrotation Yrotation Xrotation\n  End Site\n  {\n    OFFSET 0 1 x\n"


def run_corpus(*args, check=True, env_extra=None):
    """python3 -m mblend.corpus ARGS in a subprocess (the package of this build)."""
    env = dict(os.environ, PYTHONPATH=PYPATH)
    env.update(env_extra or {})
    r = subprocess.run([sys.executable, "-m", "mblend.corpus", *map(str, args)],
                       capture_output=True, text=True, env=env, timeout=600)
    if check and r.returncode != 0:
        pytest.fail(f"mblend.corpus {' '.join(map(str, args))} failed ({r.returncode}):\n"
                    f"{r.stderr}")
    return r


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    """The top-level files of ../shared/data/bvh (linked, not copied) and corrupt.bvh."""
    d = tmp_path_factory.mktemp("corpus")
    files = sorted(glob.glob(os.path.join(SHARED, "data", "bvh", "*.bvh")))
    if len(files) < 10:
        pytest.fail(f"shared BVH files missing under {SHARED}/data/bvh")
    for f in files:
        os.symlink(f, d / os.path.basename(f))
    (d / "corrupt.bvh").write_text(CORRUPT)
    return d


@pytest.fixture(scope="module")
def reference(corpus_dir, tmp_path_factory):
    """analyze and graph in this process (--workers 0): the outputs every engine must
    reproduce byte for byte."""
    out = tmp_path_factory.mktemp("reference")
    from mblend.corpus.__main__ import main
    assert main(["analyze", str(corpus_dir), "--workers", "0", "-o", str(out / "clips.csv")]) == 0
    assert main(["graph", str(corpus_dir), "--workers", "0", "-o", str(out / "graph.json")]) == 0
    return {"csv": (out / "clips.csv").read_bytes(), "graph": (out / "graph.json").read_bytes(),
            "dir": out}


def rows_of(data):
    return {os.path.basename(r["path"]): r for r in csv.DictReader(data.decode().splitlines())}


# ---------------------------------------------------------------- analyze

def test_analyze_rows(reference, corpus_dir):
    rows = rows_of(reference["csv"])
    assert list(rows) == sorted(rows) and len(rows) == len(os.listdir(corpus_dir))
    bad = rows["corrupt.bvh"]
    assert "corrupt.bvh" in bad["error"] and bad["frames"] == "" and bad["skeleton"] == ""
    for name, r in rows.items():
        if name == "corrupt.bvh":
            continue
        assert r["error"] == "", (name, r["error"])
        clip = mblend.load(corpus_dir / name)
        assert int(r["frames"]) == clip.frame_count
        assert float(r["frame_time"]) == pytest.approx(clip.frame_time, rel=1e-6)
        assert float(r["duration"]) == pytest.approx(clip.frame_count * clip.frame_time, abs=2e-6)
        assert int(r["joints"]) == len(clip.joint_names)
        if r["cycle_frames"]:
            assert float(r["cycle_seconds"]) == pytest.approx(
                int(r["cycle_frames"]) * clip.frame_time, abs=2e-6)
    # one skeleton for the CMU files of subjects 2, 8 and 9 (same names and parents), another
    # for Bandai; the 1-frame rest file shares the CMU topology
    cmu = {rows[n]["skeleton"] for n in rows if n.startswith(("cmu_0", "crlf_cmu"))}
    assert len(cmu) == 1 and rows["cmu_like_rest_1frame.bvh"]["skeleton"] in cmu
    assert rows["bandai2_walk_normal_001.bvh"]["skeleton"] not in cmu
    assert {rows[n]["up_axis"] for n in rows if n.startswith("cmu_0")} == {"y"}
    assert rows["animdraw_fair1_dab_zup.bvh"]["up_axis"] == "z"
    # gaits: a walk's cycle is about a second with ~2 touchdowns a second, a run's shorter
    for n in ("cmu_02_01_walk.bvh", "cmu_08_01_walk.bvh", "bandai2_walk_normal_001.bvh"):
        assert 0.9 < float(rows[n]["cycle_seconds"]) < 1.4, n
        assert 1.5 < float(rows[n]["contacts_per_second"]) < 2.6, n
    for n in ("cmu_02_03_run.bvh", "cmu_09_01_run.bvh", "bandai2_run_normal_001.bvh"):
        assert 0.55 < float(rows[n]["cycle_seconds"]) < 0.85, n


def _bvh(hierarchy, frames):
    return ("HIERARCHY\n" + hierarchy + "MOTION\nFrames: %d\nFrame Time: 0.1\n" % len(frames)
            + "".join(" ".join(map(str, f)) + "\n" for f in frames))


def test_skeleton_signature_is_names_and_parents(tmp_path):
    """Same names and parents: one signature whatever the offsets and motion; the same
    names under other parents, or a renamed joint: another."""
    chain = ("ROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
             " JOINT Spine\n {\n  OFFSET 0 %s 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
             "  JOINT %s\n  {\n   OFFSET 0 1 0\n   CHANNELS 3 Zrotation Xrotation Yrotation\n"
             "   End Site\n   {\n    OFFSET 0 1 0\n   }\n  }\n }\n}\n")
    fork = ("ROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
            " JOINT Spine\n {\n  OFFSET 0 1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
            " }\n JOINT Head\n {\n  OFFSET 0 2 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
            "   End Site\n   {\n    OFFSET 0 1 0\n   }\n }\n}\n")
    files = {"a": _bvh(chain % (1, "Head"), [[0] * 9] * 2),
             "b": _bvh(chain % (2, "Head"), [[5] * 9] * 3),
             "fork": _bvh(fork, [[0] * 9] * 2),
             "renamed": _bvh(chain % (1, "Neck"), [[0] * 9] * 2)}
    sig = {}
    for k, text in files.items():
        (tmp_path / f"{k}.bvh").write_text(text)
        sig[k] = corpus.analyze_file(corpus.make_refs([str(tmp_path / f"{k}.bvh")])[0])
        assert sig[k]["error"] == "", sig[k]["error"]
        sig[k] = sig[k]["skeleton"]
    assert mblend.load(tmp_path / "fork.bvh").joint_names == \
        mblend.load(tmp_path / "a.bvh").joint_names  # same names, parents first
    assert sig["a"] == sig["b"] and len({sig["a"], sig["fork"], sig["renamed"]}) == 3


@pytest.mark.parametrize("name,first", [("cmu_02_01_walk.bvh", 1),
                                        ("bandai2_walk_normal_001.bvh", 0)])
def test_analyze_speed_and_height_independently(reference, name, first):
    """speed: mean horizontal root speed from the package's world positions (float64 here);
    height: the body's extent along up, which for an upright walker lies between the hip
    height and 1.2 times the head's height."""
    r = rows_of(reference["csv"])[name]
    clip = mblend.load(shared("bvh/" + name))
    names = clip.node_names
    root = 1 if name.startswith("bandai") else 0  # Bandai: a static dummy above Hips
    p = clip.positions()[first:].astype(np.float64)
    step = np.diff(p[:, root, :], axis=0)[:, [0, 2]]
    speed = np.linalg.norm(step, axis=1).sum() / ((len(p) - 1) * clip.frame_time)
    assert float(r["speed"]) == pytest.approx(speed, rel=1e-4)
    head = p[:, names.index("Head"), 1].mean() - p[:, :, 1].min()
    hips = p[:, names.index("Hips"), 1].mean() - p[:, :, 1].min()
    assert hips < float(r["height"]) < 1.2 * head


# ---------------------------------------------------------------- graph

def graph_of(data):
    return json.loads(data.decode())


def test_graph_edges_are_mblend_match(reference):
    """Every edge's frames, cost and alignment are what `mblend match` prints for that pair
    (same window and separation), and its cost is below the threshold."""
    g = graph_of(reference["graph"])
    s = g["settings"]
    assert len(g["edges"]) > 20 and len(g["nodes"]) >= 3
    cache = {}
    for e in g["edges"]:
        a = g["nodes"][e["from"]["clip"]]
        b = g["nodes"][e["to"]["clip"]]
        key = (a["path"], b["path"])
        if key not in cache:
            sep = cgraph.separation_frames(s["min_gap"], a["frame_time"])
            out = cli("match", a["path"], b["path"], "-k", 100000, "--window", s["window"],
                      "--separation", sep).stdout
            cache[key] = {(int(w["a_frame"]), int(w["b_frame"])): w
                          for w in csv.DictReader(out.splitlines())}
        w = cache[key].get((e["from"]["frame"], e["to"]["frame"]))
        assert w is not None, (key, e)
        assert e["cost"] == pytest.approx(float(w["cost"]), rel=1e-5)
        assert np.degrees(e["theta"]) == pytest.approx(float(w["theta_deg"]), abs=1e-4)
        assert e["dx"] == pytest.approx(float(w["dx"]), rel=1e-5, abs=1e-3)
        assert e["dz"] == pytest.approx(float(w["dz"]), rel=1e-5, abs=1e-3)
        clip = mblend.load(a["path"])
        from mblend.corpus._sources import analysis
        thr = s["threshold_height"] * analysis(clip, 0, "a").height
        assert e["cost"] < thr


@pytest.mark.parametrize("a,b,min_gap", [
    ("cmu_09_12_walk_navigate_long.bvh", "cmu_09_12_walk_navigate_long.bvh", 0.05),
    ("cmu_02_01_walk.bvh", "cmu_02_02_walk.bvh", 0.2),
    ("bandai2_walk_normal_001.bvh", "bandai2_walk_normal_002.bvh", 0.2)])
def test_pair_edges_are_all_match_pairs_below_threshold(a, b, min_gap):
    """pair_edges grows mb_match_find's capacity until nothing below the threshold can be
    missing: its edges are exactly the CLI's pairs below it (the CLI asked for 100000)."""
    from mblend.corpus._sources import analysis
    ca, cb = mblend.load(shared("bvh/" + a)), mblend.load(shared("bvh/" + b))
    s = corpus.Settings(threshold_height=0.06, min_gap=min_gap)
    ia = analysis(ca, 0, a)
    ib = analysis(cb, ia.up_axis, b)
    got = cgraph.pair_edges(ca, cb, ia, ib, s)
    thr = 0.06 * ia.height
    sep = cgraph.separation_frames(s.min_gap, ca.frame_time)
    out = cli("match", ca.path, cb.path, "-k", 100000, "--separation", sep).stdout
    want = [(int(w["a_frame"]), int(w["b_frame"])) for w in csv.DictReader(out.splitlines())
            if float(w["cost"]) < thr]
    if a == b:  # more than the first capacity (256): the growth is exercised
        assert len(got) > 400
    assert len(got) > 10
    assert sorted((e[0], e[1]) for e in got) == sorted(want)


def reachable(start, succ):
    seen, todo = {start}, [start]
    while todo:
        for n in succ.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def test_graph_is_strongly_connected_without_dead_ends(reference):
    """From every edge's target one can play on to an edge ahead, and every transition
    point reaches every other (checked by search here, independently of scipy)."""
    g = graph_of(reference["graph"])
    window = g["settings"]["window"]
    succ = {}
    exits = {}
    for e in g["edges"]:
        f, t = (e["from"]["clip"], e["from"]["frame"]), (e["to"]["clip"], e["to"]["frame"])
        exits.setdefault(f[0], set()).add(f[1])
        succ.setdefault(("x",) + f, set()).add(("n",) + t)
    for e in g["edges"]:
        c, b = e["to"]["clip"], e["to"]["frame"]
        lead = cgraph.lead_frames(window, g["nodes"][c]["frame_time"])
        ahead = [a for a in exits.get(c, ()) if a >= b + lead]
        assert ahead, f"dead end at clip {c} frame {b}"
        succ.setdefault(("n", c, b), set()).update(("x", c, a) for a in ahead)
    for c, frames in exits.items():
        for a in frames:
            succ.setdefault(("x", c, a), set()).update(("x", c, a2) for a2 in frames if a2 > a)
    points = set(succ)
    first = min(points)
    assert reachable(first, succ) >= points
    back = {}
    for n, ss in succ.items():
        for m in ss:
            back.setdefault(m, set()).add(n)
    assert reachable(first, back) >= points
    r = g["report"]
    assert r["clips_kept"] == len(g["nodes"]) and r["edges_kept"] == len(g["edges"])
    assert r["edges_found"] >= r["edges_kept"] and 0 < r["share_of_seconds_kept"] <= 1
    assert g["errors"] == [{"path": g["errors"][0]["path"], "error": g["errors"][0]["error"]}]
    assert g["errors"][0]["path"].endswith("corrupt.bvh")


def test_memory_blocks_cover_every_pair_once_and_fit():
    probes = {i: {"error": None, "frames": 100 + 50 * i, "nodes": 38,
                  "skeleton": "s%d" % (i % 2)} for i in range(9)}
    probes[9] = {"error": "bad", "name": "x"}
    mem = cgraph.BYTES_PER_SEARCH + 2 * 400 * 38 * cgraph.BYTES_PER_NODE_FRAME
    tiles = cgraph.plan_tiles(probes, mem, workers=1)
    seen = [(i, j) for rows, cols in tiles for i in rows for j in cols]
    want = [(i, j) for i in range(9) for j in range(9) if i % 2 == j % 2]
    assert sorted(seen) == sorted(want)
    budget = (mem - cgraph.BYTES_PER_SEARCH) // 2
    for rows, cols in tiles:
        for part in (rows, cols):
            size = sum(probes[i]["frames"] * 38 * cgraph.BYTES_PER_NODE_FRAME for i in part)
            assert size <= budget or len(part) == 1
    assert len(tiles) > 2  # the budget did split the groups


def test_small_memory_budget_gives_the_same_graph(reference, corpus_dir, tmp_path):
    out = tmp_path / "g.json"
    run_corpus("graph", corpus_dir, "--workers", 0, "--memory", "64MiB", "-o", out)
    assert out.read_bytes() == reference["graph"]


# ---------------------------------------------------------------- engines

def test_local_cluster_of_two_workers_gives_the_same_bytes(reference, corpus_dir, tmp_path):
    r = run_corpus("analyze", corpus_dir, "--workers", 2, "-o", tmp_path / "c.csv")
    assert "corrupt.bvh" in r.stderr
    assert "block" not in r.stderr  # progress only on a terminal unless asked for
    r = run_corpus("graph", corpus_dir, "--workers", 2, "--progress", "-o", tmp_path / "g.json")
    assert "graph: match: block" in r.stderr
    assert (tmp_path / "c.csv").read_bytes() == reference["csv"]
    assert (tmp_path / "g.json").read_bytes() == reference["graph"]
    # The Bandai walks' self pairs have long flat valleys of cost where sgemm's rounding
    # (which depends on OpenBLAS's thread count) decides which frame is the local minimum:
    # the engines must agree there too (the CMU component above does not contain them).
    bandai = [str(corpus_dir / f"bandai2_walk_normal_00{k}.bvh") for k in (1, 2)]
    from mblend.corpus.__main__ import main
    assert main(["graph", *bandai, "--workers", "0", "-o", str(tmp_path / "b0.json")]) == 0
    run_corpus("graph", *bandai, "--workers", 2, "-o", tmp_path / "b2.json")
    assert (tmp_path / "b0.json").read_bytes() == (tmp_path / "b2.json").read_bytes()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc):
    """SIGTERM to the process group, SIGKILL when it lingers."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=15)


@pytest.fixture
def dask_cluster(request, tmp_path):
    """A dask-scheduler and two dask-worker processes on 127.0.0.1 (free ports, no
    dashboards), each in its own process group, stopped by a finalizer whatever happens."""
    for tool in ("dask-scheduler", "dask-worker"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found (install python3-distributed)")
    port = free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=PYPATH, DASK_LOGGING__DISTRIBUTED="error")
    procs = []

    def start(args, log):
        f = open(tmp_path / log, "w")
        p = subprocess.Popen(args, stdout=f, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True, cwd=tmp_path)
        f.close()
        procs.append(p)

    def finish():
        for p in reversed(procs):
            stop(p)
    request.addfinalizer(finish)
    # every listening socket on 127.0.0.1 (the HTTP servers too: they default to all
    # interfaces)
    start(["dask-scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
           "--dashboard-address", "127.0.0.1:0"], "scheduler.log")
    for k in range(2):
        start(["dask-worker", addr, "--host", "127.0.0.1", "--nworkers", "1", "--nthreads", "1",
               "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--name", f"w{k}"],
              f"worker{k}.log")
    from distributed import Client
    deadline = time.time() + 90
    while True:
        try:
            with Client(addr, timeout="5s") as c:
                c.wait_for_workers(2, timeout=60)
                break
        except (OSError, TimeoutError):
            if time.time() > deadline or any(p.poll() is not None for p in procs):
                logs = "\n".join((tmp_path / n).read_text() for n in
                                 ("scheduler.log", "worker0.log", "worker1.log"))
                pytest.fail(f"the Dask cluster did not start:\n{logs}")
            time.sleep(0.5)
    return addr


def test_external_scheduler_gives_the_same_bytes(reference, corpus_dir, tmp_path, dask_cluster):
    run_corpus("analyze", corpus_dir, "--scheduler", dask_cluster, "-o", tmp_path / "c.csv")
    run_corpus("graph", corpus_dir, "--scheduler", dask_cluster, "--ship",
               "-o", tmp_path / "g.json")
    assert (tmp_path / "c.csv").read_bytes() == reference["csv"]
    assert (tmp_path / "g.json").read_bytes() == reference["graph"]


def test_shipped_bytes_report_errors_with_the_given_name(corpus_dir, tmp_path):
    rows = corpus.analyze_corpus(corpus.make_refs([str(corpus_dir / "corrupt.bvh"),
                                                   str(corpus_dir / "cmu_02_01_walk.bvh")],
                                                  ship=True), corpus.Engine(workers=0))
    assert rows[0]["error"].startswith(str(corpus_dir / "corrupt.bvh"))
    assert "mblend-corpus-" not in rows[0]["error"]
    assert rows[1]["error"] == "" and rows[1]["frames"] == "344"


# ---------------------------------------------------------------- walk

@pytest.fixture(scope="module")
def cmu_graph(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmu")
    for f in sorted(glob.glob(os.path.join(SHARED, "data", "bvh", "*cmu_*.bvh"))):
        os.symlink(f, d / os.path.basename(f))
    out = d / "graph.json"
    run_corpus("graph", d, "--workers", 0, "-o", out)
    return out


def root_speeds(clip, first):
    p = clip.positions()[first:, 0, :].astype(np.float64)
    return np.linalg.norm(np.diff(p, axis=0), axis=1) / clip.frame_time


def angular_speeds(clip, first):
    """(frames - 1, joints) rad/s of each joint's local rotation, in float64."""
    q = clip.rotations[first:].astype(np.float64)
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    d = np.clip(np.abs(np.sum(q[1:] * q[:-1], axis=-1)), 0.0, 1.0)
    return 2.0 * np.arccos(d) / clip.frame_time


def test_walk_is_one_continuous_clip(cmu_graph, tmp_path):
    out = tmp_path / "long.bvh"
    r = run_corpus("walk", cmu_graph, "--seconds", 60, "--seed", 1, "-o", out)
    assert "walk:" in r.stderr
    walk = mblend.load(out)
    g = json.loads(cmu_graph.read_text())
    clips = [mblend.load(n["path"]) for n in g["nodes"]]
    assert walk.frame_count == round(60 / clips[0].frame_time)
    assert walk.joint_names == clips[0].joint_names
    # the inputs after the cgspeed T-pose frame (frame 0 of these CMU files)
    root_in = max(root_speeds(c, 1).max() for c in clips)
    ang_in = np.max([angular_speeds(c, 1).max(axis=0) for c in clips], axis=0)
    root_out = root_speeds(walk, 0)
    ang_out = angular_speeds(walk, 0).max(axis=0)
    assert root_out.max() <= 1.5 * root_in
    # joints the inputs barely move are compared with 0.05 rad/s (as mb_transition_measure)
    assert np.all(ang_out <= 1.5 * np.maximum(ang_in, 0.05)), \
        (walk.joint_names[int(np.argmax(ang_out / np.maximum(ang_in, 0.05)))])
    # it walks: the root travels (roughly the inputs' speed) and the walk takes edges
    travel = np.linalg.norm(np.diff(walk.positions()[:, 0, [0, 2]], axis=0), axis=1).sum()
    assert travel > 0.5 * 60 * min(float(np.mean(root_speeds(c, 1))) for c in clips)
    _, route = corpus.walk_graph(str(cmu_graph), 60, 1, return_route=True)
    assert len(route) >= 10 and len({c for _, c, _ in route}) >= 3


def test_walk_is_reproducible(cmu_graph, tmp_path):
    a, b, c = (tmp_path / n for n in ("a.bvh", "b.bvh", "c.bvh"))
    run_corpus("walk", cmu_graph, "--seconds", 10, "--seed", 7, "-o", a)
    run_corpus("walk", cmu_graph, "--seconds", 10, "--seed", 7, "-o", b)
    run_corpus("walk", cmu_graph, "--seconds", 10, "--seed", 8, "-o", c)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()


# ---------------------------------------------------------------- usage and errors

@pytest.mark.parametrize("cmd", ["analyze", "graph", "walk"])
def test_help(cmd):
    r = run_corpus(cmd, "--help")
    assert r.stdout.startswith("usage:") and "example:" in r.stdout


def test_bad_input_writes_nothing(tmp_path, corpus_dir):
    out = tmp_path / "x.csv"
    r = run_corpus("analyze", tmp_path / "missing", "-o", out, check=False)
    assert r.returncode == 2 and "no such file or directory" in r.stderr and not out.exists()
    r = run_corpus("graph", corpus_dir, "--memory", "lots", "-o", out, check=False)
    assert r.returncode == 2 and "--memory" in r.stderr and not out.exists()
    r = run_corpus("graph", corpus_dir, "--workers", "-1", "-o", out, check=False)
    assert r.returncode == 2 and not out.exists()
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"format": cgraph.GRAPH_FORMAT, "settings": {"window": 0.25},
                                 "nodes": [], "edges": []}))
    r = run_corpus("walk", empty, "-o", tmp_path / "w.bvh", check=False)
    assert r.returncode == 1 and "no edges" in r.stderr and not (tmp_path / "w.bvh").exists()
    (tmp_path / "junk.json").write_text("[1, 2")
    r = run_corpus("walk", tmp_path / "junk.json", "-o", tmp_path / "w.bvh", check=False)
    assert r.returncode == 1 and "not a JSON file" in r.stderr
    r = run_corpus("analyze", corpus_dir, "--scheduler", f"tcp://127.0.0.1:{free_port()}",
                   "-o", out, check=False)
    assert r.returncode == 1 and "Dask scheduler" in r.stderr and not out.exists()

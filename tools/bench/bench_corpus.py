"""Throughput of `mblend.corpus graph` (issue 20): clip pairs per second per worker, and the
speed-up from 1 to 2 Dask workers (target >= 1.7x on a 2-core machine).

  PYTHONPATH=build/python /usr/bin/python3 tools/bench/bench_corpus.py [--copies N] [--runs N]

The corpus is the shared CMU clips of the common 31-joint skeleton (../shared/data/bvh:
subjects 2, 8, 9), each linked --copies times under other names in a temporary folder (the
same work as that many distinct takes; nothing is copied). Each LocalCluster is started
before its clock starts (a long-lived cluster is the normal case at scale); a timed run is
the whole graph build: reading and analysing every file, all ordered pairs through
mb_match_find, the merge and the pruning. Runs alternate 1 worker, 2 workers, 1, 2 ... and
the report gives medians, so a busy moment of the (shared) machine hits both alike.

Also printed: frame pairs per second per worker (the search is all frame pairs A x B through
BLAS, so a pair's cost grows with the product of the clips' lengths: this is the number to
extrapolate to other corpora, see docs/scale.md) and the workers' peak resident memory."""
import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time

from mblend.corpus import Engine, Settings, build_graph, find_files, make_refs

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("MB_SHARED_DIR", os.path.join(REPO, "..", "shared"))
CLIPS = ["cmu_02_01_walk", "cmu_02_02_walk", "cmu_02_03_run", "cmu_08_01_walk",
         "cmu_09_01_run", "cmu_09_02_run", "cmu_09_12_walk_navigate_long"]


def make_corpus(folder, copies):
    for k in range(copies):
        for name in CLIPS:
            src = os.path.join(SHARED, "data", "bvh", name + ".bvh")
            if not os.path.exists(src):
                sys.exit(f"bench_corpus: missing {src} (the benchmark needs ../shared/data)")
            os.symlink(src, os.path.join(folder, f"{name}_copy{k}.bvh"))
    return make_refs(find_files([folder]))


def peak_rss_mb(engine):
    """The largest peak resident set of the workers (this process when in process), MiB."""
    def rss():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    if engine.client is None:
        return rss()
    return max(engine.client.run(rss).values())


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_by_worker(engine):
    """CPU seconds used so far by each worker process (this process when in process)."""
    if engine.client is None:
        return {"self": _cpu()}
    return engine.client.run(_cpu)


def timed_build(engine, refs, settings):
    """(wall seconds, the busiest worker's CPU seconds, all workers' CPU seconds, graph)."""
    c0 = cpu_by_worker(engine)
    t = time.perf_counter()
    g = build_graph(refs, engine, settings)
    wall = time.perf_counter() - t
    c1 = cpu_by_worker(engine)
    used = [c1[k] - c0.get(k, 0.0) for k in c1]
    return wall, max(used), sum(used), g


def frame_pairs(refs):
    from mblend import load
    frames = [load(r.path).frame_count for r in refs]
    return float(sum(frames)) ** 2, sum(frames), len(frames)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=4, help="links per clip (default 4)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per engine (default 3)")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = ap.parse_args()
    settings = Settings()
    with tempfile.TemporaryDirectory(prefix="bench-corpus-") as d:
        refs = make_corpus(d, args.copies)
        fp, frames, n = frame_pairs(refs)
        pairs = n * n
        print(f"corpus: {n} clips, {frames} frames, {pairs} ordered clip pairs, "
              f"{fp:.3g} frame pairs")
        times = {0: [], 1: [], 2: []}
        cpu = {0: [], 1: [], 2: []}
        rss = {}
        load = os.getloadavg()[0]
        engines = {w: Engine(workers=w, progress=False).__enter__() for w in (0, 1, 2)}
        try:
            for w in (0, 1, 2):  # warm-up: imports on the workers, page cache
                timed_build(engines[w], refs[:len(CLIPS)], settings)
            ref_graph = None
            for _ in range(args.runs):
                for w in (1, 2, 0):
                    t, busiest, total, g = timed_build(engines[w], refs, settings)
                    times[w].append(t)
                    cpu[w].append((busiest, total))
                    text = json.dumps(g, sort_keys=True)
                    if ref_graph is None:
                        ref_graph = text
                    elif text != ref_graph:
                        sys.exit("bench_corpus: the graphs differ between engines")
            for w in (0, 1, 2):
                rss[w] = peak_rss_mb(engines[w])
        finally:
            for e in engines.values():
                e.close()
    med = {w: statistics.median(times[w]) for w in times}
    print(f"{'engine':<24}{'median s':>9}{'pairs/s/worker':>16}"
          f"{'frame pairs/s/worker':>22}{'peak RSS MiB':>14}  runs (s)")
    for w, label in ((0, "in process"), (1, "LocalCluster 1 worker"),
                     (2, "LocalCluster 2 workers")):
        k = max(w, 1)
        runs = " ".join(f"{t:.2f}" for t in times[w])
        print(f"{label:<24}{med[w]:>9.3f}{pairs / med[w] / k:>16.1f}"
              f"{fp / med[w] / k:>22.3g}{rss[w]:>14.0f}  {runs}")
    speedup = med[1] / med[2]
    # With other work on the machine the wall clock measures the share of the cores this
    # benchmark got; the workers' CPU time measures the work itself. One worker's CPU over
    # the busiest of two workers' CPU is the speed-up on two free cores (load balance and
    # per-worker overhead included, the scheduler's own time not).
    cpu1 = statistics.median(b for b, _ in cpu[1])
    cpu2 = statistics.median(b for b, _ in cpu[2])
    tot2 = statistics.median(t for _, t in cpu[2])
    print(f"CPU seconds: 1 worker {cpu1:.2f}; 2 workers {tot2:.2f} in all, the busier "
          f"{cpu2:.2f}")
    print(f"speed-up 1 -> 2 workers: {speedup:.2f}x by the wall clock, {cpu1 / cpu2:.2f}x by "
          f"the workers' CPU time (target >= 1.7x; {os.cpu_count()} cores; load average "
          f"{load:.1f} when the benchmark started)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"clips": n, "frames": frames, "clip_pairs": pairs, "frame_pairs": fp,
                       "seconds": times, "median": med, "speedup": speedup,
                       "cpu": cpu, "speedup_cpu": cpu1 / cpu2, "load_average": load,
                       "peak_rss_mib": rss}, f, indent=1)


if __name__ == "__main__":
    main()

"""python3 -m mblend.corpus analyze|graph|walk ... (see ``--help`` of each command).

Exit status: 0 done (files that fail are reported in the output and on stderr), 1 the work
failed (a cluster that cannot be reached, a graph that cannot be walked), 2 bad usage (an
unknown option, a path that does not exist). Nothing is written unless the command
succeeds."""
import argparse
import math
import sys

import mblend
from ._engine import Engine, EngineError
from ._sources import find_files, make_refs, UsageError
from . import analyze as _analyze
from . import graph as _graph
from . import walk as _walk

PROG = "python3 -m mblend.corpus"


def _positive_float(name):
    def parse(s):
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad {name} '{s}' (a number)") from None
        if not (math.isfinite(v) and v > 0):
            raise argparse.ArgumentTypeError(f"bad {name} '{s}' (a number > 0)")
        return v
    return parse


def _workers(s):
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad --workers '{s}' (an integer >= 0)") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"bad --workers '{s}' (an integer >= 0)")
    return v


def _memory(s):
    from dask.utils import parse_bytes
    try:
        v = parse_bytes(s)
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(f"bad --memory '{s}' (bytes, e.g. 512MiB or 2GB)") \
            from None
    if v < (64 << 20):
        raise argparse.ArgumentTypeError(f"bad --memory '{s}' (at least 64MiB: one pair "
                                         f"search needs about 48 MiB)")
    return v


def _engine_options(p):
    g = p.add_argument_group("engine (Dask distributed)")
    g.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="worker processes of the local Dask cluster (default: one per core; "
                        "0: run in this process without Dask)")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="use an existing Dask cluster (dask-scheduler and dask-worker on "
                        "other machines) instead of a local one; --workers is then ignored")
    g.add_argument("--ship", action="store_true",
                   help="send the files' bytes to the workers (default: workers open the "
                        "files by absolute path, e.g. on a shared filesystem)")
    g.add_argument("--memory", type=_memory, default=_memory("1GiB"), metavar="BYTES",
                   help="memory budget of one block of work on a worker (default 1GiB): "
                        "pairs are grouped into blocks whose clips fit in it")
    g.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a line per finished block on stderr (default: when stderr is a "
                        "terminal)")


def _parser():
    p = argparse.ArgumentParser(
        prog=PROG, description="Whole mocap datasets on Dask distributed: analyse every "
        "file, build a motion graph, walk it. Run '%(prog)s COMMAND --help' for details.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    a = sub.add_parser("analyze", help="one CSV row per file", description=(
        "One row per file: path, format, frames, frame_time, duration, joints, skeleton "
        "(signature of joint names and parents), up_axis, height, speed, cycle_frames, "
        "cycle_seconds, contacts_per_second and error (a file that fails gets a row that "
        "says why; the others are processed). Directories are searched recursively."),
        epilog=f"example: {PROG} analyze ../shared/data/bvh -o clips.csv")
    a.add_argument("paths", nargs="+", metavar="PATH_OR_DIR")
    a.add_argument("-o", "--output", required=True, metavar="clips.csv")
    _engine_options(a)

    g = sub.add_parser("graph", help="a motion graph as JSON", description=(
        "Transition candidates between every ordered pair of clips with the same skeleton "
        "(a clip with itself included): the frame pairs 'mblend match A B --window W "
        "--separation N' reports with cost below the threshold, as edges {from: {clip, "
        "frame}, to: {clip, frame}, cost, theta, dx, dz}, plus the clips as nodes; then "
        "pruned to the largest strongly connected component (no dead ends). The report in "
        "the file (and on stderr) says how much of the corpus that keeps."),
        epilog=f"example: {PROG} graph ../shared/data/bvh -o graph.json --min-gap 0.3")
    g.add_argument("paths", nargs="+", metavar="PATH_OR_DIR")
    g.add_argument("-o", "--output", required=True, metavar="graph.json")
    g.add_argument("--threshold", type=_positive_float("--threshold"), metavar="C",
                   help="largest edge cost (root-mean-square joint distance, file units; "
                        "default: --threshold-height times the source clip's body height)")
    g.add_argument("--threshold-height", type=_positive_float("--threshold-height"),
                   default=_graph.Settings.threshold_height, metavar="F",
                   help="the default threshold as a share of the body height "
                        f"(default {_graph.Settings.threshold_height})")
    g.add_argument("--min-gap", type=_positive_float("--min-gap"),
                   default=_graph.Settings.min_gap, metavar="S",
                   help="seconds between two edges of one clip pair (mblend match "
                        f"--separation; default {_graph.Settings.min_gap})")
    g.add_argument("--window", type=_positive_float("--window"),
                   default=_graph.Settings.window, metavar="S",
                   help="seconds of motion compared after each frame, and the length of "
                        f"the transitions a walk plays (default {_graph.Settings.window})")
    _engine_options(g)

    w = sub.add_parser("walk", help="a random walk through a graph, as one clip",
                       description=(
        "A seeded random walk through a graph written by 'graph': each edge is played as "
        "a cross-fade of the graph's window with root alignment (mb_transition_build), and "
        "the walk is written as one continuous clip (.bvh or .glb). The same graph and "
        "seed give the same clip. Runs in this process."),
        epilog=f"example: {PROG} walk graph.json --seconds 60 --seed 1 -o long.bvh")
    w.add_argument("graph", metavar="graph.json")
    w.add_argument("--seconds", type=_positive_float("--seconds"), default=60.0,
                   help="length of the output clip (default 60)")
    w.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    w.add_argument("-o", "--output", required=True, metavar="long.bvh")
    return p


def _say(text):
    print(f"mblend.corpus: {text}", file=sys.stderr)


def _run_analyze(args):
    refs = make_refs(find_files(args.paths), ship=args.ship)
    with Engine(args.workers, args.scheduler, args.progress) as eng:
        rows = _analyze.analyze_corpus(refs, eng)
    _analyze.write_csv(rows, args.output)
    bad = [r for r in rows if r["error"]]
    for r in bad:
        _say(f"{r['path']}: {r['error']}")
    _say(f"analyze: {len(rows)} files, {len(bad)} failed -> {args.output}")


def _run_graph(args):
    settings = _graph.Settings(args.threshold, args.threshold_height, args.min_gap,
                               args.window).check()
    refs = make_refs(find_files(args.paths), ship=args.ship)
    with Engine(args.workers, args.scheduler, args.progress) as eng:
        g = _graph.build_graph(refs, eng, settings, args.memory)
    _graph.write_graph(g, args.output)
    for e in g["errors"]:
        _say(f"{e['path']}: {e['error']}")
    r = g["report"]
    _say(f"graph: {r['clip_pairs']} clip pairs, {r['edges_found']} edges; the largest "
         f"strongly connected component keeps {r['clips_kept']} of {r['clips_read']} clips "
         f"({100 * r['share_of_seconds_kept']:.1f}% of {r['seconds']:.1f} s) and "
         f"{r['edges_kept']} edges -> {args.output}")


def _run_walk(args):
    clip = _walk.walk_graph(args.graph, args.seconds, args.seed, args.output)
    _say(f"walk: {clip.frame_count} frames ({clip.duration:.2f} s) -> {args.output}")


def main(argv=None):
    args = _parser().parse_args(argv)
    run = {"analyze": _run_analyze, "graph": _run_graph, "walk": _run_walk}[args.command]
    try:
        run(args)
    except UsageError as e:
        print(f"{PROG} {args.command}: {e}", file=sys.stderr)
        return 2
    except (EngineError, _walk.WalkError, mblend.Error, OSError, ValueError) as e:
        print(f"{PROG} {args.command}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""mblend.corpus: whole mocap datasets on Dask distributed.

Three commands (``python3 -m mblend.corpus COMMAND --help`` for each):

  analyze PATHS_OR_DIRS... -o clips.csv     one row per file (frames, skeleton signature,
                                            up axis, height, speed, gait cycle, contacts;
                                            an error row for a file that fails)
  graph PATHS_OR_DIRS... -o graph.json      a motion graph: transition candidates between
                                            every ordered pair of clips of one skeleton
                                            (mblend match), pruned to its largest strongly
                                            connected component
  walk graph.json --seconds 60 --seed 1 -o long.bvh
                                            a seeded random walk through the graph, played
                                            as transitions with root alignment

analyze and graph run on a Dask LocalCluster with one worker process per core by default
(``--workers N``; ``--workers 0`` runs in this process without Dask), or on an existing
cluster (``--scheduler tcp://HOST:PORT``; files by path on a shared filesystem, or sent as
bytes with ``--ship``). Outputs are sorted and formatted the same way whatever the number
of workers: the same corpus gives byte-identical files on 1 and on N workers.

From Python::

    from mblend.corpus import Engine, find_files, make_refs, analyze_corpus, build_graph
    with Engine(workers=2) as eng:
        rows = analyze_corpus(make_refs(find_files(["mocap/"])), eng)
"""
from ._engine import Engine, EngineError
from ._sources import find_files, make_refs, UsageError
from .analyze import analyze_corpus, analyze_file, write_csv, COLUMNS
from .graph import Settings, build_graph, write_graph, read_graph, pair_edges
from .walk import walk_graph, WalkError

__all__ = ["Engine", "EngineError", "find_files", "make_refs", "UsageError", "analyze_corpus",
           "analyze_file", "write_csv", "COLUMNS", "Settings", "build_graph", "write_graph",
           "read_graph", "pair_edges", "walk_graph", "WalkError"]

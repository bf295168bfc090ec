"""Where corpus work runs: in this process, on a Dask LocalCluster, or on an existing Dask
cluster. Dask does all the distribution (scheduling, transfer, retries); this module only
starts or joins it, submits one task per block and puts the results back in block order, so
nothing downstream depends on how many workers there are or which block finishes first."""
import logging
import os
import sys

__all__ = ["Engine", "EngineError"]


WAIT_FOR_WORKERS = 60.0  # seconds an existing cluster may take to show its first worker


class EngineError(RuntimeError):
    """The Dask engine cannot start or reach its scheduler."""


def _quiet_dask():
    # Dask logs cluster life-cycle chatter (workers starting, closing, heartbeats) at INFO
    # and WARNING; a command-line tool prints its own progress instead.
    for name in ("distributed", "distributed.nanny", "distributed.scheduler",
                 "distributed.worker", "distributed.core", "distributed.comm",
                 "distributed.batched", "distributed.client", "distributed.utils_perf"):
        logging.getLogger(name).setLevel(logging.ERROR)


class Engine:
    """Runs a function over blocks of work.

    workers: None (one worker process per core), 0 (in this process, no Dask) or N > 0
    (a LocalCluster of N single-threaded worker processes on 127.0.0.1). scheduler:
    ``tcp://HOST:PORT`` of an existing Dask cluster (workers is then ignored). progress:
    None (when stderr is a terminal), True or False: a line per finished block on stderr.

    Use as a context manager; :meth:`map` returns results in the order of the items."""

    def __init__(self, workers=None, scheduler=None, progress=None):
        if workers is not None and (not isinstance(workers, int) or workers < 0):
            raise ValueError(f"workers must be an integer >= 0, got {workers!r}")
        self.scheduler = scheduler
        self.workers = (os.cpu_count() or 1) if workers is None else workers
        self.progress = sys.stderr.isatty() if progress is None else bool(progress)
        self.client = None
        self.cluster = None

    @property
    def distributed(self):
        """True when work runs on Dask workers (which may be other machines)."""
        return self.client is not None

    @property
    def worker_count(self):
        """Workers available now (1 in process)."""
        if self.client is None:
            return 1
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def __enter__(self):
        if self.scheduler is None and self.workers == 0:
            return self
        _quiet_dask()
        from distributed import Client, LocalCluster
        try:
            if self.scheduler is not None:
                self.client = Client(self.scheduler, timeout="30s")  # a loaded machine is slow to answer
                # tasks would wait forever on a scheduler without workers
                self.client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
            else:
                # One thread per worker: the C library (and OpenBLAS inside it) is fastest with
                # one busy thread per core, and processes keep the GIL out of the way.
                # Everything on the loopback interface: the scheduler, the workers and the
                # scheduler's small HTTP server (no dashboard; a free port, not 8787).
                # memory_limit=0: no nanny memory monitor polling beside the two workers on a
                # small machine (1 -> 2 workers 1.67x -> 1.78x by the wall clock here); a
                # worker's memory is bounded by the tiles' --memory budget instead.
                self.cluster = LocalCluster(
                    n_workers=self.workers, threads_per_worker=1, processes=True, memory_limit=0,
                    host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR,
                    scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as e:
            connected = self.client is not None
            self.close()
            where = self.scheduler or "a LocalCluster"
            if connected and self.scheduler is not None:
                raise EngineError(f"the Dask scheduler {where} has no workers (none joined "
                                  f"within {WAIT_FOR_WORKERS:.0f} s)") from e
            raise EngineError(f"cannot start or reach the Dask scheduler ({where}): {e}") from e
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Closes the client and, when this engine started it, the LocalCluster."""
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    def scatter(self, values):
        """Sends values (e.g. file bytes) to the workers once; returns handles that tasks
        receive as the values themselves. In process: the values."""
        if self.client is None:
            return list(values)
        return self.client.scatter(list(values), hash=False)

    def map(self, fn, items, label, extra=()):
        """[fn(item, *extra) for item in items], run on the engine. Results come back in the
        order of items whatever order the blocks finish in. A failing task raises its
        exception here (tasks report per-file problems in their results instead)."""
        items = list(items)
        n = len(items)
        if n == 0:
            return []
        if self.client is None:
            out = []
            for i, it in enumerate(items):
                out.append(fn(it, *extra))
                self._tick(label, i + 1, n)
            return out
        from distributed import as_completed
        futures = [self.client.submit(fn, it, *extra, pure=False) for it in items]
        done = 0
        for _ in as_completed(futures):
            done += 1
            self._tick(label, done, n)
        return self.client.gather(futures)

    def _tick(self, label, done, n):
        if self.progress:
            print(f"{label}: block {done}/{n} done", file=sys.stderr, flush=True)

"""Where a run's chunks are played: in this process (``LocalExecutor``) or on a Dask cluster
(``DaskExecutor``), chosen once per command by ``connect`` (``--cluster local:N`` or
``--scheduler tcp://HOST:PORT``) and used by the driver's one play loop for every run the
command makes (docs/scaling.md).

The tasks are seed ranges: ``play_range(job, start, n)`` plays games ``start..start+n-1`` of the
run on a worker, which writes their rows to the run's part folder itself (storage the client and
the workers share) and sends back only the chunk's figures: the client never receives rows (a
run without a part folder, such as ``simcore.run`` without ``out``, gets the rows back).  Game
``i``'s randomness depends only on ``(seed, i)``, so
the rows are the same wherever and in whatever order the ranges are played.  A worker keeps the
game and its line-up between tasks (compiled once per worker process, loaded from the Numba
cache under ``BALANCE_CACHE_DIR`` when another process has compiled it), and refuses to join a
run whose engine differs from the client's (the source fingerprint of ``simcore.cache``).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from simcore.errors import BalanceError

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play chunks of one run; all of it pickles."""

    game: str
    setup: object
    strategies: tuple[str, ...]
    plugins: tuple[tuple[str, bytes], ...]  # (file name, source) of each plug-in
    seed: int
    threads: int | None  # the compiled loop's threads per task (None: one; a worker runs tasks side by side)
    key: str  # names the line-up build, so a worker builds it once
    folder: str | None = None  # the run's part folder, where the worker writes what it plays
    reduce: object = None  # a run without rows: what each chunk is reduced to (simcore.driver.run_games)


def make_job(game, setup, lineup, seed: int, threads: int | None, folder=None, reduce=None) -> Job:
    plugins = tuple((Path(path).name, Path(path).read_bytes()) for path in lineup.plugins)
    digest = hashlib.sha256(game.name.encode())
    for name in lineup.names:
        digest.update(b"\0" + name.encode())
    for name, source in plugins:
        digest.update(b"\0" + name.encode() + b"\0" + source)
    return Job(game.name, setup, tuple(lineup.names), plugins, seed, threads, digest.hexdigest()[:16],
               None if folder is None else str(folder), reduce)


# --------------------------------------------------------------------------------------------
# the worker's side
# --------------------------------------------------------------------------------------------

_PREPARED: dict[str, tuple] = {}  # job key -> (game, lineup), in a worker process
_PREPARING = threading.Lock()  # a worker's task threads build a line-up once


def worker_fingerprint() -> str:
    """The engine a worker runs (compared with the client's before any task is sent)."""
    from simcore.cache import FINGERPRINT

    return FINGERPRINT


def _prepared(job: Job):
    if job.key not in _PREPARED:
        from simcore.cache import CACHE_ROOT
        from simcore.outputs import write_atomic
        from simcore.registry import get_game

        paths = []
        for name, source in job.plugins:  # the client's plug-in files, by content
            folder = CACHE_ROOT / "plugin-sources" / hashlib.sha256(source).hexdigest()[:16]
            path = folder / name
            if not path.is_file() or path.read_bytes() != source:
                folder.mkdir(parents=True, exist_ok=True)
                write_atomic(path, source)
            paths.append(path)
        game = get_game(job.game)
        _PREPARED[job.key] = (game, game.lineup(list(job.strategies), len(job.strategies), paths))
    return _PREPARED[job.key]


def play_range(job: Job, start: int, n: int):
    """The task: games ``start..start+n-1`` of the job's run, written to the run's part folder
    (``job.folder``) here on the worker: (start, n, None, tallies, the part's figures), or
    reduced here (``job.reduce``: the figures carry the reduction, no row travels); without
    a folder, or where this worker does not see it (a command's scratch folder on another
    machine), the rows go back: (start, n, columns, tallies, None).  A worker runs as many
    tasks at once as it has task threads (``dask worker --nthreads``), each playing on
    ``job.threads`` of the compiled loop's threads (default one) and writing its own range.
    A worker that dies mid-write leaves only a temporary file, and Dask plays the range again
    elsewhere."""
    import numba

    with _PREPARING:
        game, lineup = _prepared(job)
    threads = min(job.threads or 1, numba.config.NUMBA_NUM_THREADS)
    folder = job.folder if job.folder is not None and Path(job.folder).is_dir() else None
    try:
        return play_chunk(game, job.setup, lineup, job.seed, start, n, threads, folder, job.reduce)
    except OSError as exc:
        from simcore.outputs import write_failure

        raise write_failure(Path(job.folder), exc) from None


# --------------------------------------------------------------------------------------------
# the client's side
# --------------------------------------------------------------------------------------------

class LocalExecutor:
    """Chunks played in this process, side by side on the run's threads: each thread plays a
    chunk and writes it (or reduces it) itself, then takes the next.  No thread waits for
    another at the end of a chunk, and writing a chunk takes one thread's time, not all of
    them (BENCHMARKS.md, "Chunks side by side").  A short run is cut into finer pieces first
    (``even_pieces``); one of fewer pieces than threads gives each piece a share of the threads
    for its compiled loop instead."""

    description = "this process"

    def play(self, game, setup, lineup, seed: int, ranges: Iterable[tuple[int, int]],
             threads: int | None, folder=None, reduce=None, leftover=None) -> Iterator[tuple]:
        """(start, n, None, tallies, figures) per range, in the ranges' order, the part written
        to ``folder`` (or the chunk reduced by ``reduce``); with neither, (start, n, columns,
        tallies, None).  Closed early (an interrupt, an error), it waits for the chunks being
        played, so that nothing writes after the run ends, and hands each one finished but
        not yielded to ``leftover``."""
        from concurrent.futures import ThreadPoolExecutor

        import numba

        threads = numba.get_num_threads() if threads is None else threads
        ranges = even_pieces(list(ranges), threads)
        side = max(1, min(threads, len(ranges)))  # the loops hold no lock and no parallel region: any number at once
        each = max(1, threads // side)  # the compiled loop's threads per chunk
        stopped = threading.Event()  # a chunk failed, or the run stops: start no other

        def task(start: int, n: int):
            if stopped.is_set():
                return None
            try:
                return play_chunk(game, setup, lineup, seed, start, n, each, folder, reduce)
            except BaseException:
                stopped.set()
                raise

        pending, running = deque(ranges), deque()
        with ThreadPoolExecutor(side, thread_name_prefix="balance-chunk") as pool:
            try:
                while pending or running:
                    while pending and len(running) < 2 * side:  # one playing and one waiting per thread
                        running.append(pool.submit(task, *pending.popleft()))
                    result = running[0].result()  # still in ``running`` if Ctrl-C comes while it waits
                    running.popleft()
                    yield result
            finally:
                stopped.set()
                for future in running:
                    future.cancel()
                for future in running:
                    if (not future.cancelled() and future.exception() is None and future.result() is not None
                            and leftover is not None):
                        leftover(future.result())


PIECES_A_THREAD = 4  # a run of fewer chunks than this per thread is cut finer, so no thread idles long at its end
MIN_PIECE = 4096  # games: below this a piece is not worth a thread (and a part file) of its own


def even_pieces(ranges: list[tuple[int, int]], threads: int) -> list[tuple[int, int]]:
    """``ranges`` as the threads should play them.  A long run (at least ``PIECES_A_THREAD``
    chunks a thread) is left as it is: the last round of chunks costs at most a quarter of a
    chunk a thread.  A shorter one (a chunk or three, or one long chunk and one short) is cut
    into about ``PIECES_A_THREAD`` pieces a thread, so that every thread plays to the end; a
    piece is at least ``MIN_PIECE`` games (a run of a few hundred games is one piece, its
    chunk's compiled loop on every thread).  Every game depends only on (seed, index), so the
    rows do not depend on the cut."""
    if len(ranges) >= PIECES_A_THREAD * threads or threads < 2:
        return ranges
    total = sum(n for _, n in ranges)
    piece = max(MIN_PIECE, -(-total // (PIECES_A_THREAD * threads)))
    return [(at, min(piece, start + n - at)) for start, n in ranges for at in range(start, start + n, piece)]


def play_chunk(game, setup, lineup, seed: int, start: int, n: int, threads: int, folder=None, reduce=None):
    """Games ``start..start+n-1`` played on this thread (its compiled loop on ``threads``
    threads), then written to the part folder ``folder`` or reduced by ``reduce`` here:
    (start, n, None, tallies, figures); with neither, (start, n, columns, tallies, None).  A
    failed write is the ``OSError`` of ``simcore.parts.write_part``."""
    import numba

    numba.set_num_threads(threads)  # this thread's own setting
    columns = game.run_chunk(setup, lineup, seed, start, n)
    tallies = game.take_tallies()
    if reduce is not None:
        from simcore.parts import reduce_chunk

        return start, n, None, tallies, reduce_chunk(reduce, columns, tallies)
    if folder is None:
        return start, n, columns, tallies, None
    from simcore.parts import write_part

    return start, n, None, tallies, write_part(Path(folder), start, n, columns, tallies)


class DaskExecutor:
    """Chunks as tasks on a Dask cluster; a few per worker in flight, so the client's memory
    holds a bounded number of chunks whatever the run's size."""

    def __init__(self, client, description: str):
        self.client = client
        self.description = description
        self.checked = False

    def task_threads(self) -> int:
        """The cluster's task threads in all: the ranges it plays at once."""
        return max(1, sum(self.client.nthreads().values()))

    def check_workers(self) -> None:
        from simcore.cache import FINGERPRINT

        if self.checked:
            return
        try:
            self.client.wait_for_workers(1, timeout=60)
        except (TimeoutError, OSError):
            raise BalanceError(f"the Dask cluster at {self.description} has no workers (start some with "
                               "`dask worker ADDRESS`)") from None
        prints = self.client.run(worker_fingerprint)
        other = {address: fp for address, fp in prints.items() if fp != FINGERPRINT}
        if other:
            address, fp = next(iter(other.items()))
            raise BalanceError(f"Dask worker {address} runs another balance engine (source fingerprint {fp}, "
                               f"here {FINGERPRINT}): install the same balance on every machine")
        self.checked = True

    def play(self, game, setup, lineup, seed: int, ranges: Iterable[tuple[int, int]],
             threads: int | None, folder=None, reduce=None, leftover=None) -> Iterator[tuple]:
        """Each range as a task; with a part folder the workers write the rows (with ``reduce``
        they reduce them) and send back (start, n, None, tallies, figures)."""
        from distributed import as_completed

        self.check_workers()
        # a key of its own (hash=False): a scatter of equal contents would share the key of an
        # earlier run's job, which the scheduler may be releasing just then, and that run's
        # release would cancel this run's tasks ("lost dependencies")
        job = self.client.scatter(make_job(game, setup, lineup, seed, threads, folder, reduce), broadcast=True,
                                 hash=False)
        pending = deque(ranges)
        window = 2 * self.task_threads()  # per task thread: one playing (and writing), one waiting
        running = as_completed()
        futures = set()

        def submit():
            start, n = pending.popleft()
            future = self.client.submit(play_range, job, start, n, pure=False)
            futures.add(future)
            running.add(future)

        try:
            while pending and len(futures) < window:
                submit()
            for future in running:
                futures.discard(future)
                result = future.result()  # a worker's BalanceError arrives here as itself
                future.release()
                if pending:
                    submit()
                yield result
        finally:
            for future in futures:
                future.cancel()


_ACTIVE: list = []


def current_executor():
    """The executor of the innermost ``connect`` block, or None (play in this process)."""
    return _ACTIVE[-1] if _ACTIVE else None


CLUSTER_SPEC = re.compile(r"local:(\d+)")


def parse_cluster(spec: str) -> int:
    match = CLUSTER_SPEC.fullmatch(spec.strip())
    workers = int(match.group(1)) if match else 0
    if not 1 <= workers <= 256:
        raise BalanceError(f"--cluster must be local:N with N worker processes from 1 to 256, not '{spec}'")
    return workers


@contextlib.contextmanager
def connect(cluster: str | None = None, scheduler: str | None = None):
    """Within the block every run plays its chunks on the cluster asked for: ``local:N`` (N
    worker processes on this machine, the cores shared out among them) or an existing
    scheduler's address.  Neither: the block changes nothing."""
    if cluster is None and scheduler is None:
        yield None
        return
    with open_executor(cluster, scheduler) as executor, use(executor):
        yield executor


@contextlib.contextmanager
def open_executor(cluster: str | None = None, scheduler: str | None = None, task_threads: int | None = None):
    """A ``DaskExecutor`` on a new local cluster (``local:N``, each worker with ``task_threads``
    task threads: default its share of the cores) or an existing scheduler, closed (with its
    local cluster) at the end of the block."""
    import logging

    if cluster is not None and scheduler is not None:
        raise BalanceError("give --cluster or --scheduler, not both")
    with contextlib.ExitStack() as stack:
        if cluster is not None:
            workers = parse_cluster(cluster)
            client = stack.enter_context(_local_cluster(workers, task_threads))
            description = f"local:{workers}"
        else:
            client = stack.enter_context(_remote(scheduler))
            description = scheduler
        logging.getLogger("distributed").setLevel(logging.ERROR)
        yield DaskExecutor(client, description)


@contextlib.contextmanager
def use(executor):
    """Make ``executor`` the one every run in the block uses (``current_executor``)."""
    _ACTIVE.append(executor)
    try:
        yield executor
    finally:
        _ACTIVE.remove(executor)


@contextlib.contextmanager
def _local_cluster(workers: int, task_threads: int | None = None):
    import logging
    import warnings

    from distributed import Client, LocalCluster

    from simcore.cache import CACHE_ROOT

    cores = os.cpu_count() or 1
    share = max(1, cores // workers)
    env = {
        # each worker process gets its share of the cores for its compiled loops
        "NUMBA_NUM_THREADS": str(share),
        # the same engine and the same compile cache as this process
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
        "BALANCE_CACHE_DIR": str(CACHE_ROOT),
        "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", ""),
    }
    try:
        with warnings.catch_warnings():  # e.g. "port 8787 is in use": a free port is taken, nothing to say
            warnings.simplefilter("ignore")
            # a task thread per core: each plays a range and writes it, side by side with the others
            cluster = LocalCluster(n_workers=workers, threads_per_worker=task_threads or share, processes=True,
                                   dashboard_address=":0",
                                   silence_logs=logging.CRITICAL, env=env)
    except OSError as exc:
        raise BalanceError(f"cannot start a local Dask cluster: {exc}") from None
    try:
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


CONNECT_TIMEOUT = "15s"  # how long --scheduler keeps trying a scheduler that does not answer


@contextlib.contextmanager
def _remote(address: str):
    from distributed import Client

    if not re.fullmatch(r"(tcp|tls|ws|wss|inproc)://\S+", address.strip()):
        raise BalanceError(f"--scheduler must be a Dask scheduler address such as tcp://10.0.0.5:8786, "
                           f"not '{address}'")
    try:
        client = Client(address.strip(), timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise BalanceError(f"cannot reach the Dask scheduler at {address}: {' '.join(str(exc).split())[:160]}") \
            from None
    try:
        yield client
    finally:
        client.close()

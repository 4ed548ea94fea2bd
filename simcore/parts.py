"""A run on disk: a folder of Parquet files, one per chunk, written where the chunk was played.

``balance simulate --out runs/bw4.parquet`` leaves a folder ``runs/bw4.parquet/``:

- ``part-<start>-<games>.parquet``, one per chunk (20-digit numbers, so the names sort in game
  order): the chunk's rows, compressed once (``PART_CODEC``), by the thread or the Dask worker
  that played it, with the chunk's own figures (win sums, run-level tallies) in its footer
  (``PART_KEY``);
- ``_run.parquet``: no rows, the run's columns and the run's metadata (``META_KEY``).

Polars (``pl.scan_parquet("runs/bw4.parquet")``), pandas, pyarrow, Spark (which skip ``_``
files) and DuckDB (``'runs/bw4.parquet/*.parquet'``) read the folder as one table in game order
(Spark with the reader that takes BYTE_STREAM_SPLIT integers: docs/scaling.md).
Why a folder rather than one file: a Parquet file is written front to back by one writer, so
one file means one thread re-encoding every row at the end (half the play loop's time on one
thread, BENCHMARKS.md "A run end to end"); a folder is written in parallel as the run goes, and
finishing it costs a rename.

While the run plays, the parts go to a hidden folder beside the target, ``.<name>.parts/``, with
``manifest.json`` (the run's configuration); each part is written under a temporary name and
renamed into place when complete, so the parts present are a durable record of the chunks done
(``--resume`` reads it).  At the end the manifest makes way for ``_run.parquet`` and the folder
is renamed to the target in one step: the run appears complete or not at all.

``simulate`` without ``--out`` writes no parts: each chunk is reduced to the summary's totals
where it was played (``simcore.driver.run_games(reduce=)``).

Nothing here compiles or is imported by compiled code: editing it keeps the compile cache.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np

from simcore.errors import BalanceError
from simcore.outputs import write_failure

META_KEY = "balance"  # the run's metadata, in _run.parquet (and in a single-file run of before)
PART_KEY = "balance_part"  # a part's own figures (win sums, run-level tallies) in its footer
RUN_FILE = "_run.parquet"  # the run's metadata and columns, no rows
PART_NAME = re.compile(r"part-(\d{20})-(\d{20})\.parquet")
CONFIG_ORDER = ("game", "players", "seed", "games", "precision", "strategies", "plugins", "variant", "rules",
                "engine", "version", "schema")  # the order a refused --resume names a difference in
# How a part is encoded (BENCHMARKS.md, "Chunks side by side"): every column is fixed-width,
# written BYTE_STREAM_SPLIT (byte k of every value together: the high bytes of small numbers are
# runs of zeros) and compressed with LZ4, with no dictionary and no statistics.  For a 262,144-game
# BIRD & WEATHER chunk that is 20 ms of one core and 31 B a game, against 49 ms and 26 B for
# Polars' own choice at zstd level 1; zstd on the same split bytes is 34 ms and 22 B.
PART_CODEC = "lz4"  # LZ4_RAW in the file
PART_PAGE = 1 << 20  # bytes per data page (larger pages cost no less with these encodings)


def parts_folder(out: Path) -> Path:
    return out.parent / f".{out.name}.parts"


def part_name(start: int, n: int) -> str:
    return f"part-{start:020d}-{n:020d}.parquet"


def chunk_wins(columns: dict[str, np.ndarray]) -> list[float]:
    """Each seat's summed win share in a chunk: exact, every share is a float32 k-way split
    summed in float64 (whose 53 bits hold such a sum of up to 2^27 games in any order, so
    NumPy's summing straight from float32 gives the same number as a float64 copy would)."""
    seats = sorted(int(name[6:]) for name in columns if name.startswith("share_"))
    return [float(columns[f"share_{s}"].sum(dtype=np.float64)) for s in seats]


def reduce_chunk(reduce, columns: dict[str, np.ndarray], tallies) -> dict:
    """A chunk of a run that keeps no rows (``simcore.driver.run_games(reduce=)``): its figures,
    as a part's, with ``reduce(columns)`` in place of a file.  On the thread or the Dask worker
    that played the chunk, like ``write_part``."""
    return {"wins": chunk_wins(columns), "tallies": tallies, "reduced": reduce(columns)}


def write_part(folder: Path, start: int, n: int, columns: dict[str, np.ndarray], tallies) -> dict:
    """Write games start..start+n-1 of a run as one part file in ``folder`` and return the
    chunk's figures (also in the file's footer).  Called by the thread or the Dask worker that
    played the chunk: pyarrow lets go of the interpreter while it encodes and writes.  The file
    is written under a name of its own and renamed into place when complete; a failed write is
    an ``OSError`` for the caller to report."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    figures = {"wins": chunk_wins(columns), "tallies": tallies}
    staged = Path(folder) / f".part-{start:020d}.{os.getpid()}.{id(columns):x}.tmp"
    arrays = [_arrow(pa, values) for values in columns.values()]
    # no column has a null: declared so (Parquet REQUIRED), the writer encodes no definition
    # levels, 14 ms a BIRD & WEATHER chunk against 19 ms
    schema = pa.schema([pa.field(name, array.type, nullable=array.null_count > 0) for name, array in zip(columns, arrays)],
                       metadata={PART_KEY: json.dumps(figures)})
    table = pa.Table.from_arrays(arrays, schema=schema)
    try:
        pq.write_table(table, staged, compression=PART_CODEC, use_dictionary=False, write_statistics=False,
                       column_encoding={name: "BYTE_STREAM_SPLIT" for name, values in columns.items()
                                        if values.dtype.kind in "iuf"}, data_page_size=PART_PAGE)
        os.replace(staged, Path(folder) / part_name(start, n))
    except BaseException as exc:
        staged.unlink(missing_ok=True)
        if isinstance(exc, (pa.ArrowException, ValueError)) and not isinstance(exc, OSError):  # a full disk
            raise OSError(str(exc)) from exc
        raise
    return figures


def _arrow(pa, values: np.ndarray):
    """A column as an Arrow array: a numeric one from its bytes (made contiguous: the kernels'
    columns are strided views of games-first blocks), since ``pa.array`` of NumPy imports pandas,
    0.17 s at a run's first part."""
    if values.dtype.kind not in "iuf":
        return pa.array(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [None, pa.py_buffer(np.ascontiguousarray(values))])


def part_figures(path: Path) -> dict:
    """The figures a part file carries in its footer."""
    import polars as pl

    return json.loads(pl.read_parquet_metadata(path)[PART_KEY])


class Parts:
    """The folder a run writes its chunks to: ``manifest.json`` (the run's configuration) and one
    part file per finished chunk (``write_part``)."""

    def __init__(self, out: Path):
        self.out = out
        self.folder = parts_folder(out)
        self.done: dict[int, tuple[int, dict]] = {}  # start -> (games, the part's figures)
        self.mine = False  # made (or taken over) by this run: it may remove it

    def open(self, config: dict, resume: bool) -> None:
        """Start the folder afresh, or (``resume``) take the chunks it holds if its manifest
        matches ``config``."""
        importlib.import_module("pyarrow.parquet")  # the writer, imported now rather than on the play loop's clock

        if self.folder.exists() and not resume:
            shutil.rmtree(self.folder, ignore_errors=True)
        if self.folder.exists():
            self._reuse(config)
            self.mine = True
            return
        self.mine = True
        try:
            self.folder.mkdir()
            staged = self.folder / ".manifest.tmp"
            staged.write_text(json.dumps({"config": config}, indent=1) + "\n", encoding="utf-8")
            os.replace(staged, self.folder / "manifest.json")
        except OSError as exc:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise write_failure(self.out, exc) from None

    def _reuse(self, config: dict) -> None:
        import polars as pl


        try:
            old = json.loads((self.folder / "manifest.json").read_text(encoding="utf-8"))["config"]
        except (OSError, ValueError, KeyError, TypeError):
            raise BalanceError(f"{self.folder} holds no readable manifest: run with --force to start over") from None
        if old != config:
            keys = [k for k in CONFIG_ORDER if k in config] + sorted(set(old) | set(config) - set(CONFIG_ORDER))
            key = next(k for k in keys if old.get(k) != config.get(k))
            raise BalanceError(f"--resume: the unfinished run of {self.out} has {key} {_short(old.get(key))}, this "
                               f"command {_short(config.get(key))}; give the same command, or --force to start over")
        for path in self.folder.iterdir():
            match = PART_NAME.fullmatch(path.name)
            if match is None:
                if path.name != "manifest.json":
                    path.unlink(missing_ok=True)  # an unfinished write
                continue
            try:
                figures = part_figures(path)
            except (OSError, KeyError, TypeError, ValueError, pl.exceptions.PolarsError):  # ArrowInvalid: a ValueError
                path.unlink(missing_ok=True)  # unreadable: played again
                continue
            self.done[int(match.group(1))] = (int(match.group(2)), figures)

    def games(self) -> int:
        return sum(n for n, _ in self.done.values())

    def path(self, start: int, n: int) -> Path:
        return self.folder / part_name(start, n)

    def record(self, start: int, n: int, figures: dict) -> None:
        self.done[start] = (n, figures)

    def kept(self) -> str:
        games = self.games()
        return (f"{games:,} finished games kept in {self.folder}: run the same command with --resume to finish"
                if games else "")

    def missing(self, low: int, high: int, chunk: int) -> list[tuple[int, int]]:
        """The chunks of games low..high-1 not done yet, at most ``chunk`` games each."""
        ranges, at = [], low
        for start in sorted(self.done):
            n = self.done[start][0]
            if start + n <= at or start >= high:
                continue
            ranges += split(at, min(start, high), chunk)
            at = max(at, start + n)
        return ranges + split(at, high, chunk)

    def publish(self, included: list[int], meta: dict) -> None:
        """Make the folder the finished run: parts outside ``included`` (played past a stop)
        removed, the manifest replaced by ``_run.parquet``, and the folder renamed to the
        target in one step (a run already there, file or folder, is moved aside first and
        removed after)."""
        import polars as pl

        absent = [s for s in included if not self.path(s, self.done[s][0]).is_file()]
        if absent:  # a Dask worker wrote them to a folder of the same name that this machine does not see
            start = absent[0]
            raise BalanceError(f"games {start:,}..{start + self.done[start][0] - 1:,} were written by a Dask worker to "
                               f"a folder {self.folder} that this machine does not see: put --out on storage every "
                               "worker shares (docs/scaling.md)")
        keep = {self.path(s, self.done[s][0]).name for s in included}
        staged = self.folder / ".run.tmp"
        try:
            first = self.folder / min(keep)
            empty = pl.scan_parquet(first).head(0).collect()
            empty.write_parquet(staged, metadata={META_KEY: json.dumps(meta)})
            os.replace(staged, self.folder / RUN_FILE)
            for path in self.folder.iterdir():  # parts played past a stop, then the manifest
                if path.name not in keep and path.name not in (RUN_FILE, "manifest.json"):
                    path.unlink()
            (self.folder / "manifest.json").unlink()
            old = None
            if self.out.exists() or self.out.is_symlink():
                old = self.out.parent / f".{self.out.name}.replaced-{os.getpid()}"
                os.replace(self.out, old)
            os.replace(self.folder, self.out)
        except (OSError, pl.exceptions.PolarsError) as exc:
            staged.unlink(missing_ok=True)
            (self.folder / RUN_FILE).unlink(missing_ok=True)
            raise write_failure(self.out, exc, self.kept()) from None
        if old is not None:
            remove_run(old)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def split(low: int, high: int, chunk: int) -> list[tuple[int, int]]:
    return [(s, min(chunk, high - s)) for s in range(low, high, chunk)]


def _short(value) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------------------------
# reading a run: a folder as written above, or one Parquet file (as balance wrote before)
# --------------------------------------------------------------------------------------------

def is_run_folder(path: Path) -> bool:
    return Path(path).is_dir() and (Path(path) / RUN_FILE).is_file()


def run_files(path) -> list[Path]:
    """The Parquet files holding a run's rows, in game order."""
    path = Path(path)
    if path.is_dir():
        return sorted(p for p in path.iterdir() if PART_NAME.fullmatch(p.name))
    return [path]


def scan_run(path):
    """A run's rows as one lazy Polars frame (a run folder or a single Parquet file)."""
    import polars as pl

    files = run_files(path)
    if not files:  # a run folder of no parts: its columns, no rows
        return pl.scan_parquet(Path(path) / RUN_FILE)
    return pl.scan_parquet(files)


def run_key_values(path) -> dict[str, str]:
    """The key-value metadata of a run (``META_KEY`` holds the run's JSON metadata)."""
    import polars as pl

    path = Path(path)
    return pl.read_parquet_metadata(path / RUN_FILE if path.is_dir() else path)


def run_bytes(path) -> int:
    """A run's size on disk."""
    path = Path(path)
    return sum(p.stat().st_size for p in path.iterdir()) if path.is_dir() else path.stat().st_size


def remove_run(path) -> None:
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def run_meta(path) -> dict:
    """A run's metadata (what ``simulate --out`` recorded: game, seed, strategies, figures ...)."""
    return json.loads(run_key_values(path)[META_KEY])

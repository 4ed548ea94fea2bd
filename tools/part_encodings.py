"""What a part costs to write, per encoding (BENCHMARKS.md, "Chunks side by side"):

    python tools/part_encodings.py GAME [GAME ...]

plays one 262,144-game chunk of each GAME (4 players, random seats) and writes it to memory
five times per encoding: Polars' own choice at zstd level 1 (how parts were written before), and
pyarrow with every column REQUIRED and BYTE_STREAM_SPLIT under LZ4, zstd 1, zstd -1, zstd -3, and zstd 1 with
the hands under LZ4.  Prints the best CPU milliseconds of one core (the table's build included)
and the bytes a game."""
import io
import os
import sys
import time

sys.path.insert(0, os.getcwd())
import polars as pl  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from simcore.driver import DEFAULT_CHUNK as N  # noqa: E402
from simcore.registry import get_game  # noqa: E402


def best(f, n=5):
    fastest = 1e9
    for _ in range(n):
        started = time.process_time()
        out = f()
        fastest = min(fastest, time.process_time() - started)
    return fastest * 1000, out


for name in sys.argv[1:]:
    game = get_game(name)
    variant = game.variant()
    setup = game.setup(4, variant)
    columns = game.run_chunk(setup, game.lineup("random", 4), 7, 0, N)
    game.take_tallies()
    print(name, sorted({str(a.dtype) for a in columns.values()}), len(columns), "columns")

    def polars_zstd():
        buffer = io.BytesIO()
        pl.DataFrame(columns).write_parquet(buffer, compression="zstd", compression_level=1, statistics=False,
                                            data_page_size=8 << 20)
        return len(buffer.getvalue())

    def split(codec, level=None, hands=None):
        def write():
            buffer = io.BytesIO()
            table = pa.table(columns)  # as simcore.parts.write_part declares them: no column has a null
            table = table.cast(pa.schema([pa.field(f.name, f.type, nullable=False) for f in table.schema]))
            pq.write_table(table, buffer, write_statistics=False, use_dictionary=False,
                           column_encoding={k: "BYTE_STREAM_SPLIT" for k in columns},
                           compression={k: hands if hands and k.startswith("hand") else codec for k in columns},
                           compression_level=level)
            return len(buffer.getvalue())
        return write

    for label, write in [("Polars zstd 1", polars_zstd), ("BSS lz4", split("lz4")), ("BSS zstd 1", split("zstd", 1)),
                         ("BSS zstd -1", split("zstd", -1)), ("BSS zstd -3", split("zstd", -3)),
                         ("BSS zstd 1, hands lz4", split("zstd", 1, "lz4"))]:
        ms, size = best(write)
        print(f"  {label:22s} {ms:.1f} ms {size / N:.2f} B/game")

"""Where each second of a run to a file goes (BENCHMARKS.md, "A run end to end").

    python tools/endtoend.py CHECKOUT GAMES THREADS OUT

plays BIRD & WEATHER (4 players, random, seed 1) with the CHECKOUT's code (this commit or an old
one, checked out elsewhere with `git worktree add`) and prints one JSON line: the run's wall and
CPU seconds, and the seconds spent in the compiled play loop, in building each chunk's columns,
in writing parts (the writer calls' time summed over the threads that make them; with several
threads these overlap the play), in
merging parts into one file (before runs were folders) and in finishing the run."""
import sys, time, importlib, threading, json, os
repo, games, threads, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, repo)
os.chdir(repo)
from simcore.registry import get_game
from simcore import driver
g = get_game("bird-weather"); v = g.variant(); setup = g.setup(4, v); lineup = g.lineup("random", 4)
kernels = lineup.kernels if hasattr(lineup, "kernels") else importlib.import_module(g.kernels_module)
acc = {"kernel": 0.0, "run_chunk": 0.0, "write_wall": 0.0, "merge": 0.0, "publish": 0.0}
lock = threading.Lock()
def timed(name, f):
    def w(*a, **k):
        t = time.perf_counter()
        try: return f(*a, **k)
        finally:
            with lock:
                acc[name] += time.perf_counter() - t
    return w
kernels.run_chunk = timed("kernel", kernels.run_chunk)
type(g).run_chunk = timed("run_chunk", type(g).run_chunk)
if hasattr(driver, "merge_parts"):
    driver.merge_parts = timed("merge", driver.merge_parts)
    driver.Parts.write = timed("write_wall", driver.Parts.write)
else:
    import simcore.parts as parts
    parts.write_part = timed("write_wall", parts.write_part)  # where the chunk's own thread finds it
    driver.write_part = parts.write_part
    parts.Parts.publish = timed("publish", parts.Parts.publish)
driver.compile_kernels(g, setup, lineup, 1, announce=False)
g.take_tallies()
t = time.perf_counter(); c = time.process_time()
r = driver.run_games(g, setup, lineup, v, 1, games, threads=threads, out=out, progress=False, keep_frame=False, force=True)
wall = time.perf_counter() - t; cpu = time.process_time() - c
acc = {k: round(x, 2) for k, x in acc.items()}
acc["columns"] = round(acc.pop("run_chunk") - acc["kernel"], 2)
print(json.dumps({"games": games, "threads": threads, "wall": round(wall, 2), "cpu": round(cpu, 2), **acc}))

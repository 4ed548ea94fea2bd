"""`make demo` and `make test` on a fresh clone, timed, kept as a result in benchmarks/.

Clones this checkout's HEAD into a scratch folder (nothing of this checkout's .venv or compile
cache comes with it), runs each command there as a newcomer would, and writes what it measured,
with the commit, date and machine, for tools/benchmarks.py's table.

    .venv/bin/python tools/fresh_clone.py [--demo] [--test] [--out benchmarks/NAME.json]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from simcore.bench import machine, provenance

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", action="store_true", help="time `make demo`")
    parser.add_argument("--test", action="store_true", help="time `make test`")
    parser.add_argument("--out", type=Path, help="where to keep the result (default: benchmarks/<date>-<commit>-fresh-clone.json)")
    args = parser.parse_args()
    if not (args.demo or args.test):
        parser.error("give --demo, --test or both")
    origin = provenance()
    result = {"kind": "fresh-clone", **origin, "machine": machine(), "notes": {}}
    with tempfile.TemporaryDirectory(prefix="balance-clone-") as scratch:
        clone = Path(scratch) / "balance"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        env = {k: v for k, v in __import__("os").environ.items() if k not in ("BALANCE_CACHE_DIR", "NUMBA_CACHE_DIR",
                                                                               "VIRTUAL_ENV", "PYTHONPATH")}
        for flag, target in ((args.demo, "demo"), (args.test, "test")):
            if not flag:
                continue
            started = time.perf_counter()
            # the first command creates .venv (pip install) and compiles: a fresh clone pays both
            done = subprocess.run(["make", target], cwd=clone, env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - started
            print(f"make {target}: exit {done.returncode} in {seconds:.0f} s", file=sys.stderr)
            if done.returncode != 0:
                print(done.stdout[-3000:] + done.stderr[-3000:], file=sys.stderr)
                raise SystemExit(f"make {target} failed on the fresh clone")
            result[f"make_{target}_seconds"] = round(seconds, 1)
            first = "the venv made and the kernels compiled first" if target == "demo" or not args.demo else \
                "after make demo (venv made, the demo's kernels compiled)"
            result["notes"][f"make_{target}_seconds"] = first
    out = args.out or ROOT / "benchmarks" / f"{origin['date'][:10]}-{origin['commit']}-fresh-clone.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

"""BENCHMARKS.md is a reference, generated from the results the project keeps (benchmarks/*.json),
and the engine's estimates are read from the same files, never typed into the code."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from simcore import measured

ROOT = Path(__file__).resolve().parents[2]


def test_the_tables_are_generated_from_the_kept_results():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "benchmarks.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 400
    kept = [entry for entry in measured.kept() if "random_1_thread" in entry]
    assert kept, "no balance bench result is kept in benchmarks/"
    for entry in kept:  # every kept result says what made it, when and where
        assert entry["commit"] and entry["date"] and entry["machine"]["cpu"] and entry["machine"]["cores"]


def test_every_note_is_listed_and_every_listed_note_exists():
    notes = ROOT / "docs" / "perf-notes"
    files = sorted(p.name for p in notes.glob("*.md") if p.name != "README.md")
    index = (notes / "README.md").read_text(encoding="utf-8")
    reference = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    for name in files:
        assert f"]({name})" in index and f"](docs/perf-notes/{name})" in reference, name


def test_the_estimates_are_the_newest_kept_measurement(tmp_path):
    older = [{"game": "triatri", "date": "2026-11-01T00:00:00+00:00", "first_compile_seconds": {"stock": 50, "random": 9},
              "machine": {"cpu": "Old CPU", "cores": 2}}]
    newer = [{"game": "triatri", "date": "2026-12-01T00:00:00+00:00", "first_compile_seconds": {"stock": 14.2, "random": 7.5},
              "machine": {"cpu": "AMD  EPYC", "cores": 2}},
             {"game": "my-game.toml", "date": "2026-12-01T00:00:00+00:00", "first_compile_seconds": {"stock": 20, "random": 8},
              "machine": {"cpu": "AMD EPYC", "cores": 2}}]
    (tmp_path / "a.json").write_text(json.dumps(older))
    (tmp_path / "b.json").write_text(json.dumps(newer))
    (tmp_path / "broken.json").write_text("{")
    assert measured.first_compile("triatri", "stock", tmp_path) == 14.2
    assert measured.first_compile("triatri", "random", tmp_path) == 7.5
    assert measured.first_compile("examples/games/hearts.toml", "random", tmp_path) == 8  # any rules file's
    assert measured.first_compile("chimera", "stock", tmp_path) is None
    assert measured.machine_phrase("triatri", tmp_path) == "a 2-core AMD EPYC"


def test_no_compile_estimate_is_written_in_the_code():
    from simcore import driver, warm

    for module in (driver, warm):
        assert not [name for name in vars(module) if "COMPILE_SECONDS" in name], module.__name__

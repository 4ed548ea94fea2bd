"""Progress of long work on stderr, the same for every command: a run's games, a tournament's
plays, a tune's candidates.  A rich bar on a terminal; in a pipe or a log one plain line now and
then, so a CI log or ``2> log`` stays readable; nothing with ``--quiet`` or ``--json``."""
from __future__ import annotations

import os
import time

# seconds between two progress lines when stderr is not a terminal (a pipe, a log file)
PROGRESS_EVERY = float(os.environ.get("BALANCE_PROGRESS_SECONDS") or 10.0)


class Progress:
    """Progress on stderr: a rich bar on a terminal (done, rate, time left); in a pipe or a log,
    one plain line every PROGRESS_EVERY seconds (and a last one when any was written); nothing
    when disabled.  ``advance(n)`` counts n more of ``unit`` done."""

    def __init__(self, enabled: bool, total: int, label: str, unit: str = "games"):
        import sys

        self.enabled, self.total, self.label, self.unit = enabled, total, label, unit
        self.terminal = enabled and sys.stderr.isatty()

    def __enter__(self):
        self.t0 = time.perf_counter()
        self.done = 0
        if not self.enabled:
            return lambda n: None
        if not self.terminal:
            return self._lines()
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"),
                            TimeRemainingColumn(), console=Console(stderr=True), transient=False)
        self.bar.__enter__()
        self.task = self.bar.add_task(self.label, total=self.total, rate="")

        def advance(n):
            self.done += n
            rate = self.done / max(time.perf_counter() - self.t0, 1e-9)
            self.bar.update(self.task, advance=n, rate=f"{rate:,.0f} {self.unit}/s")

        return advance

    def _lines(self):
        import sys

        self.last = self.t0
        self.written = False

        def advance(n):
            self.done += n
            now = time.perf_counter()
            if n == 0 or now - self.last < PROGRESS_EVERY:  # nothing new (a run with nothing to resume)
                return
            self.last, self.written = now, True
            rate = self.done / max(now - self.t0, 1e-9)
            left = (self.total - self.done) / rate if rate > 0 else float("inf")
            share = 100 * self.done / self.total if self.total else 100.0
            print(f"{self.label}: {self.done:,} of {self.total:,} {self.unit} ({share:.0f}%), {rate:,.0f} {self.unit}/s, "
                  f"about {left:,.0f} s left", file=sys.stderr, flush=True)

        return advance

    def __exit__(self, *exc):
        import sys

        if self.terminal:
            self.bar.__exit__(*exc)
        elif self.enabled and self.written and exc[0] is None:
            print(f"{self.label}: {self.done:,} {self.unit} done in {time.perf_counter() - self.t0:,.1f} s",
                  file=sys.stderr, flush=True)
        return False

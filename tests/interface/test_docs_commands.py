"""Every `balance` command shown in README.md, docs/ and reports/README.md runs (with small game
counts) and ends as the page says it does: exit 0, or the error the page shows after it.

What counts as a command shown:
- in a fenced block, a line ``$ balance ...`` (or ``$ .venv/bin/balance ...``, or a bare
  ``balance ...`` line), with its ``\\`` continuation lines; the lines after it up to the next
  ``$`` are what the page shows it printing;
- in the text, a ``balance ...`` code span with at least one argument and no placeholder (an
  upper-case word such as GAME or N, brackets, or an ellipsis): ``balance cards bird-weather -p 4
  -n 200000`` runs, ``balance cards GAME -p N`` is a synopsis and ``balance replay`` a mention.

Each runs in a scratch folder that holds the repository's ``examples/`` (so the paths the pages
use resolve), in page order, so a page's ``--out runs/x.parquet`` feeds its ``balance report
runs/x.parquet``.  A ``$ cat FILE`` the page shows writes that file first.  Game counts are cut
down (``SMALL``), and commands that play games without saying how many get a small count added.

A command whose output on the page starts with ``balance: error:`` must fail with exit 2 and that
error; one followed by ``$ echo $?`` and a number must exit with that number.
"""
from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import balance

pytestmark = pytest.mark.docs  # a tier of its own (Makefile: make test-fast leaves it out)

ROOT = Path(__file__).resolve().parents[2]
# docs/perf-notes/ is the measurements' journal: each note gives the commands as they were run
# that day (old commits, minutes of timing), a record rather than a page to follow
PAGES = [ROOT / "README.md", ROOT / "reports" / "README.md",
         *sorted(p for p in (ROOT / "docs").rglob("*.md") if "perf-notes" not in p.parts)]

# the most games each command plays here (``-n``/``--games``), and what a command without -n gets
SMALL = {"simulate": 2_000, "cards": 2_000, "whatif": 2_000, "sweep": 600, "tournament": 2_000, "ladder": 200,
         "exploits": 200,
         "traps": 1_000, "book": 400, "bench": 20_000, "tune": 4_000}
EXTRA = {  # options added to keep a command small (only where the command does not give them)
    "book": ["--skill-games", "200", "--search-games", "24", "--tier-seconds", "0"],
    "bench": ["--reference-games", "100", "--repeats", "1", "--search-games", "40"],
    "traps": ["--equilibrium-rounds", "200"],
    "tune": ["--candidates", "6"],  # -n above is the fresh games per finalist
    "report": ["--skill-games", "200", "--search-games", "24"],
}
SKILL_SMALL = {"--skill-games": 200, "--search-games": 24}
# commands a page shows that cannot be run from the page alone, each with the reason
NOT_RUNNABLE = {
    "/tmp/bad_one.py": "the page describes this deliberately broken plug-in in prose, it does not give the file",
}


def _bad7() -> str:
    """docs/scenarios.md: "example 7 with "scores": [0, 5, 0, 0]" (a wrong expectation)."""
    data = json.loads((ROOT / "examples" / "scenarios" / "bird-weather-example-7.json").read_text(encoding="utf-8"))
    data["expect"]["scores"] = [0, 5, 0, 0]
    return json.dumps(data)


# files a page describes in words; built here as it describes them
DESCRIBED = {"/tmp/bad7.json": _bad7}


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@dataclass
class Shown:
    page: str
    line: int
    argv: list[str]
    output: list[str]  # what the page shows it printing (fenced blocks only)
    exit_code: int | None = None


def _fenced(page: Path) -> list[Shown]:
    """Commands in fenced blocks, with the output shown after each and any ``$ cat FILE`` files."""
    found, lines, fence = [], page.read_text(encoding="utf-8").splitlines(), False
    i = 0
    while i < len(lines):
        text = lines[i]
        if text.lstrip().startswith("```"):
            fence = not fence
            i += 1
            continue
        stripped = text.strip()
        command = re.match(r"^(?:\$\s+)?(?:\.venv/bin/)?balance\s+(.*)$", stripped)
        if fence and command and (stripped.startswith("$") or stripped.startswith(("balance ", ".venv/bin/balance "))):
            start, body = i + 1, command.group(1)
            while body.endswith("\\"):
                i += 1
                body = body[:-1] + " " + lines[i].strip()
            output = []
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(("$", "```")):
                output.append(lines[j])
                j += 1
            shown = Shown(_name(page), start, _argv(body), output)
            if j < len(lines) and lines[j].strip() == "$ echo $?" and j + 1 < len(lines):
                shown.exit_code = int(lines[j + 1].strip())
            found.append(shown)
        elif fence and stripped.startswith("$ cat "):
            target, body = stripped[len("$ cat "):].strip(), []
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(("$", "```")):
                body.append(lines[j])
                j += 1
            found.append(Shown(_name(page), i + 1, ["__write__", target, "\n".join(body) + "\n"], []))
        i += 1
    return found


def _argv(body: str) -> list[str]:
    """The command's arguments: shell words up to a pipe or a redirection, comments dropped."""
    words = shlex.split(body, comments=True)
    argv = []
    for word in words:
        if word in ("|", "||", "&&", ";") or word.startswith(("2>", ">", "|")):
            break
        argv.append(word)
    return argv


PLACEHOLDER = re.compile(r"(?:^|[\s=,])[A-Z][A-Z0-9_.]*(?:$|[\s,.\]])|[\[\]…]|\.\.\.")


def _inline(page: Path) -> list[Shown]:
    found = []
    outside = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), page.read_text(encoding="utf-8"),
                     flags=re.S)
    for number, text in enumerate(outside.splitlines(), start=1):
        for span in re.findall(r"`(?:\.venv/bin/)?balance ([^`]+)`", text):
            words = span.split()
            # `balance replay` or `balance simulate --out` name a command or an option: a mention
            if len(words) < 2 or (len(words) == 2 and words[1].startswith("-")) or PLACEHOLDER.search(span):
                continue
            found.append(Shown(_name(page), number, _argv(span), []))
    return found


def shown_commands() -> list[Shown]:
    """Every command shown, in page order; a word after ``balance`` that is not one of its commands
    (``balance = seat_balance(...)`` in a Python block) is not a command, and a synopsis with
    placeholders is not run."""
    from balance import cli

    names = set(cli.typer.main.get_command(cli.app).commands)
    commands = []
    for page in PAGES:
        for shown in sorted(_fenced(page) + _inline(page), key=lambda c: c.line):
            if shown.argv and shown.argv[0] != "__write__":
                if shown.argv[0] not in names or PLACEHOLDER.search(" ".join(shown.argv)):
                    continue
            commands.append(shown)
    return commands


def small(argv: list[str]) -> list[str]:
    """The same command with at most SMALL games, and EXTRA options it does not give itself."""
    command = argv[0] if argv else ""
    out, given = [], set()
    i = 0
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        if name in ("-n", "--games") and command in SMALL:
            value = value if eq else argv[i + 1]
            out += ["-n", str(min(int(value), SMALL[command]))]
            given.add("-n")
            i += 1 if eq else 2
            continue
        if name == "--tier-games":
            out += ["--tier-games", str(min(int(argv[i + 1]), SMALL.get(command, 2_000)))]
            i += 2
            continue
        if name in SKILL_SMALL:  # the skill tiers a page asks for, played small here
            value = value if eq else argv[i + 1]
            out += [name, str(min(int(value), SKILL_SMALL[name]))]
            given.add(name)
            i += 1 if eq else 2
            continue
        given.add(name)
        out.append(word)
        i += 1
    if command in SMALL and "-n" not in given and command not in ("report",):
        out += ["-n", str(SMALL[command])]
    if "--precision" in given:
        out += ["-q"]
    for option in EXTRA.get(command, []):
        if option.startswith("--") and option in given:
            return out
    return out + EXTRA.get(command, [])


COMMANDS = shown_commands()


def studio_briefly(argv: list[str]) -> tuple[int, str, str]:
    """``balance studio ...`` serves until stopped: started on a free port of its own, without a
    browser, asked for its game once it prints its address, then stopped with Ctrl-C as a user
    would; (exit code, stdout, stderr) as for any command (exit 0 when it served and stopped)."""
    import signal
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    words = [w for i, w in enumerate(argv) if w != "--port" and (i == 0 or argv[i - 1] != "--port")]
    if "--versions" not in words:  # not beside a rules file of examples/ (the scratch folder links to the repository's)
        words += ["--versions", f"studio-versions-{port}"]
    process = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), *words, "--port", str(port), "--no-browser"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stdout.readline()
    if process.poll() is not None or " at http://" not in first:
        out, err = process.communicate(timeout=60)
        return process.returncode or 1, first + out, err
    address = first.rsplit(" at ", 1)[1].strip()
    answered = False
    for _ in range(200):
        try:
            with urllib.request.urlopen(address + "api/game", timeout=10) as response:
                answered = response.status == 200
            break
        except OSError:
            import time

            time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    if not answered:
        return 1, first + out, err + f"\nthe studio at {address} did not answer"
    return (0 if process.returncode in (0, -signal.SIGINT, 130) else process.returncode), first + out, err


def test_the_pages_show_commands():
    runnable = [c for c in COMMANDS if c.argv and c.argv[0] != "__write__"]
    assert len(runnable) >= 30, [c.argv for c in runnable]
    commands = {c.argv[0] for c in runnable}
    assert {"simulate", "report", "book", "cards", "whatif", "sweep", "tournament", "traps", "play"} <= commands


# a page's commands feed each other (its --out, then its report of that file), never another
# page's: each page runs in a scratch folder of its own, so the pages spread over the test processes
SHOWN_ON = {}
for _shown in COMMANDS:
    SHOWN_ON.setdefault(_shown.page, []).append(_shown)


def test_pages_are_self_contained():
    """No page reads a file that only another page's commands write."""
    made, read = {}, []
    for shown in COMMANDS:
        argv = shown.argv
        if argv and argv[0] == "__write__":
            made.setdefault(argv[1], shown.page)
            continue
        for i, word in enumerate(argv):
            if word in ("--out", "-o") and i + 1 < len(argv):
                made.setdefault(argv[i + 1], shown.page)
            elif word.startswith(("runs/", "reports/")) and (i == 0 or argv[i - 1] not in ("--out", "-o")):
                read.append((shown.page, word))
    assert not [(page, path, made[path]) for page, path in read if made.get(path, page) != page]


@pytest.mark.parametrize("page", sorted(SHOWN_ON))
def test_every_command_shown_runs(page, tmp_path):
    """In page order, each in the page's scratch folder; every failure is collected and reported together."""
    scratch = tmp_path
    (scratch / "examples").symlink_to(ROOT / "examples")
    for name in ("runs", "reports"):
        (scratch / name).mkdir()
    previous = Path.cwd()
    failures, ran = [], 0
    os.chdir(scratch)
    try:
        for shown in SHOWN_ON[page]:
            if not shown.argv:
                continue
            if shown.argv[0] == "__write__":
                target = Path(shown.argv[1])
                if target.is_absolute() and not str(target).startswith("/tmp/"):
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(shown.argv[2], encoding="utf-8")
                continue
            if any(marker in word for word in shown.argv for marker in NOT_RUNNABLE):
                continue
            for path, build in DESCRIBED.items():
                if path in shown.argv:
                    Path(path).write_text(build(), encoding="utf-8")
            argv = small(shown.argv)
            code, out, err = studio_briefly(argv) if argv[0] == "studio" else balance(*argv)
            ran += 1
            where = f"{shown.page}:{shown.line}: balance {' '.join(argv)}"
            shown_error = next((line for line in shown.output if line.startswith("balance: error:")), None)
            if shown_error is not None:
                if code != 2 or shown_error.split("(")[0].strip() not in err:
                    failures.append(f"{where}: the page shows '{shown_error}', got exit {code}: {err.strip()}")
            elif shown.exit_code is not None:
                if code != shown.exit_code:
                    failures.append(f"{where}: the page shows exit {shown.exit_code}, got {code}: {err.strip()}")
            elif code != 0:
                failures.append(f"{where}: exit {code}: {err.strip()[-400:]}")
            elif "--json" in argv and argv[0] != "bench":
                try:
                    json.loads(out)
                except ValueError:
                    failures.append(f"{where}: --json printed something that is not JSON")
    finally:
        os.chdir(previous)
    assert ran >= 1
    assert not failures, "\n".join(failures)

"""Every file the repository cites is in the repository.

The repository's files are those git tracks, and new files git does not ignore (so a file cited
before its ``git add`` counts, and an ignored output never does).  Every one of them that is text
is read (PNGs and other binaries are skipped), and each citation in it must name one of them, or a
folder that holds one.  A *citation* is:

- a Markdown link ``[text](target)`` in a ``.md`` file, other than a URL: the target, relative to
  the page, must be in the repository, and an anchor (``page.md#project-rulings``, ``#cards``) must
  name a heading of the page it points into;
- a relative path with at least one ``/`` whose name ends in an extension of the project's files
  (``CITED``), e.g. ``docs/rules/bird-weather.md`` or ``simcore/games/chimera/rules.py``: it must
  be in the repository relative to the citing file's folder or to the repository root;
- a bare file name of a document, source or text file (``.md``, ``.py``, ``.txt``:
  ``BENCHMARKS.md``, ``kernel.py``, ``RULINGS.md``, ``STYLE.md``): as a path, or the name of a
  file anywhere in the tree.  A bare data file name (``my.toml``, ``run.parquet``) is left out: on
  the pages it is the reader's own file or a command's output.

Not citations: URLs, absolute paths (a place on some machine: ``/tmp/x.json``), templates (a part
in ``<>`` or ``{}``, a ``*``, an upper-case placeholder such as ``OUT/`` or ``PLUGIN.py``) and a
file a test makes (``tmp_path / "v.toml"``).  Three short lists name what may be cited although the
repository does not hold it, each entry with its reason: other projects' files (``EXTERNAL``:
only on a line that names the project), what the commands write (``generated``: run files under
``runs/`` and the report pages whose names the report writers use), and files a page tells the
reader to write (``USER_FILES``).
"""
from __future__ import annotations

import ast
import io
import os
import re
import subprocess
import tokenize
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[2]

# extensions of the files this project holds, writes or tells the reader to write
CITED = ("md", "py", "txt", "toml", "json", "html", "png", "parquet", "csv")
BARE_CITED = (".md", ".py", ".txt")  # a bare name with one of these is checked too

# Other projects' files, cited as examples to follow (CONTRIBUTING.md) or as evidence
# (BENCHMARKS.md): the file -> the project it belongs to, which the citing line must name.
EXTERNAL = {
    "pgx/_src/games/tic_tac_toe.py": "pgx",
    "pgx/core.py": "pgx",
    "_src/api_test.py": "pgx",
    "tests/test_kuhn_poker.py": "pgx",
    "generic/nb.py": "vectorbt",
    "portfolio/dispatch.py": "vectorbt",
    "portfolio/nb.py": "vectorbt",
    "python/games/kuhn_poker.py": "OpenSpiel",
    "kuhn_poker_test.py": "OpenSpiel",
    "markov/core.py": "QuantEcon",
    "tests/test_distances.py": "pynndescent",
    "layouts.py": "umap",
    "umap_.py": "umap",
    "queries/polars/q1.py": "polars-benchmark",
    "numba/parfors/parfor_lowering.py": "numba",
}

# Files a page tells the reader to write (the name -> why), cited before they exist.
USER_FILES = {
    "balance.toml": "the reader's own defaults, read from the working folder (README.md, cli.py)",
    "my_strategy.py": "a strategy plug-in the reader writes (docs/strategies.md)",
    "lowest.py": "the plug-in docs/strategies.md walks through, saved by the reader",
    "bad_one.py": "a deliberately broken plug-in docs/strategies.md describes",
    "check_play.py": "the checking script docs/strategies.md shows, saved by the reader",
    "a.py": "two copies of a plug-in the reader makes (docs/strategies.md, parameters)",
    "b.py": "two copies of a plug-in the reader makes (docs/strategies.md, parameters)",
    "my_hooks.py": "the hooks module of a rules file, which the reader writes (docs/rules-files.md, hooks)",
}

# A run file a command writes: `--out runs/x.parquet` (and its unfinished `.x.parquet` folder).
RUN_FILE = re.compile(r"(?:^|/)runs/\.?[\w.-]+\.parquet$")

TOKEN = re.compile(
    r"(?<![\w./~<>{}*:@$\\-])"               # not inside a longer word, path, URL, template or e-mail
    r"((?:\.\.?/)*[\w-][\w.-]*(?:/[\w.-]+)*\.(?:" + "|".join(CITED) + r"))"
    r"(?![\w/<>{}*-])")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
TEXT_SUFFIXES = {".md", ".py", ".txt", ".toml", ".json", ".html", ".cfg", ".ini", ".sh", ".yml",
                 ".yaml", ".csv", ".gitignore", ""}


def repository_files(root: Path = ROOT) -> set[str]:
    """What the repository holds: tracked files and new files git does not ignore."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                             cwd=root, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the repository's files are unknown")
    return {name for name in out.decode("utf-8").split("\0") if name and (root / name).is_file()}


def generated_names(root: Path = ROOT) -> set[str]:
    """The pages the report writers write: ``<stem>.md`` and ``<stem>.html`` for every
    ``stem="..."`` that ``analysis/`` passes to ``write_blocks`` (and its default, ``report``),
    with their ``summary.json`` and ``manifest.json``."""
    stems = {"report"}
    for path in (root / "analysis").glob("*.py"):
        stems |= set(re.findall(r"\bstem=\"(\w+)\"", path.read_text(encoding="utf-8")))
    return {f"{stem}.{ext}" for stem in stems for ext in ("md", "html")} | {"summary.json", "manifest.json"}


class Repository:
    def __init__(self, files: set[str], generated: set[str] = frozenset()):
        self.files = set(files)
        self.folders = {str(parent) for name in self.files for parent in PurePosixPath(name).parents}
        self.names = {PurePosixPath(name).name for name in self.files}
        self.generated = set(generated)
        self._anchors: dict[str, set[str]] = {}

    def holds(self, relative: str) -> bool:
        return relative in self.files or relative in self.folders

    def resolve(self, citing: str, target: str) -> str | None:
        """The repository path ``target`` names from the file ``citing``: relative to its folder,
        else to the root; None if neither is in the repository."""
        for base in (str(PurePosixPath(citing).parent), ""):
            path = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
            if not path.startswith("..") and self.holds(path):
                return path
        return None

    def anchors(self, page: str, text: str | None = None) -> set[str]:
        """GitHub's heading anchors of a Markdown page (and any ``id="..."`` it sets)."""
        if page not in self._anchors:
            if text is None:
                text = (ROOT / page).read_text(encoding="utf-8")
            found, seen, fenced = set(re.findall(r"\b(?:id|name)=\"([^\"]+)\"", text)), {}, False
            for line in text.splitlines():
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                heading = HEADING.match(line)
                if heading and not fenced:
                    slug = github_slug(heading.group(2))
                    count = seen.get(slug, 0)
                    seen[slug] = count + 1
                    found.add(slug if count == 0 else f"{slug}-{count}")
            self._anchors[page] = found
        return self._anchors[page]


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lower-cased, punctuation dropped, spaces to ``-``."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _template(token: str) -> bool:
    """An upper-case placeholder: a folder like ``OUT/`` or a script like ``PLUGIN.py``."""
    parts = token.split("/")
    if any(re.fullmatch(r"[A-Z][A-Z0-9_]+", part) for part in parts[:-1]):
        return True
    stem, _, ext = parts[-1].rpartition(".")
    return ext != "md" and re.fullmatch(r"[A-Z][A-Z0-9_]+", stem) is not None


def _made_in_code(line: str, start: int) -> bool:
    """``tmp_path / "x.toml"``: a path a test builds, not a citation."""
    return re.search(r"/\s*[rbf]?[\"']$", line[:start]) is not None


def _external(token: str, line: str, start: int, before: str) -> bool:
    """Another project's file, named with its project on the same line or the line before (a
    sentence wrapped between the two), the path itself aside."""
    project = EXTERNAL.get(token)
    rest = before + " " + line[:start] + line[start + len(token):]
    return project is not None and re.search(rf"(?<![\w-]){re.escape(project)}(?![\w-])", rest, re.I) is not None


def prose_lines(source: str) -> set[int] | range:
    """The lines of Python source that are comments or docstrings: where a bare ``x.py`` or
    ``x.txt`` is a citation.  In code it is data (``read_text("top_level.txt")``), while a bare
    ``.md`` is a citation everywhere (a message's "see docs/api.md" or "(RULINGS.md)")."""
    lines: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                lines.add(token.start[0])
        for node in ast.walk(ast.parse(source)):
            body = getattr(node, "body", None)
            if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                    and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    except (SyntaxError, tokenize.TokenError, ValueError):
        return range(1, source.count("\n") + 2)   # unreadable: every line counts
    return lines


def missing_citations(citing: str, text: str, repo: Repository) -> list[tuple[int, str, str]]:
    """(line, target, why) for every citation in ``text`` (the file ``citing``) of a file the
    repository does not hold."""
    found = []
    markdown = citing.endswith(".md")
    fenced = False
    lines = text.splitlines()
    prose = None  # the lines where a bare x.py or x.txt is a citation, found when first needed
    for number, line in enumerate(lines, 1):
        before = lines[number - 2] if number > 1 else ""
        if markdown and FENCE.match(line):
            fenced = not fenced
        links = list(LINK.finditer(line)) if markdown and not fenced else []
        for match in links:
            problem = _link_problem(citing, text, match.group(1), repo)
            if problem:
                found.append((number, match.group(1), problem))
        for match in TOKEN.finditer(line):
            if any(link.start(1) <= match.start() < link.end(1) for link in links):
                continue  # a link's target: checked above
            token = match.group(1)
            name = token.rsplit("/", 1)[-1]
            bare = "/" not in token
            # a test's own code builds paths of files it makes (a fixture tree, a moved book):
            # only its comments and docstrings cite
            fixture = citing.startswith("tests/") and citing.endswith(".py")
            if fixture or (bare and not token.endswith(".md")):
                if bare and not token.endswith(".md") and not token.endswith(BARE_CITED):
                    continue
                if prose is None:
                    prose = prose_lines(text) if citing.endswith(".py") else range(1, len(lines) + 1)
                if number not in prose:
                    continue
            if (_template(token) or _made_in_code(line, match.start())
                    or _external(token, line, match.start(), before)
                    or RUN_FILE.search(token) or name in repo.generated or name in USER_FILES):
                continue
            if repo.resolve(citing, token) or (bare and token in repo.names):
                continue
            found.append((number, token, "not in the repository"))
    return found


def _link_problem(citing: str, text: str, target: str, repo: Repository) -> str | None:
    """Why a Markdown link of the page ``citing`` does not resolve, or None."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):   # http:, https:, mailto:
        return None
    path, _, anchor = target.partition("#")
    if path:
        page = os.path.normpath(os.path.join(str(PurePosixPath(citing).parent), path)).replace(os.sep, "/")
        if page.startswith("..") or not repo.holds(page):
            return "link to a file not in the repository (a link is relative to its page)"
        anchors = repo.anchors(page) if anchor and page.endswith(".md") and page in repo.files else None
    else:
        page, anchors = citing, repo.anchors(citing, text)
    if anchors is not None and anchor and anchor not in anchors:
        return f"no heading of {page} gives the anchor #{anchor}"
    return None


def _is_text(path: Path) -> bool:
    if path.suffix.lower() not in TEXT_SUFFIXES and path.name not in ("Makefile",):
        return False
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return b"\0" not in data[:8192]


# --- the scanner on made-up texts: it can fail -------------------------------------------------

def _repo(*files: str) -> Repository:
    return Repository(set(files), generated={"report.md", "report.html", "index.html"})


def test_a_citation_of_a_missing_file_is_found():
    repo = _repo("docs/rules/bird-weather.md", "simcore/games/bird_weather/reference.py")
    text = ("Ruling (RULINGS.md, \"Trick-Take BIRD & WEATHER\").\n"
            "Conventions: STYLE.md habit 10.\n"
            "The rulebook `rules/bird-and-weather.ja.txt`, §6-③.\n"
            "See `../shared/RULINGS.md` and [the rules](rules/gone.md).\n")
    found = missing_citations("docs/x.md", text, repo)
    assert [(line, target) for line, target, _ in found] == [
        (1, "RULINGS.md"), (2, "STYLE.md"), (3, "rules/bird-and-weather.ja.txt"),
        (4, "rules/gone.md"), (4, "../shared/RULINGS.md")]


def test_a_citation_of_a_file_the_repository_holds_passes():
    repo = _repo("docs/rules/bird-weather.md", "docs/rules/README.md", "CONTRIBUTING.md",
                 "simcore/games/bird_weather/reference.py", "docs/x.md")
    text = ("Ruling: docs/rules/bird-weather.md, Project rulings; CONTRIBUTING.md, habit 10.\n"
            "See [the rules](rules/bird-weather.md#project-rulings), [the index](rules/README.md) and\n"
            "the oracle `simcore/games/bird_weather/reference.py` (`reference.py`), [this](#a-heading).\n"
            "Outputs: `--out runs/bw4.parquet`, reports/book/index.html, `g-3p/report.html`.\n"
            "Templates: simcore/games/<game>/kernel.py, {slug}/report.html, OUT/winner.toml, PLUGIN.py.\n"
            "Elsewhere: pgx: `pgx/core.py`; /tmp/finish.json; https://example.org/a/b.md; my.toml.\n"
            "## A heading\n")
    repo._anchors["docs/rules/bird-weather.md"] = {"project-rulings"}
    assert missing_citations("docs/x.md", text, repo) == []


def test_a_link_must_resolve_from_the_page_and_its_anchor_must_exist():
    repo = _repo("docs/rules/chimera-tricks.md", "docs/x.md")
    repo._anchors["docs/rules/chimera-tricks.md"] = {"cards", "project-rulings"}
    text = ("[ok](rules/chimera-tricks.md#project-rulings) [bad anchor](rules/chimera-tricks.md#rulings)\n"
            "[root-relative is not how a page links](docs/rules/chimera-tricks.md)\n")
    found = missing_citations("docs/x.md", text, repo)
    assert [(line, target) for line, target, _ in found] == [
        (1, "rules/chimera-tricks.md#rulings"), (2, "docs/rules/chimera-tricks.md")]
    assert "no heading of docs/rules/chimera-tricks.md gives the anchor #rulings" in found[0][2]


def test_an_external_file_passes_only_beside_its_project():
    repo = _repo()
    assert missing_citations("CONTRIBUTING.md", "pgx: `pgx/core.py`", repo) == []
    assert missing_citations("CONTRIBUTING.md", "Model — pgx:\n`pgx/core.py`", repo) == []
    assert [t for _, t, _ in missing_citations("CONTRIBUTING.md", "see `pgx/core.py`", repo)] == ["pgx/core.py"]
    assert [t for _, t, _ in missing_citations("CONTRIBUTING.md", "umap: `pgx/core.py`", repo)] == ["pgx/core.py"]


def test_a_file_code_makes_or_reads_is_not_a_citation():
    repo = _repo()
    code = ('"""See notes.txt and docs/gone.md."""\n'
            'path = tmp_path / "notes.txt"  # made here\n'
            'top = dist.read_text("top_level.txt")\n'
            'print("ASSUMED (RULINGS.md)", "see docs/gone.md")  # and old.py\n')
    assert [(line, t) for line, t, _ in missing_citations("tests/test_x.py", code, repo)] == [
        (1, "notes.txt"), (1, "docs/gone.md"), (4, "RULINGS.md"), (4, "docs/gone.md"), (4, "old.py")]


def test_github_slugs():
    assert github_slug("Assumptions (C1–C14)") == "assumptions-c1c14"
    assert github_slug("Variant values (`Rules`)") == "variant-values-rules"
    assert github_slug("【ラウンドの終了】 Round end and game end") == "ラウンドの終了-round-end-and-game-end"
    assert github_slug("Project rulings") == "project-rulings"


# --- the repository ------------------------------------------------------------------------------

# this file's made-up texts cite missing files on purpose
NOT_SCANNED = {"tests/interface/test_citations.py"}


def test_every_cited_file_is_in_the_repository():
    files = repository_files()
    repo = Repository(files, generated_names())
    problems = []
    for name in sorted(files - NOT_SCANNED):
        path = ROOT / name
        if not _is_text(path):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        problems += [f"{name}:{line}: {target} — {why}" for line, target, why in missing_citations(name, text, repo)]
    assert not problems, (f"{len(problems)} citations of files the repository does not hold "
                          "(cite docs/rules/<game>.md, Project rulings for a ruling, CONTRIBUTING.md "
                          "for a convention, the rulebook by title (docs/rules/<game>.md, Sources); "
                          "an other project's file goes in EXTERNAL with its project):\n"
                          + "\n".join(problems))


def test_the_allow_lists_stay_short_and_honest():
    files = repository_files()
    names = {PurePosixPath(name).name for name in files}
    assert len(EXTERNAL) <= 20 and len(USER_FILES) <= 10
    # an allowed name the repository now holds is a real citation: take it off the list
    assert not [name for name in USER_FILES if name in names]
    assert not [path for path in EXTERNAL if path in files]
    assert {"report.md", "index.html", "whatif.html"} <= generated_names()

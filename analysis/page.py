"""A page as a list of blocks (heading, paragraph, table, image...) rendered twice, to Markdown
with PNG charts beside it and to a self-contained HTML file (charts as base64 data URIs, inline
CSS, no scripts, no external resources), so the two cannot drift apart.  ``write_blocks``
builds every file first, in a staging folder beside the target, then moves them into place.

Every page (report, book, cards, traps, whatif, sweep, tournament) is written through here.
"""
from __future__ import annotations

import base64
import html
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from simcore.errors import BalanceError

MANIFEST = ".balance-report.json"  # names of the files the last report wrote, to clear stale ones
REPORT_SUFFIXES = (".png", ".md", ".html", ".json")


# --------------------------------------------------------------------------------------------
# the page as blocks
# --------------------------------------------------------------------------------------------

@dataclass
class Heading:
    level: int
    text: str


@dataclass
class Paragraph:
    text: str


@dataclass
class Items:
    """A bulleted list; an item is text, or a list of parts (text and Links) read as one line."""
    items: list


@dataclass
class Alert:
    title: str
    items: list[str]


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


class Link(str):
    """A table cell that links to ``href`` (a relative path); it reads as its text."""

    def __new__(cls, text: str, href: str):
        cell = super().__new__(cls, text)
        cell.href = href
        return cell


@dataclass
class Image:
    filename: str
    alt: str
    png: bytes
    lead: bool = False  # the chart that shows the verdict: kept small enough to sit above the fold

    def __post_init__(self):
        # square brackets would end a Markdown image's alt text early: intervals read (low, high) here
        self.alt = self.alt.replace("[", "(").replace("]", ")")


@dataclass
class Verdict:
    """The answer a page opens with: at most three plain sentences, the thresholds they were
    judged against, and a tone ("good", "warn", "bad" or "info") that colours the box."""
    sentences: list[str]
    note: str = ""
    tone: str = "info"
    title: str = "Verdict"

    def __post_init__(self):
        if not 1 <= len(self.sentences) <= 3:
            raise ValueError(f"a verdict is one to three sentences, not {len(self.sentences)}")
        if self.tone not in ("good", "warn", "bad", "info"):
            raise ValueError(f"unknown verdict tone {self.tone!r}")


TONE_WORDS = {"good": "✓", "warn": "?", "bad": "✗", "info": "→"}


@dataclass
class Grid:
    """A table whose cells carry a tone (``(text, tone)`` or plain text), e.g. the book's verdicts
    per game and player count; a cell may be a Link."""
    headers: list[str]
    rows: list[list]


# --------------------------------------------------------------------------------------------
# naming files: a page travels (copied, moved, shared) and says nothing of the writer's folders
# --------------------------------------------------------------------------------------------

NOT_BESIDE = "not beside this page"


def page_path(path: str | Path, page_dir: str | Path) -> tuple[str, bool]:
    """How a page written into ``page_dir`` names the file ``path``: ``(name, beside)``.

    A file inside the page's folder or beside it (anywhere under the folder's parent, as a
    book's ``runs/`` is beside each of its report folders) is named by its path relative to the
    page's folder, POSIX slashes (``../runs/x.parquet``), so a link to it still resolves once the
    whole output folder is moved or copied (a run, which is a folder, likewise); any other file (or one that is not there) by its file
    name alone, with ``beside`` False.  Paths are compared as written (made absolute, not
    resolved through symlinks), as a browser follows a relative link."""
    file = Path(os.path.abspath(path))
    here = Path(os.path.abspath(page_dir))
    if (file.is_file() or file.is_dir()) and file.is_relative_to(here.parent):  # a run is a folder
        return Path(os.path.relpath(file, here)).as_posix(), True
    return file.name, False


def file_mention(path: str | Path, page_dir: str | Path) -> Link | str:
    """A file as a page shows it: a link relative to the page when the file is beside it, else its
    name and that it is not beside the page."""
    name, beside = page_path(path, page_dir)
    return Link(name, name) if beside else f"{name} ({NOT_BESIDE})"


def placed(entry: dict, key: str, page_dir: str | Path) -> dict:
    """A copy of ``entry`` whose file path at ``key`` (a string; anything else is left as it is)
    is named as the page in ``page_dir`` names it (``page_path``), with ``<key>_beside`` saying
    whether the name is a path relative to the page's folder (True) or a file name alone."""
    value = entry.get(key)
    if not isinstance(value, str):
        return entry
    name, beside = page_path(value, page_dir)
    return {**entry, key: name, f"{key}_beside": beside}


def placed_list(paths, page_dir: str | Path) -> tuple[list[str], list[bool]]:
    """``page_path`` for each of ``paths``: their names and whether each is beside the page."""
    named = [page_path(path, page_dir) for path in paths]
    return [name for name, _ in named], [beside for _, beside in named]


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------

def _href(link: Link) -> str:
    """A link's target as a URL: the relative path percent-encoded (a space, ``#`` or ``(`` in a
    file name would end or break it otherwise), its slashes kept."""
    return quote(link.href, safe="/")


def _md_link(link: Link) -> str:
    return f"[{link.replace('|', '/')}]({_href(link)})"


def _md_cell(text: str) -> str:
    if isinstance(text, Link):
        return _md_link(text)
    return text.replace("|", "\\|")


def _html_cell(text: str) -> str:
    if isinstance(text, Link):
        return f'<a href="{html.escape(_href(text))}">{html.escape(text)}</a>'
    return html.escape(text)


def _md_item(item) -> str:
    """A list item: text as it is, a Link as a Markdown link, a list of parts joined."""
    if isinstance(item, Link):
        return _md_link(item)
    if isinstance(item, (list, tuple)):
        return "".join(map(_md_item, item))
    return item


def _html_item(item) -> str:
    if isinstance(item, (list, tuple)):
        return "".join(map(_html_cell, item))
    return _html_cell(item)


def render_markdown(blocks: list) -> str:
    out = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append(f"{'#' * block.level} {block.text}")
        elif isinstance(block, Paragraph):
            out.append(block.text)
        elif isinstance(block, Items):
            out.append("\n".join(f"- {_md_item(item)}" for item in block.items))
        elif isinstance(block, Alert):
            out.append("\n".join([f"> **⚠ {block.title}:**", ">"] + [f"> - {item}" for item in block.items]))
        elif isinstance(block, Table):
            lines = ["| " + " | ".join(map(_md_cell, block.headers)) + " |",
                     "|" + "|".join("---" for _ in block.headers) + "|"]
            lines += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in block.rows]
            out.append("\n".join(lines))
        elif isinstance(block, Image):
            out.append(f"![{block.alt}]({block.filename})")
        elif isinstance(block, Verdict):
            lines = [f"> **{TONE_WORDS[block.tone]} {block.title}:** " + " ".join(block.sentences)]
            if block.note:
                lines += [">", f"> *{block.note}*"]
            out.append("\n".join(lines))
        elif isinstance(block, Grid):
            lines = ["| " + " | ".join(map(_md_cell, block.headers)) + " |",
                     "|" + "|".join("---" for _ in block.headers) + "|"]
            lines += ["| " + " | ".join(_md_cell(_grid_text(c)) for c in row) + " |" for row in block.rows]
            out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def _grid_text(cell):
    """A grid cell's text (a Link keeps its target), its tone's mark in front."""
    if isinstance(cell, tuple):
        text, tone = cell
        mark = TONE_WORDS.get(tone, "")
        if isinstance(text, Link):
            return Link(f"{mark} {text}", text.href)
        return f"{mark} {text}"
    return cell


CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 62rem;
       margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #4c78a8; padding-bottom: .3rem; }
h2 { font-size: 1.3rem; margin-top: 2rem; } h3 { font-size: 1.1rem; margin-top: 1.5rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .92rem; }
th, td { border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; }
th { background: #eef2f7; } tr:nth-child(even) td { background: #fafafa; }
td { font-variant-numeric: tabular-nums; }
.warning { border: 2px solid #c0392b; background: #fdecea; padding: .6rem 1rem; margin: 1rem 0;
           border-radius: 4px; }
.warning strong { color: #c0392b; }
figure { margin: 1rem 0; } img { max-width: 100%; height: auto; }
figure.lead { margin: .6rem 0 1rem; } figure.lead img { max-height: 340px; width: auto; }
.table-wrap { max-width: 100%; overflow-x: auto; }
.verdict { border-left: 6px solid #4c78a8; background: #eef2f7; padding: .5rem 1rem; margin: .8rem 0;
           border-radius: 4px; font-size: 1rem; }
.verdict p { margin: .3rem 0; } .verdict .note { font-size: .85rem; color: #555; }
.verdict-good { border-color: #2e7d32; background: #edf7ee; }
.verdict-warn { border-color: #b7791f; background: #fdf6e3; }
.verdict-bad { border-color: #c0392b; background: #fdecea; }
td.tone-good { background: #edf7ee !important; } td.tone-warn { background: #fdf6e3 !important; }
td.tone-bad { background: #fdecea !important; }
""".strip()


def _grid_cell(cell) -> str:
    if isinstance(cell, tuple):
        text, tone = cell
        return f'<td class="tone-{tone}">{TONE_WORDS.get(tone, "")} {_html_cell(text)}</td>'
    return f"<td>{_html_cell(cell)}</td>"


def render_html(blocks: list, title: str) -> str:
    esc = html.escape
    body = []
    for block in blocks:
        if isinstance(block, Heading):
            body.append(f"<h{block.level}>{esc(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            body.append(f"<p>{esc(block.text)}</p>")
        elif isinstance(block, Items):
            body.append("<ul>" + "".join(f"<li>{_html_item(i)}</li>" for i in block.items) + "</ul>")
        elif isinstance(block, Alert):
            body.append(f'<div class="warning"><strong>⚠ {esc(block.title)}:</strong><ul>'
                        + "".join(f"<li>{esc(i)}</li>" for i in block.items) + "</ul></div>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{esc(h)}</th>" for h in block.headers)
            rows = "".join("<tr>" + "".join(f"<td>{_html_cell(c)}</td>" for c in row) + "</tr>" for row in block.rows)
            body.append(f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>')
        elif isinstance(block, Grid):
            head = "".join(f"<th>{esc(h)}</th>" for h in block.headers)
            rows = "".join("<tr>" + "".join(_grid_cell(c) for c in row) + "</tr>" for row in block.rows)
            body.append(f'<div class="table-wrap"><table class="grid"><thead><tr>{head}</tr></thead>'
                        f"<tbody>{rows}</tbody></table></div>")
        elif isinstance(block, Image):
            data = base64.b64encode(block.png).decode("ascii")
            lead = ' class="lead"' if block.lead else ""
            body.append(f'<figure{lead}><img src="data:image/png;base64,{data}" alt="{esc(block.alt)}"></figure>')
        elif isinstance(block, Verdict):
            body.append(f'<div class="verdict verdict-{block.tone}" role="note"><p><strong>{TONE_WORDS[block.tone]} '
                        f"{esc(block.title)}:</strong> {esc(' '.join(block.sentences))}</p>"
                        + (f'<p class="note">{esc(block.note)}</p>' if block.note else "") + "</div>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------

def _previous_files(out_dir: Path) -> set[str]:
    """Files the previous report in ``out_dir`` wrote (only plain report file names)."""
    try:
        names = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(names, list):
        return set()
    return {n for n in names if isinstance(n, str) and Path(n).name == n and n.endswith(REPORT_SUFFIXES)}


def _install(staging: Path, out_dir: Path, names: list[str]) -> None:
    """Move the staged files into ``out_dir``: the whole directory at once if it is new,
    otherwise file by file (each an atomic replace; the pages last), leaving other files alone."""
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return
    stale = _previous_files(out_dir) - set(names)
    pages = tuple(n for n in names if n.endswith((".md", ".html")))
    for name in sorted(names, key=lambda n: n in pages) + [MANIFEST]:
        os.replace(staging / name, out_dir / name)
    for name in stale:
        (out_dir / name).unlink(missing_ok=True)


def write_blocks(blocks: list, document: dict, out_dir: str | Path, stem: str = "report") -> Path:
    """Render ``blocks`` to ``<stem>.md`` (+ PNGs) and a self-contained ``<stem>.html``, with
    ``summary.json``, and install them in ``out_dir`` only once all are built."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise BalanceError(f"{out_dir} exists and is not a directory")
    title = next(b.text for b in blocks if isinstance(b, Heading))
    files: dict[str, bytes] = {b.filename: b.png for b in blocks if isinstance(b, Image)}
    files["summary.json"] = (json.dumps(document, indent=2, allow_nan=False) + "\n").encode()
    files[f"{stem}.md"] = render_markdown(blocks).encode()
    files[f"{stem}.html"] = render_html(blocks, title).encode()

    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".staging", dir=out_dir.parent))
    except OSError as exc:
        raise BalanceError(f"cannot write to {out_dir.parent}: {exc.strerror}") from None
    try:
        for name, data in files.items():
            (staging / name).write_bytes(data)
        (staging / MANIFEST).write_text(json.dumps(sorted(files)) + "\n", encoding="utf-8")
        os.chmod(staging, 0o755)  # mkdtemp makes it private; the report is not
        _install(staging, out_dir, list(files))
    except OSError as exc:  # disk full, permissions: one line, and the folder as it was
        from simcore.outputs import write_failure

        raise write_failure(out_dir, exc) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out_dir

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
    items: list[str]


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


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------

def _md_cell(text: str) -> str:
    if isinstance(text, Link):
        return f"[{text.replace('|', '/')}]({text.href})"
    return text.replace("|", "\\|")


def _html_cell(text: str) -> str:
    if isinstance(text, Link):
        return f'<a href="{html.escape(text.href)}">{html.escape(text)}</a>'
    return html.escape(text)


def render_markdown(blocks: list) -> str:
    out = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append(f"{'#' * block.level} {block.text}")
        elif isinstance(block, Paragraph):
            out.append(block.text)
        elif isinstance(block, Items):
            out.append("\n".join(f"- {item}" for item in block.items))
        elif isinstance(block, Alert):
            out.append("\n".join([f"> **⚠ {block.title}:**", ">"] + [f"> - {item}" for item in block.items]))
        elif isinstance(block, Table):
            lines = ["| " + " | ".join(map(_md_cell, block.headers)) + " |",
                     "|" + "|".join("---" for _ in block.headers) + "|"]
            lines += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in block.rows]
            out.append("\n".join(lines))
        elif isinstance(block, Image):
            out.append(f"![{block.alt}]({block.filename})")
    return "\n\n".join(out) + "\n"


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
""".strip()


def render_html(blocks: list, title: str) -> str:
    esc = html.escape
    body = []
    for block in blocks:
        if isinstance(block, Heading):
            body.append(f"<h{block.level}>{esc(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            body.append(f"<p>{esc(block.text)}</p>")
        elif isinstance(block, Items):
            body.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in block.items) + "</ul>")
        elif isinstance(block, Alert):
            body.append(f'<div class="warning"><strong>⚠ {esc(block.title)}:</strong><ul>'
                        + "".join(f"<li>{esc(i)}</li>" for i in block.items) + "</ul></div>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{esc(h)}</th>" for h in block.headers)
            rows = "".join("<tr>" + "".join(f"<td>{_html_cell(c)}</td>" for c in row) + "</tr>" for row in block.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif isinstance(block, Image):
            data = base64.b64encode(block.png).decode("ascii")
            body.append(f'<figure><img src="data:image/png;base64,{data}" alt="{esc(block.alt)}"></figure>')
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
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

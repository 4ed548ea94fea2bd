"""Pages travel: a report or book copied, moved or shared elsewhere still links, and no page
(``.md``, ``.html``) or ``summary.json`` names a folder of the machine that wrote it.  A file a
page names (a run file, a variant file, a plug-in, a trap deck) is named relative to the page's
folder when it lies inside that folder or beside it, else by its file name alone, saying it is
not beside the page (analysis/page.py, ``page_path``)."""
import html
import json
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

from conftest import balance

from analysis.page import NOT_BESIDE, Link, file_mention, page_path, placed

ROOT = Path(__file__).resolve().parents[2]
HTML_LINK = re.compile(r'(?:href|src)="([^"]+)"')
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def local_links(page: Path) -> list[str]:
    """The targets of a page's links and images that are not data URIs or web addresses."""
    text = page.read_text(encoding="utf-8")
    found = [html.unescape(link) for link in HTML_LINK.findall(text)] if page.suffix == ".html" else MD_LINK.findall(text)
    return [unquote(link) for link in found if not link.startswith(("data:", "http:", "https:", "//", "#", "mailto:"))]


def assert_travels(root: Path, *written_at: Path) -> int:
    """Every page and summary.json under ``root``: no folder it was written in, every local link
    resolving from the page's own folder.  Returns how many local links were followed."""
    pages = sorted(p for p in root.rglob("*") if p.suffix in (".md", ".html", ".json") and p.is_file())
    assert any(p.name == "summary.json" for p in pages) and any(p.suffix == ".html" for p in pages)
    followed = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for folder in written_at:
            for spelling in {str(folder), folder.as_posix(), str(folder.resolve())}:
                assert spelling not in text, f"{page} names {spelling}"
        if page.suffix in (".md", ".html"):
            for link in local_links(page):
                assert (page.parent / link).exists(), f"{page}: {link} does not resolve"  # a run is a folder
                followed += 1
    return followed


def summary_sources(document_path: Path) -> list[tuple[str, bool]]:
    document = json.loads(document_path.read_text(encoding="utf-8"))
    return [pair for run in document["runs"] for pair in zip(run["sources"], run["sources_beside"])]


# --------------------------------------------------------------------------------------------
# the rule
# --------------------------------------------------------------------------------------------

def test_page_path_is_relative_inside_or_beside_and_a_name_elsewhere(tmp_path, monkeypatch):
    page = tmp_path / "out" / "book" / "bw-4p"
    for name in ("out/book/runs/bw 4p.parquet", "out/book/bw-4p/x.parquet", "elsewhere/runs/y.parquet"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    assert page_path(tmp_path / "out/book/runs/bw 4p.parquet", page) == ("../runs/bw 4p.parquet", True)
    assert page_path(tmp_path / "out/book/bw-4p/x.parquet", page) == ("x.parquet", True)
    assert page_path(tmp_path / "elsewhere/runs/y.parquet", page) == ("y.parquet", False)
    assert page_path(tmp_path / "out/book/runs/missing.parquet", page) == ("missing.parquet", False)
    # paths as given on the command line are relative to the working folder, not to the page
    monkeypatch.chdir(tmp_path / "out")
    assert page_path("book/runs/bw 4p.parquet", "book/bw-4p") == ("../runs/bw 4p.parquet", True)
    assert page_path("../elsewhere/runs/y.parquet", "book/bw-4p") == ("y.parquet", False)
    # what a page shows, and what its summary.json says
    mention = file_mention("book/runs/bw 4p.parquet", "book/bw-4p")
    assert isinstance(mention, Link) and mention.href == "../runs/bw 4p.parquet"
    assert file_mention("../elsewhere/runs/y.parquet", "book/bw-4p") == f"y.parquet ({NOT_BESIDE})"
    assert placed({"source": "../elsewhere/runs/y.parquet", "name": "v"}, "source", "book/bw-4p") == \
        {"source": "y.parquet", "name": "v", "source_beside": False}
    assert placed({"source": None}, "source", "book/bw-4p") == {"source": None}


# --------------------------------------------------------------------------------------------
# a book, and a report, written in one folder and read in another
# --------------------------------------------------------------------------------------------

def test_a_moved_book_still_links_and_names_no_folder_of_its_writer(tmp_path):
    written = tmp_path / "written"
    out = written / "book"
    code, _, err = balance("book", "--out", out, "-n", 2000, "-q", "--game", "ten-tricks", "--skill-games", 0)
    assert code == 0, err
    for players in (3, 4):
        run = f"../runs/ten-tricks-{players}p.parquet"
        report = out / f"ten-tricks-{players}p"
        assert f"- results: [{run}]({run})" in (report / "report.md").read_text(encoding="utf-8")
        assert f'<li>results: <a href="{run}">{run}</a></li>' in (report / "report.html").read_text(encoding="utf-8")
        assert summary_sources(report / "summary.json") == [(run, True)]
    moved = tmp_path / "received" / "shared-book"
    moved.parent.mkdir()
    shutil.move(out, moved)
    assert not out.exists()
    # the index links two reports twice (grid, overview); each report's Markdown its charts and its run
    assert assert_travels(moved, written, tmp_path) >= 4 + 2 * 3
    for players in (3, 4):
        report = moved / f"ten-tricks-{players}p"
        for name, beside in summary_sources(report / "summary.json"):
            assert beside and (report / name).exists()


def test_a_report_names_a_run_file_that_is_not_beside_it_by_its_name(tmp_path, monkeypatch):
    """The commands as README shows them (cwd-relative paths): ``runs/`` is not beside
    ``reports/<name>/``, so the page names the file alone; a run beside the report folder is linked."""
    monkeypatch.chdir(tmp_path)
    code, _, err = balance("simulate", "ten-tricks", "--players", 3, "--games", 600, "--out", "runs/tt3.parquet", "-q")
    assert code == 0, err
    code, _, err = balance("report", "runs/tt3.parquet", "--out", "reports/tt3", "--skill-games", 0)
    assert code == 0, err
    page = tmp_path / "reports" / "tt3"
    assert f"- results: tt3.parquet ({NOT_BESIDE})\n" in (page / "report.md").read_text(encoding="utf-8")
    assert f"<li>results: tt3.parquet ({NOT_BESIDE})</li>" in (page / "report.html").read_text(encoding="utf-8")
    assert summary_sources(page / "summary.json") == [("tt3.parquet", False)]

    shutil.copytree(tmp_path / "runs", tmp_path / "reports" / "runs")
    code, _, err = balance("report", "reports/runs/tt3.parquet", "--out", "reports/tt3-beside", "--skill-games", 0)
    assert code == 0, err
    beside = tmp_path / "reports" / "tt3-beside"
    assert "- results: [../runs/tt3.parquet](../runs/tt3.parquet)\n" in (beside / "report.md").read_text(encoding="utf-8")
    assert summary_sources(beside / "summary.json") == [("../runs/tt3.parquet", True)]
    moved = tmp_path / "moved"
    shutil.move(tmp_path / "reports", moved)
    assert assert_travels(moved, tmp_path / "reports", tmp_path) >= 2


# --------------------------------------------------------------------------------------------
# the workbench pages: variant files, plug-ins, trap decks
# --------------------------------------------------------------------------------------------

def test_whatif_and_sweep_pages_name_their_variant_files_from_the_page(tmp_path):
    work = tmp_path / "work"
    (work / "variants").mkdir(parents=True)
    beside = work / "variants" / "short-track.toml"
    shutil.copy(ROOT / "examples" / "variants" / "ten-tricks-short-track.toml", beside)
    (tmp_path / "elsewhere").mkdir()
    away = tmp_path / "elsewhere" / "no-swap.toml"
    shutil.copy(ROOT / "examples" / "variants" / "ten-tricks-no-swap.toml", away)

    code, _, err = balance("whatif", "ten-tricks", "--players", 3, "--variant", beside, "--variant", away,
                           "-n", 300, "-q", "--out", work / "whatif")
    assert code == 0, err
    document = json.loads((work / "whatif" / "summary.json").read_text(encoding="utf-8"))
    assert [(v["source"], v["source_beside"]) for v in document["variants"]] == \
        [("../variants/short-track.toml", True), ("no-swap.toml", False)]
    md = (work / "whatif" / "whatif.md").read_text(encoding="utf-8")
    assert "(../variants/short-track.toml; changes:" in md and f"(no-swap.toml, {NOT_BESIDE}; changes:" in md

    code, _, err = balance("sweep", "ten-tricks", "--players", 3, "--set", "target=10..12:2", "--variant", away,
                           "-n", 300, "-q", "--out", work / "sweep")
    assert code == 0, err
    document = json.loads((work / "sweep" / "summary.json").read_text(encoding="utf-8"))
    assert (document["base"]["source"], document["base"]["source_beside"]) == ("no-swap.toml", False)
    assert {p["variant"]["source"] for p in document["points"]} == {"no-swap.toml"}
    assert f"(no-swap.toml, {NOT_BESIDE}; changes:" in (work / "sweep" / "sweep.md").read_text(encoding="utf-8")

    moved = tmp_path / "moved"
    shutil.move(work, moved)
    assert_travels(moved, work, tmp_path)


def test_tournament_and_traps_pages_name_plugins_and_decks_from_the_page(tmp_path):
    from analysis.tournament import run_tournament, write_report

    work = tmp_path / "work"
    (work / "plugins").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    plugin = work / "plugins" / "mine.py"
    plugin.write_text("# a plug-in's file, named only\n")
    other = tmp_path / "elsewhere" / "theirs.py"
    other.write_text("# another\n")
    doc = run_tournament("ten-tricks", 3, "random,greedy", 240, progress=False)
    write_report({**doc, "plugins": [str(plugin), str(other)]}, work / "tournament")
    document = json.loads((work / "tournament" / "summary.json").read_text(encoding="utf-8"))
    assert (document["plugins"], document["plugins_beside"]) == (["../plugins/mine.py", "theirs.py"], [True, False])

    deck = tmp_path / "elsewhere" / "my-deck.toml"
    shutil.copy(ROOT / "simcore" / "games" / "sky_city" / "sky_city_traps.toml", deck)
    code, _, err = balance("traps", "--players", 3, "--deck", deck, "-n", 300, "--no-equilibria", "-q",
                           "--out", work / "traps")
    assert code == 0, err
    document = json.loads((work / "traps" / "summary.json").read_text(encoding="utf-8"))
    assert (document["deck"], document["deck_beside"]) == ("my-deck.toml", False)
    assert f"Deck: my-deck.toml ({NOT_BESIDE})." in (work / "traps" / "traps.md").read_text(encoding="utf-8")

    moved = tmp_path / "moved"
    shutil.move(work, moved)
    assert_travels(moved, work, tmp_path)


def test_the_committed_example_report_names_no_folder_and_links_what_it_holds():
    """reports/examples/bird-weather-4p/ was written from ``runs/`` at the project's root, which is
    not beside it: it names its run file alone."""
    example = ROOT / "reports" / "examples" / "bird-weather-4p"
    assert assert_travels(example) == 4  # the Markdown's four charts
    for page in example.iterdir():
        if page.suffix in (".md", ".html", ".json"):
            text = re.sub(r'data:[^"]*', "", page.read_text(encoding="utf-8"))  # not inside the charts' base64
            assert not re.search(r"(?<![\w.])/(?:tmp|home|work|Users|var|root|mnt)/", text), page
    assert summary_sources(example / "summary.json") == [("bird-weather-4p.parquet", False)]
    assert f"- results: bird-weather-4p.parquet ({NOT_BESIDE})\n" in (example / "report.md").read_text(encoding="utf-8")


def test_a_tune_page_names_its_space_and_rules_from_the_page_and_its_winners_whatif_too(tmp_path):
    """The space file lies elsewhere and the rules it tunes from in the repository's examples: the
    tune page, tune.json and summary.json name both by file name, and the winner's what-if page
    (whatif/) names winner.toml relative to itself; nothing names a folder of the writer."""
    from test_tune import TINY

    # tests/analysis/test_tune.py's space whose size-1 answer meets a ±3 pp target (a winner: a what-if page)
    text = TINY.replace('range = [3, 4]', 'range = [3, 5]').replace('key = "deals"\nrange = [1, 2]',
                                                                  'key = "deals"\nvalues = [1, 2, 3]')
    text = text.replace("within = 0.01 ", "within = 3.0  ").replace("[budget]", '[[change]]\nkey = "reversal"\n'
                                                                              "values = [true, false]\n\n[budget]")
    (tmp_path / "elsewhere").mkdir()
    space = tmp_path / "elsewhere" / "fair-first-seat.space.toml"
    space.write_text(text, encoding="utf-8")
    work = tmp_path / "work"
    code, _, err = balance("tune", space, "--seed", "1", "--candidates", "4", "-q", "--out", work / "tune")
    assert code == 0, err
    for name in ("summary.json", "tune.json"):
        document = json.loads((work / "tune" / name).read_text(encoding="utf-8"))
        assert (document["space"], document["space_beside"]) == ("fair-first-seat.space.toml", False)
        assert (document["from"]["source"], document["from"]["source_beside"]) == \
            ("bird-weather-short-hands.toml", False)
    md = (work / "tune" / "tune.md").read_text(encoding="utf-8")
    assert f"(fair-first-seat.space.toml, {NOT_BESIDE})" in md
    assert document["winner"] is not None  # so the winner's what-if page is written, and checked below
    whatif = json.loads((work / "tune" / "whatif" / "summary.json").read_text(encoding="utf-8"))
    assert [(v["source"], v["source_beside"]) for v in whatif["variants"]] == [("../winner.toml", True)]
    assert [(v["source"], v["source_beside"]) for v in document["whatif"]["variants"]] == [("../winner.toml", True)]

    moved = tmp_path / "moved"
    shutil.move(work, moved)
    assert_travels(moved, work, tmp_path, ROOT)

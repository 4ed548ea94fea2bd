"""`balance book`: one report per game and player count, and an index that links them with an
overview table and a first-player-advantage chart."""
import json
import re

from conftest import balance
from simcore.registry import get_game


def test_book_links_a_report_per_player_count(tmp_path):
    out = tmp_path / "book"
    code, text, err = balance("book", "--out", out, "-n", 3000, "-q", "--game", "sky-city", "--game", "triatri",
                              "--skill-games", 800, "--search-games", 120, "--tier-seconds", 0)  # game budgets alone
    assert code == 0, err
    html = (out / "index.html").read_text()
    links = re.findall(r'<a href="([^"]+)">', html)
    expected = [f"{name}-{p}p/report.html" for name in ("sky-city", "triatri")
                for p in get_game(name).player_counts]
    assert links == expected + expected  # the grid of verdicts first, then the overview table
    for link in links:
        assert (out / link).is_file() and (out / link).with_name("report.md").is_file()
    assert 'src="data:image/png;base64,' in html and "First seat&#x27;s edge" in html
    # the index opens with its verdict and the grid: a row per game, a column per player count
    assert html.index('class="verdict') < html.index('class="grid"') < html.index("<img")
    grid = re.search(r'<table class="grid">(.*?)</table>', html, re.S).group(1)
    assert grid.count("<tr>") == 3 and "2 players" in grid and "5 players" in grid and grid.count("—") == 2
    document = json.loads((out / "summary.json").read_text())
    rows = document["overview"]["rows"]
    assert [row[1] for row in rows] == ["3", "4", "5", "2", "3", "4"] and all(row[2] == "3,000" for row in rows)
    # the overview's advantage and rounds come from the runs' own summaries
    for row, summary in zip(rows, document["runs"]):
        assert row[4].endswith("]") and " pp [" in row[4] and summary["games"] == 3000
        assert re.match(r"^\d+\.\d+ \[\d+\.\d+, \d+\.\d+\]$", row[6]), row[6]
    assert "[sky-city-3p/report.html](sky-city-3p/report.html)" in (out / "index.md").read_text()
    # skill and luck: the top gap and the first-seat edge per tier, in the overview and each report, for every
    # game that names skill tiers (both here: ALEA random/cautious/best-response, TriATri random/heuristic/search)
    assert ["skill" in summary for summary in document["runs"]] == [True] * 6
    for row, summary in zip(rows, document["runs"]):
        tiers = summary["skill"]["tiers"]
        assert re.match(rf"^one {tiers[-1]} among {tiers[-2]}: \d+\.\d+ \[", row[8]), row[8]
        assert row[9] == " → ".join(f"{e['tier']} {e['edge_pp']:+.1f} [{e['ci_pp'][0]:+.1f}, {e['ci_pp'][1]:+.1f}]"
                                    for e in summary["skill"]["first_seat_edge"]) + " pp"  # with its interval
        top = summary["skill"]["gaps"][-1]
        # --search-games for search players, a quarter of them for the four-times-larger search
        count = 30 if top["hero"] == "search:d=96" else 120 if top["hero"].startswith("search") else 800
        assert top["games"] == count + (-count) % summary["players"]
    # ALEA's curve is its ladder; TriATri's ends in the ladder's four-times-larger search
    assert [summary["skill"]["gaps"][-1]["hero"] for summary in document["runs"]] == ["best-response"] * 3 + ["search:d=96"] * 3
    for summary in document["runs"]:  # whether the edge stopped moving, from the two strongest tiers
        assert summary["skill"]["convergence"]["tiers"] == summary["skill"]["tiers"][-2:]
    cells = re.findall(r'<a href="[^"]+/report.html">([^<]+)</a>', grid)
    assert len(cells) == 6 and all(" · convergence unclear" in cell or " · converged" in cell
                                   or " · still moving" in cell for cell in cells), cells
    for slug in ("sky-city-4p", "triatri-4p"):
        report = (out / slug / "report.md").read_text()
        assert "## Skill and luck" in report and "skill-first-seat.png" in report


def test_book_refuses_an_unknown_game_and_writes_nothing(tmp_path):
    out = tmp_path / "book"
    code, text, err = balance("book", "--out", out, "-n", 100, "-q", "--game", "chess")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "unknown game 'chess'" in err
    assert not out.exists()

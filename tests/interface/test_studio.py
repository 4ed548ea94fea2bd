"""`balance studio`: its API against the command line's own figures, and how it holds up.

The studio's figures must be the figures `balance whatif` gives from the version's exported
variant file on the same seed and games, to the bit; a refused value is an answer naming its key,
never a server error; versions survive a restart and two writers at once; a newer edit
supersedes a running measurement; Ctrl-C leaves every version intact.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from conftest import TESTS, balance

from balance.studio.app import make_app
from balance.studio.live import Studio

ROOT = TESTS.parent
GAME = "bird-weather"
TIER = "random"  # the cheapest players: these tests are about the studio, not the players


def small_studio(folder: Path, game: str = GAME, players: int = 4, **options) -> Studio:
    settings = dict(seed=7, tier=TIER, cap=8_000, threads=2, opening_games=2_000, opening_search_games=80,
                    cards_games=4_000)
    settings.update(options)
    return Studio(game, players, folder=folder, **settings)


@pytest.fixture
def studio(tmp_path):
    found = small_studio(tmp_path / "versions")
    yield found
    found.close()


def wait_result(client, number: int, tier: str = TIER, seconds: float = 120.0) -> dict:
    deadline = time.time() + seconds
    while time.time() < deadline:
        version = client.get(f"/api/versions/{number}").json()
        result = version["results"].get(tier)
        if result and result["status"] not in ("running",):
            return version
        time.sleep(0.1)
    raise AssertionError(f"version {number} still measuring after {seconds} s")


def test_a_change_gives_whatifs_own_figures_and_its_file_reproduces_them(studio, tmp_path):
    from analysis.whatif import whatif

    client = TestClient(make_app(studio))
    answer = client.post("/api/versions", json={"settings": {"reversal": False}, "changed": "reversal"})
    assert answer.status_code == 201
    number = answer.json()["version"]["number"]
    assert number == 2 and answer.json()["version"]["name"] == "reversal off"
    version = wait_result(client, number)
    result = version["results"][TIER]
    assert result["status"] in ("settled", "cap") and result["games"] in studio.looks
    exported = client.get(f"/api/versions/{number}/export", params={"tier": TIER})
    assert exported.status_code == 200
    assert exported.headers["content-disposition"] == 'attachment; filename="bird-weather-v2.toml"'
    text = exported.text
    assert (f"balance whatif bird-weather -p 4 -n {result['games']} --seed 7 -s random --duplicate "
            "--variant bird-weather-v2.toml") in text
    assert tomllib.loads(text) == {"game": "bird-weather", "name": "reversal off", "description": "made in balance studio",
                                   "reversal": False}
    path = tmp_path / "bird-weather-v2.toml"
    path.write_text(text)
    document = whatif(GAME, [path], players=4, games=result["games"], seed=7, strategies_spec=TIER, progress=False)
    assert document["variants"][0]["figures"] == result["document"]["variants"][0]["figures"]
    assert document["verdict"]["sentences"] == result["document"]["verdict"]["sentences"]
    live = result["live"]
    advantage = next(r for r in document["variants"][0]["figures"] if r["key"] == "advantage")
    assert live["change_pp"] == 100 * advantage["change"]
    assert live["sentence"].startswith("Version 2 (reversal off) moves the first seat's edge among random players")
    # the stop rule's interval is the wider Bonferroni one, around the same change
    assert live["stop_ci_pp"][0] < live["ci_pp"][0] < live["change_pp"] < live["ci_pp"][1] < live["stop_ci_pp"][1]
    # each look narrows: the history holds every look played, 2,000 games first
    history = result["history"]
    assert [h["games"] for h in history] == studio.looks[:len(history)] and history[0]["games"] == 2_000


def test_what_the_page_sends_wrong_is_one_line_beside_its_key_never_a_server_error(studio):
    client = TestClient(make_app(studio), raise_server_exceptions=False)
    refusals = [  # the rules refuse: an answer the page shows beside the key
        ({"settings": {"hand_size": 99}, "changed": "hand_size"}, "hand_size", "cannot deal 4 hands of 99"),
        ({"settings": {"reversal": "no"}, "changed": "reversal"}, "reversal", "'reversal' must be bool"),
        ({"settings": {"cards": [10, 10, 11]}, "changed": "cards"}, "cards", "cards"),
        ({"settings": {"colour": 3}}, None, "'colour' is not a variant key"),
    ]
    for body, key, words in refusals:
        answer = client.post("/api/versions", json=body)
        assert answer.status_code == 200 and answer.json()["refused"] is True, (body, answer.text)
        assert answer.json()["key"] == key and words in answer.json()["error"], (body, answer.json())
        assert "\n" not in answer.json()["error"]
    malformed = [({"settings": [1, 2]}, "settings must be a table"), ({"settings": {}, "tier": "genius"}, "unknown tier 'genius'")]
    for body, words in malformed:
        answer = client.post("/api/versions", json=body)
        assert answer.status_code == 422 and words in answer.json()["error"], (body, answer.text)
    assert client.post("/api/versions", content=b"{not json").status_code == 422
    assert client.get("/api/versions/99").status_code == 404
    assert client.get("/api/versions/two").status_code == 422
    assert client.get("/api/compare", params={"a": 1}).status_code == 422
    assert client.post("/api/import", content=b'game = "triatri"\nlow = 3\n').json()["error"] == \
        "the file: this variant is for 'triatri', not 'bird-weather'"
    assert client.post("/api/import", content=b"game = [").json()["refused"] is True
    assert client.post("/api/tune", json={"changes": [], "within": 1.0}).json() == \
        {"refused": True, "error": "tick at least one key the tuner may change", "key": None}
    assert client.post("/api/versions/1/measure").status_code == 422  # the published rules are the baseline
    # nothing refused became a version
    assert [v["number"] for v in client.get("/api/versions").json()["versions"]] == [1]


def test_the_published_value_is_the_published_rules_and_setting_it_back_is_version_1(studio):
    client = TestClient(make_app(studio))
    controls = {c["key"]: c for c in client.get("/api/game").json()["controls"]}
    assert controls["hand_size"] == {"key": "hand_size", "kind": "int", "value": 10, "choices": [], "section": "",
                                     "description": controls["hand_size"]["description"]}
    assert controls["cards"]["kind"] == "list" and controls["cards"]["value"] == list(range(10, 50))
    assert controls["reversal"]["kind"] == "bool" and controls["reversal"]["value"] is True
    # a key set to its published value changes nothing: the published rules, version 1
    answer = client.post("/api/versions", json={"settings": {"hand_size": 10, "reversal": True}})
    assert answer.status_code == 200 and answer.json() == {"version": client.get("/api/versions/1").json(), "new": False}
    deck = [c for c in range(10, 50) if c != 49] + [55]
    answer = client.post("/api/versions", json={"settings": {"cards": deck}, "changed": "cards"})
    assert answer.status_code == 201 and answer.json()["version"]["name"] == "cards −49 +55"
    studio.measuring.stop()


def test_versions_survive_a_restart_and_two_writers_at_once(tmp_path):
    folder = tmp_path / "versions"
    first = small_studio(folder)
    client = TestClient(make_app(first))
    numbers, errors = [], []

    def add(hand_size):
        answer = client.post("/api/versions", json={"settings": {"hand_size": hand_size}})
        (numbers if answer.status_code == 201 else errors).append(answer.json())

    writers = [threading.Thread(target=add, args=(size,)) for size in (6, 7, 8, 9)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert not errors
    assert sorted(v["version"]["number"] for v in numbers) == [2, 3, 4, 5]
    first.measuring.stop()
    first.close()
    kept = sorted(p.name for p in folder.glob("v*.json"))
    assert kept == ["v0001.json", "v0002.json", "v0003.json", "v0004.json", "v0005.json"]
    again = small_studio(folder)
    try:
        listed = TestClient(make_app(again)).get("/api/versions").json()["versions"]
        assert {v["number"]: v["settings"] for v in listed} == {
            1: {}, **{v["version"]["number"]: v["version"]["settings"] for v in numbers}}
        assert all(r["status"] != "running" for v in listed for r in v["results"].values())
    finally:
        again.close()
    with pytest.raises(Exception, match="holds a version of another studio"):
        small_studio(folder, seed=8)


def test_a_newer_edit_supersedes_the_running_one_and_a_stopped_one_goes_on(tmp_path):
    found = small_studio(tmp_path / "versions", cap=2_000_000)
    try:
        client = TestClient(make_app(found))
        slow = client.post("/api/versions", json={"settings": {"zero_win": False}}).json()["version"]["number"]
        deadline = time.time() + 60
        while not client.get(f"/api/versions/{slow}").json()["results"].get(TIER, {}).get("games"):
            assert time.time() < deadline
            time.sleep(0.05)
        newer = client.post("/api/versions", json={"settings": {"facedown": False}}).json()["version"]["number"]
        first = wait_result(client, slow)["results"][TIER]
        assert first["status"] == "superseded" and 2_000 <= first["games"] < 2_000_000
        deadline = time.time() + 60
        while not client.get(f"/api/versions/{newer}").json()["results"].get(TIER, {}).get("games"):
            assert time.time() < deadline
            time.sleep(0.05)
        client.post("/api/stop")
        stopped = wait_result(client, newer)["results"][TIER]
        assert stopped["status"] in ("stopped", "settled")
        if stopped["status"] == "stopped":  # going on keeps the games played and plays on from there
            client.post(f"/api/versions/{newer}/measure")
            time.sleep(0.5)
            client.post("/api/stop")
            assert wait_result(client, newer)["results"][TIER]["games"] >= stopped["games"]
    finally:
        found.close()


def test_two_versions_compare_as_whatif_compares_their_files(studio, tmp_path):
    from analysis.whatif import whatif

    client = TestClient(make_app(studio))
    a = client.post("/api/versions", json={"settings": {"hand_size": 9}}).json()["version"]["number"]
    wait_result(client, a)
    b = client.post("/api/versions", json={"settings": {"hand_size": 9, "reversal": False}}).json()["version"]["number"]
    games = wait_result(client, b)["results"][TIER]["games"]
    games = min(games, client.get(f"/api/versions/{a}").json()["results"][TIER]["games"])
    document = client.get("/api/compare", params={"a": a, "b": b, "tier": TIER}).json()
    assert document["games"] == games
    paths = []
    for number in (a, b):
        path = tmp_path / f"v{number}.toml"
        path.write_text(client.get(f"/api/versions/{number}/export").text)
        paths.append(path)
    expected = whatif(GAME, [paths[1]], players=4, games=games, seed=7, strategies_spec=TIER, progress=False,
                      baseline_path=paths[0])
    assert document["variants"][0]["figures"] == expected["variants"][0]["figures"]
    # an exported file imported again is the same version, not a new one
    again = client.post("/api/import", content=paths[1].read_bytes())
    assert again.status_code == 200 and again.json()["version"]["number"] == b


def test_the_card_table_of_a_version_offers_its_cards_to_take_out(studio):
    client = TestClient(make_app(studio))
    deadline = time.time() + 120
    state = client.get("/api/versions/1/cards", params={"tier": TIER}).json()
    while state["status"] == "running":
        assert time.time() < deadline
        time.sleep(0.2)
        state = client.get("/api/versions/1/cards", params={"tier": TIER}).json()
    assert state["status"] == "done", state
    assert state["list_key"] == "cards" and state["games"] == 4_000
    assert sorted(r["item"] for r in state["rows"]) == list(range(10, 50))
    assert next(r for r in state["rows"] if r["item"] == 11)["card"] == "11 (sun, sparrow)"
    assert state["chart"].startswith("data:image/png;base64,")
    for row in state["rows"]:
        assert row["ci_low"] <= row["delta"] <= row["ci_high"]


def test_the_tuner_runs_from_the_page_and_its_winner_is_a_setting(studio):
    client = TestClient(make_app(studio))
    refused = client.post("/api/tune", json={"changes": [{"key": "hand_size", "range": [8, 12]}], "within": 2.0})
    assert refused.json()["refused"] and "range [8, 12] holds 11, which the rules refuse" in refused.json()["error"]
    answer = client.post("/api/tune", json={"changes": [{"key": "hand_size", "range": [8, 10]}], "within": 5.0,
                                            "candidates": 3, "tier": TIER})
    assert answer.status_code == 202
    deadline = time.time() + 300
    state = client.get("/api/tune").json()
    while state["status"] == "running":
        assert time.time() < deadline
        time.sleep(0.3)
        state = client.get("/api/tune").json()
    assert state["status"] == "done", state
    assert [c["number"] for c in state["candidates"]] == list(range(1, len(state["candidates"]) + 1))
    # ±5 pp holds for the published rules among random players: no change is the smallest
    assert state["winner"] == {"settings": {}, "name": "tuned: published rules"}


RULES = ROOT / "examples" / "games" / "oh-hell.toml"


def test_a_rules_file_is_edited_as_text_and_exports_as_a_rules_file(tmp_path):
    found = small_studio(tmp_path / "versions", game=str(RULES), players=4)
    try:
        client = TestClient(make_app(found))
        game = client.get("/api/game").json()
        assert game["rules_text"] == RULES.read_text()
        keys = {c["key"]: c for c in game["controls"]}
        assert keys["deal.hand_size"]["value"] == 7 and keys["deal.hand_size"]["kind"] == "text"  # a number or a table
        assert keys["trump.kind"]["kind"] == "choice" and "turned-up" in keys["trump.kind"]["choices"]
        assert keys["game.rounds"] == {"key": "game.rounds", "kind": "int", "value": 1, "choices": [], "section": "game",
                                       "description": "[game] rounds"}
        broken = game["rules_text"].replace("hand_size = 7", "hand_size = 99", 1)
        answer = client.post("/api/versions", json={"rules_text": broken})
        assert answer.json()["refused"] and "\n" not in answer.json()["error"], answer.text
        assert answer.json()["key"] == "deal.hand_size" and answer.json()["error"].startswith(f"{RULES}: deal.hand_size (line ")
        edited = game["rules_text"].replace("hand_size = 7", "hand_size = 6", 1)
        answer = client.post("/api/versions", json={"rules_text": edited})
        assert answer.status_code == 201, answer.text
        version = answer.json()["version"]
        assert version["settings"] == {"deal.hand_size": 6} and version["rules_text"] == edited
        found.measuring.stop()
        variant = tomllib.loads(client.get(f"/api/versions/{version['number']}/export").text)
        assert variant["game"] == str(RULES) and variant["deal"] == {"hand_size": 6}
        # the same change through its control is the same version
        same = client.post("/api/versions", json={"settings": {"deal.hand_size": 6}})
        assert same.status_code == 200 and same.json()["version"]["number"] == version["number"]
        rules = client.get(f"/api/versions/{version['number']}/export", params={"as": "rules"}).text
        assert rules == edited
        again = client.post("/api/import", content=rules.encode())
        assert again.status_code == 200 and again.json()["version"]["number"] == version["number"]
    finally:
        found.close()


# --------------------------------------------------------------------------------------------
# the command itself

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_port_in_use_is_one_line_and_exit_code_2(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = balance("studio", GAME, "--port", str(port), "--no-browser", "--versions", str(tmp_path / "v"))
    assert code == 2
    assert err.strip() == f"balance: error: port {port} on 127.0.0.1 is in use (another studio?): give --port N"
    assert balance("studio", GAME, "--port", "0", "--no-browser")[0] == 2
    code, _, err = balance("studio", GAME, "-p", "7", "--no-browser", "--port", str(free_port()))
    assert (code, err.strip()) == (2, "balance: error: Trick-Take BIRD & WEATHER is played by 3, 4, 5 players, not 7")
    assert not (tmp_path / "v").exists()


def _start(tmp_path, *extra):
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DISPLAY", None)
    process = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "studio", GAME, "--port", str(port),
                                "--versions", str(tmp_path / "versions"), "--tier", TIER, "--games", "4000000", *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    line = process.stdout.readline()
    return process, port, line


def _http(port: int, method: str, path: str, body: dict | None = None) -> dict:
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_ctrl_c_stops_the_studio_and_every_saved_version_is_intact(tmp_path):
    process, port, line = _start(tmp_path)
    try:
        assert line.strip() == f"balance studio: Trick-Take BIRD & WEATHER, 4 players, seed 1, at http://127.0.0.1:{port}/"
        assert "versions are kept in" in process.stdout.readline()
        for _ in range(100):
            try:
                _http(port, "GET", "/api/game")
                break
            except OSError:
                time.sleep(0.1)
        number = _http(port, "POST", "/api/versions", {"settings": {"zero_win": False}})["version"]["number"]
        deadline = time.time() + 60
        while not _http(port, "GET", f"/api/versions/{number}")["results"].get(TIER, {}).get("games"):
            assert time.time() < deadline
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)  # while it measures
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert "stopped; every version is kept" in process.stderr.read()
    saved = json.loads((tmp_path / "versions" / f"v{number:04d}.json").read_text())
    assert saved["settings"] == {"zero_win": False} and saved["results"][TIER]["games"] >= 2_000
    assert not list((tmp_path / "versions").glob(".*.tmp"))


def test_listening_beyond_this_machine_says_so(tmp_path):
    process, port, line = _start(tmp_path, "--host", "0.0.0.0")
    try:
        assert line.strip().endswith(f"at http://127.0.0.1:{port}/")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    assert "warning: listening on 0.0.0.0: anyone who can reach this machine" in process.stderr.read()

"""Fuzzed inputs (issue 16, item 6): the parsers of scenarios, variants, trap decks, strategy specs
and the command line, driven by Hypothesis with random and mutated inputs (BOMs, wrong types,
huge numbers, unknown keys, cut-off and garbled text).  Nothing may raise an unhandled exception:
an input is either accepted or refused with one line on stderr and exit code 2.

Every input goes through ``cli.main`` in this process (``balance()``), as a user's would; runs
are a handful of games, so a whole example takes milliseconds once the kernels are cached.
Example counts are modest (the suite must stay fast); Hypothesis keeps its finds in .hypothesis/.
"""
from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import balance
from simcore.errors import BalanceError
from simcore.registry import get_game

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "examples" / "scenarios").glob("*.json"))
VARIANTS = sorted((ROOT / "examples" / "variants").glob("*.toml"))
TRAP_DECK = ROOT / "simcore" / "games" / "sky_city" / "sky_city_traps.toml"
FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def accepted_or_one_line(code, out, err, allowed=(0,)):
    """The contract: accepted (an allowed exit code), or exit 2 with one ``balance: error:`` line."""
    if code in allowed:
        return
    assert code == 2, (code, out[-500:], err[-2000:])
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("balance: error: "), err[-2000:]
    assert "Traceback" not in err


# --------------------------------------------------------------------------------------------
# values and mutations
# --------------------------------------------------------------------------------------------

HUGE = [2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 10**30, -(2**63) - 1]
weird_numbers = st.one_of(st.sampled_from([0, -1, 1, 7, 99, 1000, *HUGE]), st.integers(-2**70, 2**70),
                          st.floats(allow_nan=True, allow_infinity=True))
weird_scalars = st.one_of(weird_numbers, st.booleans(), st.text(max_size=12),
                          st.sampled_from(["", "\ufeff", "random", "nan", "10..99", "bird-weather", "☃"]))
weird_values = st.one_of(weird_numbers, weird_scalars, st.lists(weird_scalars, max_size=6),
                         st.lists(st.integers(-3, 120), max_size=70),
                         st.dictionaries(st.text(max_size=5), weird_scalars, max_size=3))


@st.composite
def mutated(draw, base: dict, keys: list[str]) -> dict:
    """``base`` with a few of its keys (or of ``keys``, the ones the parser knows, or unknown
    ones) set to weird values or removed."""
    data = dict(base)
    known = sorted(set(data) | set(keys))
    for _ in range(draw(st.integers(1, 4))):
        # mostly keys the parser knows (their checks are what is under test), sometimes a stranger
        key = draw(st.sampled_from(known)) if draw(st.integers(0, 4)) else draw(st.text(min_size=1, max_size=8))
        if draw(st.integers(0, 4)) == 0:
            data.pop(key, None)
        else:
            data[key] = draw(weird_values)
    return data


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def toml_text(data: dict, tables: dict[str, list[dict]] | None = None) -> str:
    lines = [f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}" for k, v in data.items() if v is not None]
    for name, rows in (tables or {}).items():
        for row in rows:
            lines += ["", f"[[{name}]]"] + [f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}"
                                            for k, v in row.items() if v is not None]
    return "\n".join(lines) + "\n"


@st.composite
def garbled(draw, text: str) -> bytes:
    """The text as a user's editor might have saved it, or worse: a BOM, cut short, a stray
    character, invalid UTF-8."""
    data = text.encode("utf-8")
    kind = draw(st.integers(0, 5))
    if kind == 1:
        data = b"\xef\xbb\xbf" + data
    elif kind == 2:
        data = data[: draw(st.integers(0, len(data)))]
    elif kind == 3:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\x00", b"]", b"{", b"\"", b"=", b"\n[[", b"\xff\xfe", b"\\"])) + data[at:]
    elif kind == 4:
        data = draw(st.binary(max_size=64))
    return data


# --------------------------------------------------------------------------------------------
# variants
# --------------------------------------------------------------------------------------------

VARIANT_BASES = [(tomllib.loads(p.read_text(encoding="utf-8")), p) for p in VARIANTS]


@st.composite
def variant_files(draw):
    base, path = draw(st.sampled_from(VARIANT_BASES))
    game = get_game(base["game"])
    data = draw(mutated(base, list(game.variant_keys) + ["game", "name", "description"]))
    return base["game"], draw(garbled(toml_text(data)))


@FUZZ
@given(case=variant_files())
def test_fuzzed_variants(tmp_path, case):
    game, data = case
    path = tmp_path / "v.toml"
    path.write_bytes(data)
    players = get_game(game).player_counts[0]
    accepted_or_one_line(*balance("simulate", game, "-p", players, "-n", 3, "-q", "--threads", 1, "--variant", path))


def test_a_variant_with_a_bom_is_read(tmp_path):
    path = tmp_path / "v.toml"
    path.write_bytes(b"\xef\xbb\xbf" + VARIANTS[0].read_bytes())
    code, out, err = balance("simulate", "bird-weather", "-n", 3, "-q", "--variant", path)
    assert code == 0, err


# --------------------------------------------------------------------------------------------
# scenarios
# --------------------------------------------------------------------------------------------

SCENARIO_BASES = [json.loads(p.read_text(encoding="utf-8")) for p in SCENARIOS]


@st.composite
def scenario_files(draw):
    base = draw(st.sampled_from(SCENARIO_BASES))
    data = draw(mutated(base, sorted(base)))
    if draw(st.booleans()) and isinstance(data.get("variant"), dict):  # inside the inline variant too
        data["variant"] = draw(mutated(data["variant"], list(get_game(base["game"]).variant_keys)))
    return draw(garbled(json.dumps(data)))


@FUZZ
@given(data=scenario_files())
def test_fuzzed_scenarios(tmp_path, data):
    path = tmp_path / "s.json"
    path.write_bytes(data)
    accepted_or_one_line(*balance("play", path), allowed=(0, 1))  # 1: an 'expect' that did not happen


# --------------------------------------------------------------------------------------------
# trap decks (The Sky City of ALEA)
# --------------------------------------------------------------------------------------------

DECK = tomllib.loads(TRAP_DECK.read_text(encoding="utf-8"))
CONDITION_WORDS = ["faces", "pattern", "total", "count", "{", "}", ",", ">=", ">", "<=", "==", "!=", "|", "1", "6",
                   "7", "0", "-1", "99999", "10**9", "AABB", "ABCDEFG", "{2,4,6}", "{}", "and", "☃", " "]


@st.composite
def trap_decks(draw):
    traps = [dict(t) for t in draw(st.lists(st.sampled_from(DECK["trap"]), min_size=1, max_size=6))]
    for trap in traps:
        choice = draw(st.integers(0, 3))
        if choice == 0:
            trap["when"] = " ".join(draw(st.lists(st.sampled_from(CONDITION_WORDS), min_size=1, max_size=7)))
        elif choice == 1:
            trap.update(draw(mutated(trap, ["name", "when", "note", "players", "assumed"])))
    top = draw(mutated({"name": DECK["name"]}, ["name"])) if draw(st.booleans()) else {"name": DECK["name"]}
    return draw(garbled(toml_text(top, {"trap": traps})))


@FUZZ
@given(data=trap_decks())
def test_fuzzed_trap_decks(tmp_path, data):
    deck = tmp_path / "deck.toml"
    deck.write_bytes(data)
    accepted_or_one_line(*balance("traps", "-p", 3, "-n", 5, "--no-equilibria", "--deck", deck))


# --------------------------------------------------------------------------------------------
# strategy specs
# --------------------------------------------------------------------------------------------

SPEC_WORDS = ["random", "heuristic", "greedy", "search", "fixed", "cautious", "expected-value", "best-response",
              "low-ones", ":", ":", "=", ",", "d", "p", "policy", "margin", "99", "-1", "0", "2", "0.5", "1e400", "nan",
              "inf", "3.5", "4096", "4097", " ", "\ufeff", "é", "0x10", "1_0"]


@FUZZ
@given(game=st.sampled_from(["bird-weather", "sky-city"]),
       spec=st.lists(st.sampled_from(SPEC_WORDS), max_size=9).map("".join))
def test_fuzzed_strategy_specs(game, spec):
    g = get_game(game)
    players = g.player_counts[0]
    try:
        lineup = g.lineup(spec, players)
    except BalanceError as exc:
        assert "\n" not in str(exc)
        if spec.strip() and not spec.startswith("-"):  # the same refusal on the command line
            accepted_or_one_line(*balance("simulate", game, "-p", players, "-n", 1, "-q", "--strategies", spec))
        return
    assert len(lineup.names) == players


@pytest.mark.parametrize("game,spec,fragment", [
    ("sky-city", "fixed:99", "from 0 to 5"),
    ("sky-city", "fixed:2.5", "whole number from 0 to 5"),
    ("sky-city", "fixed:-1", "from 0 to 5"),
    ("sky-city", "cautious:1.5", "from 0.0 to 1.0"),
    ("sky-city", "cautious:nan", "from 0.0 to 1.0"),
    ("sky-city", "best-response:1.5", "P, the threshold of the cautious players it expects"),
    ("sky-city", "best-response:-0.1", "from 0.0 to 1.0"),
    ("bird-weather", "search:d=inf", "search d= must be a number"),
    ("bird-weather", "search:d=5000", "1..4096"),
    ("bird-weather", "heuristic:3", "takes no parameter"),
])
def test_out_of_range_parameters_are_refused_with_the_range(game, spec, fragment):
    players = get_game(game).player_counts[0]
    code, out, err = balance("simulate", game, "-p", players, "-n", 1, "-q", "--strategies", spec)
    accepted_or_one_line(code, out, err, allowed=())
    assert fragment in err, err


def test_fixed_above_the_variants_dice_is_refused(tmp_path):
    variant = tmp_path / "three.toml"
    variant.write_text('game = "sky-city"\ndice_per_player = 3\n')
    code, out, err = balance("simulate", "sky-city", "-n", 5, "-q", "--variant", variant, "--strategies", "fixed:4")
    accepted_or_one_line(code, out, err, allowed=())
    assert "K must be 0 to 3" in err
    assert balance("simulate", "sky-city", "-n", 5, "-q", "--variant", variant, "--strategies", "fixed:3")[0] == 0


# --------------------------------------------------------------------------------------------
# the command line itself
# --------------------------------------------------------------------------------------------

# each command with the options it knows, so that most mutations reach its parsing and checks
COMMANDS = {
    ("simulate", "bird-weather"): ["--players", "-p", "--games", "--seed", "--threads", "--chunk-size", "--strategies",
                                   "--variant", "--deals", "--precision", "--out", "--json", "--force", "--resume",
                                   "--cluster", "--scheduler"],
    ("simulate", "sky-city", "-p", "3"): ["--players", "--seed", "--strategies", "--variant", "--precision",
                                          "--chunk-size", "--out"],
    ("replay", "ten-tricks"): ["--seed", "--index", "-i", "--players", "--strategies", "--variant", "--run", "--json"],
    ("play",): ["--json", "--plugin"],
    ("report",): ["--out", "--force", "--threads"],
    ("games",): [],
}
VALUES = ["-1", "0", "3", "4", "20", "2.5", "nan", "inf", "1e9", "99999999999999999999999", "", "\ufeff3", "３", "0x10",
          "bird-weather", "random", "heuristic,random", "fixed:99", "search:d=9999", "local:0", "local:x",
          "tcp://256.0.0.1:1", "/proc/nope/x.parquet", "nothing.toml", "out.parquet", "é", "4,4", "-", "--"]
PATHS = [str(SCENARIOS[0]), str(VARIANTS[0]), "nothing.parquet", "out.parquet"]


@st.composite
def argument_lists(draw):
    command = draw(st.sampled_from(sorted(COMMANDS)))
    options = COMMANDS[command] or ["--json"]
    args = list(command) + ([draw(st.sampled_from(PATHS))] if command[0] in ("play", "report") else [])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(1, len(args)))
        action = draw(st.integers(0, 9))
        if action == 0 and len(args) > 1:
            del args[at - 1]
        elif action == 1:
            args.insert(at, draw(st.sampled_from(VALUES + ["--unknown", "-x"])))
        else:  # an option of the command with a value, or two options in a row
            args += [draw(st.sampled_from(options)), draw(st.sampled_from(VALUES + options))]
    if args[0] == "simulate":
        args += ["-n", "20", "-q"]  # a long run is no parser test: the last -n wins
    return args


@FUZZ
@given(args=argument_lists())
def test_fuzzed_command_lines(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    accepted_or_one_line(*balance(*args))

"""A plug-in cannot change the game it is measured on (docs/strategies.md, "What a plug-in may
write"): before a run, every loaded plug-in plays a few games with its dispatcher in checking
mode (simcore/plugins/writes.py, ``check_writes``), and one that writes anywhere but its own random
stream (and Chimera Tricks' scratch area, which it must set back to 0) is refused with one line
naming the file, the decision, the argument and the slot: exit 2, nothing written.

Each plug-in build compiles once (about a minute on a 2-core machine, then cached); the checks
themselves take tens of milliseconds."""
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from conftest import balance
from simcore.errors import BalanceError
from simcore.registry import get_game
from simcore.plugins.writes import CHECK_COLUMNS, check_writes, slot_name

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "plugins"
SCORE = FIXTURES / "writes_sky_city_score.py"
HAND = FIXTURES / "writes_chimera_hand.py"
SCRATCH = FIXTURES / "scratch_chimera.py"
ONLY_STREAM = "a strategy may write only its own random stream (streams)"
CHIMERA_ALLOWED = (ONLY_STREAM + " and, while it decides, table[T_SCRATCH] ... table[T_SCRATCH + 511] "
                   "(back to 0 before it returns)")


def _refused(tmp_path, *args):
    """``balance simulate ARGS --out ...``: the error line, after checking exit 2, one line on
    stderr, nothing on stdout and nothing written."""
    out = tmp_path / "run" / "never.parquet"
    code, stdout, err = balance("simulate", *args, "--out", out, "-q")
    assert code == 2, err
    assert stdout == "" and len(err.splitlines()) == 1, err
    assert not out.exists() and (not out.parent.exists() or not list(out.parent.iterdir()))
    return err.rstrip("\n")


def test_a_plugin_that_sets_its_own_score_is_refused(tmp_path):
    err = _refused(tmp_path, "sky-city", "-p", 4, "--plugin", SCORE, "--strategies", "own-score,random,random,random",
                   "-n", 2000, "--seed", 1)
    assert err == (f"balance: error: plug-in {SCORE}: choose_declare wrote table[T_SCORE] "
                   f"(a slot a strategy may only read); {ONLY_STREAM}")


def test_the_check_also_guards_a_replay():
    code, out, err = balance("replay", "sky-city", "-p", 4, "--seed", 1, "--index", 0, "--plugin", SCORE,
                             "--strategies", "random,own-score,random,random")
    assert code == 2 and out == "", err
    assert err == (f"balance: error: plug-in {SCORE}: choose_declare wrote table[T_SCORE] "
                   f"(a slot a strategy may only read); {ONLY_STREAM}\n")


def test_a_plugin_that_edits_another_seats_hand_is_refused(tmp_path):
    err = _refused(tmp_path, "chimera", "-p", 4, "--plugin", HAND, "--strategies", "random,random,edit-hand,random",
                   "-n", 2000, "--seed", 1)
    assert err == (f"balance: error: plug-in {HAND}: choose_play wrote table[T_HELD + 1] "
                   f"(a slot a strategy may only read); {CHIMERA_ALLOWED}")


def test_a_plugin_that_leaves_notes_in_the_scratch_area_is_refused(tmp_path):
    leaky = tmp_path / "leaky_scratch.py"
    leaky.write_text(SCRATCH.read_text().replace('NAME = "scratch-user"', 'NAME = "leaky"')
                     .replace("CLEAN = True", "CLEAN = False"))
    err = _refused(tmp_path, "chimera", "-p", 3, "--plugin", leaky, "--strategies", "leaky,random,random",
                   "-n", 2000, "--seed", 1)
    assert re.fullmatch(rf"balance: error: plug-in {re.escape(str(leaky))}: choose_play left "
                        r"table\[T_SCRATCH \+ \d+\] non-zero \(scratch: it must be set back to 0 before the call "
                        rf"returns\); {re.escape(CHIMERA_ALLOWED)}", err), err


def test_a_plugin_that_uses_the_scratch_area_and_clears_it_is_accepted(tmp_path):
    """It plays random's moves, so its seat's rows are random's: the run is the same game."""
    runs = {}
    for name, extra in (("scratch-user", ["--plugin", SCRATCH]), ("random", [])):
        out = tmp_path / f"{name}.parquet"
        code, _, err = balance("simulate", "chimera", "-p", 4, *extra, "--strategies", f"{name},random,random,random",
                               "-n", 3000, "--seed", 7, "--out", out, "-q")
        assert code == 0, err
        runs[name] = pl.read_parquet(out)
    assert runs["scratch-user"].equals(runs["random"])
    game = get_game("chimera")
    setup = game.setup(4, game.variant())
    calls = check_writes(game, setup, game.lineup("scratch-user", 4, [SCRATCH]), 7)
    assert calls[str(SCRATCH)] > 1000  # the check reached it: every play of every seat in its games


PLUGINS = [("bird-weather", 4, "examples/plugins/low_ones.py"),
           ("chimera", 4, "examples/plugins/chimera-cheap-winner.py"),
           ("sky-city", 4, "examples/plugins/alea_two_or_nothing.py"),
           ("ten-tricks", 4, "examples/plugins/ten-tricks-low-survivor.py"),
           ("bird-weather", 4, "tests/fixtures/plugins/peek_facedown.py"),
           ("chimera", 3, "tests/fixtures/plugins/peek_chimera.py"),
           ("sky-city", 5, "tests/fixtures/plugins/peek_sky_city.py"),
           ("ten-tricks", 3, "tests/fixtures/plugins/peek_ten_tricks.py"),
           ("triatri", 4, "tests/fixtures/plugins/peek_triatri.py")]


@pytest.mark.parametrize("name, players, path", PLUGINS, ids=[p for _, _, p in PLUGINS])
def test_the_example_and_peeking_plugins_are_accepted(name, players, path):
    """They read, and write nothing or only put back what they tried (low_ones.py tries a card in
    the trick and takes it back): accepted, and asked enough decisions that the check means
    something.  (Its cost, tens of milliseconds once the build is compiled, is measured in
    docs/strategies.md, not timed here.)"""
    game = get_game(name)
    setup = game.setup(players, game.variant())
    lineup = game.lineup(None, players, [ROOT / path])
    plugin = game.strategy_module().PLUGIN_BASE
    assert (lineup.ids < plugin).all()  # not even seated: every loaded plug-in is checked
    check_writes(game, setup, lineup, 1)  # compiles the build's play loop, once per machine
    from simcore.plugins import writes

    writes._CHECKED.clear()
    calls = check_writes(game, setup, lineup, 1)
    assert calls[str(ROOT / path)] >= 100
    assert lineup.params.shape[1] == game.strategy_module().N_PARAMS  # the run's own matrix is untouched


def test_a_plugin_is_named_as_this_run_names_it_though_its_build_is_shared(tmp_path):
    """The same file loaded by another path (another test, a relative path) shares its build
    (plugin_build keys it by content): the check's line and its counts name this run's path."""
    game = get_game("sky-city")
    setup = game.setup(4, game.variant())
    copy = tmp_path / "own_score_copy.py"
    copy.write_text(SCORE.read_text())
    for path in (SCORE, copy):
        lineup = game.lineup(["own-score", "random", "random", "random"], 4, [path])
        with pytest.raises(BalanceError, match=rf"^plug-in {re.escape(str(path))}: choose_declare wrote table\[T_SCORE\]"):
            check_writes(game, setup, lineup, 1)
    alea = ROOT / "examples" / "plugins" / "alea_two_or_nothing.py"
    elsewhere = tmp_path / "alea.py"
    elsewhere.write_text(alea.read_text())
    for path in (alea, elsewhere):  # accepted: the counts (cached after the first) under each path
        assert list(check_writes(game, setup, game.lineup(None, 4, [path]), 1)) == [str(path)]


def _dispatch(tmp_path, source):
    """The generated ``plugin_play`` of BIRD & WEATHER over one plug-in (a few seconds to compile,
    no play loop), and a position to call it on: seat 1 follows seat 0's 35 holding 12, 15, 41;
    the trick's unplayed slots hold the previous trick's cards (stale, as in the play loop)."""
    import strategies.bird_weather as bw_strategies
    from simcore.games.bird_weather.rules import T_FACEDOWN, T_NPLAYED, T_PLAY, TABLE_WIDTH, legal_plays, make_setup
    from simcore.plugins.dispatch import build_dispatch
    from simcore.plugins.loading import load_plugin
    from simcore.plugins.table import plugin_row

    path = tmp_path / "plug.py"
    path.write_text(source)
    dispatch = build_dispatch(bw_strategies.PLUGIN_DECISIONS, bw_strategies)["plugin_play"]
    row = plugin_row(load_plugin(path), bw_strategies)
    setup = make_setup(4)
    index = {c: i for i, c in enumerate(setup.cards)}
    hand = np.uint64(sum(1 << index[c] for c in (12, 15, 41)))
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    table[T_FACEDOWN:T_FACEDOWN + 5] = -1
    table[T_PLAY:T_PLAY + 5] = index[27]
    table[T_NPLAYED], table[T_PLAY] = 1, index[35]
    legal = legal_plays(hand, table[T_PLAY], setup.follow)

    def call(params):
        before = table.copy()
        card = dispatch(row, params, 1, hand, legal, np.uint64(1 << index[35]), table, setup.number, setup.follow,
                        setup.rules, np.zeros(2, dtype=np.uint64))
        return setup.cards[card], before, table
    return call, bw_strategies.N_PARAMS


def test_the_checking_dispatcher_notes_a_write_and_puts_it_back(tmp_path):
    """The mechanism without a play loop: off (the run's matrix) the call is as before; on (one
    more column block) a write outside the scratch area is put back and noted in the seat's row;
    low_ones.py's tried card, set back to -1 in a slot of the trick not played yet, is fine."""
    from simcore.games.bird_weather.rules import T_PLAY, T_SCORE
    from simcore.plugins.writes import CHECK_ARGUMENT, CHECK_CALLS, CHECK_DECISION, CHECK_INDEX, CHECK_SCRATCH

    call, n = _dispatch(tmp_path, (ROOT / "examples" / "plugins" / "low_ones.py").read_text())
    for columns in (n, n + CHECK_COLUMNS):
        params = np.zeros((5, columns))
        params[1, 0] = 5.0
        card, before, after = call(params)
        assert card == 15 and after[T_PLAY + 1] == -1 and (np.delete(after, T_PLAY + 1) == np.delete(before, T_PLAY + 1)).all()
        assert (params[1, n:] == ([1.0] + [0.0] * (CHECK_COLUMNS - 1) if columns > n else [])).all()

    cheat = (ROOT / "examples" / "plugins" / "low_ones.py").read_text().replace(
        "    n = table[T_NPLAYED]", "    table[T_SCORE + seat] += 5\n    n = table[T_NPLAYED]").replace(
        "import T_FACEDOWN,", "import T_SCORE, T_FACEDOWN,")
    call, n = _dispatch(tmp_path, cheat)
    params = np.zeros((5, n + CHECK_COLUMNS))
    card, before, after = call(params)
    assert card == 15 and after[T_SCORE + 1] == before[T_SCORE + 1]  # put back
    row = params[1, n:]
    assert row[CHECK_CALLS] == 1 and row[CHECK_DECISION] == 2  # "play", the second decision
    assert row[CHECK_ARGUMENT] == 5 and row[CHECK_INDEX] == T_SCORE + 1 and row[CHECK_SCRATCH] == 0  # table
    params = np.zeros((5, n))
    call(params)  # off: the write stands (the run itself is not changed by the check)
    assert after[T_SCORE + 1] == before[T_SCORE + 1] + 5


def test_slots_are_named_by_the_rules_modules_constants():
    sky, chimera = get_game("sky-city"), get_game("chimera")
    assert slot_name(sky, "table", 3, 1, 0) == "table[T_SCORE]"
    assert slot_name(sky, "table", 4, 1, 0) == "table[T_SCORE + 1]"
    assert slot_name(sky, "rules", 1, 1, 0) == "rules[R_DICE]"
    assert slot_name(sky, "params", 2 * (4 + CHECK_COLUMNS) + 1, 2, 4 + CHECK_COLUMNS) == "params[2, 1]"
    assert slot_name(sky, "odds", 7, 2, 5) == "odds[1, 2]"
    assert slot_name(chimera, "masks", 5, 1, 0) == "masks[M_SUIT + 2]"
    assert slot_name(chimera, "hand", 5, 1, 0) == "hand[5]"
    assert slot_name(chimera, "table", chimera.rules.T_HELD + 2, 1, 0) == "table[T_HELD + 2]"
    assert slot_name(chimera, "table", chimera.rules.T_SCRATCH + 511, 1, 0) == "table[T_SCRATCH + 511]"

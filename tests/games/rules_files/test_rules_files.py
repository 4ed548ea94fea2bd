"""Trick-taking games from rules files (docs/rules-files.md): the compiled loop equal to the
plain-Python reference for every player line-up, OpenSpiel's own games replayed deal for deal
through both engines, and broken rules files refused with one line naming the file, key and line
(the conformance suite, tests/games/test_conformance.py, runs the two example files as well)."""
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import balance
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.errors import BalanceError
from simcore.games.trick import reference as ref
from simcore.games.trick.rulesfile import RulesFileError, read_rules
from simcore.registry import get_game

ROOT = Path(__file__).resolve().parents[3]
MIXED = "tests/fixtures/rules/mixed.toml"
AUCTION = "tests/fixtures/rules/auction.toml"
GROWING = "tests/fixtures/rules/growing.toml"
CALLS = "tests/fixtures/rules/calls.toml"
TEN_TRICKS = "examples/games/ten-tricks-later.toml"
HEARTS = "examples/games/hearts.toml"
OH_HELL = "examples/games/oh-hell.toml"
SPADES = "examples/games/spades.toml"
sys.path.insert(0, str(ROOT / "tools"))


# --- the compiled loop against the reference ---------------------------------------------------

def _same_logs(game, setup, lineup, seed, games):
    logs = game.kernel_logs(setup, lineup, seed, range(games))
    for index, log in enumerate(logs):
        record = ref.play_game(game.reference_rules(setup), seed, index, decider=LogDecider(log, setup))
        expected = record.as_log(game.name)
        for key in ("rounds", "tricks", "scores", "shares", "counters"):
            assert log[key] == expected[key], (game.name, setup.players, lineup.names, index, key)
    return logs


class LogDecider:
    """The decisions of a compiled log, handed to the reference engine, which checks each one."""

    def __init__(self, log, setup):
        self.passes = [c for rnd in log["rounds"] for seat in rnd["passes"] for c in seat]
        self.bids = []
        for rnd in log["rounds"]:
            order = [(rnd["dealer"] + 1 + j) % setup.players for j in range(setup.players)]
            self.bids += [rnd["bids"][s] for s in order] if rnd["bids"] else []
        self.plays = [c for trick in log["tricks"] for c in trick["cards"]]
        self.trumps = [setup.suits.index(rnd["trump"]) for rnd in log["rounds"] if rnd.get("trump")]
        self.names = setup.names
        self.log = log
        self.decisions = setup.spec.model.decision

    def _card(self, queue, options):
        # two copies of a card share a name: the log names the card, the lowest legal copy is the one
        # both engines hold first (the deal is the same)
        name = queue.pop(0)
        matches = [c for c in sorted(options) if self.names[c] == name]
        assert matches, f"the compiled engine's decision {name} is not legal in the reference"
        return matches[0]

    def decide(self, seat, decision, hand, legal, view):
        """The compiled engine's choice in a decision of the designer's, from its log."""
        name = self.decisions[decision].name
        if self.decisions[decision].at == "before-play":
            choice = self.log["rounds"][view.round]["decisions"][name][seat]
        else:
            trick = next(t for t in self.log["tricks"] if t["round"] == view.round and t["trick"] == view.at[0])
            choice = trick["decisions"][name]
        assert choice in legal, (name, seat, choice, sorted(legal))
        return choice

    def pass_card(self, seat, hand, view):
        return self._card(self.passes, hand)

    def bid(self, seat, hand, legal, view):
        bid = self.bids.pop(0)
        assert bid in legal
        return bid

    def trump(self, seat, hand, legal, view):
        suit = self.trumps.pop(0)
        assert suit in legal
        return suit

    def play(self, seat, hand, legal, view):
        return self._card(self.plays, legal)


@pytest.mark.differential
@pytest.mark.parametrize("path", [MIXED, AUCTION, HEARTS, OH_HELL, SPADES, GROWING, CALLS])
def test_compiled_loop_equals_reference_for_every_lineup(path):
    """Random play from the same streams gives the same games in both engines; greedy and
    heuristic play, logged by the compiled loop and replayed decision by decision through the
    reference (which refuses any illegal one), gives the same tricks, scores and counters."""
    game = get_game(path)
    seen = {"reversed": 0, "always": 0, "trumped": 0, "moons": 0, "exact": 0, "short": 0, "full": 0,
            "trumps": set(), "nil made": 0, "nil lost": 0, "wizards": 0, "crowns": 0}
    for players in game.player_counts[:2]:
        setup = game.setup(players, game.variant())
        for spec in ("random", "greedy", "heuristic", "heuristic,random,greedy" + ",random" * (players - 3)):
            lineup = game.lineup(spec, players)
            if spec == "random":  # the reference's own random players, from the seats' streams
                logs = game.kernel_logs(setup, lineup, 3, range(120))
                for index, log in enumerate(logs):
                    expected = game.reference_log(setup, 3, index)
                    assert {k: log[k] for k in expected if k != "game"} == {
                        k: expected[k] for k in expected if k != "game"}, (path, players, index)
            else:
                logs = _same_logs(game, setup, lineup, 3, 60)
            for log in logs:
                seen["short" if len(log["rounds"]) < setup.rounds else "full"] += 1
                seen["trumped"] += log["counters"]["trumped_tricks"]
                seen["moons"] += log["counters"]["moons"]
                seen["exact"] += log["counters"]["exact_bids"]
                for trick in log["tricks"]:
                    seen["reversed"] += any(c.startswith("1") for c in trick["cards"])
                    seen["always"] += "8B" in trick["cards"]
                    seen["wizards"] += "Wiz" in trick["cards"]
                    seen["crowns"] += "Crown" in trick["cards"]
                for rnd in log["rounds"]:
                    seen["trumps"].add(rnd.get("trump"))
                    won = [sum(t["winner"] == s for t in log["tricks"] if t["round"] == rnd["round"])
                           for s in range(players)]
                    for bid, tricks in zip(rnd["bids"], won):
                        seen["nil made" if tricks == 0 else "nil lost"] += bid == 0
    if path == MIXED:  # the rules under test came up
        assert min(seen["reversed"], seen["always"], seen["trumped"], seen["exact"]) >= 50, seen
        assert seen["short"] >= 20 and seen["full"] >= 20, seen  # games ended by the target, and by the rounds
    if path == AUCTION:  # every suit was named trump, nil bids were made and lost, the extra cards played
        assert seen["trumps"] == {"red", "green", "blue", "yellow"}, seen
        assert min(seen["nil made"], seen["nil lost"], seen["wizards"], seen["crowns"]) >= 20, seen
    if path == HEARTS:
        assert seen["moons"] >= 3, seen


def test_a_hand_that_grows_and_a_last_round_without_trump():
    """deal.hand_size as a list deals each round its own hand; trump.none_in_rounds turns no
    card up in those rounds (the compiled loop against the reference: the test above)."""
    game = get_game(GROWING)
    setup = game.setup(4, game.variant())
    assert setup.hands == (1, 2, 3, 4, 5)
    logs = game.kernel_logs(setup, game.lineup("heuristic", 4), 2, range(50))
    for log in logs:
        assert [sum(t["round"] == r for t in log["tricks"]) for r in range(5)] == [1, 2, 3, 4, 5]
        assert [len(h) for h in log["rounds"][2]["hands"]] == [3] * 4
        assert all(rnd["trump_card"] for rnd in log["rounds"][:4]) and log["rounds"][4]["trump_card"] is None
        assert all(len(bids) == 4 and max(bids) <= r + 1 for r, bids in enumerate(rnd["bids"] for rnd in log["rounds"]))
    code, out, err = balance("simulate", GROWING, "-p", 4, "-n", 2000, "-q")
    assert code == 0 and "game length: 5 rounds and 15 tricks per game" in out, err
    # a list of another length than game.rounds is one line
    with pytest.raises(RulesFileError, match=r"deal.hand_size .*5 hand sizes for 4 rounds"):
        read_rules(ROOT / GROWING, {"game.rounds": 4, "trump.none_in_rounds": [4]})


def test_mixed_rules_as_written():
    """Three scripted tricks of the mixed game, worked by hand.  Seat 2 deals and leads (lead =
    "dealer"); trump is blue; a 1 turns a trick round (the lowest card of the suit wins); 8B takes
    any trick; a seat must beat the winning card when it can.

    Trick 1: 6R led; seat 0 holds 4R and 1R, and only 1R would take the trick (it turns it
    round), so 4R is refused; seat 1 must follow with 5R (2 points).  1R wins: seat 0.
    Trick 2: seat 0 leads 6G; seat 1 must beat it with 7G; 3G.  Seat 1.
    Trick 3: seat 1 leads 8B; 2B; seat 0 has no blue and no trump, so any card: 4R.  Seat 1.
    Scores (no bids here): base 2 + 1 a trick + card points: seat 0 2 + 1 + 2, seat 1 2 + 2, seat 2 2."""
    game = get_game(MIXED)
    setup = game.setup(3, game.variant())
    rules = game.reference_rules(setup)
    rules.hand_size, rules.pass_cards, rules.bidding = 3, 0, False
    first = {name: k for k, name in reversed(list(enumerate(setup.names)))}  # the first copy of each card
    c = {name: first[name] for name in ("4R", "1R", "6G", "5R", "7G", "8B", "6R", "2B", "3G")}
    hands = [{c["4R"], c["1R"], c["6G"]}, {c["5R"], c["7G"], c["8B"]}, {c["6R"], c["2B"], c["3G"]}]
    with pytest.raises(BalanceError, match="seat 0 may not play"):
        ref.play_round(rules, hands, 2, None, "none", [c["6R"], c["4R"]])
    script = [c[n] for n in ("6R", "1R", "5R", "6G", "7G", "3G", "8B", "2B", "4R")]
    rnd, scores = ref.play_round(rules, hands, 2, None, "none", script)
    assert [t.winner for t in rnd.tricks] == [0, 1, 1]
    assert [t.points for t in rnd.tricks] == [2, 0, 0]
    assert scores == [5, 4, 2]


# --- OpenSpiel's games, replayed ------------------------------------------------------------

@pytest.mark.differential
@pytest.mark.parametrize("recorded", ["hearts-4", "oh_hell-3", "oh_hell-4", "spades-4", "euchre-4"])
def test_openspiel_games_replay_deal_for_deal(recorded):
    """Random games OpenSpiel played (tests/fixtures/openspiel/, recorded by tools/openspiel_deals.py:
    hearts with moon shots and unpassed deals among them): both our engines, given the same deal
    and decisions, offer the same legal choices at every decision and give the same trick
    winners and returns.  `make check-peers` does the same on 10,000 fresh deals each."""
    import check_peers

    game = recorded.split("-")[0]
    result = check_peers.check(game, ROOT / "tests" / "fixtures" / "openspiel" / f"{recorded}.jsonl")
    assert result["deals"] >= 40 and result["agree"] == result["deals"], result["differences"][:1]


@pytest.mark.differential
def test_the_openspiel_check_can_fail(tmp_path):
    """A rule changed in the rules file shows up as a disagreement: without shooting the moon the
    returns differ, without the queen breaking hearts a recorded lead is refused."""
    import check_peers

    text = (ROOT / HEARTS).read_text()
    for change, why in ((("moon = true", "moon = false"), "returns"),
                        (('breaking_cards = ["QS"]', "breaking_cards = []"), "legal")):
        path = tmp_path / "changed.toml"
        path.write_text(text.replace(*change))
        result = check_peers.check("hearts", ROOT / "tests" / "fixtures" / "openspiel" / "hearts-4.jsonl", path)
        assert result["agree"] < result["deals"], why
    # spades' rules are in its hooks: a nil worth 50, or partners free to bid 13 each, is caught
    rules = (ROOT / "examples" / "games" / "spades.toml").read_text()
    hooks = (ROOT / "examples" / "games" / "spades_hooks.py").read_text()
    for change, why in ((("return -100 if tricks > 0 else 100", "return -50 if tricks > 0 else 50"), "returns"),
                        (("most = hand_size - max(0, table[T_BID + partner(rules, seat, n_players)])",
                          "most = hand_size"), "legal")):
        folder = tmp_path / why
        folder.mkdir()
        (folder / "spades_hooks.py").write_text(hooks.replace(*change))
        (folder / "spades.toml").write_text(rules)
        result = check_peers.check("spades", ROOT / "tests" / "fixtures" / "openspiel" / "spades-4.jsonl", folder / "spades.toml")
        assert result["agree"] < result["deals"], why
    # euchre's calls, discard and bowers are decisions and hooks: each changed one is caught
    rules = (ROOT / "examples" / "games" / "euchre.toml").read_text()
    hooks = (ROOT / "examples" / "games" / "euchre_hooks.py").read_text()
    for change, why in ((("        points = -2", "        points = -4"), "euchred"),
                        (("return hand & ~(np.uint64(1) << np.uint64(table[T_TRUMP_CARD]))", "return hand"), "discard"),
                        (("and suit == 3 - trump:\n        return trump", "and suit == 3 - trump:\n        return suit"),
                         "left bower"),
                        (("sit_out(table, (seat + 2) % 4)", "pass"), "alone")):
        assert change[0] in hooks, why
        folder = tmp_path / why
        folder.mkdir()
        (folder / "euchre_hooks.py").write_text(hooks.replace(*change))
        (folder / "euchre.toml").write_text(rules)
        result = check_peers.check("euchre", ROOT / "tests" / "fixtures" / "openspiel" / "euchre-4.jsonl", folder / "euchre.toml")
        assert result["agree"] < result["deals"], why


# --- bad rules files ---------------------------------------------------------------------------

GOOD = (ROOT / "examples" / "games" / "oh-hell.toml").read_text()

BROKEN = {
    "missing key": (GOOD.replace('name = "Oh Hell"\n', ""), "game.name (line", "missing"),
    "wrong type": (GOOD.replace("hand_size = 7", 'hand_size = "seven"'), "deal.hand_size (line 17)", ""),
    "unknown key": (GOOD.replace("exact_bid = 10", "exact_bidd = 10"), "scoring.exact_bidd (line", "exact_bid"),
    "unknown section": (GOOD + "\n[scorring]\nper_trick = 1\n", "scorring", "scoring"),
    "deck too small": (GOOD.replace("hand_size = 7", "hand_size = 13"), "deal.hand_size (line 17)", "cannot deal"),
    "no such suit": (GOOD.replace('kind = "turned-up"', 'kind = "fixed"\nsuit = "stars"'), "trump.suit", "no suit"),
    "no such card": (GOOD.replace("[deal]", '[play]\nlead = "holder"\nfirst_lead_card = "2X"\n\n[deal]'),
                     "play.first_lead_card", "no card '2X' in the deck (did you mean"),
    "cannot end": (GOOD.replace("hand_size = 7", "hand_size = 0"), "deal.hand_size", "cannot end"),
    "not TOML": (GOOD.replace("[deal]", "[deal"), "not valid TOML", ""),
    "bad choice": (GOOD.replace('kind = "turned-up"', 'kind = "turned-down"'), "trump.kind", "turned-up"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_rules_files_get_one_line(case, tmp_path):
    text, where, what = BROKEN[case]
    path = tmp_path / "my-game.toml"
    path.write_text(text)
    out = tmp_path / "run"
    code, stdout, err = balance("simulate", path, "-n", 100, "-q", "--players", 3, "--out", out)
    assert code == 2 and len(err.strip().splitlines()) == 1, (case, err)
    assert str(path) in err and where in err and what in err, (case, err)
    assert not out.exists() and "Traceback" not in err


KEYS = {  # a few values of every kind for each key, right and wrong
    "game.players": [3, [3, 4], 1, "four", [9]], "game.rounds": [1, 3, 0, 400], "deal.hand_size": [5, 13, 30, -1],
    "pass.cards": [0, 2, 20], "pass.directions": [["left"], ["across"], ["up"]],
    "trump.suit": ["hearts", "stars"], "bidding.kind": ["none", "tricks"], "play.follow": ["suit", "free", 1],
    "play.when_void": ["any", "trump"], "play.must_beat": [True, "yes"], "play.unbroken_suit": ["hearts", "x"],
    "trick.reverse_if_played": [["2"], ["QQ"]], "trick.always_wins": [["AS"], []], "scoring.moon": [True, False],
    "scoring.card_points": [{"hearts": -1}, {"QS": -13}, {"zz": 1}], "scoring.exact_bid": [10, 10**6],
    "deck.copies": [1, 2, 9], "deck.remove": [["2C"], ["ZZ"]], "deal.left_out": ["hidden", "revealed", "x"],
    "bidding.last_bidder_may_not_make_total": [True, False], "game.winner": ["lowest", "middle"],
    "game.target": [30, 5000], "nonsense.key": [1],
    "trump.kind": ["none", "fixed", "bid-winner", "x"], "play.lead": ["bid-winner", "dealer", "last"],
    "scoring.nil": [50, -1], "deck.extra": [[{"name": "Jk", "suit": "jokers", "rank": "Z"}],
                                            [{"name": "AS", "suit": "spades", "rank": "A"}], [{"name": 3}]],
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(st.sampled_from(sorted(KEYS)), st.integers(0, 4), max_size=5))
def test_any_rules_file_plays_or_is_refused_in_one_line(changes):
    """Rules files made of valid and invalid values: each is read and set up for every player count
    and plays 50 games, or is refused with a RulesFileError (never another exception)."""
    overrides = {key: KEYS[key][k % len(KEYS[key])] for key, k in changes.items()}
    try:
        spec = read_rules(ROOT / OH_HELL, overrides)
    except RulesFileError as exc:
        assert "\n" not in str(exc) and str(ROOT / OH_HELL) in str(exc)
        return
    game = get_game(OH_HELL)
    variant = game.variant(overrides=overrides)
    for players in spec.player_counts[:2]:
        try:
            setup = game.setup(players, variant)
        except RulesFileError as exc:
            assert "\n" not in str(exc)
            continue
        rows = game.run_chunk(setup, game.lineup("random", players), 1, 0, 50)
        shares = sum(rows[f"share_{s}"] for s in range(players))
        assert np.allclose(shares, 1.0)


# --- the designer's first hour (docs/rules-files.md) -------------------------------------------

@pytest.mark.docs
def test_the_first_hour_page_shows_what_the_commands_print(tmp_path, monkeypatch):
    """docs/rules-files.md walks from `balance new-game` to simulate, cards and whatif of a small new
    game; each command there, run at the page's own game counts and seed, prints exactly what the
    page shows (but the line with the time it took), and a refused file exits 2 with its line."""
    from test_docs_commands import _fenced

    monkeypatch.chdir(tmp_path)
    shown = _fenced(ROOT / "docs" / "rules-files.md")
    compared = 0
    for command in shown:
        if command.argv[0] == "__write__":
            Path(command.argv[1]).write_text(command.argv[2], encoding="utf-8")
            continue
        if not command.output:
            continue
        code, out, err = balance(*command.argv)
        if command.exit_code is not None:
            assert code == command.exit_code and err.strip() == command.output[0], (command.argv, err)
            continue
        assert code == 0, (command.argv, err)
        printed = [line for line in out.rstrip("\n").splitlines() if "games/s)" not in line]
        expected = [line for line in command.output if "games/s)" not in line]
        assert printed == expected, command.argv
        compared += 1
    assert compared >= 4  # new-game, simulate, cards, whatif


# --- a seed game's card play as a rules file ------------------------------------------------

@pytest.mark.differential
@pytest.mark.parametrize("players", [3, 4, 5])
def test_bird_weather_rules_file_agrees_with_the_built_in_kernel(players, bird_weather):
    """examples/games/bird-weather.toml (hooks: the follow rule, trick winner and points) given the
    built-in kernel's deals and card plays (BIRD & WEATHER without its face-down card): the same
    trick winners and scores in 10,000 deals, in the compiled loop; in the first 500, in the
    reference engine too (which runs the hooks as Python)."""
    game = get_game("examples/games/bird-weather.toml")
    setup = game.setup(players, game.variant())
    lineup = game.lineup("random", players)
    rules = game.reference_rules(setup)
    index = {name: i for i, name in enumerate(setup.names)}
    built_in = bird_weather.setup(players, bird_weather.variant(overrides={"facedown": False}))
    logs = bird_weather.kernel_logs(built_in, bird_weather.lineup("random", players), 17, range(10_000))
    zero_wins = reversals = 0
    for k, log in enumerate(logs):
        hands = [{index[str(c)] for c in hand} for hand in log["deals"][0]["hands"]]
        plays = [index[str(c)] for trick in log["tricks"] for c in trick["cards"]]
        winners = [t["winner"] for t in log["tricks"]]
        ours = game.scripted_round(setup, lineup, hands, 0, -1, 0, plays)
        assert ours["status"] == -1 and ours["winners"] == winners and ours["scores"] == log["scores"], k
        if k < 500:
            rnd, scores = ref.play_round(rules, hands, 0, None, "none", plays)
            assert [t.winner for t in rnd.tricks] == winners and scores == log["scores"], k
        zero_wins += log["counters"]["zero_wins"]
        reversals += log["counters"]["reversals"]
    assert zero_wins >= 500 and reversals >= 500  # both special rules decided many tricks


@pytest.mark.differential
@pytest.mark.parametrize("players", [3, 4])
def test_ten_tricks_later_rules_file_agrees_with_the_built_in_kernel(players):
    """examples/games/ten-tricks-later.toml (hooks: the follow rule, the trick winner with the 1
    that ranks 9, and score_round, which replays the round's attacks, boards, tracks and rescues
    from the table's record; the infected-8 swap as three decisions) given the built-in kernel's
    deals, first leaders, swaps and card plays (10 TRICKS LATER as published, red, green and
    yellow at 3 players): the same trick winners and round scores in 10,000 deals (every round of
    the games), in the compiled loop; in the first 300, in the reference engine too."""
    game = get_game(TEN_TRICKS)
    setup = game.setup(players, game.variant())
    lineup = game.lineup("random", players)
    rules = game.reference_rules(setup)
    index = {name: i for i, name in enumerate(setup.names)}
    ten_tricks = get_game("ten-tricks")
    built_in = ten_tricks.setup(players, ten_tricks.variant(overrides={"colours_3": [0, 1, 2]}))
    logs = ten_tricks.kernel_logs(built_in, ten_tricks.lineup("random", players), 17, range(3_700))
    deals = swaps = 0
    counted = dict.fromkeys(("attacks", "survivors_lost", "survivors_rescued", "bonus_taken", "one_as_nine"), 0)
    for k, log in enumerate(logs):
        if deals == 10_000:
            break
        for rnd in log["rounds"]:
            if deals == 10_000:
                break
            hands = [{index[c] for c in hand} for hand in rnd["hands"]]
            tricks = [t for t in log["tricks"] if t["round"] == rnd["round"]]
            plays = _swap_script(rnd, hands, index, players) + [index[c] for t in tricks for _, c in t["plays"]]
            winners = [t["winner"] for t in tricks]
            swaps += rnd["swap"] is not None
            ours = game.scripted_round(setup, lineup, hands, rnd["leader"], index["infected-8"], 0, plays)
            assert ours["status"] == -1 and ours["winners"] == winners, (k, rnd["round"])
            assert ours["scores"] == rnd["round_scores"], (k, rnd["round"])
            if deals < 300:
                played, scores = ref.play_round(rules, hands, rnd["leader"], index["infected-8"], "none", plays)
                assert [t.winner for t in played.tricks] == winners and scores == rnd["round_scores"], k
            deals += 1
        for key in counted:
            counted[key] += log["counters"][key]
    assert deals == 10_000 and swaps >= 1_000, swaps
    # every rule the hooks say decided many rounds
    assert min(counted.values()) >= 300, counted


def _swap_script(rnd, hands, index, players):
    """The built-in round's swap as the rules file's decisions, in the order they are asked (each
    seat from the dealer's left; the file's dealer leads): offer or keep (a hand with no infected),
    the card each offering seat would give (the built-in logs the swapper's only; the others'
    lowest card), and the offer taken."""
    infected = {index[name] for name in index if name.startswith("infected-")}
    order = [(rnd["leader"] + 1 + j) % players for j in range(players)]
    asked = [s for s in order if not hands[s] & infected]
    offers = set(rnd["swap_offers"] or [])
    script = [1 if s in offers else 0 for s in asked]
    swapper, given = rnd["swap"] if rnd["swap"] is not None else (None, None)
    script += [index[given] if s == swapper else min(hands[s]) for s in asked if s in offers]
    if offers:
        script.append(swapper)
    return script


def _line(source: str, text: str) -> int:
    """The line of ``source`` where ``text`` first appears (from 1)."""
    return source[:source.index(text)].count("\n") + 1


def test_hooks_that_break_the_rules_get_one_line(tmp_path):
    """A hook with the wrong arguments, a module that does not load, and a hook whose answer is
    impossible (here `legal` offers a card the seat does not hold) stop the command with one line
    naming the rules file and the hook, exit 2, nothing written."""
    rules = (ROOT / "examples" / "games" / "bird-weather.toml").read_text()
    hooks = (ROOT / "examples" / "games" / "bird_weather_hooks.py").read_text()
    path = tmp_path / "bw.toml"
    path.write_text(rules.replace('module = "bird_weather_hooks.py"', 'module = "my_hooks.py"'))
    cases = {
        "wrong arguments": (hooks.replace("def legal(hand, table, rules, cards, masks, first_trick):",
                                          "def legal(hand, table):"),
                            "hook legal(hand, table) must take (hand, table, rules, cards, masks, first_trick)"),
        "does not load": (hooks + "\nundefined_name\n", "does not load: NameError"),
        "illegal card": (hooks.replace("    return follows if follows != 0 else hand",
                                       "    if table[T_NPLAYED] == 2:\n        return ~hand\n"
                                       "    return follows if follows != 0 else hand"),
                         "my_hooks.py: hook legal gave"),
        # what Numba refuses: one line naming the hook, its line and the reason (it was Numba's
        # traceback of 81 lines, 185 for a dict, or one blaming the engine's own game_buffers)
        "unknown name": (unknown := hooks.replace("    if table[T_NPLAYED] == 0:\n        return hand",
                                                  "    if table[T_NPLAYED] == 0:\n        return hand + undefined_thing", 1),
                         f"my_hooks.py, legal, line {_line(unknown, 'undefined_thing')}: does not compile: unknown "
                         "name 'undefined_thing'"),
        "a dict": (hooks.replace("    if table[T_NPLAYED] == 0:\n        return hand",
                                 "    seen = {'a': 1}\n    if table[T_NPLAYED] == 0:\n        return hand", 1),
                   "my_hooks.py, legal: does not compile: it makes an array, list or dict"),
        "an allocation": (allocating := "import numpy as np\n" + hooks.replace(
                              "    if table[T_NPLAYED] == 0:\n        return hand",
                              "    z = np.zeros(3, dtype=np.int64)\n    if table[T_NPLAYED] == 0:\n"
                              "        return hand + np.uint64(z[0])", 1),
                          f"my_hooks.py, legal, line {_line(allocating, 'np.zeros')}: does not compile: it makes an "
                          "array, list or dict"),
        "a text answer": (hooks.replace("def trick_points(table, n_played, cards, masks, rules):\n    return",
                                        "def trick_points(table, n_played, cards, masks, rules):\n    return 'x' or"),
                          "my_hooks.py, trick_points: returns Literal[str](x), not a whole number"),
        # an index past an array's end: a segmentation fault of the compiled loop, caught in the
        # checking run (the reference engine plays the hooks as Python)
        "index out of bounds": (hooks.replace("    lead = table[T_PLAY]\n",
                                              "    lead = table[T_PLAY]\n    lead += cards[0, 1000 * table[T_NPLAYED]] * 0\n", 1),
                                f"my_hooks.py, legal, line {_line(hooks, '    lead = table[T_PLAY]') + 1}: an index out of "
                                "bounds"),
    }
    for case, (source, message) in cases.items():
        (tmp_path / "my_hooks.py").write_text(source)
        out = tmp_path / "run"
        code, _, err = balance("simulate", path, "-n", 100, "-q", "--players", 4, "--out", out)
        assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, (case, err)
        assert str(path) in err and not out.exists() and "Traceback" not in err, (case, err)


# --- what a seat may see ------------------------------------------------------------------------

@pytest.mark.fairness
@pytest.mark.parametrize("path", [HEARTS, OH_HELL, AUCTION, TEN_TRICKS, SPADES])
@pytest.mark.parametrize("strategy", ["greedy", "heuristic", "search"])
def test_players_ignore_what_their_seat_cannot_see(path, strategy):
    """Pairs of positions that differ only in the cards the other seats hold (the cards they have
    not played dealt anew among them, so many each, every scripted play still legal) go through the
    compiled loop: the deciding seat's player makes the same decision in both (in a file with
    hooks too, whose record of the round's tricks the players may read)."""
    import random

    game = get_game(path)
    players = 4
    setup = game.setup(players, game.variant(overrides={"game.players": players}
                                             if path == OH_HELL else {}))
    lineup = game.lineup(strategy, players)
    logs = game.kernel_logs(setup, game.lineup("random", players), 5, range(40))
    index = {name: i for i, name in enumerate(setup.names)}
    chooser = random.Random(7)
    from simcore.games.trick.rules import I_CHOSEN, MAX_DECISIONS, MAX_PLAYERS

    compared = changed = 0
    for log in logs:
        rnd = log["rounds"][0]
        if rnd["passes"]:
            continue  # a pass tells a seat where three cards went: not a pair of unseen deals
        hands = [{index[c] for c in hand} for hand in rnd["hands"]]
        order = [(rnd["dealer"] + 1 + j) % players for j in range(players)]
        bids = [rnd["bids"][s] for s in order] if rnd["bids"] else []
        decided = []  # the file's decisions before the play (10 TRICKS LATER's swap offers), as asked
        for d in setup.spec.model.decision:
            chosen = rnd["decisions"][d.name]
            seats = order if d.who == "each" else [rnd["dealer"]] if d.who == "dealer" else [0]  # (chance: slot 0)
            decided += [chosen[s] for s in seats if chosen[s] is not None]
        if decided and rnd["decisions"].get("swap", [None])[0] is not None:
            continue  # a swap moves a card the other seats know of: not a pair of unseen deals
        bids += decided
        bids += [setup.suits.index(rnd["trump"])] if rnd.get("trump") and not decided else []  # the bid winner's
        plays = [(t["leader"] + i) % players for t in log["tricks"] for i in range(players)]
        cards = [index[c] for t in log["tricks"] for c in t["cards"]]
        k = chooser.randrange(1, 3 * players)
        decider = plays[k]
        trump = index[rnd["trump_card"]] if rnd["trump_card"] else -1
        first = game.scripted_round(setup, lineup, hands, rnd["dealer"], trump, 0, bids + cards[:k])
        for _ in range(20):  # another deal of the others' unplayed cards, the scripted plays legal in it
            played = [{c for c, s in zip(cards[:k], plays) if s == seat} for seat in range(players)]
            others = [s for s in range(players) if s != decider]
            rest = [c for s in others for c in hands[s] - played[s]]
            chooser.shuffle(rest)
            other = [set(h) for h in hands]
            for s in others:
                take = len(hands[s]) - len(played[s])
                other[s], rest = played[s] | set(rest[:take]), rest[take:]
            second = game.scripted_round(setup, lineup, other, rnd["dealer"], trump, 0, bids + cards[:k])
            asked = [[run["infos"][I_CHOSEN + d * MAX_PLAYERS + s] >= 0 for d in range(MAX_DECISIONS)
                      for s in range(players)] for run in (first, second)]
            if second["status"] == -1 and asked[0] == asked[1]:  # the same seats asked the same decisions
                break
        else:
            continue
        assert first["status"] == -1
        from simcore.games.trick.rules import L_CARD

        chosen = [run["log"][k // players, L_CARD + k % players] for run in (first, second)]
        assert chosen[0] == chosen[1], (path, strategy, k)
        compared += 1
        changed += other != hands
    assert compared >= 10 and changed >= compared - 2  # the pairs' deals differ


# --- a variant's hooks --------------------------------------------------------------------------

LOWEST_WINS_HOOKS = '''"""Every trick goes to the lowest card of the suit led (a variant's hook)."""
from simcore.games.trick.rules import C_RANK, C_SUIT, T_PLAY


def trick_winner(table, n_played, candidate, cards, masks, rules, trump):
    m = n_played + (1 if candidate >= 0 else 0)
    lead = table[T_PLAY]
    best, best_rank = 0, cards[C_RANK, lead]
    for i in range(1, m):
        c = candidate if i == n_played else table[T_PLAY + i]
        if cards[C_SUIT, c] == cards[C_SUIT, lead] and cards[C_RANK, c] < best_rank:
            best, best_rank = i, cards[C_RANK, c]
    return best
'''


def _hearts_with(tmp_path, module: str | None) -> Path:
    """examples/games/hearts.toml copied into tmp_path, with `[hooks] module` when given."""
    text = (ROOT / HEARTS).read_text()
    path = tmp_path / ("hearts.toml" if module is None else f"hearts-{Path(module).stem}.toml")
    path.write_text(text + (f'\n[hooks]\nmodule = "{module}"\n' if module else ""))
    return path


def _lowest_takes_every_trick(game, setup, logs) -> int:
    from simcore.games.trick.rules import C_RANK, C_SUIT

    ranks = {name: setup.cards[C_RANK, i] for i, name in enumerate(setup.names)}
    suits = {name: setup.cards[C_SUIT, i] for i, name in enumerate(setup.names)}
    checked = 0
    for log in logs:
        for trick in log["tricks"]:
            led = [c for c in trick["cards"] if suits[c] == suits[trick["cards"][0]]]
            low = min(led, key=ranks.get)
            position = (trick["winner"] - trick["leader"]) % log["players"]
            assert trick["cards"][position] == low, trick
            checked += 1
    return checked


def test_a_variant_that_adds_or_changes_hooks_plays_them(tmp_path):
    """A variant setting `hooks.module` plays its hooks, not the file's (it was ignored: every
    game played the base file's hooks and whatif said "no change"): adding hooks to a file without
    them, and changing a file's hooks for others.  A path in a variant file is read from the
    variant file's folder; the rows equal a rules file with those hooks written in."""
    (tmp_path / "lowest.py").write_text(LOWEST_WINS_HOOKS)
    # the highest of the led suit wins: the keys' own rule, said as a hook
    (tmp_path / "highest.py").write_text(LOWEST_WINS_HOOKS.replace("< best_rank", "> best_rank"))
    plain = _hearts_with(tmp_path, None)
    hooked = _hearts_with(tmp_path, "highest.py")
    written = _hearts_with(tmp_path, "lowest.py")
    folder = tmp_path / "variants"
    folder.mkdir()
    for base in (plain, hooked):
        variant_file = folder / f"low-{base.stem}.toml"
        variant_file.write_text(f'game = "{base.name}"\nname = "lowest wins"\n\n[hooks]\nmodule = "../lowest.py"\n')
        game = get_game(str(base))
        variant = game.variant(variant_file)
        assert variant.settings == {"hooks.module": "lowest.py"}
        setup = game.setup(4, variant)
        lineup = game.lineup("random", 4)
        logs = game.kernel_logs(setup, lineup, 5, range(40))
        assert _lowest_takes_every_trick(game, setup, logs) == 40 * 13
        # the published rules still play their own hooks (or none): the highest takes the tricks
        stock = game.kernel_logs(game.setup(4, game.variant()), lineup, 5, range(40))
        assert stock != logs
        rows = {}
        for name, args in (("variant", (base, "--variant", variant_file)), ("written", (written,)),
                           ("published", (base,))):
            out = tmp_path / f"{base.stem}-{name}.parquet"
            code, _, err = balance("simulate", *args, "-p", 4, "-n", 3000, "--seed", 5, "-q", "--out", out)
            assert code == 0, err
            import polars as pl

            rows[name] = pl.read_parquet(out).select(["score_0", "score_1", "score_2", "score_3"])
        assert rows["variant"].equals(rows["written"])
        assert not rows["variant"].equals(rows["published"])
    # the whatif sees the change (it said "no change" when the variant's hooks were ignored)
    code, out, err = balance("whatif", hooked, "-p", 4, "--variant", folder / f"low-{hooked.stem}.toml",
                             "-n", 2000, "--seed", 5, "--json")
    assert code == 0, err
    import json

    variant = json.loads(out)["variants"][0]
    assert variant["settings"] == {"hooks.module": "lowest.py"}
    led = next(f for f in variant["figures"] if f["key"] == "event:leads_won")
    assert led["change"] > 0.03 and led["p_value"] < 1e-6  # the led suit's low card takes its tricks


# --- broken hook modules, generated ---------------------------------------------------------------

USED = "    if kept[0] == 12345:\n        return 0\n"  # a value the hook goes on to use
HOOK_BREAKS = {  # what goes in at the top of a hook's body: each one a mistake a designer makes
    "unknown name": "    undefined_helper(table)\n",
    "a list": "    kept = [table[T_NPLAYED], 2, 3]\n" + USED,
    "a dict": "    kept = {0: table[T_NPLAYED]}\n" + USED,
    "an array": "    kept = np.zeros(4, dtype=np.int64) + table[T_NPLAYED]\n" + USED,
    "a text": "    kept = 'text' + 1\n",
    "past the end": "    kept = cards[0, 100000 + table[T_NPLAYED]]\n",
    "by zero": "    kept = 1 // (table[T_NPLAYED] - table[T_NPLAYED])\n",
    "no end": "    while table[T_NPLAYED] >= 0:\n        table[T_NPLAYED] += 0\n",
}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hook=st.sampled_from(["legal", "trick_winner", "trick_points"]), mistake=st.sampled_from(sorted(HOOK_BREAKS)))
def test_any_broken_hook_is_one_line(tmp_path, monkeypatch, hook, mistake):
    """Hypothesis puts a designer's mistake into one of BIRD & WEATHER's hooks: the command ends
    with one line naming the hooks module and the hook, exit 2, no traceback, no crash, no hang."""
    from simcore.games.trick import hookcheck

    monkeypatch.setattr(hookcheck, "CHECK_SECONDS", 5)
    rules = (ROOT / "examples" / "games" / "bird-weather.toml").read_text()
    hooks = (ROOT / "examples" / "games" / "bird_weather_hooks.py").read_text()
    head = next(line for line in hooks.splitlines() if line.startswith(f"def {hook}("))
    body_start = hooks.index(head) + len(head) + 1
    docstring_end = hooks.index('"""', hooks.index('"""', body_start) + 3) + 4 if hooks[body_start:].lstrip().startswith('"""') else body_start
    broken = hooks[:docstring_end] + HOOK_BREAKS[mistake] + hooks[docstring_end:]
    folder = tmp_path / f"{hook}-{mistake.replace(' ', '-')}"
    folder.mkdir(exist_ok=True)
    (folder / "bw.toml").write_text(rules.replace('module = "bird_weather_hooks.py"', 'module = "my_hooks.py"'))
    (folder / "my_hooks.py").write_text(broken)
    code, _, err = balance("simulate", folder / "bw.toml", "-p", 4, "-n", 50, "-q")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (hook, mistake, err)
    assert "my_hooks.py" in err and (hook in err or mistake == "no end"), (hook, mistake, err)


# --- the smaller things of issue 47, one regression test each ------------------------------------

def test_exact_bids_are_a_rate_per_bid_and_moons_per_round():
    """Oh Hell's exact bids are counted per bid (a seat's, in a round), no longer a count per game
    printed as a percentage (49.45%, where the rate per seat and round is about 12%)."""
    code, out, err = balance("simulate", OH_HELL, "-p", 4, "-n", 20000, "-q", "--json")
    assert code == 0, err
    import json

    exact = next(e for e in json.loads(out)["events"] if e["column"] == "exact_bids")
    assert exact["per"] == "bid" and exact["units_per_game"] == 4  # one round, four bids
    assert 0.05 < exact["rate"] < 0.5 and exact["rate"] == pytest.approx(exact["mean_per_game"] / 4)


def test_a_variant_changes_a_game_key_as_a_table(tmp_path):
    """A variant of a rules file may change [game] keys as a table: it names its game with
    rules_file (game = "..." cannot sit beside a [game] table)."""
    variant = tmp_path / "short.toml"
    variant.write_text(f'rules_file = "{ROOT / TEN_TRICKS}"\nname = "three rounds"\n\n[game]\nrounds = 3\n')
    game = get_game(str(ROOT / TEN_TRICKS))
    assert game.variant(variant).settings == {"game.rounds": 3}
    code, out, err = balance("simulate", ROOT / TEN_TRICKS, "-p", 4, "--variant", variant, "-n", 2000, "-q")
    assert code == 0 and "changes: game.rounds = 3" in out and "hit the cap of 3 rounds" in out, err
    assert "Not called fair" in out or "Not settled" in out or "Not fair" in out  # a capped game is never fair
    variant.write_text('name = "no game named"\n\n[game]\nrounds = 3\n')
    code, _, err = balance("simulate", ROOT / TEN_TRICKS, "-p", 4, "--variant", variant, "-n", 10, "-q")
    assert code == 2 and "rules_file = " in err, err


def test_a_sweep_deals_only_the_player_count_it_is_asked(tmp_path):
    """`sweep --set deal.hand_size=...` at 4 players of a 3-and-4-player file: a hand size that only
    fits at 4 is swept, not refused for the 3-player deal nobody asked for."""
    path = tmp_path / "two-counts.toml"
    path.write_text((ROOT / OH_HELL).read_text().replace("players = [3, 4, 5]", "players = [4, 5]")
                    .replace("hand_size = 7", "hand_size = 7"))
    game = get_game(str(path))
    assert game.variant(overrides={"deal.hand_size": 12}).settings == {"deal.hand_size": 12}  # 5 x 12 > 51
    with pytest.raises(BalanceError, match="cannot deal 5 hands of 12"):
        game.setup(5, game.variant(overrides={"deal.hand_size": 12}))
    assert game.setup(4, game.variant(overrides={"deal.hand_size": 12})).hand_size == 12
    code, out, err = balance("sweep", path, "--set", "deal.hand_size=10..12", "-p", 4, "-n", 400, "-q")
    assert code == 0, err
    with pytest.raises(BalanceError, match="cannot deal"):  # fits at no count: refused at once
        game.variant(overrides={"deal.hand_size": 20})


def test_a_file_of_one_player_count_needs_no_players_option(tmp_path):
    path = tmp_path / "duel.toml"
    path.write_text('[game]\nname = "Duel"\nplayers = 2\n\n[deck]\nsuits = ["a", "b"]\nranks = ["1", "2", "3", "4", "5"]\n')
    code, out, err = balance("simulate", path, "-n", 200, "-q")
    assert code == 0 and "2 players" in out, err


def test_new_game_quotes_its_command_and_shows_the_hooks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = balance("new-game", "my game")
    assert code == 0, err
    assert "then: balance simulate 'my game.toml' --players 4" in out
    text = (tmp_path / "my game.toml").read_text()
    assert "# [hooks]" in text and "name_order" in text and "balance simulate 'my game.toml'" in text

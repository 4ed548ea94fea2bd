"""A rules file's twists (docs/rules-files.md): partners (game.teams: a team scores and wins
together, every player knows its partner, the figures that judge the game are the teams'), the
voids the players read from a legal hook, and the events a hooks module declares.
examples/games/spades.toml (OpenSpiel's spades, partners 1 and 3 against 2 and 4) is checked deal
for deal against OpenSpiel in tests/games/rules_files/test_rules_files.py."""
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import balance

from simcore.registry import get_game

ROOT = Path(__file__).resolve().parents[3]
SPADES = "examples/games/spades.toml"

PARTNERS = """[game]
name = "Partners"
players = 4
teams = [[1, 3], [2, 4]]
rounds = 2

[deck]
suits = ["clubs", "diamonds", "hearts", "spades"]
ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]

[scoring]
per_trick = 1
"""


@pytest.fixture
def partners(tmp_path):
    path = tmp_path / "partners.toml"
    path.write_text(PARTNERS)
    return get_game(str(path))


def test_partners_score_and_win_together(partners):
    """Each seat's score is its team's (the partners' tricks added up), the two partners share
    the team's win, and the compiled loop and the reference engine agree game for game."""
    setup = partners.setup(4, partners.variant())
    logs = partners.kernel_logs(setup, partners.lineup("random", 4), 3, range(60))
    for index, log in enumerate(logs):
        won = [sum(t["winner"] == s for t in log["tricks"]) for s in range(4)]
        assert log["scores"] == [won[0] + won[2], won[1] + won[3]] * 2
        assert log["shares"][0] == log["shares"][2] and log["shares"][1] == log["shares"][3]
        assert sum(log["shares"]) == pytest.approx(1.0)
        expected = partners.reference_log(setup, 3, index)
        assert {k: log[k] for k in expected if k != "game"} == {k: expected[k] for k in expected if k != "game"}


def test_the_game_is_judged_by_team(partners):
    """simulate's summary has the teams' win shares, the first team's edge over 1/2 and a balance
    test over the teams with one degree of freedom (not the seats' three, of which two are copies),
    and the verdict speaks of teams."""
    code, out, err = balance("simulate", partners.path, "-n", 4000, "--seed", 2, "-q", "--json")
    assert code == 0, err
    summary = json.loads(out)
    teams = summary["teams"]
    assert [t["seats"] for t in teams] == [[0, 2], [1, 3]]
    assert sum(t["win_share"] for t in teams) == pytest.approx(1.0)
    assert summary["team_balance"]["df"] == 1
    assert summary["first_team_advantage"]["pp"] == pytest.approx(100 * (teams[0]["win_share"] - 0.5))
    assert "team 1 (seats 1, 3)" in " ".join(summary["verdict"]["sentences"])
    code, out, err = balance("simulate", partners.path, "-n", 4000, "--seed", 2, "-q")
    assert "first team's edge (team 1 (seats 1, 3) share − 1/2)" in out
    assert "team balance (chi-square vs equal team shares)" in out and "df = 1" in out


def test_the_heuristic_leaves_its_partner_the_trick(partners):
    """Third to play, holding the ace and the three of hearts: over an opponent's king the heuristic
    takes the trick with the ace (a trick is worth a point); over its partner's king it keeps the
    ace and plays the three (a player that did not know its partner took the trick from it)."""
    from simcore.games.trick.rules import L_CARD

    setup = partners.setup(4, partners.variant())
    c = {name: i for i, name in enumerate(setup.names)}
    lineup = partners.lineup("heuristic", 4)

    def third_plays(lead: str, second: str) -> str:
        held = [[lead], [second], ["AH", "3H"], ["4H"]]
        used = {name for cards in held for name in cards}
        # seats 1 and 3 hold no other heart: seat 3 chooses between the ace and the three alone
        plain = [name for name in setup.names if not name.endswith("H")]
        hearts = [name for name in setup.names if name.endswith("H") and name not in used]
        others = hearts + plain[23:]
        names = [held[0] + plain[11:23], held[1] + others[:12], held[2] + plain[:11], held[3] + others[12:]]
        assert sorted(sum(names, [])) == sorted(setup.names)
        hands = [sorted(c[name] for name in hand) for hand in names]
        # the dealer is seat 4, so seat 1 leads; seat 3 (index 2) is seat 1's partner
        run = partners.scripted_round(setup, lineup, hands, 3, -1, 0, [c[lead], c[second]])
        assert run["status"] == -1
        return setup.names[run["log"][0, L_CARD + 2]]

    assert third_plays("2H", "KH") == "AH"  # the opponents' king: take it
    assert third_plays("KH", "2H") == "3H"  # the partner's king: leave it


def test_teams_must_hold_every_seat_once(tmp_path):
    """A team list that leaves a seat out, or names one twice, is one line naming game.teams."""
    for teams in ("[[1, 3], [2]]", "[[1, 3], [2, 3, 4]]", "[[1, 2, 3, 4]]"):
        path = tmp_path / "bad.toml"
        path.write_text(PARTNERS.replace("teams = [[1, 3], [2, 4]]", f"teams = {teams}"))
        code, _, err = balance("simulate", path, "-n", 10, "-q")
        assert code == 2 and "game.teams (line 4)" in err and len(err.strip().splitlines()) == 1, err


def test_spades_partners_bid_within_thirteen_together():
    """OpenSpiel's partners' limit, said by spades.toml's legal_bids hook, holds in every game
    every player plays; the returns are the partnership's."""
    game = get_game(SPADES)
    setup = game.setup(4, game.variant())
    for strategy in ("random", "heuristic"):
        for log in game.kernel_logs(setup, game.lineup(strategy, 4), 9, range(200)):
            bids = log["rounds"][0]["bids"]
            assert bids[0] + bids[2] <= 13 and bids[1] + bids[3] <= 13
            assert log["scores"][0] == log["scores"][2] and log["scores"][1] == log["scores"][3]


# --- what the players infer from a legal hook ---------------------------------------------------

WIZARDS = """[game]
name = "Wizards"
players = 3

[deck]
suits = ["clubs", "diamonds", "hearts", "spades"]
ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
extra = [{ name = "Wiz", suit = "wizard", rank = "W", copies = 4 }]

[deal]
hand_size = 10

[trick]
always_wins = ["Wiz"]

[hooks]
module = "wizard_hooks.py"
"""

WIZARD_HOOKS = '''"""A Wizard may be played on any lead (it belongs to no suit the follow rule asks for)."""
from simcore.games.trick.rules import C_SUIT, M_SUIT, T_NPLAYED, T_PLAY


def legal(hand, table, rules, cards, masks, first_trick):
    if table[T_NPLAYED] == 0:
        return hand
    wizards = masks[M_SUIT + 4]
    follows = hand & masks[M_SUIT + cards[C_SUIT, table[T_PLAY]]]
    return (follows | (hand & wizards)) if follows != 0 else hand
'''


def test_search_reads_voids_from_the_legal_hook(tmp_path):
    """A Wizard played on a heart lead shows nothing of its player's hearts (the hook let it be
    played beside them); a club played on it does show the player holds no heart.  The search's
    deals follow the hook, not the suit printed on the card (which called the Wizard's player
    void in hearts, so its deals never gave it one)."""
    from simcore.games.trick import rules as tr

    (tmp_path / "wizards.toml").write_text(WIZARDS)
    (tmp_path / "wizard_hooks.py").write_text(WIZARD_HOOKS)
    game = get_game(str(tmp_path / "wizards.toml"))
    setup = game.setup(3, game.variant())
    players = game.lineup("search", 3).kernels.__strategies__
    c = {name: i for i, name in enumerate(setup.names)}
    table = np.full(tr.TABLE_WIDTH, -1, dtype=np.int64)
    table[tr.T_TRICK], table[tr.T_LEADER], table[tr.T_NPLAYED], table[tr.T_TRUMP], table[tr.T_BROKEN] = 0, 0, 2, -1, 0
    wizard = next(i for i, name in enumerate(setup.names) if name == "Wiz")
    table[tr.T_PLAY], table[tr.T_PLAY + 1] = c["5H"], wizard  # seat 1 led the 5H, seat 2 a Wizard
    hearts = int(setup.masks[tr.M_SUIT + 2])
    everything = (1 << setup.deck) - 1
    pool = np.uint64(everything & ~(1 << c["5H"]) & ~(1 << wizard) & ~(1 << c["AH"]))  # seat 3 holds the AH
    voids = np.zeros(tr.MAX_PLAYERS, dtype=np.uint64)
    players.hooked_voids(2, pool, table, setup.cards, setup.masks, setup.rules,
                         np.empty(tr.TABLE_WIDTH, dtype=np.int64), voids)
    assert int(voids[1]) & hearts == 0  # the Wizard's player may hold hearts
    assert int(voids[0]) == 0  # the leader shows nothing
    table[tr.T_PLAY + 1] = c["2C"]  # a club on the heart lead instead: no heart in that hand
    voids[:] = 0
    players.hooked_voids(2, pool, table, setup.cards, setup.masks, setup.rules,
                         np.empty(tr.TABLE_WIDTH, dtype=np.int64), voids)
    assert int(voids[1]) & hearts == hearts & int(pool)
    assert int(voids[1]) & ~hearts & everything == 0  # and nothing else: a Wizard would have been allowed too


EVENT_HOOKS = (WIZARD_HOOKS + '''

EVENTS = [("wizard_wins", "Trick taken by a Wizard", "trick"), ("wizard_rounds", "Round with a Wizard trick", "round")]


def count_events(table, n_tricks, cards, masks, rules, events):
    """Tricks a Wizard took this round, and whether there was one."""
    found = 0
    for t in range(n_tricks):
        at = T_RECORD + t * RECORD_WIDTH
        winner_card = table[at + K_CARD + ((table[at + K_WINNER] - table[at + K_LEADER]) % rules[R_PLAYERS])]
        if cards[C_SUIT, winner_card] == 4:
            found += 1
    events[0] += found
    events[1] += found > 0
''').replace("from simcore.games.trick.rules import C_SUIT, M_SUIT, T_NPLAYED, T_PLAY",
           "from simcore.games.trick.rules import (C_SUIT, K_CARD, K_LEADER, K_WINNER, M_SUIT, R_PLAYERS, RECORD_WIDTH,\n"
           "                                       T_NPLAYED, T_PLAY, T_RECORD)")


def test_a_hooks_module_declares_events_every_page_reports(tmp_path):
    """EVENTS and count_events: the compiled loop and the reference count the same, each event is
    a column of the run and a line of simulate's rule events, at its own unit (a Wizard takes each
    trick it is played to, so its count is the Wizards played)."""
    (tmp_path / "wizards.toml").write_text(WIZARDS)
    (tmp_path / "wizard_hooks.py").write_text(EVENT_HOOKS)
    game = get_game(str(tmp_path / "wizards.toml"))
    setup = game.setup(3, game.variant())
    logs = game.kernel_logs(setup, game.lineup("random", 3), 4, range(80))
    for index, log in enumerate(logs):
        played = sum(card == "Wiz" for t in log["tricks"] for card in t["cards"])
        first_wizards = sum(next((c for c in t["cards"] if c == "Wiz"), None) is not None for t in log["tricks"])
        assert log["counters"]["wizard_wins"] == first_wizards and log["counters"]["wizard_rounds"] == (played > 0)
        expected = game.reference_log(setup, 4, index)
        assert expected["counters"] == log["counters"]
    code, out, err = balance("simulate", tmp_path / "wizards.toml", "-n", 3000, "-q")
    assert code == 0, err
    assert "Trick taken by a Wizard" in out and "Round with a Wizard trick" in out
    assert any(line.startswith("Trick taken by a Wizard") and " trick " in line for line in out.splitlines())
    # a declaration that is not one is a line
    (tmp_path / "wizard_hooks.py").write_text(EVENT_HOOKS.replace('"trick"), ("wizard_rounds"', '"hand"), ("wizard_rounds"'))
    code, _, err = balance("simulate", tmp_path / "wizards.toml", "-n", 10, "-q")
    assert code == 2 and "EVENTS must be a list" in err and len(err.strip().splitlines()) == 1, err


# --- who leads next -----------------------------------------------------------------------------

JESTER_HOOKS = '''"""The jester (one extra card) never wins a trick, but its player leads the next one."""
from simcore.games.trick.rules import C_SUIT, R_PLAYERS, T_LEADER, T_PLAY


def trick_winner(table, n_played, candidate, cards, masks, rules, trump):
    m = n_played + (1 if candidate >= 0 else 0)
    best = -1
    for i in range(m):
        c = candidate if i == n_played else table[T_PLAY + i]
        if cards[C_SUIT, c] == 4:
            continue  # the jester never takes a trick
        if best < 0:
            best = i
            continue
        b = candidate if best == n_played else table[T_PLAY + best]
        if cards[C_SUIT, c] == cards[C_SUIT, b] and cards[1, c] > cards[1, b]:
            best = i
    return best if best >= 0 else 0


def next_leader(table, winner, cards, masks, rules):
    """The jester's player leads the next trick, whoever won this one."""
    n = rules[R_PLAYERS]
    for i in range(n):
        if cards[C_SUIT, table[T_PLAY + i]] == 4:
            return (table[T_LEADER] + i) % n
    return winner
'''


def jester_game(tmp_path, name: str, hooks: str, keys: str = ""):
    """The Wizards file with one jester (a suit and a rank of its own) in place of the Wizards,
    ``keys`` in place of their always_wins, and ``hooks`` as its module."""
    (tmp_path / f"{name}.toml").write_text(
        WIZARDS.replace('extra = [{ name = "Wiz", suit = "wizard", rank = "W", copies = 4 }]',
                        'extra = [{ name = "Jester", suit = "jester", rank = "J0" }]')
        .replace('[trick]\nalways_wins = ["Wiz"]\n', keys).replace("wizard_hooks.py", f"{name}_hooks.py"))
    (tmp_path / f"{name}_hooks.py").write_text(hooks)
    return get_game(str(tmp_path / f"{name}.toml"))


def test_a_card_whose_player_leads_next_even_when_it_loses(tmp_path):
    """next_leader: the jester's player leads the trick after it (it never wins one), in both
    engines alike, and the players play on from there."""
    game = jester_game(tmp_path, "jester", JESTER_HOOKS)
    setup = game.setup(3, game.variant())
    jester_led = 0
    for strategy in ("random", "heuristic"):
        logs = game.kernel_logs(setup, game.lineup(strategy, 3), 6, range(120))
        for index, log in enumerate(logs):
            tricks = log["tricks"]
            for before, after in zip(tricks, tricks[1:]):
                if "Jester" in before["cards"]:
                    player = (before["leader"] + before["cards"].index("Jester")) % 3
                    assert after["leader"] == player and before["winner"] != player  # it never wins, yet leads
                    jester_led += after["leader"] != before["winner"]
                else:
                    assert after["leader"] == before["winner"]
            if strategy == "random":
                expected = game.reference_log(setup, 6, index)
                assert {k: log[k] for k in expected if k != "game"} == {k: expected[k] for k in expected if k != "game"}
    assert jester_led >= 20


# --- decisions of the designer's own ------------------------------------------------------------

CALLS = "tests/fixtures/rules/calls.toml"


@pytest.mark.fairness
@pytest.mark.parametrize("strategy", ["heuristic", "search"])
def test_a_decision_sees_only_what_its_seat_may(strategy):
    """The calling round of tests/fixtures/rules/calls.toml: the deciding seat's call is the same in two
    deals that differ only in the other seats' hands (the heuristic weighs its options by playing
    them out in deals of its own, search with its budget: neither may peek)."""
    import random

    from simcore.games.trick import rules as tr

    game = get_game(CALLS)
    setup = game.setup(4, game.variant())
    lineup = game.lineup(strategy, 4)
    chooser = random.Random(5)
    compared = changed = 0
    for log in game.kernel_logs(setup, game.lineup("random", 4), 8, range(30)):
        rnd = log["rounds"][0]
        index = {name: i for i, name in enumerate(setup.names)}
        hands = [{index[c] for c in hand} for hand in rnd["hands"]]
        calls = rnd["decisions"]["call"]
        asked = [s for s in [(rnd["dealer"] + 1 + j) % 4 for j in range(4)] if calls[s] is not None]
        k = chooser.randrange(len(asked))
        decider, script = asked[k], [calls[s] for s in asked[:k]]
        first = game.scripted_round(setup, lineup, hands, rnd["dealer"], -1, 0, script)
        others = [s for s in range(4) if s != decider]
        rest = [c for s in others for c in hands[s]]
        chooser.shuffle(rest)
        other = [set(h) for h in hands]
        for n, s in enumerate(others):
            other[s] = set(rest[8 * n:8 * n + 8])
        second = game.scripted_round(setup, lineup, other, rnd["dealer"], -1, 0, script)
        at = tr.I_CHOSEN + 0 * tr.MAX_PLAYERS + decider
        assert first["infos"][at] >= 0 and first["infos"][at] == second["infos"][at], (strategy, decider)
        compared += 1
        changed += other != hands
    assert compared >= 20 and changed >= compared - 1


EUCHRE = "examples/games/euchre.toml"


def _euchre_steps(rnd, dealer):
    """The before-play decisions of a logged euchre round in the order the play loop asks them:
    (decision, seat, choice) for the first calling round, the discard, the second round, alone."""
    order = [(dealer + 1 + j) % 4 for j in range(4)]
    chosen = rnd["decisions"]
    steps = []
    for d, name in enumerate(["order up", "discard", "call", "alone"]):
        for seat in (order if d != 1 else [dealer]):
            if chosen[name][seat] is not None:
                steps.append((d, seat, chosen[name][seat]))
    return steps


@pytest.mark.fairness
@pytest.mark.parametrize("strategy", ["heuristic", "search:d=8"])
def test_euchre_decisions_see_only_what_their_seat_may(strategy):
    """Every decision of examples/games/euchre.toml (ordering up, the dealer's discard, the
    second round's call, going alone): the deciding seat's choice is the same in two deals that
    differ only in what it cannot see: the other seats' cards dealt anew among them (the card
    the dealer discarded, once discarded, stays with it: the script says so)."""
    import random

    from simcore.games.trick import rules as tr

    game = get_game(EUCHRE)
    setup = game.setup(4, game.variant())
    lineup = game.lineup(strategy, 4)
    index = {name: i for i, name in enumerate(setup.names)}
    chooser = random.Random(7)
    compared, kinds = 0, set()
    for log in game.kernel_logs(setup, game.lineup("random", 4), 3, range(40)):
        rnd = log["rounds"][0]
        dealer, upcard = rnd["dealer"], index[rnd["trump_card"]]
        hands = [{index[c] for c in hand} for hand in rnd["hands"]]
        steps = _euchre_steps(rnd, dealer)
        k = chooser.randrange(len(steps))
        decision, decider, _ = steps[k]
        script = [choice for _, _, choice in steps[:k]]
        fixed = {choice for d, _, choice in steps[:k] if d == 1}  # a discard already made
        others = [s for s in range(4) if s != decider]
        rest = [c for s in others for c in hands[s] - fixed]
        chooser.shuffle(rest)
        other = [set(h) for h in hands]
        at = 0
        for s in others:
            keep = hands[s] & fixed
            other[s] = keep | set(rest[at:at + len(hands[s]) - len(keep)])
            at += len(hands[s]) - len(keep)
        first = game.scripted_round(setup, lineup, hands, dealer, upcard, 0, script)
        second = game.scripted_round(setup, lineup, other, dealer, upcard, 0, script)
        slot = tr.I_CHOSEN + decision * tr.MAX_PLAYERS + decider
        assert first["infos"][slot] >= 0 and first["infos"][slot] == second["infos"][slot], (strategy, decision)
        compared += 1
        kinds.add(decision)
    assert compared == 40 and kinds >= {0, 1, 3}, kinds


def test_euchre_cards_move_as_the_rules_say():
    """The dealer who is ordered up holds the upcard and not its discard; a lone maker's partner
    plays no card (15 cards in the round's tricks, the seat on the dealer's left skipped when it
    sits out); the compiled loop and the reference agree game for game with every player."""
    game = get_game(EUCHRE)
    setup = game.setup(4, game.variant())
    alone = ordered = 0
    for strategy in ("random", "heuristic"):
        for i, log in enumerate(game.kernel_logs(setup, game.lineup(strategy, 4), 5, range(150))):
            rnd = log["rounds"][0]
            dealer = rnd["dealer"]
            played = [[] for _ in range(4)]
            for t in log["tricks"]:
                for offset, c in enumerate(t["cards"]):
                    if c is not None:
                        played[(t["leader"] + offset) % 4].append(c)
            steps = _euchre_steps(rnd, dealer)
            maker = next(seat for d, seat, choice in steps if d in (0, 2) and choice > 0)
            went_alone = any(d == 3 and choice == 1 for d, _, choice in steps)
            if any(d == 0 and choice == 1 for d, _, choice in steps) and not (went_alone and dealer == (maker + 2) % 4):
                ordered += 1
                discarded = setup.names[next(choice for d, _, choice in steps if d == 1)]
                assert rnd["trump_card"] in played[dealer] and discarded not in played[dealer]
            if went_alone:
                alone += 1
                assert played[(maker + 2) % 4] == [] and sum(map(len, played)) == 15
                assert log["tricks"][0]["leader"] == next(s for s in [(dealer + 1 + j) % 4 for j in range(4)]
                                                          if s != (maker + 2) % 4)
            else:
                assert sum(map(len, played)) == 20
            if strategy == "random" and i < 60:
                expected = game.reference_log(setup, 5, i)
                assert {k: log[k] for k in expected if k != "game"} == {k: expected[k] for k in expected if k != "game"}
    assert alone >= 40 and ordered >= 100


JACKS = "tests/fixtures/rules/jacks.toml"


@pytest.mark.fairness
@pytest.mark.parametrize("strategy", ["heuristic", "search:d=8"])
def test_a_card_power_sees_only_what_its_seat_may(strategy):
    """tests/fixtures/rules/jacks.toml: the seven's power (swap a card with the face-up trump card) and the
    jack's (name a trump) are asked of the card's player after it is played; its choice is the same
    in two deals that differ only in the cards it cannot see (the other seats' unplayed cards
    dealt anew among them), the doubles, bids and first cards of the trick scripted alike."""
    import random

    from simcore.games.trick import rules as tr

    game = get_game(JACKS)
    setup = game.setup(4, game.variant())
    lineup = game.lineup(strategy, 4)
    index = {name: i for i, name in enumerate(setup.names)}
    chooser = random.Random(11)
    compared = 0
    for log in game.kernel_logs(setup, game.lineup("random", 4), 9, range(200)):
        rnd, first = log["rounds"][0], log["tricks"][0]
        ranks = [c[:-1] for c in first["cards"]]
        power = next((k for k, r in enumerate(ranks) if r in ("7", "J")), None)
        if power is None or any(r in ("7", "J") for r in ranks[:power]):
            continue  # the first power of the first trick, no power before it
        dealer = rnd["dealer"]
        order = [(dealer + 1 + j) % 4 for j in range(4)]
        script = [rnd["decisions"]["double"][s] for s in order] + [rnd["bids"][s] for s in order]
        script += [index[c] for c in first["cards"][:power + 1]]
        decider = (first["leader"] + power) % 4
        hands = [{index[c] for c in hand} for hand in rnd["hands"]]
        played = {(first["leader"] + k) % 4: index[c] for k, c in enumerate(first["cards"][:power + 1])}
        others = [s for s in range(4) if s != decider]
        rest = [c for s in others for c in hands[s] if c != played.get(s)]
        chooser.shuffle(rest)
        other = [set(h) for h in hands]
        at = 0
        for s in others:
            keep = {played[s]} if s in played else set()
            other[s] = keep | set(rest[at:at + 8 - len(keep)])
            at += 8 - len(keep)
        runs = [game.scripted_round(setup, lineup, deal, dealer, index[rnd["trump_card"]], 0, script)
                for deal in (hands, other)]
        decision = 2 if ranks[power] == "7" else 1
        later = [setup.names[run["log"][0, tr.L_CARD + k]][:-1] for run in runs for k in range(power + 1, 4)]
        if ranks[power] in later:
            continue  # the log keeps a trick's last choice: another power of the kind would hide the decider's
        made = [run["log"][0, tr.L_DECIDED + decision] for run in runs]
        assert made[0] >= 0 and made[0] == made[1], (strategy, ranks[power], made)
        compared += 1
        if compared == 12:
            break
    assert compared == 12


def test_card_powers_play_out_in_both_engines():
    """tests/fixtures/rules/jacks.toml: a double before the bidding, a jack that names trump for the rest of
    the round, a seven that swaps a card with the face-up trump card; the compiled loop equals the
    reference game for game, every power is used, a swapped card is played by its new holder."""
    game = get_game(JACKS)
    setup = game.setup(4, game.variant())
    used = {"double": 0, "jack": 0, "seven": 0}
    swapped_in_play = 0
    for i, log in enumerate(game.kernel_logs(setup, game.lineup("random", 4), 2, range(80))):
        expected = game.reference_log(setup, 2, i)
        assert {k: log[k] for k in expected if k != "game"} == {k: expected[k] for k in expected if k != "game"}
        for rnd in log["rounds"]:
            used["double"] += sum(choice == 1 for choice in rnd["decisions"]["double"])
            up = rnd["trump_card"]
            tricks = [t for t in log["tricks"] if t["round"] == rnd["round"]]
            for t in tricks:
                used["jack"] += t["decisions"]["jack"] not in (None, 0)
                seven = t["decisions"]["seven"]
                if seven is not None and setup.names[seven] != up:
                    used["seven"] += 1
                    # the old face-up card went to the seven's player; the swapped card is face up
                    swapped_in_play += any(up in later["cards"] for later in tricks)
                    up = setup.names[seven]
    assert min(used.values()) >= 20 and swapped_in_play >= 10, (used, swapped_in_play)


DRAWS = "tests/fixtures/rules/draws.toml"


@pytest.mark.fairness
@pytest.mark.parametrize("strategy", ["heuristic", "search:d=8"])
def test_a_card_drawn_is_seen_by_its_taker_only(strategy):
    """tests/fixtures/rules/draws.toml: a trick's winner draws a card from the stock and discards one.  The
    next seat to decide (another seat, at its first card of the next trick) decides the same
    whichever card of the stock was drawn: the two deals differ only in the card the winner drew
    (and so holds), which no other seat saw."""
    import random

    game = get_game(DRAWS)
    setup = game.setup(4, game.variant())
    lineup = game.lineup(strategy, 4)
    index = {name: i for i, name in enumerate(setup.names)}
    chooser = random.Random(3)
    compared = 0
    for log in game.kernel_logs(setup, game.lineup("random", 4), 4, range(300)):
        rnd = log["rounds"][0]
        first, second = log["tricks"][0], log["tricks"][1]
        chosen = first["decisions"]
        if chosen["draw"] != 1:
            continue
        drawer, drawn, gone = first["winner"], chosen["drawn"], chosen["discard"]
        hands = [{index[c] for c in hand} for hand in rnd["hands"]]
        stock = set(range(len(setup.names))) - set().union(*hands)
        order = [(second["leader"] + i) % 4 for i in range(4)]
        at = next(i for i, s in enumerate(order) if s != drawer)
        before = [index[c] for c in second["cards"][:at]]
        if gone == drawn or drawn in before:
            continue
        other = chooser.choice(sorted(stock - {drawn}))
        script = [index[c] for c in first["cards"]]
        runs = []
        for card in (drawn, other):
            steps = script + [1, card, gone] + before
            runs.append(game.scripted_round(setup, lineup, hands, rnd["dealer"], -1, 0, steps))
        from simcore.games.trick.rules import L_CARD

        made = [run["log"][1, L_CARD + at] for run in runs]
        assert made[0] >= 0 and made[0] == made[1], (strategy, made)
        compared += 1
        if compared == 12:
            break
    assert compared == 12


def test_every_player_plays_every_decision():
    """Random calls uniformly, the heuristic and search by playing the options out: in the calling
    round each calls a suit it holds more of than random play does, the dealer never passes, the
    one-use power is spent at most once a seat a game, and the compiled loop equals the reference
    (tests/games/rules_files/test_rules_files.py) for every line-up."""
    game = get_game(CALLS)
    setup = game.setup(4, game.variant())
    index = {name: i for i, name in enumerate(setup.names)}
    held = {}
    for strategy in ("random", "heuristic", "search:d=8"):
        lengths = []
        for log in game.kernel_logs(setup, game.lineup(strategy, 4), 3, range(60 if strategy.startswith("search") else 200)):
            for rnd in log["rounds"]:
                calls = rnd["decisions"]["call"]
                assert calls[rnd["dealer"]] != 0  # stuck: the dealer names a suit when all passed
                maker = next(s for s in [(rnd["dealer"] + 1 + j) % 4 for j in range(4)] if calls[s] not in (None, 0))
                suit = setup.suits[calls[maker] - 1]
                lengths.append(sum(setup.cards[0, index[c]] == setup.suits.index(suit) for c in rnd["hands"][maker]))
            used = [t["decisions"]["hand over the lead"] for t in log["tricks"]]
            gave = [t["winner"] for t, u in zip(log["tricks"], used) if u == 1]
            assert len(gave) == len(set(gave))  # once a game each
        held[strategy] = sum(lengths) / len(lengths)
    assert held["heuristic"] > held["random"] + 0.5 and held["search:d=8"] > held["random"] + 0.5, held


FOOL_HOOKS = JESTER_HOOKS.split("def next_leader")[0]  # the jester's trick rule: it never takes a trick


def test_the_heuristic_judges_a_lead_by_the_hooks_not_the_rank(tmp_path):
    """A card of its own rank above every other that never takes a trick (a trick_winner hook
    says so) is no strong lead: the heuristic leads the card that holds against most of the cards it
    does not hold, asked of the hook (by rank alone it led the jester, and a verdict moved with no
    rule changed)."""
    from simcore.games.trick.rules import L_CARD

    game = jester_game(tmp_path, "fool", FOOL_HOOKS, "[scoring]\nper_trick = 1\n")
    setup = game.setup(3, game.variant())
    c = {name: i for i, name in enumerate(setup.names)}
    mine = ["Jester", "AS", "KS", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    rest = [name for name in setup.names if name not in mine]
    hands = [sorted(c[n] for n in mine), sorted(c[n] for n in rest[:10]), sorted(c[n] for n in rest[10:20])]
    run = game.scripted_round(setup, game.lineup("heuristic", 3), hands, 2, -1, 0, [])  # seat 1 leads
    assert run["status"] == -1
    assert setup.names[run["log"][0, L_CARD]] == "AS"  # not the jester, whose rank is the top one


def test_whatif_compares_the_teams(partners, tmp_path):
    """In a game of teams whatif's headline is the first team's edge over 1/2 (twice seat 1's over
    1/4, the same test), with each team's win share; the verdict speaks of the first team."""
    variant = tmp_path / "one-round.toml"
    variant.write_text(f'rules_file = "{Path(partners.path).name}"\nname = "one round"\n\n[game]\nrounds = 1\n')
    code, out, err = balance("whatif", partners.path, "--variant", variant, "-n", 3000, "--seed", 4, "--json")
    assert code == 0, err
    figures = {f["key"]: f for f in json.loads(out)["variants"][0]["figures"]}
    edge, team, seat = figures["advantage"], figures["team_0"], figures["share_0"]
    assert edge["label"] == "first team's edge (team 1 share − 1/2)" and team["label"] == "win share, team 1 (seats 1, 3)"
    assert edge["change"] == pytest.approx(team["change"]) == pytest.approx(2 * seat["change"])
    assert edge["q_value"] == team["q_value"]  # one test, counted once
    assert "first team's edge" in " ".join(json.loads(out)["verdict"]["sentences"])


def test_the_card_powers_walkthrough_plays_the_tested_file():
    """docs/rules-files.md walks through tests/fixtures/rules/jacks.toml and its hooks as a designer writes
    them: the page's files are these files (the page's commands are checked by
    tests/games/rules_files/test_rules_files.py, the first-hour test)."""
    from pathlib import Path

    from test_docs_commands import _fenced

    root = Path(__file__).resolve().parents[3]
    written = {c.argv[1]: c.argv[2] for c in _fenced(root / "docs" / "rules-files.md") if c.argv[0] == "__write__"}
    for name in ("jacks.toml", "jacks_hooks.py"):
        assert written[name] == (root / "tests" / "fixtures" / "rules" / name).read_text(), name


def test_a_rules_file_replay_numbers_the_seats_from_one():
    """`balance replay` of a rules file numbers the seats 1..N, as simulate, report and every other
    page do (it said seat 0..N-1): the hands, the plays, the trick winners, the totals."""
    code, out, err = balance("replay", "examples/games/spades.toml", "--index", 3)
    assert code == 0, err
    lines = out.splitlines()
    assert [line.split(":")[0].strip() for line in lines if line.startswith("  seat ")] == [
        "seat 1", "seat 2", "seat 3", "seat 4"]
    assert "seat 0" not in out and " s0:" not in out and "s4:" in out
    tricks = [line for line in lines if line.startswith("  trick ")]
    assert len(tricks) == 13 and all(line.split("-> seat ")[1][0] in "1234" for line in tricks)
    assert any(line.startswith("Totals: seat 1:") for line in lines)


SHRINKING = "tests/fixtures/rules/shrinking.toml"


def test_a_hand_size_hook_deals_each_round_from_the_scores():
    """tests/fixtures/rules/shrinking.toml: the hand_size hook deals 10 cards less one for every 3 points of
    the best score so far (4 at least); each round plays that many tricks, both engines alike."""
    game = get_game(SHRINKING)
    setup = game.setup(4, game.variant())
    sizes = set()
    for i, log in enumerate(game.kernel_logs(setup, game.lineup("random", 4), 6, range(60))):
        expected = game.reference_log(setup, 6, i)
        assert {k: log[k] for k in expected if k != "game"} == {k: expected[k] for k in expected if k != "game"}
        totals = [0] * 4
        for rnd in log["rounds"]:
            size = max(4, 10 - max(totals) // 3)
            assert all(len(hand) == size for hand in rnd["hands"]), (i, rnd["round"])
            tricks = [t for t in log["tricks"] if t["round"] == rnd["round"]]
            assert len(tricks) == size
            for t in tricks:
                totals[t["winner"]] += 1
            sizes.add(size)
    assert len(sizes) >= 4, sizes


def test_a_hand_size_hook_out_of_range_is_one_line(tmp_path):
    """A hand_size hook that deals no card, or more than deal.hand_size keeps room for, stops the
    command with one line naming the hook (the checking run), exit 2."""
    source = (ROOT / "tests" / "fixtures" / "rules" / "shrinking_hooks.py").read_text()
    (tmp_path / "shrinking.toml").write_text((ROOT / SHRINKING).read_text())
    for answer, words in (("0", "gave 0 cards for round 1"), ("rules[R_HAND] + 1", "gave 11 cards for round 1")):
        (tmp_path / "shrinking_hooks.py").write_text(source.replace("return max(4, rules[R_HAND] - best // 3)",
                                                                     f"return {answer}"))
        code, out, err = balance("simulate", tmp_path / "shrinking.toml", "-n", 100, "-q")
        assert code == 2 and len(err.strip().splitlines()) == 1 and "hand_size" in err and words in err, err
        assert "Traceback" not in err


def test_a_suit_of_hook_makes_the_figures_read_the_bowers():
    """examples/games/euchre.toml's suit_of hook puts the left bower in trump: "trick won by a
    trump on another suit's lead" counts a trick the left bower takes on a plain lead, and none
    where the bower was led into a trump lead (it counted the printed suit before)."""
    game = get_game(EUCHRE)
    setup = game.setup(4, game.variant())
    left = {"C": "JS", "S": "JC", "D": "JH", "H": "JD"}
    bower_trumps = 0
    for log in game.kernel_logs(setup, game.lineup("random", 4), 1, range(300)):
        trump = log["rounds"][0]["trump"][0].upper()
        effective = lambda card: trump if card == left[trump] else card[1]  # noqa: E731
        counted = 0
        for t in log["tricks"]:
            cards = [c for c in t["cards"] if c is not None]
            seats = [(t["leader"] + k) % 4 for k, c in enumerate(t["cards"]) if c is not None]
            won_by = cards[seats.index(t["winner"])]
            counted += effective(cards[0]) != trump and effective(won_by) == trump
            bower_trumps += won_by == left[trump] and effective(cards[0]) != trump
        assert log["counters"]["trumped_tricks"] == counted
    assert bower_trumps >= 30

"""Strategies see only what their seat may see (docs/strategies.md, "What a strategy sees").

For each game, pairs of positions that differ ONLY in what the deciding seat cannot see (the other
seats' unplayed cards and hidden cards, dealt anew among them) go through the compiled engine
(``balance play`` scenarios); every built-in strategy and every example plug-in must make the
same decision in both.  The kernel hands a strategy its own hand, the public table and its own
hidden card only, so nothing else can move its choice."""
import random
from pathlib import Path

import pytest

from simcore.registry import get_game

pytestmark = pytest.mark.fairness  # a tier of its own (Makefile: make test-fast leaves it out)

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = {"bird-weather": ["examples/plugins/low_ones.py", "tests/fixtures/plugins/peek_facedown.py"],
           "chimera": ["examples/plugins/chimera-cheap-winner.py"]}


def _lineups(game, players, decider):
    """Every built-in and example plug-in in the deciding seat, random players elsewhere."""
    names = list(game.builtin_strategies())
    for path in PLUGINS.get(game.name, []):
        text = (ROOT / path).read_text()
        names.append((text.split('NAME = "', 1)[1].split('"', 1)[0], path))
    for entry in names:
        name, plugin = entry if isinstance(entry, tuple) else (entry, None)
        seats = ["random"] * players
        seats[decider] = name
        yield ",".join(seats), [str(ROOT / plugin)] if plugin else []


def _follows(card, lead):
    return card // 10 == lead // 10 or card % 10 == lead % 10


def _bird_weather_pairs(players, rng):
    """(state A, state B, decider, leader, scripted plays before its decision) at trick 1: the
    face-down cards are each hand's last card; the seats before the decider play scripted cards
    that follow the lead (so they stay legal whatever else those seats hold)."""
    cards, hand, made = list(range(10, 10 * players + 10)), 10, 0
    while made < 6:
        rng.shuffle(cards)
        hands = [sorted(cards[s * hand:(s + 1) * hand]) for s in range(players)]
        facedown = [h[-1] for h in hands]
        leader = rng.randrange(players)
        decider = (leader + rng.randrange(players)) % players
        before = [(leader + i) % players for i in range((decider - leader) % players)]
        plays = []
        for s in before:
            options = [c for c in hands[s] if c != facedown[s] and (not plays or _follows(c, plays[0]))]
            if not options:
                break
            plays.append(options[0])
        if len(plays) < len(before):
            continue
        others = [s for s in range(players) if s != decider]
        pool = [c for s in others for c in hands[s] if c not in plays]
        rng.shuffle(pool)
        hands_b = [list(h) for h in hands]
        facedown_b = list(facedown)
        for s in others:  # the same number of unseen cards each, dealt anew; scripted plays stay
            keep = [c for c in plays if c in hands[s]]
            new, pool = pool[:hand - len(keep)], pool[hand - len(keep):]
            facedown_b[s] = new[-1]
            hands_b[s] = sorted(keep + new)
        state_a = {"hands": [[c for c in h if c != facedown[s]] for s, h in enumerate(hands)], "facedown": facedown}
        state_b = {"hands": [[c for c in h if c != facedown_b[s]] for s, h in enumerate(hands_b)],
                   "facedown": facedown_b}
        assert state_a["hands"][decider] == state_b["hands"][decider] and facedown[decider] == facedown_b[decider]
        assert state_a != state_b
        made += 1
        yield state_a, state_b, decider, leader, plays


@pytest.mark.parametrize("players", [3, 4, 5])
def test_bird_weather_decisions_ignore_what_the_seat_cannot_see(players):
    game = get_game("bird-weather")
    rng = random.Random(players)
    checked = 0
    for state_a, state_b, decider, leader, plays in _bird_weather_pairs(players, rng):
        for spec, plugins in _lineups(game, players, decider):
            decisions = []
            for state in (state_a, state_b):
                data = {"game": "bird-weather", "players": players, "leader": leader, "plays": plays, "seed": 3,
                        **state}
                log = game.scenario(data, "hidden-information pair", spec, plugins)
                first = log["tricks"][0]
                decisions.append(first["cards"][len(plays)])
            assert decisions[0] == decisions[1], (spec, decider, state_a, state_b)
            checked += 1
    assert checked >= 6 * 4


def test_bird_weather_hidden_face_down_cards_do_not_reach_the_table():
    """The mechanism itself: the table a strategy gets shows its own face-down card and -2 for
    another seat's unused one, whatever that card is."""
    import numpy as np

    from simcore.games.bird_weather import kernel
    from simcore.games.bird_weather.rules import FACEDOWN_HIDDEN, FACEDOWN_NONE, T_FACEDOWN, TABLE_WIDTH

    table = np.full(TABLE_WIDTH, FACEDOWN_NONE, dtype=np.int64)
    facedown = np.array([7, -1, 12, 30, -1], dtype=np.int64)
    for s in range(5):
        table[T_FACEDOWN + s] = FACEDOWN_HIDDEN if facedown[s] >= 0 else FACEDOWN_NONE
    kernel.show_own(table, facedown, 2)
    assert table[T_FACEDOWN:T_FACEDOWN + 5].tolist() == [-2, -1, 12, -2, -1]
    kernel.hide_own(table, facedown, 2)
    assert table[T_FACEDOWN:T_FACEDOWN + 5].tolist() == [-2, -1, -2, -2, -1]


def _mid_deal_pairs(players, rng, setup):
    """(state A, state B, decider, scripted plays) in the middle of a deal: two to four whole tricks
    and part of the next are scripted (legal in both states: every card follows the lead where
    its seat could follow), so seats have shown voids; state B deals the other seats' unplayed
    cards and face-down cards anew among them, each seat again void where it showed a void.  No
    scripted card ends in 0, so no face-down card is taken (a pick would show it)."""
    import numpy as np

    from simcore.games.bird_weather import rules as bw

    follows = lambda card, lead: card // 10 == lead // 10 or card % 10 == lead % 10  # noqa: E731
    made = 0
    while made < 6:
        cards = list(range(10, 10 * players + 10))
        rng.shuffle(cards)
        hands = [sorted(cards[s * 10:(s + 1) * 10]) for s in range(players)]
        facedown = [rng.choice(h) for h in hands]
        held = [[c for c in h if c != facedown[s]] for s, h in enumerate(hands)]
        voids = [set() for _ in range(players)]
        plays, leader = [], 0
        table = np.full(bw.TABLE_WIDTH, -1, dtype=np.int64)
        tricks, extra = rng.randrange(2, 5), rng.randrange(players)
        ok = True
        for t in range(tricks + 1):
            lead = None
            for i in range(players if t < tricks else extra):
                seat = (leader + i) % players
                following = [c for c in held[seat] if lead is not None and follows(c, lead)]
                legal = following or held[seat]
                choice = [c for c in legal if c % 10 != 0]
                if not choice:
                    ok = False
                    break
                card = rng.choice(choice)
                if lead is not None and not following:
                    voids[seat] |= {c for c in cards if follows(c, lead)}
                lead = card if lead is None else lead
                held[seat].remove(card)
                plays.append(card)
                table[bw.T_PLAY + i] = setup.index_of(card)
            if not ok:
                break
            if t < tricks:
                win_pos, _, _ = bw.resolve_trick(table, setup.number, setup.rules, players)
                leader = (leader + win_pos) % players
        if not ok:
            continue
        decider = (leader + extra) % players
        played = set(plays)
        others = [s for s in range(players) if s != decider]
        for _ in range(200):  # deal the hidden cards anew, keeping every shown void
            pool = [c for s in others for c in held[s]]
            rng.shuffle(pool)
            held_b = {}
            for s in sorted(others, key=lambda s: -len(voids[s])):
                allowed = [c for c in pool if c not in voids[s]]
                if len(allowed) < len(held[s]):
                    break
                held_b[s] = allowed[:len(held[s])]
                pool = [c for c in pool if c not in held_b[s]]
            else:
                break
        else:
            continue
        pool = [facedown[s] for s in others]
        rng.shuffle(pool)
        facedown_b = list(facedown)
        for s, c in zip(others, pool):
            facedown_b[s] = c
        hands_b = [None] * players
        for s in range(players):
            mine = [c for c in hands[s] if c in played and c != facedown[s]]
            hands_b[s] = sorted(mine + (held[s] if s == decider else held_b[s]))
        state_a = {"hands": [[c for c in h if c != facedown[s]] for s, h in enumerate(hands)], "facedown": facedown}
        state_b = {"hands": hands_b, "facedown": facedown_b}
        if state_a == state_b:
            continue
        assert state_a["hands"][decider] == state_b["hands"][decider] and facedown[decider] == facedown_b[decider]
        made += 1
        yield state_a, state_b, decider, plays


@pytest.mark.parametrize("players", [3, 4, 5])
def test_bird_weather_mid_deal_decisions_ignore_what_the_seat_cannot_see(players):
    """Later in the deal, where seats have shown voids and search samples deals that respect
    them: every built-in (search included) and example plug-in decides the same whatever the
    others' unplayed and face-down cards are."""
    game = get_game("bird-weather")
    setup = game.setup(players, game.variant())
    rng = random.Random(100 + players)
    checked = searched = 0
    for state_a, state_b, decider, plays in _mid_deal_pairs(players, rng, setup):
        for spec, plugins in _lineups(game, players, decider):
            decisions = []
            for state in (state_a, state_b):
                data = {"game": "bird-weather", "players": players, "leader": 0, "plays": plays, "seed": 3, **state}
                log = game.scenario(data, "hidden-information pair", spec, plugins)
                decisions.append([c for t in log["tricks"] for c in t["cards"]][len(plays)])
            assert decisions[0] == decisions[1], (spec, decider, state_a, state_b, plays)
            checked += 1
            searched += "search" in spec
    assert checked >= 6 * 5 and searched == 6

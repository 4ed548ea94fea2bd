"""Strategies see only what their seat may see: Chimera Tricks and 10 TRICKS LATER
(docs/strategies.md, "What a strategy sees"; tests/players/test_hidden_information.py does BIRD & WEATHER).

Pairs of positions that differ ONLY in what the deciding seat cannot see go through the compiled
play loop, and every built-in strategy, the example plug-in (Chimera) and a plug-in that hashes
everything it is handed (tests/fixtures/plugins/peek_chimera.py, tests/fixtures/plugins/peek_ten_tricks.py) must make the same
decision in both.  Chimera: the other seats' hands (and the familiars boxed at 3 players) dealt
anew among them, the hidden rest of the grimoire pile in another order and, at 4 players,
another grimoire boxed.  10 TRICKS LATER: the other seats' hands dealt anew among them and, in
some pairs, another card given up by a seat that swapped for infected 8.

``Game.scenario`` of these two games replays a script and never asks a strategy (its line-up is
always ``random`` and it stops where the script stops), so the pairs are played by the same
compiled ``play_scenario`` kernel it calls, with the line-up under test: the seats before the
decider play scripted moves that are legal in both states (cards of the lead suit / colour),
the decider's strategy decides, random players finish the trick.  The reference engine checks
each position first (``Game.reference_scenario``), the kernel checks every scripted move, and
the streams are seeded the same way in every run, so every draw matches in both states."""
import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from simcore.games.chimera import rules as cm
from simcore.games.chimera.reference import parse_card
from simcore.games.ten_tricks import rules as tt
from simcore.play import UNFINISHED
from simcore.plugins.loading import load_plugin
from simcore.registry import get_game

pytestmark = pytest.mark.fairness  # a tier of its own (Makefile: make test-fast leaves it out)

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = {"chimera": ["examples/plugins/chimera-cheap-winner.py", "tests/fixtures/plugins/peek_chimera.py"],
           "ten-tricks": ["tests/fixtures/plugins/peek_ten_tricks.py"]}
PAIRS = 6  # per player count and decision
WHERE = "hidden-information pair"


def _plugin_name(path):
    return (ROOT / path).read_text().split('NAME = "', 1)[1].split('"', 1)[0]


@cache
def _lineup(game_name, players, decider, name):
    """``name`` in the deciding seat, random players elsewhere.  Built-ins run in the stock
    kernel; plug-ins in one build that loads all of the game's plug-ins (one compile)."""
    game = get_game(game_name)
    seats = ["random"] * players
    seats[decider] = name
    plugins = [] if name in game.builtin_strategies() else [str(ROOT / p) for p in PLUGINS[game_name]]
    return game.lineup(",".join(seats), players, plugins)


def _strategies(game_name):
    """Every built-in, then the game's plug-ins (the example, the peeking one)."""
    return list(get_game(game_name).builtin_strategies()) + [_plugin_name(p) for p in PLUGINS[game_name]]


# --- Chimera Tricks ------------------------------------------------------------------------------

def _chimera_pairs(players, rng):
    """(state A, state B, decider, scripted moves) at trick 1 of round 1 (seat 0 leads): the
    seats before the decider play scripted moves (the leader any card, the others a card of the
    lead suit onto their empty sheet: legal whatever else they hold); state B deals the other
    seats' unplayed cards and the boxed familiars anew among them, shuffles the pile below the
    two face-up grimoires and, at 4 players, boxes another grimoire."""
    setup = cm.make_setup(players)
    deck, t, n_grimoires = list(setup.deck), setup.tricks, len(setup.grimoires)
    made = 0
    while made < PAIRS:
        cards = list(deck)
        rng.shuffle(cards)
        hands = [sorted(cards[s * t:(s + 1) * t]) for s in range(players)]
        boxed = cards[players * t:]
        decider = made % players  # every position in the trick
        moves, lead = [], None
        for s in range(decider):
            options = hands[s] if s == 0 else [c for c in hands[s] if c // 10 == lead]
            if not options:
                break
            card = rng.choice(options)
            lead = card // 10 if s == 0 else lead
            moves.append((s, card, rng.randrange(2)))
        if len(moves) < decider:
            continue
        grimoires = list(range(n_grimoires))
        rng.shuffle(grimoires)
        pile, boxed_grimoires = grimoires[:t], sorted(grimoires[t:])

        played = {s: c for s, c, _ in moves}
        others = [s for s in range(players) if s != decider]
        pool = [c for s in others for c in hands[s] if played.get(s) != c] + boxed
        hands_b = list(hands)
        while hands_b == hands:
            rng.shuffle(pool)
            rest = list(pool)
            hands_b = [list(h) for h in hands]
            for s in others:
                keep = [played[s]] if s in played else []
                hands_b[s], rest = sorted(keep + rest[:t - len(keep)]), rest[t - len(keep):]
        tail, boxed_b = pile[2:], list(boxed_grimoires)
        if boxed_b:  # a boxed grimoire and a hidden one change places
            i, j = rng.randrange(len(boxed_b)), rng.randrange(len(tail))
            boxed_b[i], tail[j] = tail[j], boxed_b[i]
        while tail == pile[2:]:
            rng.shuffle(tail)
        pile_b = pile[:2] + tail

        def state(h, order, box):
            return {"game": "chimera", "players": players, "hands": [[cm.card_name(c) for c in x] for x in h],
                    "boxed_grimoires": sorted(box), "rounds": [{"grimoires": order, "tricks": []}]}

        state_a, state_b = state(hands, pile, boxed_grimoires), state(hands_b, pile_b, boxed_b)
        assert state_a != state_b and hands_b != hands and pile_b != pile
        assert hands_b[decider] == hands[decider] and pile_b[:2] == pile[:2]
        assert all(played[s] in hands_b[s] for s in played)
        made += 1
        yield state_a, state_b, decider, moves


def _chimera_first_trick(game, data, lineup, moves):
    """The compiled play loop on the position ``data``: ``moves`` scripted, then the line-up's
    strategies, stopped after the first trick.  Returns the log (``Game.log_dict``)."""
    setup, record = game.reference_scenario(data, WHERE, set(game.reference.SCENARIO_KEYS), ("hands", "rounds"))
    dealt = np.zeros(cm.MAX_PLAYERS, dtype=np.int64)
    for s in range(setup.players):
        dealt[s] = sum(1 << c for c in record.hands[s])
    in_play = np.array([g for g in range(len(setup.grimoires)) if g not in record.boxed_grimoires], dtype=np.int64)
    orders = np.array([record.rounds[0].grimoires], dtype=np.int64)
    script = np.array([card * 2 + slot for _, card, slot in moves], dtype=np.int64)
    log = np.full((1, cm.LOG_WIDTH), -9, dtype=np.int64)
    round_log = np.full((1, cm.ROUND_LOG_WIDTH), -9, dtype=np.int64)
    status, rows = game.kernel_position(setup, lineup, dealt, in_play, sum(1 << c for c in record.boxed_familiars),
                                        sum(1 << g for g in record.boxed_grimoires), orders, script, log, round_log, 1, 1)
    assert status == UNFINISHED, (status, lineup.names, data)  # not STRATEGY_BROKE_RULES
    return game.log_dict(setup, *rows, status)


@pytest.mark.parametrize("name", _strategies("chimera"))
@pytest.mark.parametrize("players", [3, 4])
def test_chimera_decisions_ignore_what_the_seat_cannot_see(players, name):
    """Chimera Tricks: with the same own hand and the same public trick so far, every built-in,
    the example plug-in and the peeking plug-in play the same card into the same slot whether
    the other seats hold one set of cards or another, whatever familiars are boxed, in whatever
    order the face-down grimoires lie and whichever grimoires are boxed."""
    game = get_game("chimera")
    rng = random.Random(100 + players)
    checked = weighed = 0
    for state_a, state_b, decider, moves in _chimera_pairs(players, rng):
        # a decision with more than one card to choose from (on the empty sheet of trick 0 the two
        # slots are the same move): the one `search` really weighs, in many deals of the unseen cards
        hand = [parse_card(c) for c in state_a["hands"][decider]]
        lead = moves[0][1] // 10 if moves else -1
        m0, m1, _ = cm.legal_masks(np.uint64(sum(1 << c for c in hand)), -1, -1, lead, cm.make_setup(players).masks)
        weighed += bin(int(m0 | m1)).count("1") > 1
        lineup = _lineup("chimera", players, decider, name)
        logs = [_chimera_first_trick(game, state, lineup, moves) for state in (state_a, state_b)]
        views = [(log["rounds"][0]["hands"][decider], log["tricks"][0]["plays"][:decider],
                  log["tricks"][0]["grimoire"], log["tricks"][0]["next_grimoire"]) for log in logs]
        assert views[0] == views[1]  # the decider's own view is the same ...
        assert logs[0]["rounds"][0]["hands"] != logs[1]["rounds"][0]["hands"]  # ... the deal is not
        assert logs[0]["rounds"][0]["grimoires"] != logs[1]["rounds"][0]["grimoires"]  # nor the pile
        decisions = [log["tricks"][0]["plays"][decider] for log in logs]
        assert decisions[0][0] == decider
        assert decisions[0] == decisions[1], (name, decider, state_a, state_b, decisions)
        checked += 1
    assert checked == PAIRS
    assert weighed >= PAIRS - 1, weighed


# --- 10 TRICKS LATER ----------------------------------------------------------------------------

def _ten_tricks_deck(players, rng):
    if players == 4:
        return list(range(32)) + [tt.FIRST_INFECTED + v for v in range(8)]
    colours = rng.sample(range(4), 3)
    return [8 * c + k for c in colours for k in range(8)] + [tt.FIRST_INFECTED + v for v in range(1, 7)]


def _infected(hand):
    return any(c >= tt.FIRST_INFECTED for c in hand)


def _ten_tricks_state(players, hands, leader, start, totals, swap=None):
    name = tt.Setup.card_name
    spec = {"hands": [[name(c) for c in h] for h in hands], "tricks": []}
    if start:
        spec["leader"] = leader
    if swap:
        spec["swap"] = {"seat": swap[0], "give": name(swap[1])}
    return {"game": "ten-tricks", "players": players, "start_round": start, "start_totals": totals,
            "rounds": [spec]}


def _ten_tricks_play_pairs(players, rng):
    """(state A, state B, decider, leader, scripted swap answers and plays) at the first trick
    of a round (round 1 led by seat 0, or a later round with another leader and totals): the
    seats before the decider play scripted cards (the leader a survivor, the others a card of
    the lead colour: legal whatever else they hold); state B deals the other seats' unplayed
    cards anew among them and, when a seat other than the decider swapped, it gives up another
    card (hidden) in state B."""
    made = 0
    while made < PAIRS:
        t = 10
        cards = _ten_tricks_deck(players, rng)
        rng.shuffle(cards)
        start = made % 3 == 2
        leader = rng.randrange(players) if start else 0
        decider = (leader + made) % players  # every position in the trick
        swapper = rng.choice([s for s in range(players) if s != decider]) if made % 2 else None
        if swapper is not None:  # the swapper is dealt survivors only
            cards.sort(key=lambda c: c >= tt.FIRST_INFECTED)
            mine, rest = cards[:t], cards[t:]
            rng.shuffle(mine)
            rng.shuffle(rest)
            order = [s for s in range(players) if s != swapper]
            hands = [None] * players
            hands[swapper] = sorted(mine)
            for k, s in enumerate(order):
                hands[s] = sorted(rest[k * t:(k + 1) * t])
        else:
            hands = [sorted(cards[s * t:(s + 1) * t]) for s in range(players)]
        totals = [rng.randrange(10) for _ in range(players)] if start else [0] * players
        give = None
        held = [list(h) for h in hands]  # after the swap
        if swapper is not None:
            give = rng.choice(hands[swapper])
            held[swapper] = sorted([c for c in hands[swapper] if c != give] + [tt.SWAP_CARD])
        before = [(leader + i) % players for i in range((decider - leader) % players)]
        plays = []
        for s in before:
            if not plays:
                options = [c for c in held[s] if c < tt.FIRST_INFECTED]
            else:
                options = [c for c in held[s] if c < tt.FIRST_INFECTED and c // 8 == plays[0] // 8]
            if not options:
                break
            plays.append(rng.choice(options))
        if len(plays) < len(before):
            continue
        played = dict(zip(before, plays))
        others = [s for s in range(players) if s != decider]
        pool = [c for s in others for c in hands[s] if played.get(s) != c]
        hands_b, give_b = hands, give
        for _ in range(1000):
            rng.shuffle(pool)
            if swapper is not None:  # it must again be dealt survivors only
                pool.sort(key=lambda c: c >= tt.FIRST_INFECTED)
                need = t - (swapper in played)
                head, tail = pool[:need], pool[need:]
                rng.shuffle(tail)
                pool = head + tail
            rest = list(pool)
            hands_b = [list(h) for h in hands]
            for s in ([swapper] if swapper is not None else []) + [s for s in others if s != swapper]:
                keep = [played[s]] if s in played else []
                hands_b[s], rest = sorted(keep + rest[:t - len(keep)]), rest[t - len(keep):]
            if swapper is not None:
                choices = [c for c in hands_b[swapper] if c != give and c != played.get(swapper)]
                give_b = rng.choice(choices)
                if _infected(hands_b[swapper]):
                    continue
            if hands_b != hands:
                break
        else:
            continue
        state_a = _ten_tricks_state(players, hands, leader, int(start), totals,
                                    (swapper, give) if swapper is not None else None)
        state_b = _ten_tricks_state(players, hands_b, leader, int(start), totals,
                                    (swapper, give_b) if swapper is not None else None)
        assert state_a != state_b and hands_b[decider] == hands[decider]
        assert sorted(c for h in hands for c in h) == sorted(c for h in hands_b for c in h)
        assert give_b != give or swapper is None
        scripts = []
        for h, g in ((hands, give), (hands_b, give_b)):  # every seat dealt no infected answers
            answers = [g if s == swapper else -2 for s in range(players) if not _infected(h[s])]
            scripts.append(answers + plays)
        made += 1
        yield state_a, state_b, decider, leader, scripts, len(plays)


def _deal_around(rng, players, decider, mine, pool, t=10):
    """The decider holds ``mine``; ``pool`` is shuffled and dealt to the others.  None unless
    every other seat holds an infected card."""
    rng.shuffle(pool)
    hands = [None] * players
    hands[decider] = mine
    others = [s for s in range(players) if s != decider]
    for k, s in enumerate(others):
        hands[s] = sorted(pool[k * t:(k + 1) * t])
    return hands if all(_infected(hands[s]) for s in others) else None


def _ten_tricks_swap_pairs(players, rng):
    """(state A, state B, decider) before the first trick: the decider is dealt no infected,
    every other seat at least one (so the decider is the only seat asked to swap); state B deals
    the other seats' cards anew among them."""
    made = 0
    t = 10
    while made < PAIRS:
        cards = _ten_tricks_deck(players, rng)
        decider = made % players
        survivors = [c for c in cards if c < tt.FIRST_INFECTED and (made % 2 == 0 or c % 8 >= 3)]
        mine = sorted(rng.sample(survivors, t))  # odd pairs: no card numbered 1-3 (heuristic offers)
        pool = [c for c in cards if c not in mine]
        hands, hands_b = (_deal_around(rng, players, decider, mine, pool) for _ in range(2))
        if hands is None or hands_b is None or hands == hands_b:
            continue
        start = made % 2
        leader = rng.randrange(players) if start else 0
        totals = [rng.randrange(10) for _ in range(players)] if start else [0] * players
        state_a = _ten_tricks_state(players, hands, leader, start, totals)
        state_b = _ten_tricks_state(players, hands_b, leader, start, totals)
        assert state_a != state_b and hands_b[decider] == hands[decider] and not _infected(mine)
        made += 1
        yield state_a, state_b, decider


def _ten_tricks_choices(state, decider, plays):
    """How many cards the decider could play (its hand as dealt: a decider never swaps here)."""
    card_id = {tt.Setup.card_name(c): c for c in range(tt.SWAP_CARD + 1)}
    hand = sum(1 << card_id[c] for c in state["rounds"][0]["hands"][decider])
    lead = card_id[plays[0][1]] if plays[0][0] != decider else -1
    masks = tt.make_setup(state["players"]).masks
    return bin(int(tt.legal_mask(np.uint64(hand), lead, 0, masks))).count("1")


def _ten_tricks_run(game, data, lineup, script, tricks):
    """The compiled play loop on the position ``data``: ``script`` (swap answers, then cards),
    then the line-up's strategies, stopped before trick ``tricks``.  Returns the log."""
    setup, record = game.reference_scenario(data, WHERE, {"start_totals", "start_round", "rounds"})
    p = setup.players
    r = record.rounds[0]
    row = [0] * tt.MAX_PLAYERS
    for s in range(p):
        row[s] = sum(1 << c for c in r.hands[s])
    start_totals = np.zeros(tt.MAX_PLAYERS, dtype=np.int64)
    start_totals[:p] = data["start_totals"]
    log = np.full((1, tt.LOG_WIDTH), -9, dtype=np.int64)
    round_log = np.full((1, tt.ROUND_LOG_WIDTH), -9, dtype=np.int64)
    scripts = (np.array([row], dtype=np.int64), np.array(script, dtype=np.int64), np.array([r.leader], dtype=np.int64))
    status, rows = game.kernel_position(setup, lineup, scripts, log, round_log, start_totals, int(data["start_round"]),
                                        1, tricks)
    assert status == UNFINISHED, (status, lineup.names, data)  # not STRATEGY_BROKE_RULES
    return game.log_dict(setup, *rows)


@pytest.mark.parametrize("name", _strategies("ten-tricks"))
@pytest.mark.parametrize("players", [3, 4])
def test_ten_tricks_plays_ignore_what_the_seat_cannot_see(players, name):
    """10 TRICKS LATER, the play: with the same own hand and the same cards played so far,
    every built-in and the peeking plug-in play the same card whether the other seats hold one
    set of cards or another, and whichever card a seat that swapped for infected 8 gave up."""
    game = get_game("ten-tricks")
    rng = random.Random(200 + players)
    checked = chosen = 0
    for state_a, state_b, decider, leader, scripts, n_before in _ten_tricks_play_pairs(players, rng):
        lineup = _lineup("ten-tricks", players, decider, name)
        logs = [_ten_tricks_run(game, state, lineup, script, 1) for state, script in zip((state_a, state_b), scripts)]
        first = [log["tricks"][0] for log in logs]
        assert first[0]["leader"] == first[1]["leader"] == leader
        assert first[0]["plays"][:n_before] == first[1]["plays"][:n_before]  # the public trick so far
        swaps = [log["rounds"][0]["swap"] for log in logs]
        assert swaps[0] == swaps[1] is None or swaps[0][0] == swaps[1][0] != decider  # who swapped is public
        assert logs[0]["rounds"][0]["hands"][decider] == logs[1]["rounds"][0]["hands"][decider]
        assert logs[0]["rounds"][0]["hands"] != logs[1]["rounds"][0]["hands"]
        decisions = [f["plays"][n_before] for f in first]
        assert decisions[0][0] == decider
        assert decisions[0] == decisions[1], (name, decider, state_a, state_b, decisions)
        checked += 1
        chosen += _ten_tricks_choices(state_a, decider, first[0]["plays"]) > 1
    assert checked == PAIRS
    assert chosen >= PAIRS - 1, chosen  # the decisions are real choices (a search searches), not forced


@pytest.mark.parametrize("name", _strategies("ten-tricks"))
@pytest.mark.parametrize("players", [3, 4])
def test_ten_tricks_swaps_ignore_what_the_seat_cannot_see(players, name):
    """10 TRICKS LATER, the swap for infected 8: with the same own hand, every built-in and the
    peeking plug-in make the same offer (or none) whatever the other seats were dealt."""
    game = get_game("ten-tricks")
    rng = random.Random(300 + players)
    checked = 0
    for state_a, state_b, decider in _ten_tricks_swap_pairs(players, rng):
        lineup = _lineup("ten-tricks", players, decider, name)
        logs = [_ten_tricks_run(game, state, lineup, [], 0) for state in (state_a, state_b)]
        rounds = [log["rounds"][0] for log in logs]
        assert all(r["swap_offers"] in ([], [decider]) for r in rounds)  # only the decider was asked
        assert rounds[0]["hands"][decider] == rounds[1]["hands"][decider] and rounds[0]["hands"] != rounds[1]["hands"]
        decisions = [r["swap"] for r in rounds]
        assert decisions[0] == decisions[1], (name, decider, state_a, state_b, decisions)
        checked += 1
    assert checked == PAIRS


# --- the peeking plug-ins can see -------------------------------------------------------------

def _compiled(path, decision):
    """A plug-in's decision function, compiled as a plug-in build would (plain → njit)."""
    from numba import njit  # after simcore, which points Numba at the shared cache
    from numba.core.registry import CPUDispatcher

    fn = getattr(load_plugin(ROOT / path).module, f"choose_{decision}")
    return fn if isinstance(fn, CPUDispatcher) else njit(fn)


def _blind_slots(decide, arrays, slots, rng, tries=8):
    """The slots ``(array k, index i)`` of ``slots`` where changing that one slot (to ``tries``
    other values) never changed the decision; every decision is checked legal by ``decide``."""
    base = decide(*arrays)
    blind = []
    for k, i in slots:
        moved = False
        for _ in range(tries):
            changed = [a.copy() for a in arrays]
            changed[k][i] = changed[k].dtype.type((int(changed[k][i]) + rng.randrange(1, 1 << 20)) % (1 << 63))
            moved = moved or decide(*changed) != base
        if not moved:
            blind.append((k, i))
    return blind


def test_peek_plugins_see_one_changed_slot():
    """The cheating plug-ins are real detectors: their compiled decision functions, called
    directly, change their (always legal) decision when any one public table slot, a sample of
    Chimera's shared scratch slots, any masks word or any stream word changes, so a hidden card
    reaching any of those arguments would have shown in the pairs above."""
    rng = random.Random(7)
    streams = np.array([12345, 67890], dtype=np.uint64)

    # Chimera: seat 1 leads from ten cards (20 legal moves)
    play = _compiled("tests/fixtures/plugins/peek_chimera.py", "play")
    setup = cm.make_setup(4)
    hand = np.uint64(sum(1 << c for c in (0, 4, 11, 12, 15, 22, 27, 31, 33, 38)))
    m0, m1, _ = cm.legal_masks(hand, -1, -1, -1, setup.masks)
    table = np.zeros(cm.TABLE_WIDTH, dtype=np.int64)
    table[cm.T_TOP:cm.T_TOP + 2 * cm.MAX_PLAYERS] = -1
    table[cm.T_PLAYS:cm.T_PLAYS + cm.MAX_PLAYERS] = -1
    table[cm.T_LEADER], table[cm.T_LEAD], table[cm.T_GRIMOIRE], table[cm.T_NEXT] = 1, -1, 3, 7
    params = np.zeros((cm.MAX_PLAYERS, 4))

    def chimera_move(table, masks, streams):
        move = play(params, 1, hand, m0, m1, table, setup.rules, masks, streams)
        assert ((int(m1) if move & 1 else int(m0)) >> (move >> 1)) & 1, move  # legal
        return move

    slots = ([(0, i) for i in range(cm.T_SCRATCH)] + [(0, i) for i in rng.sample(range(cm.T_SCRATCH, cm.TABLE_WIDTH), 16)]
             + [(1, i) for i in range(cm.N_MASKS)] + [(2, i) for i in range(2)])
    assert _blind_slots(chimera_move, [table, setup.masks.copy(), streams], slots, rng) == []

    # 10 TRICKS LATER: seat 2 plays to a red lead holding no red (10 legal cards); swap offers
    ten_tricks = get_game("ten-tricks")
    ten = ten_tricks.setup(4, ten_tricks.variant())
    play = _compiled("tests/fixtures/plugins/peek_ten_tricks.py", "play")
    swap = _compiled("tests/fixtures/plugins/peek_ten_tricks.py", "swap")
    hand = np.uint64(sum(1 << c for c in (9, 10, 13, 17, 20, 22, 26, 30, 33, 36)))
    legal = tt.legal_mask(hand, 4, 0, ten.masks)
    assert legal == hand
    survivors = np.uint64(sum(1 << c for c in (1, 9, 10, 13, 17, 20, 22, 26, 30, 31)))
    table = np.zeros(tt.TABLE_WIDTH, dtype=np.int64)
    table[tt.T_PLAYS:tt.T_PLAYS + tt.MAX_PLAYERS] = -1
    table[tt.T_LEADER], table[tt.T_PLAYED], table[tt.T_PLAYS], table[tt.T_PLAYS + 1] = 0, 2, 4, 6
    table[tt.T_DECK] = (1 << 40) - 1
    params = np.zeros((tt.MAX_PLAYERS, 4))

    def ten_play(table, masks, streams):
        card = play(params, 2, hand, legal, table, ten.rules, masks, streams)
        assert (int(legal) >> card) & 1, card
        return card

    def ten_swap(table, masks, streams):
        card = swap(params, 2, survivors, table, ten.rules, masks, streams)
        assert card == -1 or (int(survivors) >> card) & 1, card
        return card

    slots = [(0, i) for i in range(tt.TABLE_WIDTH)] + [(1, i) for i in range(ten.masks.shape[0])] + [(2, 0), (2, 1)]
    assert _blind_slots(ten_play, [table, ten.masks.copy(), streams], slots, rng) == []
    assert _blind_slots(ten_swap, [table, ten.masks.copy(), streams], slots, rng) == []

"""Strategies see only what their seat may see: TriATri (docs/strategies.md, "What a strategy
sees"; tests/players/test_hidden_information.py does BIRD & WEATHER, tests/players/test_hidden_information_cards.py
Chimera Tricks and 10 TRICKS LATER).

A TriATri seat may see its own hand, the cards played and the revealed bids, gems and scores;
not the other seats' hands, the unused cards, nor the other seats' bids until everyone has bid.
Pairs of positions that differ ONLY in that go through the compiled play loop, and every
built-in and a plug-in that hashes everything it is handed (tests/fixtures/plugins/peek_triatri.py) must make
the same decision in both, at 2, 3 and 4 players, for each of the three decisions
(``PLUGIN_DECISIONS`` in strategies/triatri.py):

* the start-player bid, asked of the seats 0..N-1 in turn (every seat in turn decides): state B
  deals the other seats' cards and the unused ones anew among them, and every other seat bids
  another card (those bidding before the decider have bid already, those after bid later); in
  some pairs at 2 and 3 players the decider bids after a redeal, whose first deal's hidden cards
  are dealt anew too (its bids were revealed: they stay);
* the gem, chosen by the trick's start player (every seat in turn), at the first trick of the
  round or after a scripted first trick, from the supply or its own gems: state B deals the other
  seats' unseen cards and the unused ones anew (their bids and played cards stay: public);
* the card, by the seat at every position of the trick, at the first trick or after a scripted
  one: the same, the scripted cards before the decider's staying where they are.

``Game.scenario`` of TriATri replays a script with the ``random`` line-up and stops where the
script stops, so the pairs are played by the same compiled ``play_scenario`` kernel it calls,
with the line-up under test.  The reference engine checks each position first
(``Game.reference_scenario``: the deals, the public bids, the scripted tricks); the kernel checks
every scripted decision.  The seats before the decider play scripted decisions that are legal in
both states (a bid is any card of the hand; a card of the gem's colour or a fake is always
legal); the decider's strategy decides (a -1 in the script, or the script's end: ``scripted`` in
simcore/play.py); the bids after the decider are scripted too, chosen so that no bid of the
decider's forces a redeal; random players finish a trick.  Scripted decisions do not draw from
the seats' PLAY streams, so the stream a strategy is handed (its own seat's) is the same in both
states; tests/players/test_streams.py checks that it holds nothing of the DEAL stream or of the other
seats' streams.

Fakes are named ``fake`` in a scenario and get ids in seat order (docs/rules/triatri.md, T15), so
which fake id a seat holds says how many fakes the seats before it were dealt: the pairs keep the
decider's own fakes, the fakes bid and the fakes played on the same ids in both states (what the
seat sees), and are checked to do so; the other fakes move freely."""
import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from simcore.games.triatri import reference as ref
from simcore.games.triatri import rules as tr
from simcore.play import UNFINISHED
from simcore.plugins.loading import load_plugin
from simcore.registry import get_game

pytestmark = pytest.mark.fairness  # a tier of its own (Makefile: make test-fast leaves it out)

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ["tests/fixtures/plugins/peek_triatri.py"]
PAIRS = 6  # per player count and decision
WHERE = "hidden-information pair"
KEYS = {"start_round", "start_gems", "rounds"}
HAND = tr.HAND_SIZE


def _plugin_name(path):
    return (ROOT / path).read_text().split('NAME = "', 1)[1].split('"', 1)[0]


@cache
def _lineup(players, decider, name):
    """``name`` in the deciding seat, random players elsewhere.  Built-ins run in the stock
    kernel; the peeking plug-in in a plug-in build (compiled once)."""
    game = get_game("triatri")
    seats = ["random"] * players
    seats[decider] = name
    plugins = [] if name in game.builtin_strategies() else [str(ROOT / p) for p in PLUGINS]
    return game.lineup(",".join(seats), players, plugins)


def _strategies():
    """Every built-in, then the peeking plug-in."""
    return list(get_game("triatri").builtin_strategies()) + [_plugin_name(p) for p in PLUGINS]


@cache
def _setup(players):
    game = get_game("triatri")
    setup = game.setup(players, game.variant())
    return game, setup, game.reference_rules(setup)


# --- positions ---------------------------------------------------------------------------------

def _public_start(rng, players, made):
    """(start_round, start_gems): public, the same in both states.  At most 3 gems of a colour
    are handed out, so the supply keeps 3 of each and no trick played here can end the game."""
    start_round = rng.randrange(3)
    while True:
        gems = [[rng.randrange(2) if made % 3 else 0 for _ in range(3)] for _ in range(players)]
        if all(sum(g[c] for g in gems) <= 3 for c in range(3)):
            return start_round, gems


def _deal(rng, players, deck):
    cards = list(range(deck))
    rng.shuffle(cards)
    return [sorted(cards[s * HAND:(s + 1) * HAND]) for s in range(players)], cards[players * HAND:]


def _anew(rng, hands, unused, decider, kept):
    """The other seats' cards but ``kept[s]`` (public: bids, cards played) and the unused cards,
    dealt anew among the other seats (each keeps its hand size); the rest is unused."""
    others = [s for s in range(len(hands)) if s != decider]
    pool = [c for s in others for c in hands[s] if c not in kept.get(s, ())] + list(unused)
    rng.shuffle(pool)
    new = [list(h) for h in hands]
    for s in others:
        keep = [c for c in hands[s] if c in kept.get(s, ())]
        need = HAND - len(keep)
        new[s], pool = sorted(keep + pool[:need]), pool[need:]
    return new


def _state(setup, start_round, start_gems, deals, tricks):
    name = setup.card_name
    return {"game": "triatri", "players": setup.players, "start_round": start_round, "start_gems": start_gems,
            "rounds": [{"deals": [{"hands": [[name(c) for c in h] for h in hands], "bids": [name(b) for b in bids]}
                                  for hands, bids in deals],
                        "tricks": [{"gem": ref.gem_name(gem), "cards": [name(c) for _, c in plays]}
                                   for gem, plays in tricks]}]}


def _record(data):
    game = get_game("triatri")
    return game.reference_scenario(data, WHERE, KEYS)[1]


def _ids(rules, record, plays):
    """The ids of ``plays`` ((seat, card) of the current trick, not in the record) as the kernel
    gets them: a fake is the lowest-id fake the seat still holds (T15); and every seat's cards
    left after them."""
    r = record.rounds[0]
    left = [set(h) - {b} for h, b in zip(r.deals[-1], r.bids[-1])]
    for t in r.tricks:
        for s, c in t.plays:
            left[s].remove(c)
    ids = []
    for s, c in plays:
        if ref.is_fake(rules, c):
            c = min(x for x in left[s] if ref.is_fake(rules, x))
        left[s].remove(c)
        ids.append((s, c))
    return ids, [sorted(h) for h in left]


def _script(record, decider=None):
    """Every bid (the decider's last one -1: its strategy decides), then every scripted trick."""
    r = record.rounds[0]
    script = []
    for k, bids in enumerate(r.bids):
        bids = list(bids)
        if decider is not None and k == len(r.bids) - 1:
            bids[decider] = -1
        script += bids
    for t in r.tricks:
        script += [t.gem] + [c for _, c in t.plays]
    return script


def _follow(rng, rules, left, start, count, colour):
    """``count`` scripted cards from ``start`` on, each of the gem's colour or a fake (legal
    whatever else the seat holds); removed from ``left``.  None if a seat has none."""
    p = len(left)
    plays = []
    for i in range(count):
        s = (start + i) % p
        options = [c for c in left[s] if ref.colour(rules, c) in (colour, ref.NO_COLOUR)]
        if not options:
            return None
        card = rng.choice(options)
        left[s].remove(card)
        plays.append((s, card))
    return plays


def _other_bids(rng, rules, hands, decider, avoid=None):
    """A bid for every seat but the decider (another card than ``avoid[s]`` by name), such that
    whatever the decider bids the deal stands (no redeal); the decider's slot holds a
    placeholder (its first card).  None if no such bids turn up."""
    for _ in range(50):
        bids = [rng.choice(h) for h in hands]
        bids[decider] = hands[decider][0]
        if avoid is not None and any(ref.card_name(rules, bids[s]) == ref.card_name(rules, avoid[s])
                                     for s in range(len(hands)) if s != decider):
            continue
        if all(ref.start_player(rules, bids[:decider] + [c] + bids[decider + 1:]) >= 0 for c in hands[decider]):
            return bids
    return None


def _redeal_bids(rules, hands):
    """Bids that force a redeal (every bid a fake; three tied at 3 players), or None."""
    p = len(hands)
    fakes = [next((c for c in h if ref.is_fake(rules, c)), None) for h in hands]
    if None not in fakes:
        return fakes
    if p == 3:
        for n in range(rules.low, rules.high + 1):
            bids = [next((c for c in h if ref.number(rules, c) == n), None) for h in hands]
            if None not in bids:
                assert ref.start_player(rules, bids) == -1
                return bids
    return None


@cache
def _bid_pairs(players):
    """(state A, state B, decider, script A, script B): the decider (every seat in turn) bids,
    the other seats' bids scripted around it; B deals the other seats' cards and the unused ones
    anew and has every other seat bid another card.  Pairs 2 and 5 at 2 and 3 players bid after
    a scripted redeal (every bid a fake, or three tied), B dealing that deal's hidden cards anew
    too (its bids were revealed: they stay)."""
    _, setup, rules = _setup(players)
    rng = random.Random(400 + players)
    pairs = []
    while len(pairs) < PAIRS:
        made = len(pairs)
        decider = made % players
        start_round, start_gems = _public_start(rng, players, made)
        deals_a, deals_b = [], []
        if players < 4 and made % 3 == 2:
            hands, unused = _deal(rng, players, setup.deck_size)
            bids = _redeal_bids(rules, hands)
            if bids is None:
                continue
            hands_b = _anew(rng, hands, unused, decider, {s: [bids[s]] for s in range(players)})
            deals_a.append((hands, bids))
            deals_b.append((hands_b, bids))
        hands, unused = _deal(rng, players, setup.deck_size)
        hands_b = _anew(rng, hands, unused, decider, {})
        bids = _other_bids(rng, rules, hands, decider)
        bids_b = _other_bids(rng, rules, hands_b, decider, avoid=bids) if bids else None
        if bids_b is None:
            continue
        deals_a.append((hands, bids))
        deals_b.append((hands_b, bids_b))
        state_a = _state(setup, start_round, start_gems, deals_a, [])
        state_b = _state(setup, start_round, start_gems, deals_b, [])
        rec_a, rec_b = _record(state_a), _record(state_b)
        ra, rb = rec_a.rounds[0], rec_b.rounds[0]
        if [d[decider] for d in ra.deals] != [d[decider] for d in rb.deals] or ra.bids[:-1] != rb.bids[:-1]:
            continue  # the decider's fakes on other ids (or a revealed fake bid): retry
        if any(da == db for da, db in zip(ra.deals, rb.deals)):
            continue
        assert state_a != state_b
        assert all(ra.bids[-1][s] != rb.bids[-1][s] for s in range(players) if s != decider)
        pairs.append((state_a, state_b, decider, _script(rec_a, decider), _script(rec_b, decider)))
    return pairs


@cache
def _trick_pairs(players, kind):
    """(state A, state B, decider, trick, position, script A, script B, decider's options):
    ``kind`` "gem": the start player (every seat in turn) chooses the gem, at the first trick
    or after a scripted one; "play": the seat at every position of the trick plays, after the
    scripted gem and cards before it.  B deals the other seats' unseen cards and the unused
    ones anew; bids, scripted tricks and cards stay (public)."""
    _, setup, rules = _setup(players)
    rng = random.Random((500 if kind == "gem" else 600) + players)
    pairs = []
    while len(pairs) < PAIRS:
        made = len(pairs)
        trick = made % 2 if kind == "gem" else (made // players) % 2
        position = 0 if kind == "gem" else made % players
        start_round, start_gems = _public_start(rng, players, made)
        hands, unused = _deal(rng, players, setup.deck_size)
        bids = [rng.choice(h) for h in hands]
        start = ref.start_player(rules, bids)
        if start < 0:
            continue
        left = [[c for c in h if c != b] for h, b in zip(hands, bids)]
        supply = [setup.gems_per_colour - sum(g[c] for g in start_gems) for c in range(3)]
        gems = [list(g) for g in start_gems]
        tricks = []
        if trick == 1:
            gem = rng.choice(ref.gem_options(supply, gems[start]))
            plays = _follow(rng, rules, left, start, players, gem % 3)
            if plays is None:
                continue
            tricks.append((gem, plays))
            done = _record(_state(setup, start_round, start_gems, [(hands, bids)], tricks))
            start, gems, supply = done.rounds[0].tricks[-1].winner, done.gems, done.supply
        options = ref.gem_options(supply, gems[start])
        decider = (start + position) % players
        if kind == "gem":
            if decider != made % players or len(options) < 2:
                continue
            gem, before = None, []
        else:
            gem = rng.choice(options)
            before = _follow(rng, rules, left, start, position, gem % 3)
            if before is None:
                continue
            options = ref.legal_cards(rules, left[decider], gem % 3)
            if len(options) < 2:
                continue
        kept = {s: [bids[s]] + [c for _, plays in tricks + [(gem, before)] for t, c in plays if t == s]
                for s in range(players)}
        state_a = _state(setup, start_round, start_gems, [(hands, bids)], tricks)
        rec_a = _record(state_a)
        ids_a, left_a = _ids(rules, rec_a, before)

        def view(rec, ids, left):
            r = rec.rounds[0]
            return r.deals[-1][decider], left[decider], r.bids, [(t.gem, t.plays, t.winner) for t in r.tricks], ids

        for _ in range(100):
            state_b = _state(setup, start_round, start_gems,
                             [(_anew(rng, hands, unused, decider, kept), bids)], tricks)
            rec_b = _record(state_b)
            ids_b, left_b = _ids(rules, rec_b, before)
            if view(rec_a, ids_a, left_a) == view(rec_b, ids_b, left_b) \
                    and rec_a.rounds[0].deals != rec_b.rounds[0].deals:
                break
        else:
            continue
        assert state_a != state_b and left_a[decider] == left_b[decider] and left_a != left_b
        if kind == "play":  # by the ids the kernel deals (a fake's id follows T15)
            options = ref.legal_cards(rules, left_a[decider], gem % 3)
        current = [] if gem is None else [gem] + [c for _, c in ids_a]
        pairs.append((state_a, state_b, decider, trick, position, _script(rec_a) + current,
                      _script(rec_b) + ([] if gem is None else [gem] + [c for _, c in ids_b]), options))
    return pairs


def _choices(rules, cards):
    """How many different moves ``cards`` offer: the fakes are interchangeable, so they count once
    (the ``search`` player weighs one of them, and a single move is not searched at all)."""
    return len({ref.card_name(rules, c) for c in cards})


# --- the compiled play loop ----------------------------------------------------------------------

def _run(data, lineup, script, tricks):
    """The compiled play loop on the position ``data``: ``script`` (bids, gems, cards; -1 or its
    end: the strategy decides), then the line-up's strategies, stopped before trick ``tricks``.
    Returns the log (``Game.log_dict``) and the hands as dealt, by id."""
    game = get_game("triatri")
    setup, record = game.reference_scenario(data, WHERE, KEYS)
    p = setup.players
    rows = [[sum(1 << c for c in hand) for hand in deal] + [0] * (tr.MAX_PLAYERS - p)
            for deal in record.rounds[0].deals]
    start_gems = np.zeros((tr.MAX_PLAYERS, 3), dtype=np.int64)
    start_gems[:p] = data["start_gems"]
    log = np.full((max(tricks, 1), tr.LOG_WIDTH), -9, dtype=np.int64)
    deal_log = np.full((len(rows), tr.DEAL_LOG_WIDTH), -9, dtype=np.int64)
    status, logged = game.kernel_position(setup, lineup, (np.array(rows, dtype=np.int64),
                                                          np.array(script, dtype=np.int64)),
                                          log, deal_log, start_gems, int(data["start_round"]), 1, tricks)
    assert status == UNFINISHED, (status, lineup.names, data, script)  # not STRATEGY_BROKE_RULES
    out = game.log_dict(setup, *logged)
    assert len(out["rounds"]) == 1 and len(out["rounds"][0]["deals"]) == len(rows)  # no redeal of its own
    out["dealt"] = [[int(row[tr.D_HANDS + s]) for s in range(p)] for row in deal_log]
    return out


@pytest.mark.parametrize("name", _strategies())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bids_ignore_what_the_seat_cannot_see(players, name):
    """The start-player bid: with the same own hand (and the same revealed bids of a thrown-back
    deal), every built-in and the peeking plug-in bid the same card whether the other seats
    hold one set of cards or another, and whatever the seats before it have bid."""
    checked = 0
    for state_a, state_b, decider, script_a, script_b in _bid_pairs(players):
        assert script_a.count(-1) == script_b.count(-1) == 1  # the decider's last bid, nothing else
        lineup = _lineup(players, decider, name)
        logs = [_run(state, lineup, script, 0) for state, script in ((state_a, script_a), (state_b, script_b))]
        bids = [log["ids"]["bids"] for log in logs]
        last = len(logs[0]["dealt"]) - 1
        first = players * last  # the bids of the deal the decider decides in
        assert [d[decider] for d in logs[0]["dealt"]] == [d[decider] for d in logs[1]["dealt"]]  # its view ...
        assert bids[0][:first] == bids[1][:first]  # ... a thrown-back deal's bids were revealed ...
        assert all(a != b for a, b in zip(logs[0]["dealt"], logs[1]["dealt"]))  # ... the hidden deals differ
        assert all(bids[0][first + s] != bids[1][first + s] for s in range(players) if s != decider)  # and bids
        decisions = [b[first + decider] for b in bids]
        assert all((log["dealt"][-1][decider] >> d) & 1 for log, d in zip(logs, decisions))  # from its hand
        hand = [c for c in range(64) if (logs[0]["dealt"][-1][decider] >> c) & 1]
        assert _choices(_setup(players)[2], hand) >= 2  # a real decision (search searches it)
        assert decisions[0] == decisions[1], (name, decider, state_a, state_b, decisions)
        checked += 1
    assert checked == PAIRS


@pytest.mark.parametrize("name", _strategies())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_gems_ignore_what_the_seat_cannot_see(players, name):
    """The gem: with the same own hand, the same revealed bids, the same tricks and gems so far,
    every built-in and the peeking plug-in play for the same gem (supply or own) whatever the
    other seats hold."""
    checked = 0
    for state_a, state_b, decider, trick, _, script_a, script_b, options in _trick_pairs(players, "gem"):
        assert script_a == script_b  # nothing scripted is hidden; the script ends before the gem:
        assert len(script_a) == players + (1 + players) * trick  # the bids, then any scripted trick
        lineup = _lineup(players, decider, name)
        logs = [_run(state, lineup, script, trick + 1) for state, script in ((state_a, script_a), (state_b, script_b))]
        assert logs[0]["dealt"][0][decider] == logs[1]["dealt"][0][decider]  # its view ...
        assert logs[0]["ids"]["bids"] == logs[1]["ids"]["bids"]
        assert logs[0]["tricks"][:trick] == logs[1]["tricks"][:trick]
        assert logs[0]["dealt"] != logs[1]["dealt"]  # ... the deal is not
        assert logs[0]["tricks"][trick]["start"] == logs[1]["tricks"][trick]["start"] == decider
        decisions = [log["ids"]["gems"][trick] for log in logs]
        assert decisions[0] in options and len(options) >= 2  # a real decision (search searches it)
        assert decisions[0] == decisions[1], (name, decider, state_a, state_b, decisions)
        checked += 1
    assert checked == PAIRS


@pytest.mark.parametrize("name", _strategies())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_plays_ignore_what_the_seat_cannot_see(players, name):
    """The card: with the same own hand, the same revealed bids, tricks and gem, and the same
    cards before it in this trick, every built-in and the peeking plug-in play the same card
    whatever the other seats hold, at every position of the trick."""
    checked = 0
    for state_a, state_b, decider, trick, position, script_a, script_b, legal in _trick_pairs(players, "play"):
        lineup = _lineup(players, decider, name)
        logs = [_run(state, lineup, script, trick + 1) for state, script in ((state_a, script_a), (state_b, script_b))]
        current = [log["ids"]["cards"][players * trick:players * (trick + 1)] for log in logs]
        assert logs[0]["dealt"][0][decider] == logs[1]["dealt"][0][decider]  # its view ...
        assert logs[0]["ids"]["bids"] == logs[1]["ids"]["bids"]
        assert logs[0]["tricks"][:trick] == logs[1]["tricks"][:trick]
        assert logs[0]["ids"]["gems"] == logs[1]["ids"]["gems"]
        assert current[0][:position] == current[1][:position]
        assert logs[0]["dealt"] != logs[1]["dealt"]  # ... the deal is not
        assert len(script_a) == len(script_b) == players + (1 + players) * trick + 1 + position  # then it decides
        assert logs[0]["tricks"][trick]["plays"][position][0] == decider
        decisions = [c[position] for c in current]
        assert decisions[0] in legal and _choices(_setup(players)[2], legal) >= 2  # a real decision
        assert decisions[0] == decisions[1], (name, decider, state_a, state_b, decisions)
        checked += 1
    assert checked == PAIRS


# --- the peeking plug-in can see ------------------------------------------------------------------

def _compiled(decision):
    """The peeking plug-in's decision function, compiled as a plug-in build would (plain → njit)."""
    from numba import njit  # after simcore, which points Numba at the shared cache
    from numba.core.registry import CPUDispatcher

    fn = getattr(load_plugin(ROOT / PLUGINS[0]).module, f"choose_{decision}")
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


def test_peek_plugin_sees_one_changed_slot():
    """The cheating plug-in is a real detector: its compiled bid, gem and play functions, called
    directly, change their (always legal) decision when any one table slot, rules slot, card
    table entry, masks word or stream word changes, so another seat's card or an unrevealed bid
    reaching any of those arguments would have shown in the pairs above."""
    rng = random.Random(11)
    _, setup, rules = _setup(4)
    streams = np.array([12345, 67890], dtype=np.uint64)
    bid, gem, play = (_compiled(d) for d in ("bid", "gem", "play"))
    name = {setup.card_name(c): c for c in range(setup.deck_size)}
    # seat 2, third to play in round 1, trick 2; seats 3 and 0 have played to a water trick
    hand = np.uint64(sum(1 << name[n] for n in ("water-2", "water-5", "water-7", "fire-4", "wood-8"))
                     | 1 << (setup.deck_size - 1))  # and a fake
    legal = np.uint64(sum(1 << name[n] for n in ("water-2", "water-5", "water-7")) | 1 << (setup.deck_size - 1))
    table = np.zeros(tr.TABLE_WIDTH, dtype=np.int64)
    table[tr.T_ROUND], table[tr.T_TRICK], table[tr.T_START], table[tr.T_GEM], table[tr.T_PLAYED] = 1, 2, 3, 1, 2
    table[tr.T_SEEN] = (1 << name["water-3"]) | (1 << name["water-8"]) | (1 << name["fire-6"]) | (1 << 5)
    table[tr.T_SUPPLY:tr.T_SUPPLY + 3] = (4, 3, 5)
    table[tr.T_GEMS + 3 * 3 + 1] = table[tr.T_GEMS + 1] = 1
    table[tr.T_ORDER:tr.T_ORDER + 4] = (3, 0, 1, 2)
    table[tr.T_HELD:tr.T_HELD + 4] = (name["water-3"], tr.NOT_PLAYED, tr.NOT_PLAYED, name["water-8"])
    table[tr.T_VALUE:tr.T_VALUE + 4] = (3, 0, 0, 8)
    table[tr.T_BID:tr.T_BID + 4] = (name["fire-6"], 5, name["wood-2"], name["fire-2"])
    params = np.zeros((tr.MAX_PLAYERS, 4))
    options = np.int64(0b110111)  # every supply colour, own water and own wood

    def bid_move(table, rules_, cards, masks, streams):
        card = bid(params, 2, hand, table, rules_, cards, masks, streams)
        assert (int(hand) >> card) & 1, card
        return card

    def gem_move(table, rules_, cards, masks, streams):
        option = gem(params, 2, options, hand, table, rules_, cards, masks, streams)
        assert (int(options) >> option) & 1, option
        return option

    def play_move(table, rules_, cards, masks, streams):
        card = play(params, 2, hand, legal, table, rules_, cards, masks, streams)
        assert (int(legal) >> card) & 1, card
        return card

    arrays = [table, setup.rules.copy(), setup.cards.copy(), setup.masks.copy(), streams]
    slots = ([(0, i) for i in range(tr.TABLE_WIDTH)] + [(1, i) for i in range(tr.N_RULES)]
             + [(2, (i, j)) for i in range(setup.deck_size) for j in range(2)]
             + [(3, i) for i in range(setup.masks.shape[0])] + [(4, 0), (4, 1)])
    for decide in (bid_move, gem_move, play_move):
        assert _blind_slots(decide, arrays, slots, rng) == []

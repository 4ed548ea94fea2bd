"""Property tests for Trick-Take BIRD & WEATHER (CONTRIBUTING.md, habits 8 and 9).

Hypothesis draws random variants (custom decks, hand sizes, 1-3 deals, each rule switch on or
off), seeds, game indices and strategy line-ups, and checks the COMPILED engine's trick logs
(``BirdWeather.kernel_logs``) against what docs/rules/bird-weather.md says must hold, whoever is
playing:

* no card is created or lost, every play is legal, every trick is judged and scored by the rules,
  scores/shares/counters are what the tricks add up to;
* a game is a pure function of (seed, index), and the deal does not depend on the line-up;
* the chunk runner (its games shared among threads) writes the same rows as the logged games;
* the compiled and reference engines agree on random variants.

``DealMachine`` is a Hypothesis state machine: it deals a random position and lets Hypothesis
choose every play and face-down pick among the legal ones (and try illegal ones), running each
trick through ``BirdWeather.scenario`` (both engines, refused if they disagree) and checking the
conservation invariants after every step.

The checks below are written from the rules document, not from either engine: a third,
deliberately plain statement of §5-②..§6-④ (``expected_judgement``).
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from simcore.errors import BalanceError
from simcore.registry import get_game
from simcore.games.bird_weather import rules as bw
from simcore.games.bird_weather import reference as ref

GAME = get_game("bird-weather")
STRATEGIES = ("random", "greedy", "heuristic")
COUNTER_KEYS = bw.COUNTER_NAMES

# Seeds: 0 or more (the driver refuses negative ones), within int64 so every call hits one
# compiled specialisation.
SEEDS = st.integers(0, 2**63 - 1)
INDICES = st.integers(0, 2**40)

# deadline=None: the first call of a kernel in a process may compile or load it (habit 9).
FAST = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------
# What to draw


@st.composite
def variants(draw, deals=st.integers(1, 3)):
    """(players, settings) of a valid variant: printed or custom deck, any hand size that fits."""
    players = draw(st.integers(3, 5))
    facedown = draw(st.booleans())
    min_hand = 2 if facedown else 1
    settings_ = {}
    if draw(st.booleans()):
        size = draw(st.integers(players * min_hand, bw.MAX_DECK))
        settings_["cards"] = draw(st.lists(st.integers(10, 99), min_size=size, max_size=size, unique=True))
        deck_size = size
    else:
        deck_size = 10 * players
    settings_["hand_size"] = draw(st.integers(min_hand, deck_size // players))
    settings_["deals"] = draw(deals)
    settings_["reversal"] = draw(st.booleans())
    settings_["zero_win"] = draw(st.booleans())
    settings_["facedown"] = facedown
    return players, settings_


def lineups(players, need_non_random=False):
    names = st.lists(st.sampled_from(STRATEGIES), min_size=players, max_size=players)
    if not need_non_random:
        return names

    @st.composite
    def with_a_non_random_seat(draw):
        drawn = draw(names)
        seat = draw(st.integers(0, players - 1))
        drawn[seat] = draw(st.sampled_from(STRATEGIES[1:]))
        return drawn

    return with_a_non_random_seat()


@st.composite
def games(draw, deals=st.integers(1, 3)):
    """A variant, its Setup, a line-up, a seed and 1-3 distinct game indices."""
    players, settings_ = draw(variants(deals))
    setup = bw.make_setup(players, settings_)
    names = draw(lineups(players))
    seed = draw(SEEDS)
    indices = draw(st.lists(INDICES, min_size=1, max_size=3, unique=True))
    note(f"players={players} settings={settings_} lineup={names} seed={seed} indices={indices}")
    return setup, names, seed, indices


def lineup(setup, names):
    return GAME.lineup(list(names), setup.players)


# ---------------------------------------------------------------------------
# The rules, stated plainly (docs/rules/bird-weather.md, "Order of judging a trick")


def follows(lead, card):
    return card // 10 == lead // 10 or card % 10 == lead % 10


def expected_judgement(setup, cards):
    """(winning position, kind, points position) of a trick, positions in play order."""
    lead = cards[0]
    contenders = [pos for pos, card in enumerate(cards) if follows(lead, card)]
    low, high = setup.cards[0] // 10, setup.cards[-1] // 10
    weathers = {cards[pos] // 10 for pos in contenders}
    zeros = [pos for pos, card in enumerate(cards) if card % 10 == 0]
    if setup.zero_win and len({card // 10 for card in cards}) == 1 and zeros:
        win, kind = zeros[0], "zero-win"
    elif setup.reversal and low < high and low in weathers and high in weathers:
        win, kind = min(contenders, key=lambda pos: cards[pos]), "reversal"
    else:
        win, kind = max(contenders, key=lambda pos: cards[pos]), "normal"
    birds = [card % 10 for card in cards]
    points_pos = birds.index(max(birds) if kind == "reversal" else min(birds))
    return win, kind, points_pos


def check_deal(setup, hands, facedown, leader, tricks, where):
    """Check the tricks of one deal played from ``hands`` (face-down cards already removed) with
    the face-down cards ``facedown`` (per seat, None = none / used) and first leader ``leader``.

    Every card is played from its owner's remaining hand, at most once; followers follow when they
    can; the trick is judged and scored as the rules say; the winner leads next; at the end every
    hand is empty.  Returns (points won per seat, counters as the tricks show them)."""
    n = setup.players
    remaining = [set(hand) for hand in hands]
    unused = {seat for seat in range(n) if facedown[seat] is not None}
    points_won = [0] * n
    counters = dict.fromkeys(COUNTER_KEYS, 0)
    for t in tricks:
        at = f"{where}, deal {t['deal']} trick {t['trick']}"
        assert t["leader"] == leader, f"{at}: led by seat {t['leader']}, but seat {leader} won the last trick"
        cards = t["cards"]
        assert len(cards) == n, at
        seats = [(leader + i) % n for i in range(n)]
        lead = cards[0]
        for i, (seat, card) in enumerate(zip(seats, cards)):
            hand = remaining[seat]
            assert card in hand, f"{at}: seat {seat} plays {card}, not in its remaining hand {sorted(hand)}"
            if i > 0:
                could_follow = sorted(c for c in hand if follows(lead, c))
                assert not could_follow or follows(lead, card), (
                    f"{at}: seat {seat} plays {card} on the lead {lead} while holding {could_follow}")
            hand.remove(card)
        assert t["followed"] == [follows(lead, card) for card in cards], at

        win_pos, kind, points_pos = expected_judgement(setup, cards)
        assert (t["winner"], t["kind"]) == (seats[win_pos], kind), f"{at}: {cards}"
        assert t["points_card"] == cards[points_pos], f"{at}: {cards}"

        points = t["points"]
        assert 0 <= points <= 9, at
        zero_points = t["points_card"] % 10 == 0
        if t["pick_seat"] is None:
            assert t["pick_card"] is None, at
            assert points == t["points_card"] % 10, at
            # §6-③: the pick is compulsory while an unused face-down card exists
            assert not (zero_points and setup.facedown and unused), f"{at}: 0 points but no face-down pick"
        else:
            assert setup.facedown and zero_points, f"{at}: a face-down card taken for a {t['points_card']}"
            assert t["pick_seat"] in unused, f"{at}: seat {t['pick_seat']}'s face-down card taken twice"
            assert t["pick_card"] == facedown[t["pick_seat"]], at
            assert points == t["pick_card"] % 10, at
            unused.remove(t["pick_seat"])

        points_won[t["winner"]] += points
        counters["reversals"] += kind == "reversal"
        counters["zero_wins"] += kind == "zero-win"
        counters["zero_point_tricks"] += zero_points
        counters["facedowns_taken"] += t["pick_seat"] is not None
        counters["zero_scored_tricks"] += zero_points and points == 0
        leader = t["winner"]
    assert all(not hand for hand in remaining), f"{where}: cards left in hand {remaining}"
    return points_won, counters


def check_shares(scores, shares):
    top = max(scores)
    tied = scores.count(top)
    assert sum(shares) == pytest.approx(1.0)
    for score, share in zip(scores, shares):
        assert share == pytest.approx(1.0 / tied if score == top else 0.0)


def check_log(setup, log, where="log"):
    """Everything a compiled game log must satisfy, whoever played it."""
    n = setup.players
    deck = set(setup.cards)
    assert log["players"] == n
    assert len(log["deals"]) == setup.deals
    assert len(log["tricks"]) == setup.deals * setup.tricks
    scores = [0] * n
    counters = dict.fromkeys(COUNTER_KEYS, 0)
    for d, deal in enumerate(log["deals"]):
        at = f"{where}, deal {d}"
        hands, facedown = deal["hands"], deal["facedown"]
        assert len(hands) == n and len(facedown) == n, at
        dealt = [card for hand in hands for card in hand]
        assert [len(hand) for hand in hands] == [setup.hand_size] * n, f"{at}: hands {hands}"
        assert len(set(dealt)) == len(dealt), f"{at}: a card dealt twice"
        assert set(dealt) <= deck, f"{at}: cards not in the deck {sorted(set(dealt) - deck)}"
        if setup.facedown:
            assert all(facedown[s] in hands[s] for s in range(n)), f"{at}: face-down {facedown} of {hands}"
        else:
            assert facedown == [None] * n, at
        to_play = [[card for card in hands[s] if card != facedown[s]] for s in range(n)]
        tricks = [t for t in log["tricks"] if t["deal"] == d]
        assert [t["trick"] for t in tricks] == list(range(setup.tricks)), at
        assert tricks[0]["leader"] == d % n, f"{at}: first led by seat {tricks[0]['leader']}, not {d % n}"
        points, deal_counters = check_deal(setup, to_play, facedown, d % n, tricks, where)
        scores = [a + b for a, b in zip(scores, points)]
        counters = {key: counters[key] + deal_counters[key] for key in COUNTER_KEYS}
    assert [t["deal"] for t in log["tricks"]] == sorted(t["deal"] for t in log["tricks"]), where
    assert log["scores"] == scores, f"{where}: scores {log['scores']}, tricks add up to {scores}"
    assert log["counters"] == counters, f"{where}: counters {log['counters']}, tricks show {counters}"
    check_shares(log["scores"], log["shares"])
    # what the examples covered (pytest --hypothesis-show-statistics)
    for key in ("reversals", "zero_wins", "facedowns_taken", "zero_scored_tricks"):
        if counters[key]:
            event(f"a game with {key}")
    if log["scores"].count(max(log["scores"])) > 1:
        event("a tie for the top")


# ---------------------------------------------------------------------------
# The compiled engine's logs


@settings(max_examples=400, **FAST)
@given(games())
def test_compiled_logs_keep_every_rule(game):
    """Cards conserved, plays legal, tricks judged and scored by the rules, totals consistent."""
    setup, names, seed, indices = game
    for index, log in zip(indices, GAME.kernel_logs(setup, lineup(setup, names), seed, indices)):
        check_log(setup, log, f"game {index}")


@settings(max_examples=80, **FAST)
@given(games(), st.data())
def test_compiled_games_are_reproducible_and_share_their_deals(game, data):
    """Same (seed, index) → same log, alone or in a batch; another line-up meets the same deals."""
    setup, names, seed, indices = game
    seats = lineup(setup, names)
    first = GAME.kernel_logs(setup, seats, seed, indices)
    assert GAME.kernel_logs(setup, seats, seed, indices) == first
    assert GAME.kernel_logs(setup, seats, seed, indices[::-1]) == first[::-1]
    assert [GAME.kernel_logs(setup, seats, seed, [i])[0] for i in indices] == first

    others = data.draw(lineups(setup.players), label="other lineup")
    second = GAME.kernel_logs(setup, lineup(setup, others), seed, indices)
    for a, b in zip(first, second):
        assert [deal["hands"] for deal in a["deals"]] == [deal["hands"] for deal in b["deals"]]
    if all(n == "random" for n in names) and all(n == "random" for n in others):
        assert first == second


@settings(max_examples=30, **FAST)
@given(games(), st.integers(0, 2**40), st.integers(1, 2 * 256 + 10))
def test_chunk_rows_match_the_logged_games(game, start, n_games):
    """run_chunk (shared among threads, 256 games or more a share) writes each game's scores, compiled shares,
    counters and first-deal hands exactly as the logged game shows them."""
    setup, names, seed, _ = game
    seats = lineup(setup, names)
    rows = GAME.run_chunk(setup, seats, seed, start, n_games)
    logs = GAME.kernel_logs(setup, seats, seed, range(start, start + n_games))
    assert list(rows["game"]) == list(range(start, start + n_games))
    p = setup.players
    for g, log in enumerate(logs):
        scores = [int(rows[f"score_{s}"][g]) for s in range(p)]
        assert scores == log["scores"], f"game {start + g}"
        check_shares(scores, [float(rows[f"share_{s}"][g]) for s in range(p)])
        assert {key: int(rows[key][g]) for key in COUNTER_KEYS} == log["counters"], f"game {start + g}"
        hands = [[setup.cards[i] for i in range(len(setup.cards)) if int(rows[f"hand_{s}"][g]) >> i & 1]
                 for s in range(p)]
        assert hands == log["deals"][0]["hands"], f"game {start + g}"


# ---------------------------------------------------------------------------
# Differential: compiled vs reference on random variants (habit 7)

COMPARED = ("deals", "tricks", "scores", "shares", "counters")


@settings(max_examples=300, **FAST)
@given(games(), st.data())
def test_engines_agree_on_random_variants(game, data):
    """All-random seats: the reference plays the same games from the same streams.  Other
    line-ups: the reference replays the compiled log's decisions, checking each one."""
    setup, _, seed, indices = game
    at_random = lineup(setup, ["random"] * setup.players)
    for index, log in zip(indices, GAME.kernel_logs(setup, at_random, seed, indices)):
        expected = GAME.reference_log(setup, seed, index)
        for key in COMPARED:
            assert log[key] == expected[key], f"game {index}: {key} differ"

    names = data.draw(lineups(setup.players, need_non_random=True), label="lineup")
    for index, log in zip(indices, GAME.kernel_logs(setup, lineup(setup, names), seed, indices)):
        replayed = GAME.reference_log(setup, seed, index, decisions_from=log)
        for key in COMPARED:
            assert log[key] == replayed[key], f"game {index} ({names}): {key} differ"


# ---------------------------------------------------------------------------
# A state machine: Hypothesis plays every card


class DealMachine(RuleBasedStateMachine):
    """Deals of one random variant, played one decision at a time by Hypothesis.

    Each finished trick is run through ``BirdWeather.scenario`` from the position before it
    (scripted trick + pick, the rest of the deal finished by the drawn line-up): both engines must
    agree and keep every rule.  Illegal plays and picks must be refused by both engines with the
    right step number.  At the end of a deal the whole deal is replayed from its start and must give
    the same tricks and scores as the trick-by-trick run; then the next deal is dealt (its first
    leader rotating, §8) and play goes on.
    """

    @initialize(data=st.data())
    def choose_variant(self, data):
        players, self.settings = data.draw(variants(deals=st.just(1)), label="variant")
        self.setup = bw.make_setup(players, self.settings)
        self.rules = GAME.reference_rules(self.setup)
        self.strategies = data.draw(lineups(players), label="strategies")
        self.seed = data.draw(SEEDS, label="seed")
        self.deal_number = -1
        self.new_deal(data)

    def new_deal(self, data):
        n, size = self.setup.players, self.setup.hand_size
        self.deal_number += 1
        order = data.draw(st.permutations(self.setup.cards), label="shuffled deck")
        self.dealt = [sorted(order[s * size:(s + 1) * size]) for s in range(n)]
        self.hands = [list(hand) for hand in self.dealt]
        self.facedown = [None] * n
        if self.setup.facedown:
            for s in range(n):
                self.facedown[s] = data.draw(st.sampled_from(self.hands[s]), label=f"face-down {s}")
                self.hands[s].remove(self.facedown[s])
        self.unused = {s for s in range(n) if self.facedown[s] is not None}
        self.leader = self.deal_number % n
        self.start = ([list(h) for h in self.hands], list(self.facedown), self.leader)
        self.trick_start = [list(h) for h in self.hands]
        self.trick = []
        self.pending_pick = False
        self.plays, self.picks, self.history = [], [], []
        self.scores = [0] * n
        self.won = [0] * n

    # --- helpers ---------------------------------------------------------------------
    @property
    def seat_to_play(self):
        return (self.leader + len(self.trick)) % self.setup.players

    def legal(self):
        hand = self.hands[self.seat_to_play]
        if not self.trick:
            return sorted(hand)
        return sorted(c for c in hand if follows(self.trick[0], c)) or sorted(hand)

    def scenario(self, hands, facedown, leader, plays, picks):
        data = {"game": GAME.name, "players": self.setup.players, "variant": self.settings, "hands": hands,
                "facedown": facedown, "leader": leader, "plays": plays, "picks": picks, "seed": self.seed,
                "strategies": self.strategies}
        return GAME.scenario(data, "machine")

    def unused_facedown(self):
        return [card if seat in self.unused else None for seat, card in enumerate(self.facedown)]

    def finish_trick(self, picks, data):
        position = (self.trick_start, self.unused_facedown(), self.leader)
        out = self.scenario(*position, list(self.trick), picks)
        assert out["engines_agree"]
        hands, facedown, leader = position
        dealt = [sorted(hand + [card] if card is not None else hand) for hand, card in zip(hands, facedown)]
        assert out["deals"] == [{"deal": 0, "leader": leader, "hands": dealt, "facedown": facedown}]
        points, counters = check_deal(self.setup, *position, out["tricks"], "scenario")
        assert out["scores"] == points and out["counters"] == counters
        trick = out["tricks"][0]
        assert trick["cards"] == self.trick
        assert trick["pick_seat"] == (picks[0] if picks else None)
        self.history.append(trick)
        self.plays += self.trick
        self.picks += picks
        self.unused -= set(picks)
        self.scores[trick["winner"]] += trick["points"]
        self.won[trick["winner"]] += 1
        self.leader = trick["winner"]
        self.trick = []
        self.pending_pick = False
        self.trick_start = [list(h) for h in self.hands]
        if not any(self.hands):
            self.replay_whole_deal()
            self.new_deal(data)

    def replay_whole_deal(self):
        out = self.scenario(*self.start, self.plays, self.picks)
        expected = [{**t, "trick": k} for k, t in enumerate(self.history)]
        assert out["tricks"] == expected
        assert out["scores"] == self.scores
        event("a deal played to the end")

    # --- rules -----------------------------------------------------------------------
    # Two rules without preconditions (a decision is a play or, after a 0-point trick, a pick):
    # rules behind preconditions are drawn by rejection, which gives up on long runs.
    @rule(data=st.data())
    def decide(self, data):
        """The next decision, chosen by Hypothesis among the legal ones."""
        if self.pending_pick:
            self.finish_trick([data.draw(st.sampled_from(sorted(self.unused)), label="pick")], data)
            return
        seat = self.seat_to_play
        card = data.draw(st.sampled_from(self.legal()), label=f"seat {seat} plays")
        self.hands[seat].remove(card)
        self.trick.append(card)
        if len(self.trick) < self.setup.players:
            return
        followed, win_pos, kind, points_pos = ref.judge_trick(self.rules, self.trick)
        assert (win_pos, kind, points_pos) == expected_judgement(self.setup, self.trick)
        assert followed == [follows(self.trick[0], card) for card in self.trick]
        if self.trick[points_pos] % 10 == 0 and self.unused:
            self.pending_pick = True
        else:
            self.finish_trick([], data)

    @rule(data=st.data())
    def illegal_decision_is_refused(self, data):
        """A card the seat does not hold or may not play, or a pick of a seat without an unused
        face-down card: both engines refuse it, naming the step; the position does not change."""
        n = self.setup.players
        plays = list(self.trick)
        if self.pending_pick:
            picks = [data.draw(st.sampled_from([s for s in range(-1, n + 1) if s not in self.unused]),
                               label="bad pick")]
            kind, step, compiled_step = "pick", 0, len(plays)
        else:
            seat = self.seat_to_play
            hand = self.hands[seat]
            legal = self.legal()
            illegal = [c for c in hand if c not in legal] + [c for c in range(10, 100) if c not in hand]
            plays.append(data.draw(st.sampled_from(illegal), label=f"seat {seat} tries"))
            picks = []
            kind, step, compiled_step = "play", len(self.trick), len(self.trick)
        with pytest.raises(ref.IllegalPlay) as refused:
            self.scenario(self.trick_start, self.unused_facedown(), self.leader, plays, picks)
        assert (refused.value.kind, refused.value.step) == (kind, step)
        # the compiled engine must refuse the same decision on its own
        with pytest.raises(BalanceError, match=rf"refused scripted step {compiled_step} "):
            GAME._kernel_scenario(self.setup, lineup(self.setup, self.strategies), self.trick_start,
                                  self.unused_facedown(), self.leader, plays, picks, self.seed)

    # --- invariants --------------------------------------------------------------------
    @invariant()
    def no_card_created_or_lost(self):
        in_play = [c for hand in self.hands for c in hand] + self.plays + self.trick
        in_play += [c for c in self.facedown if c is not None]
        assert len(in_play) == len(set(in_play))
        assert sorted(in_play) == sorted(c for hand in self.dealt for c in hand)

    @invariant()
    def hands_shrink_one_card_per_trick(self):
        tricks_done = len(self.history)
        played_now = {(self.leader + i) % self.setup.players for i in range(len(self.trick))}
        for seat, hand in enumerate(self.hands):
            assert len(hand) == self.setup.tricks - tricks_done - (seat in played_now)

    @invariant()
    def scores_bounded(self):
        assert sum(self.won) == len(self.history)
        for score, won in zip(self.scores, self.won):
            assert 0 <= score <= 9 * won
        assert sum(self.scores) <= 9 * len(self.history)

    @invariant()
    def face_down_cards_used_once(self):
        laid = self.setup.players if self.setup.facedown else 0
        assert len(self.unused) == laid - len(self.picks)
        assert len(set(self.picks)) == len(self.picks)


TestDealMachine = DealMachine.TestCase
TestDealMachine.settings = settings(max_examples=100, stateful_step_count=100, **FAST)

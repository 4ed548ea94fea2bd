"""The Sky City of ALEA: the rules as plain, readable Python (the oracle).

Written from the rulebook (docs/rules/sky-city-of-alea.md, Sources; the English half's headings are
cited as "Playing a round", "How to throw dice", "Getting out of the trap", "Declaring 0",
"Last round", "Ending the game") and the project rulings (docs/rules/sky-city-of-alea.md,
Project rulings), independently of the compiled kernel.  ``docs/rules/sky-city-of-alea.md`` is
the English account of what is implemented here, with every assumption listed.

Seats are numbered 0..N-1; every index (round, declaration step, die) is 0-based.

Randomness comes only from explicit streams (``simcore.rng``): the game's own DEAL stream
``deal = PyStream(seed, index, DEAL)`` and one PLAY stream per seat, ``play[s] =
seat_play_streams(seed, index, N)[s]``, drawn from only by seat s's declarations.  The order of
draws is part of the contract with the compiled engine:

* DEAL, at game start and whenever the usable traps are all used: ``order = list(range(n))``
  (positions in the usable list, deck order); for i = n-1 .. 1: ``j = deal.below(i + 1)``, swap
  ``order[i]``, ``order[j]``; the rounds then reveal ``order[0]``, ``order[1]``, ...;
* PLAY, each round after the trap is revealed, seats s = 0..N-1 in order: the ``random``
  strategy at seat s declares ``play[s].below(dice_per_player + 1)``;
* DEAL, each die rolled (group rolls seat by seat in ascending seat order, each seat's dice one
  at a time; escape rerolls die by die): ``1 + deal.below(6)``;
* DEAL, before each escape, if k >= 2 remaining escapers share the lowest running total:
  ``tied[deal.below(k)]`` with ``tied`` ascending by seat (no draw when k == 1);
* DEAL, after the game, if k >= 2 seats share the top total: the roll-off ``tied[deal.below(k)]``.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Protocol, Sequence

from simcore.errors import BalanceError
from simcore.oracle import require_whole, seat_deciders
from simcore.rng import DEAL, PyStream, seat_play_streams
from simcore.games.sky_city.trap_language import Deck, Trap, fires_on_dice, load_deck

MIN_PLAYERS, MAX_PLAYERS = 3, 5

COUNTER_KEYS = (
    "rounds",               # rounds played
    "first_roll_triggers",  # rounds ended because the first group's roll fired the trap
    "later_triggers",       # rolls of a later group that fired the trap (each starts escapes)
    "escapes",              # escape attempts (rerolls)
    "escapes_succeeded",    # escape rerolls that did not fire
    "zero_bonuses",         # players paid the 0-bonus
    "all_zero_rounds",      # rounds where everyone declared 0
    "final_rounds",         # 1 if a final (multiplied) round was played, else 0
)

ALL_ZERO = "all-zero"
ALL_CLEARED = "all-cleared"
FIRST_ROLL = "first-roll"
FAILED_ESCAPE = "failed-escape"


def judge(trap: Trap, table_dice: Sequence[int]) -> bool:
    """"Type of cards": does ``trap`` fire on these dice (all dice on the table, any order)?"""
    return fires_on_dice(trap, list(table_dice))


def face_counts(dice: Sequence[int]) -> list[int]:
    """``[c1, ..., c6]``: how many dice show each face."""
    return [sum(1 for d in dice if d == face) for face in range(1, 7)]


# ---------------------------------------------------------------------------
# Rules, records, errors


@dataclass(frozen=True)
class Rules:
    """One variant, as plain values.  ``deck`` is the FULL deck (a ``Deck`` or a tuple of
    ``Trap``); the traps used are those tagged for ``players`` ("Setup"), in deck order.
    ``target`` None means 12 with 3 players, else 10 ("Last round"); it is resolved here, so
    ``rules.target`` is always a number."""

    players: int
    deck: Deck | tuple[Trap, ...]
    dice_per_player: int = 5
    target: int | None = None
    zero_bonus: int = 3
    final_multiplier: int = 2
    max_rounds: int = 200
    first_failure_ends_escapes: bool = False   # variant: the first failed escape ends the round at once

    def __post_init__(self):
        if isinstance(self.players, bool) or self.players not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            raise BalanceError(f"The Sky City of ALEA is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {self.players}")
        if self.target is None:
            object.__setattr__(self, "target", 12 if self.players == 3 else 10)
        for name, low in (("dice_per_player", 1), ("target", 1), ("zero_bonus", 0), ("final_multiplier", 1),
                          ("max_rounds", 1)):
            require_whole(name, getattr(self, name), low)
        if not isinstance(self.deck, Deck):
            traps = tuple(self.deck)
            if not traps or not all(isinstance(t, Trap) for t in traps):
                raise BalanceError("deck must be a Deck or a non-empty sequence of Trap")
            object.__setattr__(self, "deck", traps)
        if not self.usable:
            raise BalanceError(f"no trap in this deck is used with {self.players} players")

    @classmethod
    def default(cls, players: int, **changes) -> "Rules":
        """The printed rules with the bundled default deck (docs/traps.md)."""
        return cls(players=players, deck=load_deck(), **changes)

    @property
    def traps(self) -> tuple[Trap, ...]:
        """The full deck, in deck order (``Round.trap_index`` indexes this)."""
        return self.deck.traps if isinstance(self.deck, Deck) else self.deck

    @property
    def usable(self) -> tuple[int, ...]:
        """Indices (into ``traps``) of the cards used with ``players``, in deck order."""
        return tuple(i for i, trap in enumerate(self.traps) if self.players in trap.players)


@dataclass
class Round:
    round: int                 # 0-based
    trap: str                  # the trap's name
    trap_index: int            # index in the FULL deck (Rules.traps)
    declared: list[int]        # per seat
    final: bool                # the final round: every point is multiplied
    rolls: list[dict]          # group rolls and escapes, in the order they happen (see below)
    points: list[int]          # scored this round per seat (already multiplied)
    ended_by: str              # "all-zero" | "all-cleared" | "first-roll" | "failed-escape"
    totals: list[int] = field(default_factory=list)     # running totals after this round
    tiebreak: list[int] = field(default_factory=list)   # escape tie-break draws (indices), in order
    reshuffled: bool = False   # the usable traps were (re)shuffled just before this reveal
    # A group roll:  {"kind": "roll", "group": declared count, "seats": [...], "dice": [faces, seat
    #                 by seat], "table_counts": [c1..c6 after], "fired": bool, "fresh": bool}
    # An escape:     {"kind": "escape", "seat": s, "tied": [seats with the lowest total, the
    #                 escaper among them], "dice": [the whole reroll], "table_counts": [...],
    #                 "fired": bool, "fresh": True}
    # "fresh": every die judged was rolled in this same action (the first group's roll and every
    # escape reroll); a later group's roll is judged together with dice already on the table.


@dataclass
class GameRecord:
    players: int
    rounds: list[Round]
    scores: list[int]
    shares: list[float]          # 1.0 to the winner, 0.0 to the others
    winner: int | None           # None only for a scenario whose scripted rounds ran out first
    rolloff: bool                # the winner was drawn among tied top scores
    capped: bool                 # the game stopped at max_rounds without a final round played
    counters: dict[str, int]
    finished: bool = True        # False: a scenario whose scripted rounds ran out before the end
    final_round: int | None = None   # index of the round played as the final round


class IllegalMove(BalanceError):
    """A declaration the rules forbid.  ``step`` is the 0-based index of the declaration among the
    game's declarations (round * N + seat), ``round`` and ``seat`` say where."""

    def __init__(self, step: int, round: int, seat: int, message: str):
        super().__init__(message)
        self.step = step
        self.round = round
        self.seat = seat


class BadScenario(BalanceError):
    """A scripted scenario that cannot be played as given: unknown trap, wrong number of dice or
    draws, a face outside 1-6, rounds after the game ended ..."""


def new_counters() -> dict[str, int]:
    return dict.fromkeys(COUNTER_KEYS, 0)


def judgements(record: GameRecord) -> list[tuple[int, int, bool, bool]]:
    """Every trap judgement of the game as ``(trap_index, dice judged, fresh, fired)``, in order:
    the tally behind "fresh roll" statistics (fresh judgements follow the exact odds)."""
    out = []
    for rnd in record.rounds:
        for roll in rnd.rolls:
            out.append((rnd.trap_index, sum(roll["table_counts"]), roll["fresh"], roll["fired"]))
    return out


# ---------------------------------------------------------------------------
# What a strategy sees, and the two built-in deciders


@dataclass(frozen=True)
class View:
    """The public table as seen by ``seat`` when declaring (the others' declarations are secret:
    "Everyone simultaneously declares")."""

    seat: int
    round: int
    trap: Trap
    trap_index: int
    final: bool
    scores: tuple[int, ...]
    players: int
    dice_per_player: int
    target: int


class Decider(Protocol):
    def declare(self, seat: int, view: View) -> int: ...


class RandomDecider:
    """Declares uniformly 0..dice_per_player: seat s with ``play_rngs[s].below(dice_per_player + 1)``."""

    def __init__(self, play_rngs: Sequence[PyStream]):
        self.rng = play_rngs

    def declare(self, seat, view):
        return self.rng[seat].below(view.dice_per_player + 1)


class ScriptedDecider:
    """``declarations[round][seat]`` while the script lasts, then ``fallback``.  Nothing is checked
    here: the engine checks every declaration, and a missing one (no fallback) is None."""

    def __init__(self, declarations: Sequence[Sequence[int]], fallback: Decider | None = None):
        self.declarations = [list(row) for row in declarations]
        self.fallback = fallback

    def declare(self, seat, view):
        if view.round < len(self.declarations) and seat < len(self.declarations[view.round]):
            return self.declarations[view.round][seat]
        return None if self.fallback is None else self.fallback.declare(seat, view)


# ---------------------------------------------------------------------------
# Sources of chance: the DEAL stream, or a script


class _StreamChance:
    """Dice and draws from the DEAL stream (the order is documented at the top of the module)."""

    def __init__(self, rng: PyStream):
        self.rng = rng

    def die(self, what: str) -> int:
        return 1 + self.rng.below(6)

    def tiebreak(self, tied: list[int]) -> int:
        return self.rng.below(len(tied))

    def rolloff(self, tied: list[int]) -> int:
        return self.rng.below(len(tied))


class _ScriptedChance:
    """One scenario round's dice, tie-break indices and roll-off index, used up exactly."""

    def __init__(self, number: int, dice: list[int], tiebreak: list[int], rolloff: int | None):
        self.number = number
        self.dice, self.used_dice = dice, 0
        self.tiebreaks, self.used_tiebreaks = tiebreak, 0
        self.rolloff_index, self.used_rolloff = rolloff, False

    def die(self, what: str) -> int:
        if self.used_dice >= len(self.dice):
            raise BadScenario(f"round {self.number}: too few dice: {what} needs die {self.used_dice} "
                              f"but only {len(self.dice)} were given")
        self.used_dice += 1
        return self.dice[self.used_dice - 1]

    def tiebreak(self, tied: list[int]) -> int:
        if self.used_tiebreaks >= len(self.tiebreaks):
            raise BadScenario(f"round {self.number}: seats {tied} tie for the next escape but no "
                              f"'tiebreak' index is left ({len(self.tiebreaks)} given)")
        index = self.tiebreaks[self.used_tiebreaks]
        if index not in range(len(tied)):
            raise BadScenario(f"round {self.number}: tiebreak {self.used_tiebreaks} is {index}, "
                              f"not an index 0-{len(tied) - 1} into the tied seats {tied}")
        self.used_tiebreaks += 1
        return index

    def rolloff(self, tied: list[int]) -> int:
        if self.rolloff_index is None:
            raise BadScenario(f"round {self.number}: the game ends with seats {tied} tied for the top "
                              f"but this round gives no 'rolloff' index")
        if self.rolloff_index not in range(len(tied)):
            raise BadScenario(f"round {self.number}: rolloff is {self.rolloff_index}, not an index "
                              f"0-{len(tied) - 1} into the tied seats {tied}")
        self.used_rolloff = True
        return self.rolloff_index

    def check_used_up(self) -> None:
        if self.used_dice < len(self.dice):
            raise BadScenario(f"round {self.number}: too many dice: {self.used_dice} were rolled "
                              f"but {len(self.dice)} were given")
        if self.used_tiebreaks < len(self.tiebreaks):
            raise BadScenario(f"round {self.number}: too many tiebreak indices: {self.used_tiebreaks} "
                              f"used but {len(self.tiebreaks)} given")
        if self.rolloff_index is not None and not self.used_rolloff:
            raise BadScenario(f"round {self.number}: a 'rolloff' index was given but no roll-off "
                              f"happens after this round")


# ---------------------------------------------------------------------------
# One round ("Playing a round" .. "Declaring 0")


def play_round(rules: Rules, number: int, trap_index: int, declared: Sequence[int],
               scores: Sequence[int], final: bool, chance) -> Round:
    """Play one round with the declarations already made; ``scores`` are the totals before it.

    "How to throw dice": groups roll in ascending declared count, equal counts together (seat by
    seat, ascending); the trap is judged once per group on every die on the table.  No trigger →
    each roller of the group scores its count.  Trigger by the first group → the round ends, no
    escape, every 0-declarer scores the 0-bonus ("Declaring 0").  Trigger by a later group →
    "Getting out of the trap": lowest running total first, each rerolls all the table's dice;
    a clean reroll scores the count; once all have rerolled, the round ends if any reroll fired
    (``first_failure_ends_escapes``: at the first one that fired).  Every point of a final round
    is multiplied ("Last round").
    """
    n = rules.players
    trap = rules.traps[trap_index]
    mult = rules.final_multiplier if final else 1
    points = [0] * n
    rolls: list[dict] = []
    tiebreak: list[int] = []
    table: list[int] = []
    groups = sorted({count for count in declared if count > 0})
    ended_by = ALL_ZERO if not groups else ALL_CLEARED

    for position, count in enumerate(groups):
        seats = [seat for seat in range(n) if declared[seat] == count]
        rolled = [chance.die(f"seat {seat} (group {count})") for seat in seats for _ in range(count)]
        table = table + rolled                               # earlier groups' dice stay on the table
        fired = judge(trap, table)
        rolls.append({"kind": "roll", "group": count, "seats": seats, "dice": rolled,
                      "table_counts": face_counts(table), "fired": fired, "fresh": position == 0})
        if not fired:
            for seat in seats:
                points[seat] += count * mult
            continue
        if position == 0:                                    # the very first roll of the round fired
            for seat in range(n):
                if declared[seat] == 0:
                    points[seat] += rules.zero_bonus * mult
            ended_by = FIRST_ROLL
            break

        # "Getting out of the trap": every player who triggered gets their escape; if any of
        # those who rerolled failed, the round ends and the later groups do not roll (振り直した人
        # のうち1人でもアウトになった場合、そのラウンドは終了し、その後の順番の人…はダイスを振ることが
        # できません).  The variant first_failure_ends_escapes stops at the first failure instead.
        remaining = list(seats)
        failed = False
        while remaining:
            running = {seat: scores[seat] + points[seat] for seat in remaining}
            low = min(running.values())
            tied = [seat for seat in remaining if running[seat] == low]      # ascending seats
            if len(tied) > 1:
                draw = chance.tiebreak(tied)
                tiebreak.append(draw)
                escaper = tied[draw]
            else:
                escaper = tied[0]
            remaining.remove(escaper)
            table = [chance.die(f"escape of seat {escaper}") for _ in range(len(table))]
            fired = judge(trap, table)
            rolls.append({"kind": "escape", "seat": escaper, "tied": tied, "dice": list(table),
                          "table_counts": face_counts(table), "fired": fired, "fresh": True})
            if fired:
                failed = True
                if rules.first_failure_ends_escapes:
                    break
                continue
            points[escaper] += count * mult
        if failed:
            ended_by = FAILED_ESCAPE
            break
        # every escape succeeded: the last reroll stays on the table and the next group rolls

    totals = [score + gained for score, gained in zip(scores, points)]
    return Round(number, trap.name, trap_index, list(declared), final, rolls, points, ended_by,
                 totals, tiebreak)


def _count(counters: dict[str, int], rnd: Round) -> None:
    counters["rounds"] += 1
    counters["all_zero_rounds"] += rnd.ended_by == ALL_ZERO
    if rnd.ended_by == FIRST_ROLL:
        counters["first_roll_triggers"] += 1
        counters["zero_bonuses"] += sum(1 for d in rnd.declared if d == 0)
    for position, roll in enumerate(r for r in rnd.rolls if r["kind"] == "roll"):
        counters["later_triggers"] += position > 0 and roll["fired"]
    for roll in rnd.rolls:
        if roll["kind"] == "escape":
            counters["escapes"] += 1
            counters["escapes_succeeded"] += not roll["fired"]
    counters["final_rounds"] += rnd.final


# ---------------------------------------------------------------------------
# A game: rounds until the final round ends ("Last round", "Ending the game") or the cap


class _Game:
    def __init__(self, rules: Rules, scores: Sequence[int], final: bool):
        self.rules = rules
        self.scores = list(scores)
        self.next_final = final
        self.rounds: list[Round] = []
        self.counters = new_counters()
        self.over = False
        self.capped = False
        self.final_round: int | None = None

    def declare(self, number: int, trap_index: int, deciders: Sequence[Decider]) -> list[int]:
        """"Playing a round": everyone declares at once; asked seat by seat, 0..N-1."""
        rules = self.rules
        declared = []
        for seat in range(rules.players):
            view = View(seat, number, rules.traps[trap_index], trap_index, self.next_final,
                        tuple(self.scores), rules.players, rules.dice_per_player, rules.target)
            value = deciders[seat].declare(seat, view)
            step = number * rules.players + seat
            where = f"declaration {step} (round {number}, seat {seat})"
            if value is None:
                raise IllegalMove(step, number, seat, f"{where}: no declaration was given (script exhausted, no fallback)")
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
                    or not 0 <= value <= rules.dice_per_player:
                raise IllegalMove(step, number, seat,
                                  f"{where}: {value!r} is not a number of dice 0-{rules.dice_per_player}")
            declared.append(int(value))
        return declared

    def play(self, trap_index: int, declared: list[int], chance, reshuffled: bool = False) -> Round:
        number = len(self.rounds)
        final = self.next_final
        rnd = play_round(self.rules, number, trap_index, declared, self.scores, final, chance)
        rnd.reshuffled = reshuffled
        self.rounds.append(rnd)
        self.scores = list(rnd.totals)
        _count(self.counters, rnd)
        if final:                                            # "Ending the game"
            self.over = True
            self.final_round = number
        elif len(self.rounds) >= self.rules.max_rounds:      # the round cap (not in the rulebook)
            self.over = True
            self.capped = True
        elif max(self.scores) >= self.rules.target:          # "Last round"
            self.next_final = True
        return rnd

    def record(self, chance) -> GameRecord:
        """Highest total wins; a tie → roll-off (Project rulings: uniform among the tied, seats ascending)."""
        n = self.rules.players
        if not self.over:
            return GameRecord(n, self.rounds, self.scores, [0.0] * n, None, False, False,
                              self.counters, finished=False, final_round=self.final_round)
        top = max(self.scores)
        tied = [seat for seat in range(n) if self.scores[seat] == top]
        winner = tied[chance.rolloff(tied)] if len(tied) > 1 else tied[0]
        shares = [1.0 if seat == winner else 0.0 for seat in range(n)]
        return GameRecord(n, self.rounds, self.scores, shares, winner, len(tied) > 1, self.capped,
                          self.counters, finished=True, final_round=self.final_round)


def shuffle_order(size: int, deal_rng: PyStream) -> list[int]:
    """Fisher–Yates from the top index down over positions 0..size-1 of the usable list."""
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = deal_rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


class _TrapDeck:
    """"Setup": the usable cards, shuffled, face down; one revealed per round; when all are used,
    the full usable list is shuffled again (from deck order) and drawing goes on."""

    def __init__(self, usable: Sequence[int], deal_rng: PyStream):
        self.usable = list(usable)
        self.rng = deal_rng
        self.order = shuffle_order(len(self.usable), deal_rng)   # at game start
        self.next = 0
        self.first = True

    def reveal(self) -> tuple[int, bool]:
        """(index in the full deck, whether a shuffle happened just before this reveal)."""
        shuffled, self.first = self.first, False
        if self.next == len(self.order):
            self.order = shuffle_order(len(self.usable), self.rng)
            self.next = 0
            shuffled = True
        self.next += 1
        return self.usable[self.order[self.next - 1]], shuffled


def play_game(rules: Rules, seed: int, index: int, deciders=None) -> GameRecord:
    """Game ``index`` of a run with ``seed``.  ``deciders``: one per seat, or one for all; None →
    every seat declares at random, each from its own PLAY stream (seats 0..N-1 each round)."""
    deal_rng = PyStream(seed, index, DEAL)
    if deciders is None:
        deciders = RandomDecider(seat_play_streams(seed, index, rules.players))
    deciders = seat_deciders(deciders, rules.players)
    chance = _StreamChance(deal_rng)
    deck = _TrapDeck(rules.usable, deal_rng)
    game = _Game(rules, [0] * rules.players, False)
    while not game.over:
        trap_index, shuffled = deck.reveal()
        declared = game.declare(len(game.rounds), trap_index, deciders)
        game.play(trap_index, declared, chance, shuffled)
    return game.record(chance)


# ---------------------------------------------------------------------------
# Scripted scenarios

ROUND_KEYS = ("trap", "declare", "dice", "tiebreak", "rolloff")


def _trap_of(rules: Rules, number: int, given) -> int:
    if isinstance(given, bool):
        raise BadScenario(f"round {number}: trap must be a name or an index, got {given!r}")
    if isinstance(given, int):
        if given not in range(len(rules.traps)):
            raise BadScenario(f"round {number}: trap index {given} is not in the deck (0-{len(rules.traps) - 1})")
        index = given
    elif isinstance(given, str):
        found = [i for i, trap in enumerate(rules.traps) if trap.name.casefold() == given.strip().casefold()]
        if not found:
            raise BadScenario(f"round {number}: no trap named {given!r} in the deck")
        index = found[0]
    else:
        raise BadScenario(f"round {number}: trap must be a name or an index, got {given!r}")
    if index not in rules.usable:
        raise BadScenario(f"round {number}: trap {rules.traps[index].name!r} is not used with {rules.players} players")
    return index


def _int_list(number: int, key: str, value) -> list[int]:
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise BadScenario(f"round {number}: '{key}' must be a list of whole numbers, got {value!r}")
    return list(value)


def play_scenario(rules: Rules, rounds: Sequence[dict], start_scores: Sequence[int] | None = None,
                  final: bool = False) -> GameRecord:
    """Play scripted rounds from ``start_scores`` (default all 0); ``final`` makes the first of them
    the final round.  Each round is a dict:

    * ``"trap"``: a trap name (case-insensitive) or an index into the full deck; it must be usable
      with ``rules.players``;
    * ``"declare"``: one declaration per seat (checked like any declaration: ``IllegalMove``);
    * ``"dice"``: every face rolled this round in the exact order rolled, escape rerolls included
      (default []); they replace the DEAL stream and must be used up exactly;
    * ``"tiebreak"``: the escape tie-break draws in order, each an index into the tied seats sorted
      by seat (default []); used up exactly;
    * ``"rolloff"``: only in the round that ends the game with a tie for the top: the index into the
      tied seats sorted by seat.

    Rounds after the game has ended (final round played, or ``max_rounds`` reached) are refused.
    If the rounds run out first, the record has ``finished=False`` and ``winner=None``.
    """
    n = rules.players
    scores = [0] * n if start_scores is None else start_scores
    if (not isinstance(scores, (list, tuple)) or len(scores) != n
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in scores)):
        raise BadScenario(f"start_scores must be {n} whole numbers >= 0, got {start_scores!r}")
    if not isinstance(rounds, (list, tuple)):
        raise BadScenario(f"rounds must be a list of round dicts, got {rounds!r}")
    game = _Game(rules, scores, bool(final))
    chance = None
    for number, spec in enumerate(rounds):
        if not isinstance(spec, dict):
            raise BadScenario(f"round {number}: a round must be a dict, got {spec!r}")
        unknown = sorted(set(spec) - set(ROUND_KEYS))
        if unknown:
            raise BadScenario(f"round {number}: unknown key {unknown[0]!r} (known: {', '.join(ROUND_KEYS)})")
        if game.over:
            why = "its final round" if game.final_round is not None else f"max_rounds = {rules.max_rounds}"
            raise BadScenario(f"round {number}: the game already ended after round {number - 1} ({why}); "
                              f"{len(rounds) - number} round(s) too many")
        for key in ("trap", "declare"):
            if key not in spec:
                raise BadScenario(f"round {number}: missing '{key}'")
        trap_index = _trap_of(rules, number, spec["trap"])
        declare = spec["declare"]
        if not isinstance(declare, (list, tuple)) or len(declare) != n:
            raise BadScenario(f"round {number}: 'declare' must give one declaration per seat ({n}), got {declare!r}")
        dice = _int_list(number, "dice", spec.get("dice", []))
        for k, face in enumerate(dice):
            if face not in range(1, 7):
                raise BadScenario(f"round {number}: die {k} is {face}, not a face 1-6")
        tiebreak = _int_list(number, "tiebreak", spec.get("tiebreak", []))
        rolloff = spec.get("rolloff")
        if rolloff is not None and (isinstance(rolloff, bool) or not isinstance(rolloff, int)):
            raise BadScenario(f"round {number}: 'rolloff' must be a whole number, got {rolloff!r}")

        script = ScriptedDecider([[]] * number + [list(declare)])
        declared = game.declare(number, trap_index, [script] * n)
        chance = _ScriptedChance(number, dice, tiebreak, rolloff)
        game.play(trap_index, declared, chance)
        if game.over:
            record = game.record(chance)
            chance.check_used_up()
            if number + 1 < len(rounds):
                continue          # the next iteration refuses the surplus rounds
            return record
        chance.check_used_up()
    return game.record(chance)

"""The Sky City of ALEA: trap cards — the condition language, trap decks and exact rational odds.

A trap card says which dice on the table trigger it (rulebook "Type of cards";
docs/rules/sky-city-of-alea.md, Project rulings).  It is judged on *all* dice rolled so far this
round, a multiset of faces 1..6, and every condition this language can state depends only on the
count vector ``counts[f]`` = number of dice showing face f.
That is what makes the exact odds a finite sum over count patterns (``exact_probability`` here,
compiled ``exact_odds`` in ``simcore/games/sky_city/trap_odds.py``).  Language, deck format and messages:
docs/traps.md.

    faces 1 1 1 1            at least four 1s (listed faces, with multiplicity; more dice may show)
    pattern AABB             same letter = same face, different letters = different faces; minimums
    total >= 20              sum of the faces (>=, >, <=, <, ==, !=)
    count {2,4,6} >= 6       dice showing any face of the set, compared with a number
    count {3} == 2|4         ... equal to one of several numbers ('|' only with '==')
    count {6} > count {1}    one set's count against another's

The parser is a tokenizer plus recursive descent, never ``eval``.  Two evaluators stay apart on
purpose: the compiled ``fires(code, counts)`` reads the int64 encoding below, ``fires_on_dice``
reads the parsed ``Condition`` and the list of dice; tests hold them to each other.

Encoding (one int64 row of CODE_WIDTH per trap; a deck is a 2-D array of such rows)
--------------------------------------------------------------------------------------
    code[0]      opcode: OP_FACES, OP_PATTERN or OP_LINEAR (0 never fires)
    code[1..6]   OP_FACES:   code[f] = how many dice must show face f (0: no demand)
                 OP_PATTERN: letter multiplicities sorted largest first, then zeros
                             (AAABB -> 3 2 0 0 0 0; at most 6 different letters: 6 faces)
                 OP_LINEAR:  code[f] = weight of face f; value = sum code[f] * counts[f]
                             total: weight f;  count {S}: 1 on S;  count {A} vs count {B}:
                             +1 on A, -1 on B (a face in both cancels), compared with 0
    code[7]      OP_LINEAR: comparison CMP_GE .. CMP_NE
    code[8]      OP_LINEAR: how many right-hand numbers follow (1, or up to 7 with '==')
    code[9..15]  OP_LINEAR: the numbers; fires if the value compares true with any of them
Width 16 (128 bytes, two cache lines): six face slots, a comparison and up to seven numbers.
"""
from __future__ import annotations

import itertools
import math
import operator
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np

from simcore.errors import BalanceError

FACES = range(1, 7)
MIN_PLAYERS, MAX_PLAYERS = 3, 5
DICE_PER_PLAYER = 5
MAX_TABLE_DICE = MAX_PLAYERS * DICE_PER_PLAYER  # 25: the odds table runs 0..25 dice
MAX_NUMBER = 9999  # largest right-hand number (keeps every code in int64 with room to spare)

OP_FACES, OP_PATTERN, OP_LINEAR = 1, 2, 3
CMP_GE, CMP_GT, CMP_LE, CMP_LT, CMP_EQ, CMP_NE = 1, 2, 3, 4, 5, 6
C_OP, C_CMP, C_NVAL, C_VAL = 0, 7, 8, 9
CODE_WIDTH = 16
MAX_ALTERNATIVES = CODE_WIDTH - C_VAL  # 7

COMPARISONS = {">=": CMP_GE, ">": CMP_GT, "<=": CMP_LE, "<": CMP_LT, "==": CMP_EQ, "!=": CMP_NE}
_PY_COMPARE = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
               "==": operator.eq, "!=": operator.ne}
_KINDS = "faces, pattern, total or count"
_CMP_LIST = "a comparison (>=, >, <=, <, ==, !=)"

DEFAULT_DECK = "sky_city_traps.toml"  # bundled beside this file (the name run metadata has always shown)


# --- the language -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Condition:
    """One parsed trap condition.  ``str()`` gives its canonical text (parses back to itself)."""

    kind: str  # "faces" | "pattern" | "total" | "count" | "count-vs-count"
    faces: tuple[int, ...] = ()  # faces: the listed faces with repeats; count kinds: the left set
    letters: str = ""  # pattern: upper-case letters as written
    op: str = ""  # total / count kinds: the comparison
    values: tuple[int, ...] = ()  # total / count: right-hand numbers (several only with '==')
    right: tuple[int, ...] = ()  # count-vs-count: the right-hand set

    def __str__(self) -> str:
        def braces(s):
            return "{" + ",".join(map(str, s)) + "}"
        if self.kind == "faces":
            return "faces " + " ".join(map(str, self.faces))
        if self.kind == "pattern":
            return "pattern " + self.letters
        rhs = "|".join(map(str, self.values))
        if self.kind == "total":
            return f"total {self.op} {rhs}"
        if self.kind == "count":
            return f"count {braces(self.faces)} {self.op} {rhs}"
        return f"count {braces(self.faces)} {self.op} count {braces(self.right)}"

    @cached_property
    def code(self) -> np.ndarray:
        """The int64 row ``fires`` evaluates (encoding in the module docstring)."""
        code = np.zeros(CODE_WIDTH, np.int64)
        if self.kind == "faces":
            code[C_OP] = OP_FACES
            for face, need in Counter(self.faces).items():
                code[face] = need
        elif self.kind == "pattern":
            code[C_OP] = OP_PATTERN
            needs = sorted(Counter(self.letters).values(), reverse=True)
            code[1:1 + len(needs)] = needs
        else:
            code[C_OP] = OP_LINEAR
            if self.kind == "total":
                code[1:7] = list(FACES)
            else:
                for face in self.faces:
                    code[face] += 1
                for face in self.right:
                    code[face] -= 1
            code[C_CMP] = COMPARISONS[self.op]
            values = self.values or (0,)
            code[C_NVAL] = len(values)
            code[C_VAL:C_VAL + len(values)] = values
        return code


@dataclass(frozen=True)
class _Token:
    kind: str  # "word" | "number" | "op" | "{" | "}" | "," | "|" | "end"
    text: str
    column: int  # 1-based

    def shown(self) -> str:
        return "end of condition" if self.kind == "end" else repr(self.text)


def _tokenize(text: str, fail) -> list[_Token]:
    tokens, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in " \t":
            i += 1
            continue
        start = i
        if ch.isascii() and ch.isdigit():
            while i < len(text) and text[i].isascii() and text[i].isdigit():
                i += 1
            tokens.append(_Token("number", text[start:i], start + 1))
        elif ch.isascii() and ch.isalpha():
            while i < len(text) and text[i].isascii() and text[i].isalpha():
                i += 1
            tokens.append(_Token("word", text[start:i], start + 1))
        elif text[i:i + 2] in (">=", "<=", "==", "!="):
            tokens.append(_Token("op", text[i:i + 2], start + 1))
            i += 2
        elif ch in "<>=":  # a lone '=' is a token so the parser can say "write '=='"
            tokens.append(_Token("op", ch, start + 1))
            i += 1
        elif ch in "{},|":
            tokens.append(_Token(ch, ch, start + 1))
            i += 1
        else:
            fail(start + 1, f"unexpected character {ch!r}")
    tokens.append(_Token("end", "", len(text) + 1))
    return tokens


class _Parser:
    """condition = faces | pattern | total | count  (grammar in docs/traps.md)."""

    def __init__(self, text: str, where: str):
        self.where = where or f"condition {text!r}"
        self.tokens = _tokenize(text, self.fail)
        self.pos = 0

    def fail(self, column: int, message: str):
        raise BalanceError(f"{self.where}: column {column}: {message}")

    def expected(self, what: str, token: _Token | None = None, hint: str = ""):
        token = token or self.peek()
        self.fail(token.column, f"expected {what}, got {token.shown()}{hint}")

    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def take(self) -> _Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def is_word(self, word: str) -> bool:
        token = self.peek()
        return token.kind == "word" and token.text.lower() == word

    def condition(self) -> Condition:
        token = self.take()
        keyword = token.text.lower() if token.kind == "word" else ""
        if keyword == "faces":
            result = self.faces_list()
        elif keyword == "pattern":
            result = self.pattern()
        elif keyword == "total":
            op = self.comparison("'total'")
            result = Condition("total", op=op, values=self.numbers(op))
        elif keyword == "count":
            result = self.count()
        else:
            self.expected(_KINDS, token)
        if self.peek().kind != "end":
            self.expected("end of condition")
        return result

    def face(self, what: str, token: _Token) -> int:
        if token.kind != "number" or token.text not in ("1", "2", "3", "4", "5", "6"):
            self.expected(what, token)
        return int(token.text)

    def faces_list(self) -> Condition:
        faces = [self.face("a face 1-6 after 'faces'", self.take())]
        while self.peek().kind == "number":
            faces.append(self.face("a face 1-6 after 'faces'", self.take()))
        if self.peek().kind != "end":
            self.expected("a face 1-6 or end of condition")
        return Condition("faces", faces=tuple(faces))

    def pattern(self) -> Condition:
        token = self.take()
        if token.kind != "word":
            self.expected("letters after 'pattern' (e.g. AABB)", token)
        letters = token.text.upper()
        seen = []
        for offset, letter in enumerate(letters):
            if letter not in seen:
                seen.append(letter)
                if len(seen) > 6:
                    self.fail(token.column + offset,
                              f"a pattern has at most 6 different letters (a die has 6 faces), got '{letter}'")
        return Condition("pattern", letters=letters)

    def comparison(self, after: str) -> str:
        token = self.take()
        if token.kind == "op" and token.text in COMPARISONS:
            return token.text
        self.expected(f"{_CMP_LIST} after {after}", token, " (write '==')" if token.text == "=" else "")

    def number(self, after: str) -> int:
        token = self.take()
        if token.kind != "number":
            self.expected(f"a number after {after}", token)
        if int(token.text) > MAX_NUMBER:
            self.fail(token.column, f"numbers go up to {MAX_NUMBER}, got {token.text!r}")
        return int(token.text)

    def numbers(self, op: str) -> tuple[int, ...]:
        values = [self.number(f"'{op}'")]
        while self.peek().kind == "|":
            bar = self.take()
            if op != "==":
                self.fail(bar.column, f"alternatives with '|' need '==', not '{op}'")
            if len(values) == MAX_ALTERNATIVES:
                self.fail(bar.column, f"at most {MAX_ALTERNATIVES} alternatives")
            value = self.number("'|'")
            if value in values:
                self.fail(bar.column + 1, f"{value} is already an alternative")
            values.append(value)
        return tuple(values)

    def face_set(self) -> tuple[int, ...]:
        token = self.take()
        if token.kind != "{":
            self.expected("'{' after 'count'", token)
        faces = []
        while True:
            token = self.take()
            face = self.face("a face 1-6 in the set", token)
            if face in faces:
                self.fail(token.column, f"face {face} is twice in the set")
            faces.append(face)
            token = self.take()
            if token.kind == "}":
                return tuple(sorted(faces))
            if token.kind != ",":
                self.expected("',' or '}' in the set", token)

    def count(self) -> Condition:
        left = self.face_set()
        op = self.comparison("the set")
        if self.is_word("count"):
            self.take()
            return Condition("count-vs-count", faces=left, op=op, right=self.face_set())
        if self.peek().kind != "number":
            self.expected(f"a number or 'count {{...}}' after '{op}'")
        return Condition("count", faces=left, op=op, values=self.numbers(op))


def parse_condition(text: str, where: str = "") -> Condition:
    """Parse one condition; a syntax error is a one-line ``BalanceError``:
    ``<where>: column <n>: expected <what>, got <token>`` (``where`` defaults to the text)."""
    if not isinstance(text, str):
        raise BalanceError(f"{where or 'condition'}: a condition must be a string")
    return _Parser(text, where).condition()


def _as_condition(trap) -> Condition:
    if isinstance(trap, Condition):
        return trap
    if isinstance(trap, Trap):
        return trap.condition
    return parse_condition(trap)


# --- the plain-Python judge (the oracle for the compiled one) ---------------------------------

def fires_on_dice(trap: "Trap | Condition | str", dice) -> bool:
    """Does the trap fire on these dice (all dice rolled this round, faces 1..6, any order)?

    Written from the rules, directly on the dice, independent of the int64 encoding."""
    cond = _as_condition(trap)
    dice = list(dice)
    if any(d not in FACES for d in dice):
        raise ValueError(f"dice must show faces 1-6, got {dice}")
    if cond.kind == "faces":  # each listed face, as many times as listed
        return all(dice.count(face) >= cond.faces.count(face) for face in set(cond.faces))
    if cond.kind == "pattern":  # try every way of giving the letters different faces
        letters = sorted(set(cond.letters))
        return any(all(dice.count(face) >= cond.letters.count(letter) for letter, face in zip(letters, chosen))
                   for chosen in itertools.permutations(FACES, len(letters)))
    compare = _PY_COMPARE[cond.op]
    if cond.kind == "total":
        value = sum(dice)
    else:
        value = sum(1 for d in dice if d in cond.faces)
    if cond.kind == "count-vs-count":
        return compare(value, sum(1 for d in dice if d in cond.right))
    return any(compare(value, v) for v in cond.values)


def count_patterns(n: int):
    """Every count vector (c1..c6) of n dice, as tuples: C(n+5, 5) of them."""
    if n == 0:
        yield (0,) * 6
        return
    for bars in itertools.combinations(range(n + 5), 5):  # stars and bars
        edges = (-1, *bars, n + 5)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(6))


def exact_probability(trap: "Trap | Condition | str", n: int) -> Fraction:
    """The exact chance the trap fires with n fair dice: sum over count vectors of
    n!/(c1!...c6!) / 6**n, each judged by ``fires_on_dice`` on one such roll."""
    if n < 0:
        raise ValueError("the number of dice must be 0 or more")
    cond = _as_condition(trap)
    hits = 0
    for counts in count_patterns(n):
        dice = [face for face, c in zip(FACES, counts) for _ in range(c)]
        if fires_on_dice(cond, dice):
            hits += math.factorial(n) // math.prod(math.factorial(c) for c in counts)
    return Fraction(hits, 6 ** n)


def tally(dice) -> np.ndarray:
    """The counts array ``fires`` reads: length 7, counts[f] = dice showing f, counts[0] = 0."""
    counts = np.zeros(7, np.int64)
    for d in dice:
        counts[d] += 1
    return counts


def condition_warnings(cond: Condition, max_dice: int = MAX_TABLE_DICE) -> list[str]:
    """'never fires' / 'always fires' over every roll of 1..max_dice dice (a trap is only ever
    judged after some dice are rolled), or [] for a condition that can go either way."""
    fires_any, fires_all = False, True
    if cond.kind in ("faces", "pattern"):
        needed = len(cond.faces or cond.letters)
        fires_any = needed <= max_dice
        fires_all = cond.kind == "pattern" and needed == 1  # 'pattern A': any die at all
    else:  # the values sum(w_f * c_f) reachable with n dice, one die at a time
        weights = set(int(w) for w in cond.code[1:7])
        reachable = {0}
        for _ in range(max_dice):
            reachable = {v + w for v in reachable for w in weights}
            results = [_linear_fires(cond, v) for v in reachable]
            fires_any |= any(results)
            fires_all &= all(results)
    if not fires_any:
        return [f"never fires with 1-{max_dice} dice"]
    if fires_all:
        return [f"always fires with 1-{max_dice} dice"]
    return []


def _linear_fires(cond: Condition, value: int) -> bool:
    compare = _PY_COMPARE[cond.op]
    return any(compare(value, v) for v in (cond.values or (0,)))


# --- trap decks ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Trap:
    """One trap card: its name, its condition as written (``when``), the player counts it is used
    with, whether the card is an ASSUMED one (not a published card), and its compiled row."""

    name: str
    when: str
    players: tuple[int, ...] = (3, 4, 5)
    assumed: bool = False
    note: str = ""
    condition: Condition = field(default=None, compare=False, repr=False)
    code: np.ndarray = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.condition is None:
            object.__setattr__(self, "condition", parse_condition(self.when, f"trap {self.name!r}"))
        if self.code is None:
            object.__setattr__(self, "code", self.condition.code)


@dataclass(frozen=True)
class Deck:
    """A trap deck: ``traps`` in file order, ``codes`` their rows stacked (n_traps x CODE_WIDTH
    int64, the array the game kernel and ``exact_odds`` take), and ``warnings`` (one line each)."""

    traps: tuple[Trap, ...]
    source: str = ""
    name: str = ""
    warnings: tuple[str, ...] = ()
    codes: np.ndarray = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.codes is None:
            codes = np.zeros((len(self.traps), CODE_WIDTH), np.int64)
            for row, trap in enumerate(self.traps):
                codes[row] = trap.code
            object.__setattr__(self, "codes", codes)

    def __len__(self) -> int:
        return len(self.traps)

    @property
    def names(self) -> list[str]:
        return [trap.name for trap in self.traps]

    def for_players(self, players: int) -> "Deck":
        """The cards used with this many players (file order kept)."""
        if players not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            raise BalanceError(f"The Sky City of ALEA is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {players}")
        traps = tuple(t for t in self.traps if players in t.players)
        if not traps:
            raise BalanceError(f"{self.source}: no trap in this deck is used with {players} players")
        return Deck(traps, self.source, self.name, self.warnings)


DECK_KEYS = {"name": "a short name shown in reports", "description": "free text", "trap": "the cards"}
TRAP_KEYS = {"name": "the card's name (unique in the deck)", "when": "the condition",
             "players": "player counts the card is used with (default all)",
             "assumed": "true: not a published card", "note": "free text"}


def deck_from_dict(data: dict, where: str, max_dice: int = MAX_TABLE_DICE) -> Deck:
    """Check a deck already read from TOML (a variant file may embed one); see docs/traps.md."""
    for key in data:
        if key not in DECK_KEYS:
            raise BalanceError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(DECK_KEYS))})")
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise BalanceError(f"{where}: '{key}' must be a string")
    cards = data.get("trap")
    if cards is None:
        raise BalanceError(f"{where}: no [[trap]] tables (a deck needs at least one trap)")
    if not isinstance(cards, list) or not cards or not all(isinstance(c, dict) for c in cards):
        raise BalanceError(f"{where}: 'trap' must be one or more [[trap]] tables")
    traps, seen, warnings = [], {}, []
    for index, card in enumerate(cards, 1):
        name = card.get("name")
        if not isinstance(name, str) or not name.strip() or not name.isprintable():
            problem = "missing 'name'" if name is None else "'name' must be a non-empty one-line string"
            raise BalanceError(f"{where}: trap {index}: {problem}")
        here = f'{where}: trap {index} "{name}"'
        for key in card:
            if key not in TRAP_KEYS:
                raise BalanceError(f"{here}: unknown key '{key}' (known: {', '.join(sorted(TRAP_KEYS))})")
        if "when" not in card:
            raise BalanceError(f"{here}: missing 'when' (the condition, e.g. when = \"pattern AABB\")")
        if not isinstance(card["when"], str):
            raise BalanceError(f"{here}: 'when' must be a string")
        players = card.get("players", [3, 4, 5])
        if (not isinstance(players, list) or not players or len(set(players)) != len(players)
                or not all(type(p) is int and MIN_PLAYERS <= p <= MAX_PLAYERS for p in players)):
            raise BalanceError(f"{here}: 'players' must be a list of different player counts "
                               f"{MIN_PLAYERS}-{MAX_PLAYERS}, got {players!r}")
        assumed = card.get("assumed", False)
        if not isinstance(assumed, bool):
            raise BalanceError(f"{here}: 'assumed' must be true or false")
        if not isinstance(card.get("note", ""), str):
            raise BalanceError(f"{here}: 'note' must be a string")
        key = name.strip().casefold()
        if key in seen:
            raise BalanceError(f"{here}: the name is already used by trap {seen[key]}")
        seen[key] = index
        condition = parse_condition(card["when"], here)
        warnings += [f"{here}: {w}" for w in condition_warnings(condition, max_dice)]
        traps.append(Trap(name, card["when"], tuple(sorted(players)), assumed, card.get("note", ""),
                          condition, condition.code))
    return Deck(tuple(traps), where, data.get("name", Path(where).stem), tuple(warnings))


def load_deck(path: str | Path | None = None, max_dice: int = MAX_TABLE_DICE) -> Deck:
    """Read a trap deck TOML file (None: the bundled default deck of 22, docs/traps.md).
    Anything wrong is a one-line ``BalanceError``; ``max_dice`` bounds the never/always check."""
    from simcore.variants import read_toml

    if path is None:
        bundled = resources.files("simcore.games.sky_city").joinpath(DEFAULT_DECK).read_text(encoding="utf-8")
        return deck_from_dict(read_toml(DEFAULT_DECK, "trap deck", bundled), DEFAULT_DECK, max_dice)
    return deck_from_dict(read_toml(path, "trap deck"), str(path), max_dice)


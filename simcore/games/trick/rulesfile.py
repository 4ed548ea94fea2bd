"""A trick-taking game described in a rules file: TOML, checked against a schema (pydantic).

docs/rules-files.md documents every key with an example.  Reading a file gives a ``Spec``: the
checked settings in the game's own words (suit and card names), which ``rules.make_setup`` turns
into kernel arrays for one player count.  A problem is one line naming the file, the key and its
line, and what is wrong (``RulesFileError``, a ``BalanceError``: exit code 2, nothing written).

A variant of a rules-file game (``whatif``, ``sweep``, ``--set``) is a set of dotted key overrides
(``deal.hand_size = 9``) applied to the file's table before it is checked, so an override is held
to every rule the file is.
"""
from __future__ import annotations

import difflib
import hashlib
import re
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from simcore.errors import BalanceError

MAX_DECK = 64  # a hand is a uint64 bitmask of deck indices
MIN_PLAYERS, MAX_PLAYERS = 2, 8
MAX_ROUNDS = 255  # a game's rounds (each has its own slots in the rules vector: rules.R_HANDS ...)
MAX_TRICKS_A_GAME = 65535  # the per-game counters are 16-bit
MAX_DECISIONS = 4  # rules.MAX_DECISIONS
DIRECTIONS = ("left", "right", "across", "none")


class RulesFileError(BalanceError):
    """A rules file that cannot be played: one line, exit code 2."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameSection(_Section):
    name: StrictStr = Field(min_length=1, max_length=80)
    players: Union[StrictInt, list[StrictInt]]
    rounds: StrictInt = Field(default=1, ge=1, le=MAX_ROUNDS)
    target: StrictInt | None = Field(default=None, ge=-10_000, le=10_000)
    winner: Literal["highest", "lowest"] = "highest"
    dealer: Literal["first-seat", "random"] = "first-seat"
    teams: list[list[StrictInt]] | None = None  # seats (1 to N) that score and win together
    description: StrictStr = ""


class PlayerCountChanges(_Section):
    remove: list[StrictStr] = []


class ExtraCard(_Section):
    name: StrictStr = Field(min_length=1, max_length=20)
    suit: StrictStr = Field(min_length=1, max_length=40)
    rank: StrictStr = Field(min_length=1, max_length=20)
    copies: StrictInt = Field(default=1, ge=1, le=8)


class DeckSection(_Section):
    suits: list[StrictStr] = Field(min_length=1, max_length=16)
    symbols: list[StrictStr] | None = None
    name_order: Literal["rank-suit", "suit-rank"] = "rank-suit"
    ranks: list[StrictStr] = Field(min_length=1, max_length=64)
    remove: list[StrictStr] = []
    copies: StrictInt = Field(default=1, ge=1, le=8)
    extra: list[ExtraCard] = []
    players: dict[str, PlayerCountChanges] = {}


class DealSection(_Section):
    # a number, a list (one per round: a hand that grows), or either per player count
    hand_size: Union[StrictInt, list[StrictInt], dict[str, Union[StrictInt, list[StrictInt]]], None] = None
    left_out: Literal["hidden", "revealed"] = "hidden"
    # true: one more card turned face up after the deal (trump.kind "turned-up" does so anyway); a
    # card's name: that card set aside face up before the shuffle, never dealt (a swap card)
    upcard: Union[StrictBool, StrictStr] = False


class PassSection(_Section):
    cards: StrictInt = Field(default=0, ge=0, le=16)
    directions: list[Literal["left", "right", "across", "none"]] = ["left"]
    choice: Literal["cycle", "random"] = "cycle"


class TrumpSection(_Section):
    kind: Literal["none", "fixed", "turned-up", "bid-winner"] = "none"
    suit: StrictStr | None = None
    none_in_rounds: list[StrictInt] = []  # rounds (1 = the first) played without trump


class BiddingSection(_Section):
    kind: Literal["none", "tricks"] = "none"
    last_bidder_may_not_make_total: StrictBool = False


class PlaySection(_Section):
    lead: Literal["left-of-dealer", "dealer", "holder", "bid-winner"] = "left-of-dealer"
    first_lead_card: StrictStr | None = None
    follow: Literal["suit", "free"] = "suit"
    when_void: Literal["any", "trump"] = "any"
    must_beat: StrictBool = False
    unbroken_suit: StrictStr | None = None
    breaking_cards: list[StrictStr] = []
    first_trick_no_points: StrictBool = False


class TrickSection(_Section):
    winner: Literal["highest", "lowest"] = "highest"
    reverse_if_played: list[StrictStr] = []
    always_wins: list[StrictStr] = []


class ScoringSection(_Section):
    base: StrictInt = Field(default=0, ge=-10_000, le=10_000)
    per_trick: StrictInt = Field(default=0, ge=-1000, le=1000)
    card_points: dict[str, StrictInt] = {}
    exact_bid: StrictInt = Field(default=0, ge=-1000, le=1000)
    off_bid_per_trick: StrictInt = Field(default=0, ge=-1000, le=1000)
    nil: StrictInt = Field(default=0, ge=0, le=1000)
    moon: StrictBool = False


class HooksSection(_Section):
    module: StrictStr


class DecisionSection(_Section):
    """A decision of the designer's ([[decision]]): its options are a mask the decision_options
    hook computes, its effect the decision_apply hook's."""
    name: StrictStr = Field(min_length=1, max_length=40)
    # before the bidding, before the play, after a card (a card power: its player decides), after a trick
    at: Literal["before-bidding", "before-play", "after-card", "after-trick"]
    # "chance": no seat chooses; one of the options the hook offers is drawn at random (the deal's
    # draws), none when it offers one
    who: Literal["each", "dealer", "leader", "winner", "player", "chance"] = "each"
    # the options' names (choice k = options[k]), or "cards": the choice is a card of the deck
    options: Union[Annotated[list[StrictStr], Field(min_length=1, max_length=64)], Literal["cards"]]

    def option_name(self, choice: int, card_names) -> str:
        """What choice ``choice`` is called: its option's name, or the card's."""
        return card_names[choice] if self.options == "cards" else self.options[choice]

    def n_options(self, n_cards: int) -> int:
        return n_cards if self.options == "cards" else len(self.options)


class RulesFile(_Section):
    game: GameSection
    deck: DeckSection
    deal: DealSection = DealSection()
    passing: PassSection = Field(default=PassSection(), alias="pass")
    trump: TrumpSection = TrumpSection()
    bidding: BiddingSection = BiddingSection()
    play: PlaySection = PlaySection()
    trick: TrickSection = TrickSection()
    scoring: ScoringSection = ScoringSection()
    hooks: HooksSection | None = None
    decision: list[DecisionSection] = []


SECTIONS = {"game": GameSection, "deck": DeckSection, "deal": DealSection, "pass": PassSection,
            "trump": TrumpSection, "bidding": BiddingSection, "play": PlaySection, "trick": TrickSection,
            "scoring": ScoringSection, "hooks": HooksSection}


def valid_keys() -> list[str]:
    """Every dotted key a rules file (and a variant of one) may set."""
    return [f"{section}.{key}" for section, model in SECTIONS.items() for key in model.model_fields]


def key_kinds() -> dict[str, tuple]:
    """Each dotted key's Python types as a variant, tune space or sweep sees them (``int``,
    ``(int, dict)`` for a number or a table per player count, ``str`` for a choice ...)."""
    import typing

    def kinds(annotation) -> tuple:
        origin = typing.get_origin(annotation)
        if origin in (Union, getattr(__import__("types"), "UnionType", Union)):
            return tuple(k for arg in typing.get_args(annotation) for k in kinds(arg))
        if origin is Literal:
            return (str,)
        if origin in (list, dict):
            return (origin,)
        base = typing.get_args(annotation)[0] if origin is typing.Annotated else annotation
        if base is type(None):
            return ()
        return (base,) if isinstance(base, type) else (str,)

    return {f"{section}.{key}": kinds(field.annotation) for section, model in SECTIONS.items()
            for key, field in model.model_fields.items()}


# --------------------------------------------------------------------------------------------
# where a key is in the file: line numbers for the one-line errors

def line_of(text: str, location: tuple) -> int | None:
    """The line (1-based) of the dotted ``location`` in the TOML ``text``: the key's line in its
    table, else the table's header; None when neither is there (a key the file left out)."""
    keys = [str(k) for k in location if not isinstance(k, int)]
    if not keys:
        return None
    lines = text.splitlines()
    header = None
    section = keys[0]
    for depth in range(len(keys) - 1, 0, -1):  # the deepest table header that is in the file
        name = ".".join(keys[:depth])
        pattern = re.compile(r"^\s*\[\s*" + re.escape(name).replace(r"\.", r"\s*\.\s*") + r"\s*\]")
        for number, line in enumerate(lines, 1):
            if pattern.match(line):
                header, section = number, name
                break
        if header is not None:
            break
    rest = keys[len(section.split(".")):] if header is not None else keys
    key = rest[0] if rest else None
    if key is not None:
        start = header or 0
        pattern = re.compile(r"^\s*(?:" + re.escape(".".join(rest)) + "|" + re.escape(key) + r"|\"" + re.escape(key)
                             + r"\")\s*=")
        for number, line in enumerate(lines[start:], start + 1):
            if number > start + 1 and header is not None and re.match(r"^\s*\[", line):
                break
            if pattern.match(line):
                return number
        if header is None:  # an inline table or a dotted key on the parent's line
            pattern = re.compile(r"^\s*" + re.escape(keys[0]) + r"\s*[.=]")
            for number, line in enumerate(lines, 1):
                if pattern.match(line):
                    return number
    return header


def _where(path: str, text: str, location: tuple) -> str:
    key = ".".join(str(k) for k in location if not isinstance(k, int)) or "(top)"
    line = line_of(text, location)
    return f"{path}: {key}" + (f" (line {line})" if line else "")


def _closest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f" (did you mean '{close[0]}'?)" if close else ""


KINDS = {"int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
         "string_type": "text in quotes", "bool_type": "true or false", "bool_parsing": "true or false",
         "list_type": "a list [...]", "dict_type": "a table { ... }", "none_required": "left out"}


def _key_path(location: tuple) -> tuple:
    """The rules file's keys in a pydantic location, without its type tags (``int``,
    ``dict[str,int]``: which member of a union it tried)."""
    return tuple(k for k in location if isinstance(k, int) or not any(m in str(k) for m in "[]-,")
                 and str(k) not in ("int", "str", "bool", "list", "dict", "none"))


def _message(errors: list[dict], path: str, text: str) -> str:
    error = errors[0]
    location = _key_path(tuple(error["loc"]))
    kind = error["type"]
    if kind == "extra_forbidden":
        parent = location[:-1]
        model = RulesFile if not parent else SECTIONS.get(str(parent[0]))
        if len(parent) > 1 and parent[0] == "deck":
            model = PlayerCountChanges
        names = (list(SECTIONS) if model is RulesFile else list(model.model_fields) if model else [])
        return f"{_where(path, text, location)}: unknown key{_closest(str(location[-1]), names)}"
    if kind == "missing":
        return f"{_where(path, text, location)}: missing (every rules file needs it; docs/rules-files.md)"
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        got = error.get("input")
        return f"{_where(path, text, location)}: {got!r} is not one of {expected}"
    # a union (a number or a table ...) fails once per member: say every kind it may be
    same = [e for e in errors if _key_path(tuple(e["loc"])) == location]
    kinds = list(dict.fromkeys(KINDS[e["type"]] for e in same if e["type"] in KINDS))
    if kinds:
        what = "must be " + " or ".join(kinds)
    else:
        what = error["msg"][0].lower() + error["msg"][1:]
    return f"{_where(path, text, location)}: {what}, not {error.get('input')!r}"[:300]


# --------------------------------------------------------------------------------------------
# the checked file

class Spec:
    """A checked rules file: its parsed sections, its text's hash, and where it came from."""

    def __init__(self, model: RulesFile, path: str, text: str, raw: dict, overrides: dict):
        self.model = model
        self.path = path
        self.text = text
        self.raw = raw
        self.overrides = dict(overrides)
        self.digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        g = model.game
        self.name = g.name
        self.player_counts = tuple(sorted(set(g.players if isinstance(g.players, list) else [g.players])))

    def error(self, location: tuple, message: str) -> RulesFileError:
        return RulesFileError(f"{_where(self.path, self.text, location)}: {message}")


def apply_overrides(data: dict, overrides: dict, path: str) -> dict:
    """The rules file's table with dotted ``overrides`` (``deal.hand_size``) set."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    keys = valid_keys()
    for dotted, value in overrides.items():
        section, _, key = dotted.partition(".")
        if dotted not in keys:
            raise RulesFileError(f"{path}: unknown key '{dotted}'{_closest(dotted, keys)}")
        out.setdefault(section, {})
        if not isinstance(out[section], dict):
            raise RulesFileError(f"{path}: cannot set '{dotted}': '{section}' is not a table")
        out[section][key] = value
    return out


def read_rules(path: str | Path, overrides: dict | None = None, counts=None) -> Spec:
    """Read and check a rules file (plus dotted ``overrides``): a ``Spec``, or one line saying what
    is wrong.  ``counts``: the player counts whose deal is checked (default: every count of the
    file; a variant played at 4 players need not deal at 3)."""
    from simcore.variants import read_toml

    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RulesFileError(f"rules file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesFileError(f"cannot read rules file {path}: {exc}") from None
    return parse_rules(read_toml(path, "rules file", text), path, text, overrides or {}, counts)


def parse_rules(data: dict, path: str, text: str, overrides: dict, counts=None) -> Spec:
    data = apply_overrides(data, overrides, path)
    try:
        model = RulesFile.model_validate(data)
    except ValidationError as exc:
        errors = sorted(exc.errors(), key=lambda e: (line_of(text, _key_path(tuple(e["loc"]))) or 10**9))
        raise RulesFileError(_message(errors, path, text)) from None
    spec = Spec(model, path, text, data, overrides)
    check_spec(spec, counts)
    return spec


def check_spec(spec: Spec, counts=None) -> None:
    """What the schema cannot say: names that must exist, decks big enough (at ``counts``, by
    default every player count of the file), a game that ends."""
    m = spec.model
    for key, values in (("suits", m.deck.suits), ("ranks", m.deck.ranks), ("symbols", m.deck.symbols or [])):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise spec.error(("deck", key), f"{twice[0]!r} is listed twice")
    if m.deck.symbols is not None and len(m.deck.symbols) != len(m.deck.suits):
        raise spec.error(("deck", "symbols"), f"{len(m.deck.symbols)} symbols for {len(m.deck.suits)} suits")
    if m.deck.symbols is None and len({s[:1].upper() for s in m.deck.suits}) < len(m.deck.suits):
        raise spec.error(("deck", "suits"), "two suits start with the same letter: give deck.symbols")
    extras = sum(e.copies for e in m.deck.extra)
    if len(m.deck.suits) * len(m.deck.ranks) * m.deck.copies + extras > MAX_DECK:
        more = f" + {extras} extra cards" if extras else ""
        raise spec.error(("deck", "ranks"), f"{len(m.deck.suits)} suits x {len(m.deck.ranks)} ranks x "
                         f"{m.deck.copies} copies{more} is more than the engine's {MAX_DECK} cards")
    regular = [card_name(m, rank, symbol) for symbol in suit_symbols(m) for rank in m.deck.ranks]
    for k, e in enumerate(m.deck.extra):
        if e.name in regular or e.name in [x.name for x in m.deck.extra[:k]]:
            raise spec.error(("deck", "extra"), f"extra card '{e.name}' is already in the deck")
    for n in spec.player_counts:
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise spec.error(("game", "players"), f"{n} players: the engine plays {MIN_PLAYERS} to {MAX_PLAYERS}")
    if m.game.teams is not None:
        seats = sorted(seat for team in m.game.teams for seat in team)
        for n in spec.player_counts:
            if seats != list(range(1, n + 1)):
                raise spec.error(("game", "teams"), f"the teams must hold every seat 1 to {n} once each "
                                 f"({n} players), not {m.game.teams}")
        if len(m.game.teams) < 2:
            raise spec.error(("game", "teams"), "a game of teams needs two teams at least")
    for key in m.deck.players:
        if not key.isdigit() or int(key) not in spec.player_counts:
            raise spec.error(("deck", "players", key), f"'{key}' is not one of the game's player counts "
                             f"{list(spec.player_counts)}")
    if isinstance(m.deal.hand_size, dict):
        for key in m.deal.hand_size:
            if not key.isdigit() or int(key) not in spec.player_counts:
                raise spec.error(("deal", "hand_size"), f"'{key}' is not one of the game's player counts "
                                 f"{list(spec.player_counts)}")
    for round_number in m.trump.none_in_rounds:
        if not 1 <= round_number <= m.game.rounds:
            raise spec.error(("trump", "none_in_rounds"), f"round {round_number} is not one of the game's "
                             f"{m.game.rounds} (game.rounds; the first is round 1)")
    for n in (spec.player_counts if counts is None else [n for n in counts if n in spec.player_counts]):
        deck = deck_of(spec, n)
        if isinstance(m.deal.upcard, str) and m.deal.upcard not in [name for _, _, name in deck]:
            raise spec.error(("deal", "upcard"), f"'{m.deal.upcard}' is not in the deck at {n} players (deck.players)")
        sizes = hand_sizes_of(spec, n, len(deck))
        if len(sizes) != m.game.rounds:
            raise spec.error(("deal", "hand_size"), f"{len(sizes)} hand sizes for {m.game.rounds} rounds "
                             f"({n} players): one a round (game.rounds)")
        for r, hand in enumerate(sizes):
            when = f" in round {r + 1}" if len(set(sizes)) > 1 else ""
            if hand < 1:
                raise spec.error(("deal", "hand_size"), f"{n} players get no cards{when}: the game cannot end")
            turned = (m.trump.kind == "turned-up" and r + 1 not in m.trump.none_in_rounds) or m.deal.upcard
            need = n * hand + (1 if turned else 0)
            if need > len(deck):
                extra = (" and one turned-up trump" if m.trump.kind == "turned-up" else " and an upcard") if turned else ""
                raise spec.error(("deal", "hand_size"), f"a deck of {len(deck)} cards cannot deal {n} hands of "
                                 f"{hand}{extra}{when}")
            if m.passing.cards > hand:
                raise spec.error(("pass", "cards"), f"passes {m.passing.cards} cards from hands of {hand} "
                                 f"({n} players){when}")
        if sum(sizes) > MAX_TRICKS_A_GAME:
            raise spec.error(("game", "rounds"), f"{m.game.rounds} rounds of up to {max(sizes)} tricks: at most "
                             f"{MAX_TRICKS_A_GAME:,} tricks a game")
    if m.game.target is not None and m.game.rounds == 1:
        raise spec.error(("game", "target"), "a game played to a target needs game.rounds, the most rounds it "
                         "may last (it ends after the round in which a total reaches the target)")
    suits = all_suits(m)
    if m.trump.kind == "fixed":
        if m.trump.suit is None:
            raise spec.error(("trump", "suit"), "a fixed trump needs its suit")
    if m.trump.suit is not None and m.trump.suit not in suits:
        raise spec.error(("trump", "suit"), f"no suit '{m.trump.suit}' in the deck{_closest(m.trump.suit, suits)}")
    if m.trump.kind != "fixed" and m.trump.suit is not None:
        raise spec.error(("trump", "suit"), f"only a fixed trump names its suit (kind is '{m.trump.kind}')")
    if m.trump.kind == "bid-winner" and m.bidding.kind == "none":
        raise spec.error(("trump", "kind"), "the bid winner chooses trump: needs bidding.kind = \"tricks\"")
    if m.play.lead == "bid-winner" and m.bidding.kind == "none":
        raise spec.error(("play", "lead"), "the bid winner leads: needs bidding.kind = \"tricks\"")
    if m.play.when_void == "trump" and m.trump.kind == "none":
        raise spec.error(("play", "when_void"), "'trump' needs a trump suit (trump.kind is 'none')")
    if m.play.unbroken_suit is not None and m.play.unbroken_suit not in suits:
        raise spec.error(("play", "unbroken_suit"), f"no suit '{m.play.unbroken_suit}' in the deck"
                         f"{_closest(m.play.unbroken_suit, suits)}")
    if m.play.lead == "holder" and m.play.first_lead_card is None:
        raise spec.error(("play", "first_lead_card"), "lead = \"holder\" needs the card whose holder leads")
    if m.bidding.last_bidder_may_not_make_total and m.bidding.kind == "none":
        raise spec.error(("bidding", "last_bidder_may_not_make_total"), "needs bidding.kind = \"tricks\"")
    if m.scoring.exact_bid or m.scoring.off_bid_per_trick or m.scoring.nil:
        if m.bidding.kind == "none":
            key = "exact_bid" if m.scoring.exact_bid else "off_bid_per_trick" if m.scoring.off_bid_per_trick else "nil"
            raise spec.error(("scoring", key), "scores a bid, but bidding.kind is \"none\"")
    # every card, suit and rank name the file uses must exist (checked per player count: a card
    # removed at one count may still be named by a rule)
    names = set(card_names(m))
    for key, values in (("first_lead_card", [m.play.first_lead_card] if m.play.first_lead_card else []),):
        for name in values:
            if name not in names:
                raise spec.error(("play", key), f"no card '{name}' in the deck{_closest(name, names)}")
    if isinstance(m.deal.upcard, str) and m.deal.upcard not in names:
        raise spec.error(("deal", "upcard"), f"no card '{m.deal.upcard}' in the deck{_closest(m.deal.upcard, names)}")
    for location, values in ((("deck", "remove"), m.deck.remove),
                             *((("deck", "players", k, "remove"), v.remove) for k, v in m.deck.players.items())):
        for name in values:
            if name not in names:
                raise spec.error(location, f"no card '{name}' in the deck{_closest(name, names)}")
    keys = names | set(suits) | set(all_ranks(m))
    for section, key, values in (("trick", "reverse_if_played", m.trick.reverse_if_played),
                                 ("trick", "always_wins", m.trick.always_wins),
                                 ("play", "breaking_cards", m.play.breaking_cards)):
        for name in values:
            if name not in keys:
                raise spec.error((section, key), f"'{name}' is no card, suit or rank{_closest(name, keys)}")
    for key in m.scoring.card_points:
        if key not in keys:
            raise spec.error(("scoring", "card_points"), f"'{key}' is no card, suit or rank{_closest(key, keys)}")
    if m.hooks is not None:
        hooks_of(spec)  # the module loads and its hooks take the arguments they are given
    if m.decision:
        names = [d.name for d in m.decision]
        if len(names) > MAX_DECISIONS:
            raise spec.error(("decision",), f"{len(names)} decisions: the engine keeps {MAX_DECISIONS}")
        for k, decision in enumerate(m.decision):
            if decision.name in names[:k]:
                raise spec.error(("decision",), f"two decisions are named '{decision.name}'")
            allowed = {"before-bidding": ("each", "dealer", "leader", "chance"),
                       "before-play": ("each", "dealer", "leader", "chance"),
                       "after-card": ("player", "chance"), "after-trick": ("winner", "leader", "chance")}[decision.at]
            if decision.who not in allowed:
                whom = {"before-bidding": "before the bidding", "before-play": "before the play",
                        "after-card": "after a card", "after-trick": "after a trick"}[decision.at]
                raise spec.error(("decision",), f"decision '{decision.name}' arises {whom}: who is "
                                 + ", ".join(f'"{w}"' for w in allowed) + f", not \"{decision.who}\"")
        found = hooks_of(spec) if m.hooks is not None else {}
        missing = [h for h in ("decision_options", "decision_apply") if h not in found]
        if missing:
            raise spec.error(("decision",), f"decisions need the hooks {' and '.join(missing)} (hooks.module)")
    if m.scoring.moon and not any(m.scoring.card_points.values()):
        raise spec.error(("scoring", "moon"), "shooting the moon needs cards with points (scoring.card_points)")


def suit_symbols(m: RulesFile) -> list[str]:
    """The short symbol of each suit, as card names use it (``QS``): ``deck.symbols``, else the
    suits' first letters, upper case."""
    suits = m.deck.suits
    if m.deck.symbols is not None:
        return list(m.deck.symbols)
    return [s[:1].upper() for s in suits]


def card_name(m: RulesFile, rank: str, symbol: str) -> str:
    """A card's name: rank then suit symbol (``QS``), or the other way round (deck.name_order)."""
    return f"{symbol}{rank}" if m.deck.name_order == "suit-rank" else f"{rank}{symbol}"


def card_names(m: RulesFile) -> list[str]:
    """Every card of the full deck (before removals), suit by suit, low rank first, then the extra cards."""
    return [card_name(m, rank, symbol) for symbol in suit_symbols(m) for rank in m.deck.ranks] + [
        e.name for e in m.deck.extra]


def all_suits(m: RulesFile) -> list[str]:
    """deck.suits, then the suits only extra cards belong to (deck.extra), in the order they appear."""
    out = list(m.deck.suits)
    for e in m.deck.extra:
        if e.suit not in out:
            out.append(e.suit)
    return out


def all_ranks(m: RulesFile) -> list[str]:
    """deck.ranks, low to high, then the ranks only extra cards have: above every rank of the
    file, in the order they appear (a Wizard outranks an ace of its suit)."""
    out = list(m.deck.ranks)
    for e in m.deck.extra:
        if e.rank not in out:
            out.append(e.rank)
    return out


def deck_of(spec, players: int) -> list[tuple[int, int, str]]:
    """(suit, rank, name) of every card in play with ``players`` players, in deck-index order."""
    m = spec.model
    removed = list(m.deck.remove)
    extra = m.deck.players.get(str(players))
    if extra is not None:
        removed += extra.remove
    out = []
    for k, symbol in enumerate(suit_symbols(m)):
        for r, rank in enumerate(m.deck.ranks):
            name = card_name(m, rank, symbol)
            if name in removed:
                continue
            out.extend([(k, r, name)] * m.deck.copies)
    suits, ranks = all_suits(m), all_ranks(m)
    for e in m.deck.extra:
        if e.name not in removed:
            out.extend([(suits.index(e.suit), ranks.index(e.rank), e.name)] * e.copies)
    return out


def hand_sizes_of(spec, players: int, deck: int) -> list[int]:
    """deal.hand_size at ``players`` players, one a round: a number for every round, or the list
    (a hand that grows, or shrinks); by default the deck shared out evenly (less one card for a
    turned-up trump)."""
    m = spec.model
    size = m.deal.hand_size
    if isinstance(size, dict):
        size = size.get(str(players))
    if size is None:
        size = (deck - (1 if m.trump.kind == "turned-up" else 0)) // players
    return list(size) if isinstance(size, list) else [size] * m.game.rounds


def hand_size_of(spec, players: int, deck: int) -> int:
    """The largest hand of the game at ``players`` players (``hand_sizes_of``)."""
    return max(hand_sizes_of(spec, players, deck))


# --------------------------------------------------------------------------------------------
# hooks: compiled Python for what the keys cannot say

HOOKS = {  # name -> the arguments the play loop calls it with, and what it returns
    "legal": ("hand, table, rules, cards, masks, first_trick",
              "the cards of ``hand`` (a uint64 mask) that may be played now"),
    "trick_winner": ("table, n_played, candidate, cards, masks, rules, trump",
                     "the position in play order of the card that takes the trick's first n_played cards "
                     "(plus ``candidate`` after them when it is >= 0)"),
    "trick_points": ("table, n_played, cards, masks, rules",
                     "the points the trick's winner takes for the n_played cards on the table"),
    "score_round": ("table, n_tricks, cards, masks, rules, scores",
                    "nothing: it sets ``scores[s]``, each seat's score for the round (it holds the keys' "
                    "own, a team's added up under game.teams), from the round's n_tricks tricks in the "
                    "table's record (T_RECORD); partners must be left one score"),
    "decision_options": ("decision, seat, hand, table, rules, cards, masks",
                         "the options seat ``seat`` has now in [[decision]] number ``decision`` (from 0) as a "
                         "mask (bit k = option k); 0: it is not asked"),
    "decision_apply": ("decision, seat, choice, hands, table, rules, cards, masks",
                       "nothing: what the choice does, on the public table: the trump (T_TRUMP), who leads the "
                       "next trick (T_NEXT_LEADER), the round's counters (T_COUNTER + k) and each seat's for the "
                       "whole game (T_SEAT_COUNTER + seat * SEAT_COUNTERS + k); and to the cards, through "
                       "simcore/games/trick/moves.py only (take the upcard, discard, exchange, sit out)"),
    "next_leader": ("table, winner, cards, masks, rules",
                    "the seat that leads the next trick (the trick just won is on the table: its cards in "
                    "T_PLAY, its winner ``winner``): a card whose player leads next even when it loses"),
    "count_events": ("table, n_tricks, cards, masks, rules, events",
                     "nothing: at a round's end it adds to ``events[k]`` how often the k-th event of the "
                     "module's EVENTS happened in the round (its tricks in the table's record)"),
    "suit_of": ("card, trump, cards",
                "the suit (an index) card ``card`` belongs to in play, trump ``trump`` (-1: none): a bower "
                "that belongs to trump; the engine counts voids and tricks won by a trump by it"),
    "hand_size": ("round, totals, rules",
                  "how many cards each player is dealt in round ``round`` (from 0), at most that round's "
                  "deal.hand_size (the most the engine keeps room for), at least 1; ``totals[s]`` is each "
                  "seat's score so far (a hand that depends on the score)"),
    "legal_bids": ("rules, table, n_players, bids_made, hand_size",
                   "the bids allowed now as a mask (bit b = bid b), ``bids_made`` bids made so far this "
                   "round (the bids in table[T_BID + s], -1 not yet)"),
}


def hooks_path(spec: Spec) -> Path:
    """The hooks module of a rules file, relative to the file's folder."""
    return Path(spec.path).parent / spec.model.hooks.module


def hooks_of(spec: Spec, module_out: list | None = None) -> dict:
    """The rules file's hooks: {name: function} for each of HOOKS the module defines, with the
    arguments HOOKS gives it; anything else is one line naming the file and the hook.  Plain
    Python (the reference engine runs them so; kernel.py's ``compiled_hooks`` compiles them for
    the play loop from the module, which ``module_out`` receives)."""
    import importlib.util
    import inspect
    import sys

    path = hooks_path(spec)
    where = ("hooks", "module")
    if not path.is_file():
        raise spec.error(where, f"no hooks module {path}")
    # named by its text, as its compiled build is (hooks_digest): a cached build finds it by that name
    name = f"balance_hooks_{hashlib.sha256(path.read_bytes()).hexdigest()[:16]}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    # importable by its name, as a plug-in is (simcore/plugins/): a compiled score_round is
    # called, not inlined, and a cached play loop finds it again through its module's name
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the designer's code: one line, whatever it raised
        raise spec.error(where, f"{path} does not load: {type(exc).__name__}: {exc}") from None
    found = {}
    for hook, (args, _) in HOOKS.items():
        fn = getattr(module, hook, None)
        if fn is None:
            continue
        fn = getattr(fn, "py_func", fn)
        if not callable(fn):
            raise spec.error(where, f"{path}: '{hook}' is not a function")
        got = ", ".join(inspect.signature(fn).parameters)
        if got != args:
            raise spec.error(where, f"{path}: hook {hook}({got}) must take ({args})")
        found[hook] = fn
    if not found:
        raise spec.error(where, f"{path} defines none of the hooks {', '.join(HOOKS)}")
    declared = hook_events(module)
    if declared is None:
        raise spec.error(where, f"{path}: EVENTS must be a list of at most {MAX_HOOK_EVENTS} (column, label, unit) "
                         "triples: a column name of lower-case letters, digits and _, any label, and the unit "
                         "its rate is per (\"game\", \"round\" or \"trick\"), no column the run has already")
    if declared and "count_events" not in found:
        raise spec.error(where, f"{path} declares EVENTS but no count_events hook counts them")
    if "count_events" in found and not declared:
        raise spec.error(where, f"{path}: count_events counts the events of EVENTS, which it does not declare")
    if module_out is not None:
        module_out.append(module)
    return found


MAX_HOOK_EVENTS = 4  # rules.MAX_HOOK_EVENTS
# the columns a run already has (rules.COUNTER_NAMES and the game index): no event may take one
TAKEN_COLUMNS = ("game", "leads_won", "trumped_tricks", "reversed_tricks", "moons", "exact_bids", "rounds_played",
                 "tricks_played", "bids_made", "capped")


def hook_events(module) -> list[tuple[str, str, str]] | None:
    """A hooks module's EVENTS: [(column, label, unit)], [] when it declares none, None when it is
    not such a list (the caller's one line)."""
    declared = getattr(module, "EVENTS", [])
    if not isinstance(declared, (list, tuple)) or len(declared) > MAX_HOOK_EVENTS:
        return None
    out = []
    for entry in declared:
        if (not isinstance(entry, (list, tuple)) or len(entry) != 3 or not all(isinstance(x, str) for x in entry)
                or not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", entry[0]) or entry[2] not in ("game", "round", "trick")
                or entry[0] in [e[0] for e in out] or entry[0] in TAKEN_COLUMNS
                or entry[0].startswith(("score_", "share_", "hand_"))):
            return None
        out.append(tuple(entry))
    return out


def events_of(spec: Spec) -> list[tuple[str, str, str]]:
    """The events a rules file's hooks declare (none without hooks)."""
    if spec.model.hooks is None:
        return []
    module = []
    hooks_of(spec, module)
    return hook_events(module[0]) or []


def hooks_digest(spec: Spec) -> str | None:
    """The hooks module's hash (None without hooks): what keys its compiled build."""
    if spec.model.hooks is None:
        return None
    return hashlib.sha256(hooks_path(spec).read_bytes()).hexdigest()[:16]

"""A tune space: what `balance tune` may change in a game's rules, within which ranges, and the
targets a candidate must meet (docs/tune.md).

    game = "triatri"
    players = 3
    variant = "triatri-double-two.toml"      # the rules to start from (relative to this file)

    [[change]]
    key = "two_factor"                      # a variant key of the game (balance games)
    range = [1, 10]                         # whole numbers 1..10 (or values = [...], or add/remove)

    [[target]]
    figure = "card_strength"                # the card strength of every card (or cards = [...])
    within = 2.0                            # every interval inside ±2 pp
    tier = "random"                         # every seat plays this skill tier

    [budget]
    candidates = 16
    rungs = [1000, 3000, 9000]              # games per candidate at each racing rung
    keep = 3                                # one in 3 goes on to the next rung
    finalists = 3
    final_games = 20000                     # fresh games per finalist (or precision = 0.5 pp)

Everything is checked here, before a game is played: the game, every key and its range (each
value of a range the rules refuse is named), the targets, the budget.  A problem is one line
naming the file (``BalanceError``, exit code 2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from simcore.errors import BalanceError

FIGURES = {
    "first_seat_edge": "seat 1's win share minus the fair share 1/N, in percentage points",
    "seat_shares": "every seat's win share minus the fair share 1/N, in percentage points (the worst seat counts)",
    "game_length": "rounds, tricks or turns per game (unit = ...)",
    "card_strength": "each card's change of its holder's win share, in percentage points (the worst card counts)",
    "skill_gap": "one player of the tier among players of the tier below, its win share minus 1/N, in pp",
}
TOP_KEYS = {"game", "players", "variant", "name", "description", "change", "target", "budget"}
CHANGE_KEYS = {"key", "range", "step", "values", "add", "remove", "original"}
TARGET_KEYS = {"figure", "tier", "within", "band", "at_least", "at_most", "unit", "cards", "field"}
BUDGET_KEYS = {"candidates", "rungs", "keep", "finalists", "final_games", "precision"}
DEFAULT_BUDGET = {"candidates": 16, "rungs": [1000, 3000, 9000], "keep": 3, "finalists": 3, "final_games": 20000}
MAX_CANDIDATES = 500
MAX_GAMES = 10**9
SCAN_LIMIT = 64  # whole-number ranges up to this many values are checked value by value


@dataclass(frozen=True)
class Change:
    """One thing the tuner may change.  ``kind``: "int" or "float" (``low``..``high``, ``step``),
    "choice" (one of ``values``), "cards" (a list key: each of ``optional`` in or out of the
    ``original`` list).  ``original`` is the value in the rules tuned from."""

    key: str
    kind: str
    original: object
    low: float | None = None
    high: float | None = None
    step: float | None = None
    values: tuple = ()
    optional: tuple = ()

    def describe(self) -> str:
        if self.kind in ("int", "float"):
            return f"{self.key} in {self.low:g}..{self.high:g}" + (f" step {self.step:g}" if self.step else "")
        if self.kind == "choice":
            return f"{self.key} one of {', '.join(_fmt(v) for v in self.values)}"
        adds = [c for c in self.optional if c not in self.original]
        drops = [c for c in self.optional if c in self.original]
        parts = ([f"add any of {', '.join(map(str, adds))}"] if adds else []) + \
                ([f"remove any of {', '.join(map(str, drops))}"] if drops else [])
        return f"{self.key}: " + "; ".join(parts)

    def distance(self, value) -> float:
        """How far ``value`` is from the original, 0..1: the share of the range moved, 1 for
        another choice, the share of the optional cards toggled."""
        if self.kind in ("int", "float"):
            span = self.high - self.low
            return min(abs(value - self.original) / span, 1.0) if span > 0 else 0.0
        if self.kind == "choice":
            return 0.0 if value == self.original else 1.0
        toggled = sum((card in value) != (card in self.original) for card in self.optional)
        return toggled / len(self.optional)


@dataclass(frozen=True)
class Target:
    """A figure that must lie inside [low, high] (either end may be open), its whole 95%
    interval, at a skill tier (every seat plays ``tier``; for skill_gap one ``tier`` player
    among ``field`` players)."""

    figure: str
    tier: str
    low: float | None
    high: float | None
    unit: str | None = None
    cards: tuple = ()
    field: str | None = None

    @property
    def label(self) -> str:
        what = {"first_seat_edge": "first-seat edge", "seat_shares": "every seat's edge",
                "game_length": f"{self.unit}s per game", "card_strength": "every card's strength"
                if not self.cards else f"strength of {', '.join(self.cards)}",
                "skill_gap": f"one {self.tier} among {self.field}"}[self.figure]
        return f"{what} ({self.tier})" if self.figure != "skill_gap" else what

    @property
    def unit_text(self) -> str:
        return "per game" if self.figure == "game_length" else "pp"

    @property
    def band(self) -> str:
        unit = "" if self.figure == "game_length" else " pp"
        if self.low is not None and self.high is not None:
            if self.low == -self.high:
                return f"within ±{self.high:g}{unit}"
            return f"within {self.low:+g}..{self.high:+g}{unit}" if unit else f"within {self.low:g}..{self.high:g}"
        if self.low is not None:
            return f"at least {self.low:+g}{unit}" if unit else f"at least {self.low:g}"
        return f"at most {self.high:+g}{unit}" if unit else f"at most {self.high:g}"

    @property
    def scale(self) -> float:
        """What a miss is measured in: half the band, or 1 (pp or unit) for an open band."""
        if self.low is not None and self.high is not None and self.high > self.low:
            return (self.high - self.low) / 2
        return 1.0

    def outside(self, interval) -> bool:
        """Whether the whole 95% interval lies outside the band: the figure cannot meet the target
        (the evidence that rules a candidate out, as "inside" is the evidence that it meets it)."""
        low, high = interval
        if low is None or high is None:
            return False
        return (self.high is not None and low > self.high) or (self.low is not None and high < self.low)

    def miss(self, interval) -> float | None:
        """How far the 95% interval reaches outside the band (0: it lies inside, the target is met)."""
        low, high = interval
        if low is None or high is None:
            return None
        out = 0.0
        if self.high is not None:
            out = max(out, high - self.high)
        if self.low is not None:
            out = max(out, self.low - low)
        return out


@dataclass(frozen=True)
class Budget:
    candidates: int
    rungs: tuple[int, ...]
    keep: int
    finalists: int
    final_games: int
    precision: float | None = None  # pp: final_games came from it


@dataclass(frozen=True)
class Space:
    path: Path
    game: str
    players: int
    variant_path: Path | None
    name: str
    description: str
    changes: tuple[Change, ...]
    targets: tuple[Target, ...]
    budget: Budget
    text: str  # the file as read: a resumed tune must be the same space

    def tiers(self) -> list[str]:
        """The tiers whose runs (every seat one tier) the targets read, in the order given."""
        return list(dict.fromkeys(t.tier for t in self.targets if t.figure != "skill_gap"))


def _fmt(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load_space(path: str | Path, players: int | None = None) -> Space:
    """Read and check a tune space; every problem is one line naming the file."""
    from simcore.registry import GAMES, get_game, known_game
    from simcore.variants import read_toml

    path = Path(path)
    data = read_toml(path, "tune space")
    text = path.read_text(encoding="utf-8-sig")
    where = str(path)
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise BalanceError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(sorted(TOP_KEYS))})")
    name = data.get("game")
    if not isinstance(name, str):
        raise BalanceError(f"{where}: a tune space must say which game it tunes, e.g. game = \"triatri\"")
    if not known_game(name):
        raise BalanceError(f"{where}: unknown game '{name}' (known: {', '.join(sorted(GAMES))}, or a rules file's "
                           "path)")
    game = get_game(name)
    count = players if players is not None else data.get("players")
    if isinstance(count, bool) or not isinstance(count, int):
        raise BalanceError(f"{where}: 'players' must be a whole number, one of {', '.join(map(str, game.player_counts))}")
    if count not in game.player_counts:
        raise BalanceError(f"{where}: {game.title} is played by {', '.join(map(str, game.player_counts))} players, "
                           f"not {count}")
    variant_path = None
    if "variant" in data:
        if not isinstance(data["variant"], str):
            raise BalanceError(f"{where}: 'variant' must be the path of a variant file, relative to the space file")
        variant_path = (path.parent / data["variant"]).resolve()
        if not variant_path.is_file():
            raise BalanceError(f"{where}: variant file {data['variant']} not found (looked at {variant_path})")
    base = game.variant(variant_path)
    game.setup(count, base)  # the rules tuned from must themselves be playable
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise BalanceError(f"{where}: '{key}' must be a string")

    raw_changes = data.get("change")
    if not isinstance(raw_changes, list) or not raw_changes or not all(isinstance(c, dict) for c in raw_changes):
        raise BalanceError(f"{where}: give at least one [[change]] table: what the tuner may change")
    changes = []
    for entry in raw_changes:
        change = _change(entry, game, count, base, where)
        if change.key in [c.key for c in changes]:
            raise BalanceError(f"{where}: change '{change.key}' is given twice")
        changes.append(change)

    raw_targets = data.get("target")
    if not isinstance(raw_targets, list) or not raw_targets or not all(isinstance(t, dict) for t in raw_targets):
        raise BalanceError(f"{where}: give at least one [[target]] table: what the tuned rules must meet")
    targets = tuple(_target(entry, game, count, base, where) for entry in raw_targets)
    budget = _budget(data.get("budget", {}), count, where)
    return Space(path=path, game=name, players=count, variant_path=variant_path,
                 name=data.get("name") or path.stem, description=data.get("description", ""),
                 changes=tuple(changes), targets=targets, budget=budget, text=text)


def _refusal(game, players, base, key, value) -> str | None:
    """Why the rules refuse ``key = value`` on the base rules (None: they accept it)."""
    try:
        game.setup(players, game.variant(base.source, {key: value}))
    except BalanceError as exc:
        return " ".join(str(exc).split()).removeprefix(f"{base.source}: ")
    return None


def _change(entry: dict, game, players: int, base, where: str) -> Change:
    unknown = sorted(set(entry) - CHANGE_KEYS)
    if unknown:
        raise BalanceError(f"{where}: [[change]] has no key '{unknown[0]}' (known: {', '.join(sorted(CHANGE_KEYS))})")
    key = entry.get("key")
    if not isinstance(key, str):
        raise BalanceError(f"{where}: every [[change]] names a variant key, e.g. key = \"two_factor\"")
    if key not in game.variant_keys:
        raise BalanceError(f"{where}: '{key}' is not a variant key of {game.name} "
                           f"(known: {', '.join(sorted(game.variant_keys))})")
    kind = game.variant_keys[key][0]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    at = f"{where}: change '{key}'"
    forms = [form for form in ("range", "values", "add", "remove") if form in entry]
    if not forms:
        raise BalanceError(f"{at}: say what it may be: range = [LOW, HIGH], values = [...], or add/remove for a list")
    if "range" in entry and len(forms) > 1:
        raise BalanceError(f"{at}: give range or values or add/remove, not {' and '.join(forms)}")
    if "values" in entry and len(forms) > 1:
        raise BalanceError(f"{at}: give range or values or add/remove, not {' and '.join(forms)}")
    original = base.settings.get(key, entry.get("original"))

    if "range" in entry:
        numeric = [k for k in (int, float) if k in kinds]
        if not numeric:
            names = "/".join(k.__name__ for k in kinds)
            raise BalanceError(f"{at}: a {names} setting has no range; give values = [...]")
        span = entry["range"]
        if not (isinstance(span, list) and len(span) == 2 and all(_number(v) for v in span)):
            raise BalanceError(f"{at}: range must be two numbers [LOW, HIGH], not {span!r}")
        whole = float not in kinds
        if whole and not all(isinstance(v, int) for v in span):
            raise BalanceError(f"{at}: '{key}' takes whole numbers, so its range must too, not {span!r}")
        low, high = span
        if low >= high:
            raise BalanceError(f"{at}: range [{low}, {high}] is empty: LOW must be below HIGH")
        step = entry.get("step")
        if step is not None and (not _number(step) or step <= 0 or (whole and not isinstance(step, int))):
            raise BalanceError(f"{at}: step must be a positive {'whole ' if whole else ''}number, not {step!r}")
        if whole:
            step = step or 1
            grid = list(range(low, high + 1, step))
            checked = grid if len(grid) <= SCAN_LIMIT else [grid[0], grid[-1]]
        else:
            grid, checked = None, [low, high]
        for value in checked:
            reason = _refusal(game, players, base, key, value)
            if reason is not None:
                raise BalanceError(f"{at}: range [{low}, {high}] holds {value}, which the rules refuse: {reason}")
        if original is None and grid is not None:
            original = _unchanged(game, players, base, key, grid)
        if original is None:
            raise BalanceError(f"{at}: the rules tuned from do not set '{key}'; say its value there with original = ...")
        if not _number(original):
            raise BalanceError(f"{at}: original must be a number, not {original!r}")
        return Change(key, "int" if whole else "float", original, low, high, step if whole or step else None)

    if "values" in entry:
        values = entry["values"]
        if not isinstance(values, list) or len(values) < 2:
            raise BalanceError(f"{at}: values must list at least two values, not {values!r}")
        from simcore.variants import _type_ok

        for value in values:
            if not _type_ok(value, kind):
                names = "/".join(k.__name__ for k in kinds)
                raise BalanceError(f"{at}: '{key}' must be {names}, not {type(value).__name__} {value!r}")
            reason = _refusal(game, players, base, key, value)
            if reason is not None:
                raise BalanceError(f"{at}: value {_fmt(value)} is refused by the rules: {reason}")
        if len({_fmt(v) for v in values}) != len(values):
            raise BalanceError(f"{at}: values repeat: {values!r}")
        if original is None:
            original = _unchanged(game, players, base, key, values)
        if original is None:
            raise BalanceError(f"{at}: the rules tuned from do not set '{key}'; say its value there with original = ...")
        return Change(key, "choice", original, values=tuple(values))

    if list not in kinds:
        raise BalanceError(f"{at}: add/remove is for list settings (a deck, a list of values); "
                           f"'{key}' is not one")
    if not isinstance(original, list):
        raise BalanceError(f"{at}: to add or remove items the list must be known: set '{key}' in the variant "
                           "tuned from, or give original = [...]")
    adds, drops = entry.get("add", []), entry.get("remove", [])
    for label, items in (("add", adds), ("remove", drops)):
        if not isinstance(items, list) or not items and label in entry:
            raise BalanceError(f"{at}: {label} must list at least one item, not {items!r}")
    for item in adds:
        if item in original:
            raise BalanceError(f"{at}: cannot add {_fmt(item)}: the list already holds it")
    for item in drops:
        if item not in original:
            raise BalanceError(f"{at}: cannot remove {_fmt(item)}: the list does not hold it")
    optional = tuple(dict.fromkeys([*drops, *adds]))
    if len(optional) != len(adds) + len(drops):
        raise BalanceError(f"{at}: an item is listed twice in add/remove")
    if adds:  # each single removal may need an addition to stay dealable: only the largest list is checked
        reason = _refusal(game, players, base, key, [*original, *adds])
        if reason is not None:
            raise BalanceError(f"{at}: adding {', '.join(_fmt(v) for v in adds)} is refused by the rules: {reason}")
    return Change(key, "cards", list(original), optional=optional)


def _unchanged(game, players: int, base, key: str, values: list):
    """The value of ``values`` that leaves the rules in force exactly as the base rules have them
    (found by building the rules: a key the variant does not set has its published value)."""
    from simcore.digests import setup_digest

    wanted = setup_digest(game.setup(players, base))
    for value in values:
        try:
            variant = game.variant(base.source, {key: value}) if base.source else game.variant(None, {key: value})
            if setup_digest(game.setup(players, variant)) == wanted:
                return value
        except BalanceError:
            continue
    return None


def _bound(value, at: str, what: str):
    if not _number(value):
        raise BalanceError(f"{at}: {what} must be a number, not {value!r}")
    return float(value)


def _target(entry: dict, game, players: int, base, where: str) -> Target:
    from analysis.skill import tiers_of

    unknown = sorted(set(entry) - TARGET_KEYS)
    if unknown:
        raise BalanceError(f"{where}: [[target]] has no key '{unknown[0]}' (known: {', '.join(sorted(TARGET_KEYS))})")
    figure = entry.get("figure")
    if figure not in FIGURES:
        raise BalanceError(f"{where}: target figure {figure!r} is not one of {', '.join(FIGURES)}")
    at = f"{where}: target {figure}"
    tiers = tiers_of(game) or list(game.builtin_strategies())
    tier = entry.get("tier", "heuristic" if figure == "skill_gap" else "random")
    if tier not in tiers:
        raise BalanceError(f"{at}: tier {tier!r} is not a skill tier of {game.name} (tiers: {', '.join(tiers)})")
    given = [k for k in ("within", "band", "at_least", "at_most") if k in entry]
    if not given:
        raise BalanceError(f"{at}: say where it must lie: within = X, band = [LOW, HIGH], at_least or at_most")
    if "within" in given and len(given) > 1 or "band" in given and len(given) > 1:
        raise BalanceError(f"{at}: give within, band, or at_least/at_most, not {' and '.join(given)}")
    low = high = None
    if "within" in entry:
        half = _bound(entry["within"], at, "within")
        if half <= 0:
            raise BalanceError(f"{at}: within must be positive (±X), not {entry['within']!r}")
        low, high = -half, half
    elif "band" in entry:
        band = entry["band"]
        if not (isinstance(band, list) and len(band) == 2):
            raise BalanceError(f"{at}: band must be [LOW, HIGH], not {band!r}")
        low, high = _bound(band[0], at, "band's LOW"), _bound(band[1], at, "band's HIGH")
    else:
        if "at_least" in entry:
            low = _bound(entry["at_least"], at, "at_least")
        if "at_most" in entry:
            high = _bound(entry["at_most"], at, "at_most")
    if low is not None and high is not None and low >= high:
        raise BalanceError(f"{at}: the band [{low:g}, {high:g}] is empty")
    if figure == "game_length":
        from analysis.whatif import LENGTH_UNITS

        unit = entry.get("unit")
        if unit not in LENGTH_UNITS:
            raise BalanceError(f"{at}: say what is counted: unit = {' or '.join(repr(u) for u in LENGTH_UNITS)}")
    elif "unit" in entry:
        raise BalanceError(f"{at}: only game_length takes a unit")
    cards = entry.get("cards", [])
    if cards and figure != "card_strength":
        raise BalanceError(f"{at}: only card_strength takes cards")
    if figure == "card_strength":
        names = game.card_names(game.setup(players, base))
        if names is None:
            raise BalanceError(f"{at}: {game.title} deals no hands of cards: it has no card strength")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise BalanceError(f"{at}: cards must list card names as `balance cards` prints them")
        for card in cards:
            if card not in names:
                shown = ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")
                raise BalanceError(f"{at}: no card {card!r} in the rules tuned from (cards: {shown})")
    field = None
    if figure == "skill_gap":
        field = entry.get("field")
        if field is None:
            if tiers.index(tier) == 0:
                raise BalanceError(f"{at}: {tier} is the lowest tier: there is no tier below it to beat")
            field = tiers[tiers.index(tier) - 1]
        elif field not in tiers or field == tier:
            raise BalanceError(f"{at}: field {field!r} must be another skill tier of {game.name} ({', '.join(tiers)})")
    elif "field" in entry:
        raise BalanceError(f"{at}: only skill_gap takes a field")
    return Target(figure, tier, low, high, entry.get("unit"), tuple(cards), field)


def _budget(raw, players: int, where: str) -> Budget:
    if not isinstance(raw, dict):
        raise BalanceError(f"{where}: [budget] must be a table")
    unknown = sorted(set(raw) - BUDGET_KEYS)
    if unknown:
        raise BalanceError(f"{where}: [budget] has no key '{unknown[0]}' (known: {', '.join(sorted(BUDGET_KEYS))})")
    values = {**DEFAULT_BUDGET, **raw}
    at = f"{where}: budget"
    for key in ("candidates", "keep", "finalists", "final_games"):
        value = values[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BalanceError(f"{at}.{key} must be a positive whole number, not {value!r}")
    if values["candidates"] > MAX_CANDIDATES:
        raise BalanceError(f"{at}.candidates: at most {MAX_CANDIDATES}, not {values['candidates']}")
    if values["keep"] < 2:
        raise BalanceError(f"{at}.keep must be at least 2 (one in KEEP candidates goes on), not {values['keep']}")
    rungs = values["rungs"]
    if (not isinstance(rungs, list) or not rungs or
            not all(isinstance(n, int) and not isinstance(n, bool) and 10 * players <= n <= MAX_GAMES for n in rungs)):
        raise BalanceError(f"{at}.rungs must list game counts from {10 * players} to {MAX_GAMES:,}, not {rungs!r}")
    if any(b <= a for a, b in zip(rungs, rungs[1:])):
        raise BalanceError(f"{at}.rungs must grow: {rungs!r}")
    precision = None
    if "precision" in raw:
        precision = raw["precision"]
        if "final_games" in raw:
            raise BalanceError(f"{at}: give final_games or precision, not both")
        if not _number(precision) or not 0 < precision < 50:
            raise BalanceError(f"{at}.precision must be a number of percentage points between 0 and 50, "
                               f"not {precision!r}")
        values["final_games"] = games_for_precision(float(precision), players)
    return Budget(values["candidates"], tuple(rungs), values["keep"], values["finalists"], values["final_games"],
                  precision)


def games_for_precision(precision_pp: float, players: int) -> int:
    """Games that give a win share near the fair share 1/N a 95% interval of ±precision pp:
    n = 1.96² p(1−p) / h², rounded up to a thousand."""
    share = 1.0 / players
    half = precision_pp / 100
    return int(math.ceil(1.959964 ** 2 * share * (1 - share) / half ** 2 / 1000) * 1000)

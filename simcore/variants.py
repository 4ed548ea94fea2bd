"""Variant files: TOML tables of rule changes, checked against each game's schema.

A variant file names its game and changes any of the game's variant keys::

    game = "bird-weather"
    name = "no reversal"
    reversal = false

Unknown keys, wrong types and impossible decks are refused with one line saying
what is wrong; the game module decides what is impossible.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from simcore.errors import BalanceError

# key -> (python type(s), one-line description); every game adds its own keys
COMMON_KEYS = {
    "game": (str, "which game this variant is for"),
    "name": (str, "a short name shown in reports"),
    "description": (str, "free text shown in reports"),
}


@dataclass(frozen=True)
class Variant:
    game: str
    name: str = "default"
    description: str = ""
    settings: dict = field(default_factory=dict)  # game keys that differ from the defaults
    source: str | None = None  # file it came from

    def to_dict(self) -> dict:
        return {"game": self.game, "name": self.name, "description": self.description, **self.settings}


def _type_ok(value, kind) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False  # TOML true is not an int
    if isinstance(value, list):
        return list in kinds
    return isinstance(value, kinds)


LIMIT = 2**31 - 1  # every game's own checks come after this one: no number can overflow its arrays
MAX_ITEMS = 1000


def _sized(value) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return -LIMIT <= value <= LIMIT
    if isinstance(value, float):
        return value == value and abs(value) <= LIMIT
    if isinstance(value, list):
        return len(value) <= MAX_ITEMS and all(_sized(v) for v in value)
    if isinstance(value, dict):
        return len(value) <= MAX_ITEMS and all(_sized(v) for v in value.values())
    return not isinstance(value, str) or len(value) <= 10_000


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_settings(game: str, settings: dict, keys: dict, where: str) -> dict:
    """Refuse unknown keys and wrong types; return the game settings (no common keys)."""
    out = {}
    for key, value in settings.items():
        if key in COMMON_KEYS:
            continue
        if key not in keys:
            known = ", ".join(sorted(keys))
            raise BalanceError(f"{where}: unknown key '{key}' for {game} (known: {known})")
        kind = keys[key][0]
        if not _type_ok(value, kind):
            names = "/".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise BalanceError(f"{where}: '{key}' must be {names}, not {type(value).__name__} {_short(value)}")
        if not _sized(value):
            raise BalanceError(f"{where}: '{key}' holds a number beyond ±{LIMIT:,} (or a list of more than "
                               f"{MAX_ITEMS} items): no rule of any game needs one")
        out[key] = value
    return out


def parse_variant(game: str, data: dict, keys: dict, where: str) -> Variant:
    named = data.get("game", game)
    if named != game:
        raise BalanceError(f"{where}: this variant is for '{named}', not '{game}'")
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise BalanceError(f"{where}: '{key}' must be a string")
    settings = check_settings(game, data, keys, where)
    name = data.get("name") or (Path(where).stem if where.endswith(".toml") else "custom")
    return Variant(game=game, name=name, description=data.get("description", ""), settings=settings, source=where)


def read_toml(path: str | Path, what: str, text: str | None = None) -> dict:
    """A TOML file (or its already-read ``text``) as a dict; any problem is one line naming it."""
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")  # a BOM (Windows editors) is not an error
        except FileNotFoundError:
            raise BalanceError(f"{what} not found: {path}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise BalanceError(f"cannot read {what} {path}: {exc}") from None
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise BalanceError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise BalanceError(f"{path}: not valid TOML: nested too deeply") from None


def load_variant(game: str, path: str | Path | None, keys: dict) -> Variant:
    """Read a variant file for ``game`` (None: the default rules)."""
    if path is None:
        return Variant(game=game)
    path = Path(path)
    data = read_toml(path, "variant file")
    if "game" not in data:
        raise BalanceError(f"{path}: a variant file must say which game it is for, e.g. game = \"{game}\"")
    return parse_variant(game, data, keys, str(path))

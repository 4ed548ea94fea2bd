"""A game's variant keys as the page's controls, and a change from the page checked into a variant.

Every key of ``game.variant_keys`` is a control: a toggle (bool), a number (int, float), a choice
(a rules file's fixed words), the list of its items (a deck, a list of values: items to take out,
put in or change), or its value as TOML-like text (anything else).  A control shows the key's
published value where it can be known: a rules file states every value (its defaults included);
a built-in game's value is read off the rules in force (``Setup``) and kept only where setting it
leaves those rules exactly as they are (the same ``setup_digest``), so a value shown is one that
changes nothing.  A key whose published value cannot be read that way (a per-player-count
override such as ``target_3``) is shown empty: "as published".
"""
from __future__ import annotations

import typing
from dataclasses import dataclass, field

import numpy as np

from simcore.errors import BalanceError

KINDS = ("bool", "int", "float", "choice", "list", "text")


@dataclass
class Control:
    key: str
    kind: str
    description: str
    value: object = None  # the published value; None: as published (not readable)
    choices: list = field(default_factory=list)
    section: str = ""

    def to_dict(self) -> dict:
        return {"key": self.key, "kind": self.kind, "description": self.description, "value": self.value,
                "choices": self.choices, "section": self.section}


def _kinds(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _plain(value):
    """A value of the rules in force as JSON sees it (tuples and arrays as lists)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def control_kind(kind, choices) -> str:
    kinds = _kinds(kind)
    if choices:
        return "choice"
    if kinds == (bool,):
        return "bool"
    if kinds == (int,):
        return "int"
    if set(kinds) <= {int, float} and float in kinds:
        return "float"
    if kinds == (list,):
        return "list"
    return "text"


def _rules_file_choices(key: str) -> list[str]:
    from simcore.games.trick.rulesfile import SECTIONS

    section, _, name = key.partition(".")
    model = SECTIONS.get(section)
    if model is None or name not in model.model_fields:
        return []
    annotation = model.model_fields[name].annotation
    found = []
    for arg in (typing.get_args(annotation) if typing.get_origin(annotation) is not typing.Literal else (annotation,)):
        if typing.get_origin(arg) is typing.Literal:
            found += list(typing.get_args(arg))
    return [c for c in found if isinstance(c, str)]


def controls(game, players: int, published) -> list[Control]:
    """The controls of ``game`` at ``players``, with their published values."""
    spec = getattr(game, "spec", None)
    if spec is not None:  # a rules file: every value is stated (defaults included)
        dumped = spec.model.model_dump()
        found = []
        for key, (kind, _) in game.variant_keys.items():
            section, _, name = key.partition(".")
            choices = _rules_file_choices(key)
            value = (dumped.get(section) or {}).get(name) if isinstance(dumped.get(section), dict) else None
            found.append(Control(key, control_kind(kind, choices), f"[{section}] {name}", _plain(value), choices, section))
        return found
    from simcore.digests import setup_digest

    setup = game.setup(players, published)
    wanted = setup_digest(setup)
    found = []
    for key, (kind, text) in game.variant_keys.items():
        value = _plain(getattr(setup, key, None))
        if value is not None:
            try:
                trial = game.variant(published.source, {**published.settings, key: value})
                if setup_digest(game.setup(players, trial)) != wanted:
                    value = None
            except BalanceError:
                value = None
        if key in published.settings:
            value = _plain(published.settings[key])
        found.append(Control(key, control_kind(kind, []), text, value))
    return found


def coerce(game, key: str, value):
    """A value from the page as the variant key takes it: a whole number where a float key is
    given one (JSON has one number type), otherwise as sent; an unknown key is refused."""
    if key not in game.variant_keys:
        raise BalanceError(f"'{key}' is not a variant key of {game.title}")
    kinds = _kinds(game.variant_keys[key][0])
    if isinstance(value, int) and not isinstance(value, bool) and float in kinds and int not in kinds:
        return float(value)
    if isinstance(value, str) and control_kind(kinds, []) == "text" and kinds != (str,):  # as TOML writes it
        import tomllib

        try:
            return tomllib.loads(f"value = {value}")["value"]
        except tomllib.TOMLDecodeError:
            if str not in kinds:
                raise BalanceError(f"'{key}': {value!r} is not a value (write it as in the rules file, "
                                   f"e.g. 3, true, [1, 2] or {{a = 1}})") from None
    return value


def text_settings(game, players: int, text: str) -> dict:
    """A rules file's edited text as dotted overrides of the file (what a variant file can say),
    checked as the rules file itself is: one line naming the line and key where it is wrong."""
    import tomllib

    from simcore.games.trick.game import flatten
    from simcore.games.trick.rulesfile import parse_rules

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BalanceError(f"{game.path}: not TOML: {exc}") from None
    try:
        parse_rules(data, game.path, text, {}, counts=(players,))
    except BalanceError as exc:  # "my-game.toml: deal.hand_size (line 20): ...": said beside that key's control too
        words = str(exc).removeprefix(f"{game.path}: ").split()
        exc.key = words[0] if words and words[0] in game.variant_keys else None
        raise
    before, after = flatten(game.spec.raw), flatten(data)
    removed = [key for key in before if key not in after]
    if removed:
        error = BalanceError(f"{game.path}: '{removed[0]}' was removed; a version can change a key's value, "
                             f"not drop it (set it to the value you want instead)")
        error.key = removed[0]
        raise error
    return {key: value for key, value in after.items() if before.get(key, _MISSING) != value}


_MISSING = object()


def checked_variant(game, players: int, published, settings: dict, name: str = "studio", description: str = ""):
    """The variant of the published rules with ``settings`` changed, checked by building its rules
    at ``players``; a refusal is a ``BalanceError`` naming the key it is about (``.key``)."""
    from dataclasses import replace

    merged = dict(published.settings)
    for key, value in settings.items():
        merged[key] = coerce(game, key, value)
    try:
        variant = game.variant(published.source, merged) if merged else published
        game.setup(players, variant)
    except BalanceError as exc:
        message = " ".join(str(exc).split())
        if published.source:
            message = message.removeprefix(f"{published.source}: ")
        error = BalanceError(message)
        error.key = next((k for k in settings if f"'{k}'" in message or k in message.split()), None)
        if error.key is None and len(settings) == 1:
            error.key = next(iter(settings))
        raise error from None
    return replace(variant, name=name, description=description)


def normalised(studio, taken: dict, asked) -> dict:
    """The settings as the engine took them (a whole number for a float key, text parsed), minus
    any set to its published value: the same rules are the same version."""
    published = {c.key: c.value for c in studio.controls}
    return {k: v for k, v in taken.items() if k in asked and not (published.get(k) is not None and published[k] == v)}


def version_name(studio, settings: dict) -> str:
    """A version's name from what it changes: ``reversal off; hand_size 10 → 9; cards −49 +55``."""
    published = {c.key: c.value for c in studio.controls}
    parts = []
    for key, value in settings.items():
        before = published.get(key)
        if isinstance(value, bool):
            parts.append(f"{key} {'on' if value else 'off'}")
        elif isinstance(value, list) and isinstance(before, list):
            gone = [v for v in before if v not in value]
            added = [v for v in value if v not in before]
            parts.append(f"{key} " + " ".join([f"−{v}" for v in gone] + [f"+{v}" for v in added]) if gone or added
                         else f"{key} reordered")
        elif before is not None:
            parts.append(f"{key} {before} → {value}")
        else:
            parts.append(f"{key} = {value}")
    text = "; ".join(parts) or "published rules"
    return text if len(text) <= 80 else text[:77] + "..."

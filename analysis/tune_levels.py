"""The size of a change, and the candidates of a tune space listed by size (``analysis.tune``).

The size of a change is its number of *steps* away from the rules tuned from:

- a key that is not a list (a whole number, a decimal, one of ``values``) changed: one step,
  however far it moves;
- a list key changed through ``add``/``remove`` (a deck): a *swap*, one item out and one in, is one
  step, and an item added or removed without a partner is one step too; the list's steps are
  the larger of the items removed and the items added (``−47 +49 +50 +59``: three steps).

The size of a candidate is the sum over the keys.  The rules tuned from have size 0.  Within a
size, candidates are listed by the normalised distance (``Change.distance``), then in the order
the space names its keys and values, so the listing is the same on every machine.

A size *level* is every candidate of one size.  ``level_counts`` counts them without listing
(a decimal range without a step has infinitely many); ``level_candidates`` lists one level when
it is small enough to list; ``suggest_in_level`` is a sampler's proposal for a level too large for
the budget (it may fall outside the level; the tuner then asks again).
"""
from __future__ import annotations

import itertools
import math

from analysis.tune_space import Change, Space

LIST_LIMIT = 5000  # a level with more candidates than this is never listed (it is sampled)


def _same(change: Change, value) -> bool:
    if change.kind == "float":
        return math.isclose(float(value), float(change.original), rel_tol=1e-12, abs_tol=1e-12)
    if change.kind == "choice":
        return type(value) is type(change.original) and value == change.original
    return value == change.original


def key_steps(change: Change, value) -> int:
    """Steps of one key: 1 for any other value of a key that is not a list; for a list, the larger
    of the optional items removed and those added (a swap counts once)."""
    if change.kind == "cards":
        removed = sum(1 for c in change.optional if c in change.original and c not in value)
        added = sum(1 for c in change.optional if c not in change.original and c in value)
        return max(removed, added)
    return 0 if _same(change, value) else 1


def value_of(change: Change, params: dict):
    """The key's value in a candidate's parameters (a list: the original list with each optional
    item in or out, the additions at the end)."""
    if change.kind == "cards":
        kept = [c for c in change.original if c not in change.optional or params[f"{change.key}[{c}]"]]
        added = [c for c in change.optional if c not in change.original and params[f"{change.key}[{c}]"]]
        return kept + added
    return params[change.key]


def steps_of(params: dict, space: Space) -> int:
    """The size of a candidate: the sum of its keys' steps."""
    return sum(key_steps(change, value_of(change, params)) for change in space.changes)


# --------------------------------------------------------------------------------------------
# each key's values, by steps
# --------------------------------------------------------------------------------------------

def _grid(change: Change):
    """The values a key that is not a list may take, as a sequence (a range for whole numbers), or
    None for a decimal range without a step (infinitely many)."""
    if change.kind == "int":
        return range(int(change.low), int(change.high) + 1, int(change.step or 1))
    if change.kind == "float":
        if not change.step:
            return None
        count = int(math.floor((change.high - change.low) / change.step + 1e-9)) + 1
        return _FloatGrid(change.low, change.step, count)
    return list(change.values)


class _FloatGrid:
    def __init__(self, low: float, step: float, count: int):
        self.low, self.step, self.count = low, step, count

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        if not 0 <= i < self.count:
            raise IndexError(i)
        return round(self.low + i * self.step, 12)


def has_original(change: Change) -> bool:
    """Whether the value of the rules tuned from is one the space allows (then "unchanged" is a
    candidate value of the key; otherwise every candidate moves the key)."""
    if change.kind == "cards":
        return True
    grid = _grid(change)
    if grid is None:
        return change.low <= change.original <= change.high
    return _index(change, grid) is not None


def _index(change: Change, grid):
    if isinstance(grid, range):
        return grid.index(change.original) if change.original in grid else None
    for i in range(len(grid)):
        if _same(change, grid[i]):
            return i
    return None


def others(change: Change):
    """(how many values other than the original, the i-th of them), or (inf, None) for a decimal
    range without a step."""
    grid = _grid(change)
    if grid is None:
        return math.inf, None
    at = _index(change, grid)
    if at is None:
        return len(grid), lambda i: grid[i]
    return len(grid) - 1, lambda i: grid[i] if i < at else grid[i + 1]


def key_counts(change: Change) -> list:
    """How many values of the key have 0, 1, 2, ... steps (a list: the subsets of its optional
    items; ``math.inf`` for a decimal range without a step)."""
    if change.kind == "cards":
        removable = sum(1 for c in change.optional if c in change.original)
        addable = len(change.optional) - removable
        counts = [0] * (max(removable, addable) + 1)
        for r in range(removable + 1):
            for a in range(addable + 1):
                counts[max(r, a)] += math.comb(removable, r) * math.comb(addable, a)
        return counts
    n, _ = others(change)
    return [1 if has_original(change) else 0, n]


def level_counts(space: Space) -> list:
    """How many candidates each size has: index k is the number of size k (``math.inf`` where a
    decimal range without a step is in it)."""
    total = [1]
    for change in space.changes:
        counts = key_counts(change)
        new = [0] * (len(total) + len(counts) - 1)
        for i, a in enumerate(total):
            for j, b in enumerate(counts):
                if a and b:
                    new[i + j] += a * b
        total = new
    return total


def _key_options(change: Change, steps: int) -> list[dict]:
    """Every value of the key with exactly ``steps`` steps, as candidate parameters."""
    if change.kind == "cards":
        removable = [c for c in change.optional if c in change.original]
        addable = [c for c in change.optional if c not in change.original]
        out = []
        for r in range(min(steps, len(removable)) + 1):
            for a in range(min(steps, len(addable)) + 1):
                if max(r, a) != steps:
                    continue
                for gone in itertools.combinations(removable, r):
                    for new in itertools.combinations(addable, a):
                        out.append({f"{change.key}[{c}]": (c in change.original and c not in gone) or c in new
                                    for c in change.optional})
        return out
    if steps == 0:
        return [{change.key: change.original}] if has_original(change) else []
    if steps > 1:
        return []
    n, nth = others(change)
    return [{change.key: nth(i)} for i in range(n)]


def settings_of(params: dict, space: Space) -> tuple[dict, list[str], float]:
    """(variant settings that differ from the rules tuned from, the keys changed, the normalised
    distance of the change: the sum of each key's distance, 0..1 each)."""
    settings, changed, size = {}, [], 0.0
    for change in space.changes:
        if change.kind == "cards":
            kept = [c for c in change.original if c not in change.optional or params[f"{change.key}[{c}]"]]
            added = [c for c in change.optional if c not in change.original and params[f"{change.key}[{c}]"]]
            value = kept + added
        else:
            value = params[change.key]
        distance = change.distance(value)
        if distance > 0 or (change.kind == "choice" and value != change.original):
            settings[change.key] = value
            changed.append(change.key)
            size += distance
    return settings, changed, size


def level_candidates(space: Space, size: int) -> list[dict] | None:
    """Every candidate of one size as parameters, smallest distance first (None: the level has
    more than ``LIST_LIMIT`` candidates, or infinitely many)."""
    counts = level_counts(space)
    if size >= len(counts) or counts[size] == 0:
        return []
    if counts[size] > LIST_LIMIT:
        return None
    per_key = [key_counts(change) for change in space.changes]
    found: list[dict] = []

    def walk(k: int, left: int, params: dict):
        if k == len(space.changes):
            if left == 0:
                found.append(dict(params))
            return
        rest = sum(len(c) - 1 for c in per_key[k + 1:])  # the most steps the later keys can take
        for steps in range(min(left, len(per_key[k]) - 1) + 1):
            if left - steps > rest or not per_key[k][steps]:
                continue
            for option in _key_options(space.changes[k], steps):
                walk(k + 1, left - steps, {**params, **option})

    walk(0, size, {})
    order = {id(p): i for i, p in enumerate(found)}
    return sorted(found, key=lambda p: (round(settings_of(p, space)[2], 12), order[id(p)]))


def suggest_in_level(trial, space: Space) -> dict:
    """A sampler's proposal for a level too large to try whole: for each key that is not a list,
    whether it moves and to which of its other values; for a list, each optional item in or out.
    The tuner keeps the proposal only if it has the level's size."""
    params = {}
    for change in space.changes:
        if change.kind == "cards":
            for card in change.optional:
                params[f"{change.key}[{card}]"] = trial.suggest_categorical(f"{change.key}[{card}]", [True, False])
            continue
        moved = trial.suggest_categorical(f"{change.key}:moved", [False, True]) if has_original(change) else True
        if not moved:
            params[change.key] = change.original
            continue
        n, nth = others(change)
        if nth is None:
            params[change.key] = trial.suggest_float(change.key, change.low, change.high)
        else:
            params[change.key] = nth(trial.suggest_int(f"{change.key}:value", 0, n - 1))
    return params


def sampler_params(params: dict, space: Space) -> dict:
    """A candidate's parameters as ``suggest_in_level`` names them (to hand a candidate to the
    sampler: ``study.enqueue_trial``)."""
    out = {}
    for change in space.changes:
        if change.kind == "cards":
            for card in change.optional:
                out[f"{change.key}[{card}]"] = params[f"{change.key}[{card}]"]
            continue
        value = params[change.key]
        moved = not _same(change, value)
        if has_original(change):
            out[f"{change.key}:moved"] = moved
        if not moved:
            continue
        n, nth = others(change)
        if nth is None:
            out[change.key] = value
        else:
            out[f"{change.key}:value"] = next(i for i in range(n) if _equal(change, nth(i), value))
    return out


def _equal(change: Change, a, b) -> bool:
    if change.kind == "float":
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)
    return type(a) is type(b) and a == b


def random_in_level(rng, space: Space, size: int, tries: int = 200) -> dict | None:
    """A candidate of the size drawn at random (``rng``: a seeded ``random.Random``): each key moves
    with even odds, to any of its other values; a list: each optional item in or out with even
    odds; asked again until the draw has the size (None after ``tries`` draws)."""
    for _ in range(tries):
        params = {}
        for change in space.changes:
            if change.kind == "cards":
                for card in change.optional:
                    params[f"{change.key}[{card}]"] = rng.random() < 0.5
                continue
            if has_original(change) and rng.random() < 0.5:
                params[change.key] = change.original
                continue
            n, nth = others(change)
            params[change.key] = rng.uniform(change.low, change.high) if nth is None else nth(rng.randrange(n))
        if steps_of(params, space) == size:
            return params
    return None


def size_words(size: int) -> str:
    """``one-step``, ``two-step``, ... (``size-12``)."""
    names = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    return f"{names[size]}-step" if size < len(names) else f"size-{size}"

"""Measuring one set of rules for `balance tune` (``analysis.tune``): every target's figure with
its 95% interval, paired with the rules tuned from on the same games.

The first-seat edge, every seat's share (Wilson intervals) and game length (delta method), and
their paired changes, come from ``analysis.whatif`` (``moments`` / ``compare``); card strength
from ``analysis.cards``; the skill gap (one player of a tier among the tier below, once in each
seat on the same deals) from ``analysis.ladder.play_rung`` and
``analysis.tournament.clustered_rate``, its change paired deal by deal.
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import polars as pl

from analysis.tune_space import Space
from simcore.errors import BalanceError
from simcore.parts import scan_run


def settings_key(value) -> str:
    """A canonical text of settings or parameters: equal values, equal keys."""
    return json.dumps(value, sort_keys=True)


class Measurer:
    """Plays a set of rules at a game count and seed and reads every target's figure, paired with
    the rules tuned from on the same games.  Runs of the rules tuned from are kept for reuse."""

    def __init__(self, space: Space, scratch: Path, threads: int | None, announce: bool):
        from simcore.registry import get_game

        self.space, self.scratch, self.threads, self.announce = space, scratch, threads, announce
        self.game = get_game(space.game)
        self.base = self.game.variant(space.variant_path)
        self.players = space.players
        self.kept: dict = {}           # (settings, tier, games, seed) -> (path, meta) of the rules tuned from
        self.skill_kept: dict = {}     # (hero, field, deals, seed) -> per-deal shares of the rules tuned from
        self.cards_kept: dict = {}     # (tier, games, seed) -> card table of the rules tuned from
        self.games_played = 0

    def variant(self, settings: dict):
        from dataclasses import replace

        variant = self.game.variant(self.space.variant_path, settings) if settings else self.base
        return replace(variant, name=self.base.name if not settings else "candidate")

    def _run(self, settings: dict, tier: str, games: int, seed: int):
        from simcore.driver import run_games

        key = (settings_key(settings), tier, games, seed)
        if key in self.kept:
            return self.kept[key]
        variant = self.variant(settings)
        setup = self.game.setup(self.players, variant)
        lineup = self.game.lineup([tier] * self.players, self.players)
        name = hashlib.sha1(settings_key(key).encode()).hexdigest()[:16]
        result = run_games(self.game, setup, lineup, variant, seed, games, threads=self.threads,
                           out=self.scratch / f"{name}.parquet", progress=False, force=True, announce=self.announce)
        self.games_played += games
        found = (result.path, result.meta)
        if not settings:
            self.kept[key] = found
        return found

    def _skill(self, settings: dict, hero: str, field: str, deals: int, seed: int) -> np.ndarray:
        from analysis.ladder import play_rung

        key = (hero, field, deals, seed)
        if not settings and key in self.skill_kept:
            return self.skill_kept[key]
        variant = self.variant(settings)
        setup = self.game.setup(self.players, variant)
        per_deal = play_rung(self.game, setup, variant, hero, field, deals, seed, self.threads, lambda n: None,
                             announce=self.announce)
        self.games_played += deals * self.players
        if not settings:
            self.skill_kept[key] = per_deal
        return per_deal

    def _cards(self, path, meta) -> dict:
        from analysis.cards import card_strength

        table = card_strength(scan_run(path), meta).collect()
        return {row["card"]: row for row in table.to_dicts()}

    def measure(self, settings: dict, games: int, seed: int) -> list[dict]:
        """Every target's figure for the rules ``settings`` (overrides of the rules tuned from) on
        games 0..games-1 of ``seed``: value and 95% interval, the same for the rules tuned from,
        the paired change, how far the interval misses the target and whether it is met."""
        from analysis.whatif import compare, headline_figures, moments

        out = []
        compared = {}
        for tier in self.space.tiers():
            wanted = [t for t in self.space.targets if t.tier == tier and t.figure != "skill_gap"]
            base_path, base_meta = self._run({}, tier, games, seed)
            path, meta = self._run(settings, tier, games, seed)
            columns = set(scan_run(path).collect_schema().names())
            figures = headline_figures([base_meta, meta], columns)
            keys = {f.key for f in figures}
            for target in wanted:
                if target.figure == "game_length" and f"length:{target.unit}" not in keys:
                    counted = [k.split(":")[1] for k in keys if k.startswith("length:")]
                    raise BalanceError(f"{self.space.path}: target game_length: the runs of {self.game.name} do not "
                                       f"count {target.unit}s per game (they count: {', '.join(counted) or 'none'})")
            needed = [f for f in figures if f.kind in ("advantage", "share", "length")]
            m = moments([base_path, path], needed, [base_meta, meta], columns, [(0, 1)])
            compared[tier] = {f.key: compare(f, m, 0, 1, 0.95) for f in needed}
            if any(t.figure == "card_strength" for t in wanted):
                card_key = (tier, games, seed)
                if card_key not in self.cards_kept:
                    self.cards_kept[card_key] = self._cards(base_path, base_meta)
                compared[tier]["cards"] = (self.cards_kept[card_key], self._cards(path, meta))
        for target in self.space.targets:
            if target.figure == "skill_gap":
                out.append(self._skill_figure(target, settings, games, seed))
            elif target.figure == "card_strength":
                out.append(self._card_figure(target, *compared[target.tier]["cards"]))
            else:
                out.append(self._row_figure(target, compared[target.tier]))
        for entry in out:
            entry["games"] = games
        if not settings:
            for entry in out:  # the rules tuned from against themselves: no change, exactly
                entry.update(change=0.0, change_ci=[0.0, 0.0])
        return out

    def _judged(self, target, value, ci, original, original_ci, change, change_ci, detail="") -> dict:
        miss = target.miss(ci)
        return {"value": value, "ci": ci, "original": original, "original_ci": original_ci, "change": change,
                "change_ci": change_ci, "miss": miss, "met": miss == 0.0, "detail": detail,
                "excluded": target.outside(ci)}

    @staticmethod
    def _worst(judged: list[dict]) -> dict:
        """The entry furthest outside the target (the one shown); ``excluded`` when any entry's
        whole interval lies outside it, ``excluded_by`` naming the first such entry."""
        worst = dict(max(judged, key=lambda e: (e["miss"] if e["miss"] is not None else math.inf, abs(e["value"] or 0))))
        out = [e for e in judged if e["excluded"]]
        worst["excluded"] = bool(out)
        if out and not worst.get("excluded_by"):
            first = max(out, key=lambda e: e["miss"] or 0.0)
            worst["excluded_by"] = {"detail": first["detail"], "value": first["value"], "ci": first["ci"]}
        return worst

    def _row_figure(self, target, rows: dict) -> dict:
        fair = 1.0 / self.players

        def scaled(row, shift=0.0, scale=100.0):
            def one(v):
                return None if v is None else scale * (v - shift)
            return (one(row["variant"]), [one(v) for v in row["variant_ci"]], one(row["baseline"]),
                    [one(v) for v in row["baseline_ci"]],
                    None if row["change"] is None else scale * row["change"],
                    [None if v is None else scale * v for v in row["change_ci"]])

        if target.figure == "first_seat_edge":
            return self._judged(target, *scaled(rows["advantage"]))
        if target.figure == "game_length":
            return self._judged(target, *scaled(rows[f"length:{target.unit}"], scale=1.0))
        seats = [self._judged(target, *scaled(rows[f"share_{s}"], shift=fair), detail=f"seat {s + 1}")
                 for s in range(self.players)]
        return self._worst(seats)

    def _card_figure(self, target, original: dict, candidate: dict) -> dict:
        names = target.cards or [name for name, row in candidate.items() if row["delta"] is not None]
        judged = []
        for name in names:
            row = candidate.get(name)
            if row is None or row["delta"] is None:
                continue  # not in this deck (removed), or never varied: nothing to be out of line
            before = original.get(name) or {}
            value, ci = 100 * row["delta"], [100 * row["ci_low"], 100 * row["ci_high"]]
            base = 100 * before["delta"] if before.get("delta") is not None else None
            base_ci = [100 * before["ci_low"], 100 * before["ci_high"]] if base is not None else [None, None]
            judged.append(self._judged(target, value, ci, base, base_ci,
                                       None if base is None else value - base, [None, None], detail=name))
        if not judged:
            return {"value": None, "ci": [None, None], "original": None, "original_ci": [None, None], "change": None,
                    "change_ci": [None, None], "miss": 0.0, "met": True, "detail": "no card of the target is dealt",
                    "excluded": False}
        return self._worst(judged)

    def _skill_figure(self, target, settings: dict, games: int, seed: int) -> dict:
        from analysis import stats
        from analysis.tournament import clustered_rate

        players = self.players
        fair = 1.0 / players
        deals = max(2, games // players)
        base = self._skill({}, target.tier, target.field, deals, seed)
        mine = self._skill(settings, target.tier, target.field, deals, seed)
        figures = []
        for per_deal in (mine, base):
            rate = clustered_rate(per_deal * players, players, fair)
            figures += [100 * (rate["rate"] - fair), [100 * (v - fair) for v in rate["ci"]]]
        difference = mine - base  # the same deals, so the change is paired deal by deal
        spread = float(difference.std(ddof=1)) if deals > 1 else math.nan
        change = 100 * float(difference.mean())
        low, high = stats.mean_interval(float(difference.mean()), spread, deals)
        change_ci = [100 * low, 100 * high] if math.isfinite(low) else [None, None]
        return self._judged(target, *figures, change, change_ci, detail=f"{deals * players:,} seatings")



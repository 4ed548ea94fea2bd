"""The Sky City of ALEA as the driver, CLI and tests see it: setup, chunk runs with trap
tallies, round logs, replays."""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from simcore.errors import BalanceError
from simcore.game import Columns, Event, Game, per_seat, used_rows
from simcore.lineup import Lineup
from simcore.games.sky_city import rules as sc

_CHUNK = threading.local()  # .tallies: this thread's last chunk's trap tallies, until taken


class SkyCity(Game, rules=sc):
    strong_strategy = "expected-value"
    play_unit = "dice rolls"
    duplicate_deals = False
    duplicate_deals_refused = ("ALEA deals no hands: its chance is the dice, and the dice follow the roller "
                               "(docs/rules/sky-city-of-alea.md, \"Duplicate deals\")")

    def plays_in_log(self, setup, log: dict) -> int:
        """The dice rolled in one logged game (every die of every round's roll)."""
        return sum(len(r["dice"]) for r in log["rounds"])
    events = (
        Event("first_roll_triggers", "Round ended at the first roll", "round"),
        Event("escapes", "Escape attempts", "round"),
        Event("escapes_succeeded", "Successful escapes", "round"),
        Event("zero_bonuses", "0-declarers paid the bonus", "round"),
        Event("all_zero_rounds", "Everyone declared 0", "round"),
        Event("capped", "Game hit the round cap", "game"),
        Event("rolloff", "Tie settled by roll-off", "game"),
    )

    @property
    def assumed(self):
        return ("17 of the 22 default trap cards are ASSUMED (docs/rules/sky-city-of-alea.md, Project rulings); so is using all 22 at every player count",)

    def build_setup(self, players, variant):
        # a trap deck named in a variant file is found beside that file
        base = Path(variant.source).parent if variant.source and variant.source.endswith(".toml") else None
        return sc.make_setup(players, variant.settings, base)

    # --- runs -------------------------------------------------------------------------
    one_contract = True
    # judged, fired, stats: summed over a chunk's games (each thread its own), the state's tallies
    tally_outputs = {3: "judged", 4: "fired_tally", 5: "trap_stats"}

    def kernel_inputs(self, setup) -> tuple:
        return (setup.rules, setup.codes, setup.trap_ids, setup.odds)

    def chunk_outputs(self, setup, n: int) -> tuple[np.ndarray, ...]:
        rows, width = len(setup.full_deck), setup.odds.shape[1]
        return (np.zeros((n, setup.players), dtype=np.int16), np.zeros(n, dtype=np.int64),
                np.zeros((n, sc.N_COUNTERS), dtype=np.uint16), np.zeros((rows, width), dtype=np.int64),
                np.zeros((rows, width), dtype=np.int64), np.zeros((rows, sc.N_TRAP_STATS), dtype=np.int64))

    def record(self, setup, scores, winners, counters, judged, fired, stats) -> list:
        """The rows; the chunk's fresh-dice trap tallies are kept for ``take_tallies``."""
        n, p = len(winners), setup.players
        _CHUNK.tallies = {"judged": judged.tolist(), "fired": fired.tolist(), "stats": stats.tolist(),
                          "rounds": int(counters[:, sc.C_ROUNDS].sum()), "games": n}
        shares = np.stack([(winners == s).astype(np.float32) for s in range(p)])
        return [Columns(scores, per_seat("score", p), games_first=True), Columns(shares, per_seat("share", p)),
                {"winner": winners.astype(np.int8)}, Columns(counters, sc.COUNTER_NAMES, games_first=True)]

    def check_lineup(self, setup, lineup: Lineup) -> None:
        slot = self.strategy_module().P_FIXED_K  # the players, through the registry
        for seat, name in enumerate(lineup.names):
            k = lineup.params[seat, slot]
            if name.partition(":")[0] == "fixed" and k > setup.dice_per_player:
                raise BalanceError(f"strategy '{name}': K must be 0 to {setup.dice_per_player}, the dice each player "
                                   "has in this variant")

    def take_tallies(self) -> dict | None:
        """The tallies of the chunk this thread played last (chunks play side by side on the
        driver's threads, each taken by the thread that played it)."""
        tallies, _CHUNK.tallies = getattr(_CHUNK, "tallies", None), None
        return tallies

    def finish_run(self, setup, tallies: dict | None = None) -> dict:
        """Run-level figures for the metadata: mean rounds (the per-round rates' denominator)
        and the fresh-dice trap judgements with the exact odds beside them."""
        names = list(setup.full_deck.names)
        in_use = set(int(i) for i in setup.trap_ids)
        rows, width = len(setup.full_deck), setup.odds.shape[1]
        if tallies is None:
            tallies = {"judged": np.zeros((rows, width), dtype=np.int64), "fired": np.zeros((rows, width), dtype=np.int64),
                       "stats": np.zeros((rows, sc.N_TRAP_STATS), dtype=np.int64), "rounds": 0, "games": 0}
        judged, fired = np.asarray(tallies["judged"], dtype=np.int64), np.asarray(tallies["fired"], dtype=np.int64)
        stats = np.asarray(tallies["stats"], dtype=np.int64)
        odds_full = np.zeros_like(judged, dtype=np.float64)
        for row, trap_id in enumerate(setup.trap_ids):
            odds_full[trap_id] = setup.odds[row]
        return {
            "rounds_per_game": int(tallies["rounds"]) / max(int(tallies["games"]), 1),
            "trap_tallies": {"names": names, "in_use": sorted(in_use), "judged": judged.tolist(),
                             "fired": fired.tolist(), "exact": odds_full.tolist(),
                             "assumed": [t.assumed for t in setup.full_deck.traps],
                             "conditions": [t.when for t in setup.full_deck.traps],
                             "stats": {name: stats[:, k].tolist() for k, name in enumerate(sc.TRAP_STAT_NAMES)}},
        }

    def metadata(self, setup) -> dict:
        return {**super().metadata(setup), "trap_deck": setup.full_deck.source or "bundled default",
                "assumed_traps": [t.name for t in setup.full_deck.traps if t.assumed]}

    # --- logs ----------------------------------------------------------------------------
    def log_buffers(self, setup, k: int) -> tuple[np.ndarray, ...]:
        return (np.full((k, setup.max_rounds, sc.LOG_WIDTH), -1, dtype=np.int64),
                np.zeros((k, sc.MAX_PLAYERS), dtype=np.int64), np.zeros((k, sc.N_COUNTERS), dtype=np.int64),
                np.zeros(k, dtype=np.int64))

    def log_dict(self, setup, log, totals, counters, winner: int) -> dict:
        rounds = []
        for row in used_rows(log, sc.L_ROUND):
            n_dice = int(row[sc.L_NDICE])
            rounds.append({
                "round": int(row[sc.L_ROUND]), "trap": setup.full_deck.traps[row[sc.L_TRAP]].name,
                "trap_index": int(row[sc.L_TRAP]), "final": bool(row[sc.L_FINAL]),
                "declared": [int(x) for x in row[sc.L_DECLARED:sc.L_DECLARED + setup.players]],
                "dice": [int(x) for x in row[sc.L_DICE:sc.L_DICE + n_dice]],
                "points": [int(x) for x in row[sc.L_POINTS:sc.L_POINTS + setup.players]],
                "ended_by": sc.ENDED_NAMES[row[sc.L_ENDED]],
            })
        return {"game": self.name, "players": setup.players, "rounds": rounds,
                "scores": [int(x) for x in totals[:setup.players]], "winner": int(winner),
                "shares": [1.0 if s == winner else 0.0 for s in range(setup.players)],
                "counters": {name: int(counters[c]) for c, name in enumerate(sc.COUNTER_NAMES)}}

    def reference_rules(self, setup):
        return reference_rules(setup)

    # --- scenarios --------------------------------------------------------------------------
    def scenario(self, data: dict, where: str, lineup_spec=None, plugin_paths=()) -> dict:
        """Scripted rounds (docs/scenarios.md, ALEA section) through both engines.  The reference
        checks the scenario and plays it; the compiled engine replays the same traps,
        declarations and draws and must reach the same dice, points, endings and scores."""
        from simcore.games.sky_city import reference as ref
        from simcore.scenarios import field

        setup = self.scenario_setup(data, where, {"start_scores", "final", "rounds"})
        rounds = field(data, "rounds", list, where)
        final = data.get("final", False)
        if not isinstance(final, bool):
            raise BalanceError(f"{where}: 'final' must be true or false")
        try:
            record = ref.play_scenario(reference_rules(setup), rounds, data.get("start_scores"), final)
        except BalanceError as exc:
            raise BalanceError(f"{where}: {exc}") from None
        p = setup.players
        usable = {int(t): row for row, t in enumerate(setup.trap_ids)}
        trap_script = np.array([usable[r.trap_index] for r in record.rounds], dtype=np.int64)
        declare_script = np.zeros((len(record.rounds), sc.MAX_PLAYERS), dtype=np.int64)
        draws = []
        for k, r in enumerate(record.rounds):
            declare_script[k, :p] = r.declared
            ties = iter(r.tiebreak)
            for event in r.rolls:
                if event.get("kind") == "escape" and len(event.get("tied", ())) >= 2:
                    draws.append(next(ties))
                draws += [face - 1 for face in event["dice"]]
        if record.rolloff:
            tied = [s for s in range(p) if record.scores[s] == max(record.scores)]
            draws.append(tied.index(record.winner))
        start = np.zeros(sc.MAX_PLAYERS, dtype=np.int64)
        start[:p] = data.get("start_scores") or [0] * p
        _, played = self.kernel_position(setup, self.lineup("random", p), start, final,
                                         (trap_script, declare_script, np.array(draws, dtype=np.int64)))
        compiled = self.log_dict(setup, *played)
        reference = {"rounds": [{"round": r.round, "trap": r.trap, "trap_index": r.trap_index, "final": r.final,
                                 "declared": list(r.declared), "dice": [d for e in r.rolls for d in e["dice"]],
                                 "points": list(r.points), "ended_by": r.ended_by} for r in record.rounds],
                     "scores": list(record.scores), "winner": -1 if record.winner is None else record.winner}
        self.require_agreement(all(compiled[key] == reference[key] for key in ("rounds", "scores", "winner")), where)
        compiled.update(engines_agree=True, finished=record.finished, start_scores=[int(x) for x in start[:p]])
        return compiled

    def kernel_position(self, setup, lineup, start_scores, final: bool, scripts, log=None):
        """The compiled loop on scripted rounds (``scripts`` = traps as rows of the deck in force,
        declarations, draws) from ``start_scores`` (int64[MAX_PLAYERS]) and the final-round flag,
        a round a scripted trap: its status and ``log_dict``'s arguments (``log``, one row a
        round, filled in place).  A strategy asked draws from game 0 of run 0's PLAY streams."""
        from simcore.rng import SCENARIO_KEYS, SCENARIO_SEED

        if log is None:
            log = np.full((len(scripts[0]), sc.LOG_WIDTH), -1, dtype=np.int64)
        inputs = self.kernel_inputs(setup)
        state = lineup.kernels.new_state(inputs, False)._replace(log=log)
        status = lineup.kernels.play_scenario(state, (SCENARIO_SEED, SCENARIO_KEYS), (start_scores, np.int64(final)),
                                              inputs, (lineup.ids, lineup.params), scripts)
        return int(status), (log, state.totals, state.counters, int(state.work[lineup.kernels.W_WINNER]))

    @staticmethod
    def expectations(log: dict) -> dict:
        """What a scenario's "expect" block may check."""
        return {"scores": log["scores"], "winner": log["winner"], "points": [r["points"] for r in log["rounds"]],
                "ended_by": [r["ended_by"] for r in log["rounds"]], "final": [r["final"] for r in log["rounds"]],
                "counters": log["counters"]}

    def format_log(self, log: dict) -> str:
        lines = [self.log_heading(log)]
        running = list(log.get("start_scores") or [0] * log["players"])
        for r in log["rounds"]:
            running = [a + b for a, b in zip(running, r["points"])]
            final = " FINAL (points x2)" if r["final"] else ""
            lines.append(f"round {r['round'] + 1}{final}: trap '{r['trap']}'  declared {r['declared']}")
            lines.append(f"  dice in order rolled: {' '.join(map(str, r['dice'])) or '-'}")
            lines.append(f"  {r['ended_by']}; points {r['points']}; totals {running}")
        lines.append("Scores: " + "  ".join(f"seat {s}: {v}" for s, v in enumerate(log["scores"])))
        if log["winner"] >= 0:
            lines.append(f"Winner: seat {log['winner']}" + (" (roll-off)" if log["counters"]["rolloff"] else ""))
        else:
            lines.append("(the scripted rounds end before the game does)")
        return "\n".join(lines)


def reference_rules(setup):
    from simcore.games.sky_city import reference as ref

    return ref.Rules(setup.players, setup.full_deck, setup.dice_per_player, setup.target, setup.zero_bonus,
                     setup.final_multiplier, setup.max_rounds, setup.first_failure_ends_escapes)


def reference_log(setup, seed: int, index: int, decisions_from: dict | None = None) -> dict:
    """The reference engine's game ``index`` in the compiled log's shape: random play from the
    same streams, or (``decisions_from``) a compiled log's declarations replayed and checked."""
    from simcore.games.sky_city import reference as ref

    deciders = None
    if decisions_from is not None:
        deciders = ref.ScriptedDecider([r["declared"] for r in decisions_from["rounds"]])
    record = ref.play_game(reference_rules(setup), seed, index, deciders)
    rounds = [{"round": r.round, "trap": r.trap, "trap_index": r.trap_index, "final": r.final,
               "declared": list(r.declared), "dice": [d for roll in r.rolls for d in roll["dice"]],
               "points": list(r.points), "ended_by": r.ended_by} for r in record.rounds]
    return {"game": "sky-city", "players": record.players, "rounds": rounds, "scores": list(record.scores),
            "winner": record.winner, "shares": list(record.shares), "capped": record.capped,
            "counters": dict(record.counters), "rolloff": record.rolloff}

"""Chimera Tricks as the driver, CLI and tests see it: setup, chunk runs, trick and round logs
from both engines, replays, scenarios and the game's own balance tables."""
from __future__ import annotations

import numpy as np

from simcore.errors import BalanceError
from simcore.game import Event, Game, Lineup
from simcore.games import chimera as cm
from simcore.games.chimera_run import WORK_WIDTH, deal
from simcore.jit import kernel
from simcore.rng import N_STREAMS, seed_streams

_MASK64 = (1 << 64) - 1


def _bits(mask) -> list[int]:
    """The set bit indices of a (possibly negative, int64-stored) 64-bit mask, ascending."""
    x = int(mask) & _MASK64
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


def _as_int64(mask: int) -> int:
    """A 64-bit mask as the int64 the kernels store it in."""
    return int(np.array([mask & _MASK64], dtype=np.uint64).view(np.int64)[0])


def _moves(m0, m1) -> list[str]:
    """The legal moves of two slot masks, ascending (card, slot), as "S-7@0" names."""
    return [cm.move_name(2 * c + slot) for c in _bits(int(m0) | int(m1)) for slot in (0, 1)
            if (int(m1 if slot else m0) >> c) & 1]


@kernel(globals())
def deal_openings(seed, games, rules, hands_out):
    """hands_out[k, s]: the familiars dealt to seat s in game ``games[k]`` (its round-1 hand; the
    hands pass on each round), dealt by the play loop's own ``deal``: the first draw of the DEAL stream."""
    streams = np.empty(N_STREAMS, dtype=np.uint64)
    hands = np.zeros(cm.MAX_PLAYERS, dtype=np.uint64)
    work = np.zeros(WORK_WIDTH, dtype=np.int64)
    info = np.zeros(cm.INFO_WIDTH, dtype=np.int64)
    for k in range(games.shape[0]):
        seed_streams(streams, seed, games[k])
        deal(rules, streams, hands, work, info)
        for s in range(hands_out.shape[1]):
            hands_out[k, s] = hands[s]


def field_text(suits, rank) -> str:
    """A field as the logs write it: "S+H 7" (suits ascending)."""
    return f"{'+'.join(cm.SUIT_NAMES[s] for s in suits) or 'empty'} {int(rank)}"


class Chimera(Game):
    name = cm.GAME
    title = cm.TITLE
    player_counts = cm.PLAYER_COUNTS
    max_players = cm.MAX_PLAYERS
    variant_keys = cm.VARIANT_KEYS
    strategies_module = "strategies.chimera"
    kernels_module = "simcore.games.chimera_run"
    min_score = -40  # default rules: four rounds taking every negative grimoire (-10) with no crystal
    events = (
        Event("leader_wins", "Trick won by its leader", "trick"),
        Event("sum_wins", "Trick won by a one-suit pair (rank = sum)", "trick"),
        Event("chimera_wins", "Trick won by a chimera (two suits, larger rank)", "trick"),
        Event("crystals_taken", "Crystal taken", "trick"),
        Event("crystals_missed", "Crystal owed but the supply was empty", "trick"),
        Event("deliberate_losses", "Trick won right after passing up a win (C11)", "trick"),
        Event("stacked_plays", "Card stacked on a card", "play"),
        Event("zeros", "0/10 card placed as 0", "play"),
        Event("tens", "0/10 card stacked as 10", "play"),
        Event("cannot_follow", "Follower could not follow", "follower play"),
        Event("passed_wins", "Follower passed up a win (C11)", "follower play"),
        Event("conversions", "Negative grimoire turned positive by a crystal", "seat-round"),
    )

    @property
    def assumed(self) -> tuple:
        """Notes on the ASSUMED game data (RULINGS.md) of the rules in force: those of the last
        setup built by this object, the defaults' before any."""
        return getattr(self, "_assumed", cm.DEFAULT_ASSUMED)

    def build_setup(self, players, variant):
        setup = cm.make_setup(players, variant.settings)
        self._assumed = setup.assumed
        return setup

    # --- runs --------------------------------------------------------------------
    def run_chunk(self, setup, lineup: Lineup, seed, start, n):
        p = setup.players
        # column-major outputs: every row below is one contiguous Parquet column
        scores = np.empty((p, n), dtype=np.int16)
        shares = np.empty((p, n), dtype=np.float32)
        counters = np.empty((cm.N_COUNTERS, n), dtype=np.uint32)
        seats = np.empty((cm.N_SEAT_TALLIES, n), dtype=np.int16)
        status = np.empty(n, dtype=np.int8)
        lineup.kernels.run_chunk(seed, start, n, setup.rules, setup.masks, lineup.ids, lineup.params, scores, shares,
                                 counters, seats, status)
        self.check_status(status, lineup, start, seed)
        columns = {"game": np.arange(start, start + n, dtype=np.uint64)}
        for s in range(p):
            columns[f"score_{s}"] = scores[s]
        for s in range(p):
            columns[f"share_{s}"] = shares[s]
        for c, name in enumerate(cm.COUNTER_NAMES):
            small = counters[c].max(initial=0) < 65536
            columns[name] = counters[c].astype(np.uint16) if small else counters[c]
        for s in range(p):
            columns[f"value_{s}"] = seats[cm.S_VALUE + s]
            columns[f"grimoires_{s}"] = seats[cm.S_GRIMOIRES + s].astype(np.uint16)
            columns[f"crystals_{s}"] = seats[cm.S_CRYSTALS + s].astype(np.uint16)
        return columns

    def metadata(self, setup) -> dict:
        return {**super().metadata(setup),
                "unit_columns": {"trick": "tricks", "play": "plays", "follower play": "follower_plays",
                                 "seat-round": "seat_rounds", "round": "rounds"},
                "assumed": list(setup.assumed),
                "tricks_per_round": setup.tricks, "rounds_per_game": setup.rounds,
                "seat_columns": "value_s = grimoire values taken by seat s over the game (before crystals); "
                                "grimoires_s, crystals_s = how many it took"}

    # --- the game's own tables --------------------------------------------------------
    def figures(self, frame, meta: dict, confidence: float) -> list[dict]:
        import math

        import polars as pl

        from analysis import stats
        from analysis.summary import fmt_num_ci, fmt_p, fmt_pp, mean_sd, ratio_cell, ratio_totals, seat_labels

        p = meta["players"]
        needed = ["tricks", "hand_score_sq", "passed_not_last", "won_at_0", "conversion_points"]
        needed += [f"value_{s}" for s in range(p)]
        schema = frame.collect_schema()
        if any(c not in schema for c in needed):
            return []
        # every per-game figure below is an integer, so every total is an exact integer sum: the
        # same bits on every call whatever the threads (analysis.summary, "exact totals")
        col = lambda c: pl.col(c).cast(pl.Int64)  # noqa: E731
        total = sum(col(f"score_{s}") for s in range(p))
        # p² times the variance over the seats within one game, of the players' totals and of the
        # hands' scores (which add up to the same total)
        spread = {"players_var": p * sum(col(f"score_{s}") * col(f"score_{s}") for s in range(p)) - total * total,
                  "hands_var": p * col("hand_score_sq") - total * total}
        rank_columns = [c for c in cm.COUNTER_NAMES if c.startswith("won_at_")]
        pairs = {"spread": ("players_var", "hands_var"),
                 "crystal_wins/tricks": ("crystal_wins", "tricks"),
                 "missed/crystal_wins": ("crystals_missed", "crystal_wins"),
                 "conversions/crystals": ("conversions", "crystals_taken"),
                 "passed/follower": ("passed_wins", "follower_plays"),
                 "deliberate/passed": ("deliberate_losses", "passed_not_last"),
                 "other/losses": ("loss_then_won", "losses_not_last"),
                 "single/tricks": ("single_wins", "tricks"),
                 "sum/tricks": ("sum_wins", "tricks"),
                 "chimera/tricks": ("chimera_wins", "tricks")}
        pairs.update({f"{c}/tricks": (c, "tricks") for c in rank_columns})
        # the cumulative share (won at rank k or lower) is a ratio of totals like the others, so
        # it gets the same game-clustered interval
        pairs.update({f"up_to_{k}/tricks": (f"won_up_to_{k}", "tricks") for k in range(len(rank_columns))})
        base = frame.with_columns(
            players_var=spread["players_var"], hands_var=spread["hands_var"],
            crystal_wins=col("crystals_taken") + col("crystals_missed"),
            single_wins=col("tricks") - col("sum_wins") - col("chimera_wins"),
            **{f"won_up_to_{k}": pl.sum_horizontal([col(c) for c in rank_columns[:k + 1]])
               for k in range(len(rank_columns))},
            **{f"conversion_gain_{s}": col(f"score_{s}") - col(f"value_{s}") for s in range(p)})
        exprs = [pl.len().alias("games")]
        for key, (x, y) in pairs.items():
            exprs += ratio_totals(key, pl.col(x), pl.col(y))
        means = ["crystals_taken", "conversion_points"]
        for s in range(p):
            means += [f"grimoires_{s}", f"value_{s}", f"crystals_{s}", f"conversion_gain_{s}", f"score_{s}"]
        for c in means:
            m, sd = mean_sd(pl.col(c))
            exprs += [m.alias(f"{c}:mean"), sd.alias(f"{c}:sd")]
        # A game's spread (SD over the seats) is sqrt(p² variance) / p, not an integer, and a float
        # sum of those would depend on the order the threads add them in.  p² variance is a small
        # integer (about 1,500 distinct values in 40,000 four-player games), so count the games at
        # each value (exact), then add the roots up in Python with math.fsum, which is correctly
        # rounded whatever the order of the terms.
        spreads = {"players_sd": "players_var", "hands_sd": "hands_var"}
        counted = [base.group_by(variance).agg(pl.len().alias("games")) for variance in spreads.values()]
        totals, *spread_counts = pl.collect_all([base.select(exprs), *counted], engine="streaming")
        row = totals.row(0, named=True)
        games = int(row["games"])
        for (name, variance), counts in zip(spreads.items(), spread_counts):
            weights = counts["games"].to_list()
            values = [math.sqrt(max(v, 0)) / p for v in counts[variance].to_list()]
            centre = math.fsum(w * v for w, v in zip(weights, values)) / games if games else None
            squares = math.fsum(w * (v - centre) ** 2 for w, v in zip(weights, values)) if games >= 2 else None
            row[f"{name}:mean"] = centre
            row[f"{name}:sd"] = math.sqrt(squares / (games - 1)) if games >= 2 else None

        def mean(c):
            m, sd = row[f"{c}:mean"], row[f"{c}:sd"]
            return fmt_num_ci(m, stats.mean_interval(m, sd if sd is not None else float("nan"), games, confidence))

        def ratio(key, percent=True):
            return ratio_cell(row, key, games, confidence, percent)

        rounds = meta.get("rounds_per_game")
        deal = {"title": "Does passing the hands even out the deal?",
                "note": (f"Within each of {games:,} games: the spread (standard deviation over the {p} seats) of "
                         "the players' totals against the spread of the dealt hands' scores (a hand's score = the "
                         "round scores of the seats that played it; the reference's hand_scores). With a round "
                         "per player every seat plays every hand once, so a lucky deal lifts a hand, not a "
                         "player: a small variance ratio means passing evens the deal out; 100% means it does "
                         "not" + (f" (this variant plays {rounds} round(s), {p} would pass every hand round)"
                                  if isinstance(rounds, int) and rounds < p else "") + ". Intervals treat each "
                         "game as one sample."),
                "headers": ["figure", "value [95% CI]"],
                "rows": [["spread of player totals (SD within a game)", mean("players_sd")],
                         ["spread of hand scores (SD within a game)", mean("hands_sd")],
                         ["player / hand variance ratio %", ratio("spread")]]}

        labels = seat_labels(meta)
        seats = {"title": "Grimoire value captured by seat",
                 "note": ("Per game, with normal intervals: grimoires taken, the sum of their printed values, "
                          "the crystals taken and what crystals added at scoring (score − printed values), then "
                          "the final score."),
                 "headers": ["seat", "grimoires [95% CI]", "value taken [95% CI]", "crystals [95% CI]",
                             "crystal gain [95% CI]", "score [95% CI]"],
                 "rows": [[labels[s], mean(f"grimoires_{s}"), mean(f"value_{s}"), mean(f"crystals_{s}"),
                           mean(f"conversion_gain_{s}"), mean(f"score_{s}")] for s in range(p)]}

        crystals = {"title": "Crystals",
                    "note": ("A trick won with a crystal card among the winning field's top cards earns one "
                             "crystal while the supply lasts; at scoring each crystal turns one negative grimoire "
                             "positive, the most negative first. Ratios of totals, each game one sample."),
                    "headers": ["figure", "value [95% CI]"],
                    "rows": [["crystals taken per game", mean("crystals_taken")],
                             ["tricks won with a crystal card on top %", ratio("crystal_wins/tricks")],
                             ["of those, supply empty (no crystal) %", ratio("missed/crystal_wins")],
                             ["crystals that turned a negative grimoire %", ratio("conversions/crystals")],
                             ["points gained by conversions per game", mean("conversion_points")]]}

        rank_rows = [["single card", ratio("single/tricks"), ""], ["one-suit pair (sum)", ratio("sum/tricks"), ""],
                     ["chimera (two suits)", ratio("chimera/tricks"), ""]]
        top = max((k for k, c in enumerate(rank_columns) if row[f"{c}/tricks:x"]), default=-1)
        for k, c in enumerate(rank_columns[:top + 1]):
            label = f"rank {k}" if k < cm.RANK_BINS - 1 else f"rank {k} or more"
            rank_rows.append([label, ratio(f"{c}/tricks"), ratio(f"up_to_{k}/tricks")])
        ranks = {"title": "Winning fields",
                 "note": ("Share of tricks won by each kind of field and by each field rank (a one-suit pair "
                          "adds its ranks, a chimera takes the larger; the 0/10 card is 0 in an empty slot and "
                          "10 stacked), with the cumulative share (that rank or lower). Ratios of totals over "
                          f"{games:,} games, each game one sample."),
                 "headers": ["winning field", "share of tricks % [95% CI]", "cumulative % [95% CI]"],
                 "rows": rank_rows}

        def proportion(key):
            return row[f"{key}:x"], row[f"{key}:y"]

        x1, n1 = proportion("deliberate/passed")
        x2, n2 = proportion("other/losses")
        diff = "—"
        if n1 and n2:
            d = x1 / n1 - x2 / n2
            low, high = stats.difference_interval(x1, n1, x2, n2, confidence)
            test = stats.two_proportion_z_test(x1, n1, x2, n2)
            diff = fmt_pp(100 * d, (100 * low, 100 * high)) + f"  (p {fmt_p(test.p_value)})"
        deliberate = {"title": "Losing on purpose",
                      "note": ("C11: a passed win is a follower that lost although one of its legal moves would "
                               "have won (every other play as it was); a deliberate loss is winning the next "
                               "trick of the round after one. Compared with the other seats that lost a trick "
                               "(not its last) without passing up a win: the difference's interval (Newcombe) and "
                               "p-value (pooled two-proportion z-test) treat those tricks as independent, which "
                               "tricks of one game are not, so both are approximate."),
                      "headers": ["figure", "value [95% CI]"],
                      "rows": [["follower plays that passed up a win %", ratio("passed/follower")],
                               ["after a passed win: won the next trick %", ratio("deliberate/passed")],
                               ["after another loss: won the next trick %", ratio("other/losses")],
                               ["difference", diff]]}
        return [deal, seats, crystals, ranks, deliberate]

    # --- opening hands ---------------------------------------------------------------
    def card_of_bit(self, setup) -> list[str | None]:
        return [cm.card_name(card) if card in setup.deck else None for card in range(cm.N_IDS)]

    def opening_masks(self, setup, seed: int, games: np.ndarray) -> np.ndarray:
        hands = np.zeros((len(games), setup.players), dtype=np.uint64)
        deal_openings(seed, games, setup.rules, hands)
        return hands

    # --- logs ------------------------------------------------------------------------
    def kernel_logs(self, setup, lineup: Lineup, seed: int, indices) -> list[dict]:
        indices = np.asarray(indices, dtype=np.int64)
        rows = setup.rounds * setup.tricks
        batch = max(1, min(1000, 2_000_000 // (rows * cm.LOG_WIDTH)))  # bounded memory: log in batches
        out = []
        for first in range(0, len(indices), batch):
            out += self._logged_batch(setup, lineup, seed, indices[first:first + batch])
        return out

    def _logged_batch(self, setup, lineup: Lineup, seed: int, indices: np.ndarray) -> list[dict]:
        k = len(indices)
        logs = np.full((k, setup.rounds * setup.tricks, cm.LOG_WIDTH), -9, dtype=np.int64)
        round_logs = np.full((k, setup.rounds, cm.ROUND_LOG_WIDTH), -9, dtype=np.int64)
        infos = np.zeros((k, cm.INFO_WIDTH), dtype=np.int64)
        shares = np.zeros((k, cm.MAX_PLAYERS), dtype=np.float64)
        counters = np.zeros((k, cm.N_COUNTERS), dtype=np.int64)
        status = np.zeros(k, dtype=np.int8)
        lineup.kernels.play_many_logged(seed, indices, setup.rules, setup.masks, lineup.ids, lineup.params, logs,
                                        round_logs, infos, shares, counters, status)
        self.check_status(status, lineup, indices, seed)
        return [self._log_dict(setup, logs[g], round_logs[g], infos[g], shares[g], counters[g], int(status[g]))
                for g in range(k)]

    def _log_dict(self, setup, log, round_log, info, shares, counters, status) -> dict:
        p, t = setup.players, setup.tricks
        name = cm.card_name
        cards = lambda mask: [name(c) for c in _bits(mask)]  # noqa: E731
        tricks, moves = [], []
        taken = {}
        for row in log:
            if row[cm.L_ROUND] < 0:
                break
            leader = int(row[cm.L_LEADER])
            plays = [int(row[cm.L_MOVES + i]) for i in range(p)]
            moves += [[m >> 1, m & 1] for m in plays]
            winner = int(row[cm.L_WINNER])
            taken.setdefault(int(row[cm.L_ROUND]), [[] for _ in range(p)])[winner].append(int(row[cm.L_GRIMOIRE]))
            tricks.append({
                "round": int(row[cm.L_ROUND]), "trick": int(row[cm.L_TRICK]), "leader": leader,
                "lead_suit": cm.SUIT_NAMES[int(row[cm.L_LEAD])],
                "plays": [[(leader + i) % p, cm.move_name(plays[i])] for i in range(p)],
                "fields": [field_text(_bits(row[cm.L_SUITS + s]), row[cm.L_RANKS + s]) for s in range(p)],
                "winner": winner, "grimoire": int(row[cm.L_GRIMOIRE]),
                "grimoire_value": setup.grimoires[int(row[cm.L_GRIMOIRE])], "crystal": bool(row[cm.L_CRYSTAL]),
                "crystals_left": int(row[cm.L_LEFT]), "next_grimoire": int(row[cm.L_NEXT])})
        rounds = []
        for row in round_log:
            if row[cm.G_ROUND] < 0:
                break
            r = int(row[cm.G_ROUND])
            done = bool(row[cm.G_DONE])
            rounds.append({
                "round": r, "leader": int(row[cm.G_LEADER]),
                "hands": [cards(row[cm.G_HANDS + s]) for s in range(p)],
                "hand_ids": [(s - r) % p for s in range(p)],
                "grimoires": [int(row[cm.G_ORDER + i]) for i in range(t)],
                "taken": taken.get(r, [[] for _ in range(p)]),
                "crystals": [int(row[cm.G_CRYSTALS + s]) for s in range(p)],
                "conversions": [int(row[cm.G_CONVERSIONS + s]) for s in range(p)] if done else [],
                "round_scores": [int(row[cm.G_SCORES + s]) for s in range(p)] if done else [],
                "totals_after": [int(row[cm.G_TOTALS + s]) for s in range(p)] if done else []})
        shares = [float(x) for x in shares[:p]]
        out = {"game": self.name, "players": p,
               "hands": [cards(info[cm.I_DEAL + s]) for s in range(p)],
               "boxed_familiars": cards(info[cm.I_BOXED_FAMILIARS]),
               "boxed_grimoires": _bits(info[cm.I_BOXED_GRIMOIRES]),
               "rounds": rounds, "tricks": tricks,
               "scores": [int(info[cm.I_TOTALS + s]) for s in range(p)],
               "hand_scores": [int(info[cm.I_HAND_SCORES + s]) for s in range(p)],
               "grimoires_held": [int(info[cm.I_HELD + s]) for s in range(p)],
               "crystals_held": [int(info[cm.I_CRYSTALS_HELD + s]) for s in range(p)],
               "shares": shares, "winner": shares.index(1.0) if 1.0 in shares else -1,
               "finished": status == -1,
               "counters": {n: int(counters[c]) for c, n in enumerate(cm.COUNTER_NAMES[:cm.N_REFERENCE_COUNTERS])},
               "ids": {"moves": moves}}
        return out

    def reference_game(self, setup, seed: int, index: int):
        """Game ``index`` played at random by the reference engine (what bench times)."""
        from simcore.reference import chimera as ref

        return ref.play_game(reference_rules(setup), seed, index)

    def replay(self, setup, lineup: Lineup, seed: int, index: int) -> dict:
        log = super().replay(setup, lineup, seed, index)
        log["assumed"] = list(setup.assumed)
        return log

    # --- scenarios --------------------------------------------------------------------------
    def scenario(self, data: dict, where: str, lineup_spec=None, plugin_paths=()) -> dict:
        """Scripted deal, grimoire piles and moves (docs/rules/chimera-tricks.md, "Scenarios")
        through both engines: the reference checks and plays the script, the compiled engine
        replays the same deal, piles and moves and must reach the same fields, winners,
        grimoires, crystals, scores and counters — and offer the same legal moves at every play."""
        from simcore.reference import chimera as ref
        from simcore.scenarios import field

        setup = self.scenario_setup(data, where, set(ref.SCENARIO_KEYS))
        field(data, "hands", list, where)
        field(data, "rounds", list, where)
        try:
            record = ref.play_scenario(reference_rules(setup), data)
        except BalanceError as exc:
            raise BalanceError(f"{where}: {exc}") from None
        reference = record_dict(setup, record)
        reference["legal"] = reference_legal_moves(setup, record)
        p, t = setup.players, setup.tricks
        dealt = np.zeros(cm.MAX_PLAYERS, dtype=np.int64)
        for s in range(p):
            dealt[s] = sum(1 << c for c in record.hands[s])
        in_play = np.array([g for g in range(len(setup.grimoires)) if g not in record.boxed_grimoires], dtype=np.int64)
        orders = np.array([r.grimoires for r in record.rounds], dtype=np.int64).reshape(len(record.rounds), t)
        script = np.array([card * 2 + slot for r in record.rounds for tr in r.tricks for _, card, slot in tr.plays],
                          dtype=np.int64)
        tricks = sum(len(r.tricks) for r in record.rounds)
        trick_limit = -1 if record.finished else tricks
        log = np.full((max(tricks, 1), cm.LOG_WIDTH), -9, dtype=np.int64)
        round_log = np.full((max(len(record.rounds), 1), cm.ROUND_LOG_WIDTH), -9, dtype=np.int64)
        info = np.zeros(cm.INFO_WIDTH, dtype=np.int64)
        shares = np.zeros(cm.MAX_PLAYERS, dtype=np.float64)
        counters = np.zeros(cm.N_COUNTERS, dtype=np.int64)
        lineup = self.lineup("random", p)
        status = lineup.kernels.play_scenario(
            setup.rules, setup.masks, lineup.ids, lineup.params, dealt, in_play,
            _as_int64(sum(1 << c for c in record.boxed_familiars)),
            _as_int64(sum(1 << g for g in record.boxed_grimoires)), orders, script, len(record.rounds), trick_limit,
            log, round_log, info, shares, counters)
        compiled = self._log_dict(setup, log, round_log, info, shares, counters, int(status))
        compiled["legal"] = [[_moves(row[cm.L_LEGAL + 2 * i], row[cm.L_LEGAL + 2 * i + 1]) for i in range(p)]
                             for row in log[:tricks]]
        compiled.pop("ids")
        reference.pop("ids")
        if status == -2 or compiled != reference:
            raise BalanceError(f"{where}: the compiled and reference engines disagree on this scenario "
                               "(a bug: please report it with this file)")
        compiled.update(engines_agree=True, assumed=list(setup.assumed))
        return compiled

    @staticmethod
    def expectations(log: dict) -> dict:
        """What a scenario's "expect" block may check."""
        return {"totals": log["scores"], "shares": log["shares"], "winner": log["winner"],
                "finished": log["finished"], "hand_scores": log["hand_scores"],
                "grimoires_held": log["grimoires_held"], "crystals_held": log["crystals_held"],
                "boxed_familiars": log["boxed_familiars"], "boxed_grimoires": log["boxed_grimoires"],
                "leaders": [r["leader"] for r in log["rounds"]],
                "hands": [r["hands"] for r in log["rounds"]],
                "hand_ids": [r["hand_ids"] for r in log["rounds"]],
                "piles": [r["grimoires"] for r in log["rounds"]],
                "round_scores": [r["round_scores"] for r in log["rounds"]],
                "totals_after": [r["totals_after"] for r in log["rounds"]],
                "taken": [r["taken"] for r in log["rounds"]],
                "crystals": [r["crystals"] for r in log["rounds"]],
                "conversions": [r["conversions"] for r in log["rounds"]],
                "trick_leaders": [t["leader"] for t in log["tricks"]],
                "winners": [t["winner"] for t in log["tricks"]],
                "lead_suits": [t["lead_suit"] for t in log["tricks"]],
                "fields": [t["fields"] for t in log["tricks"]],
                "grimoires": [t["grimoire"] for t in log["tricks"]],
                "next_grimoires": [t["next_grimoire"] for t in log["tricks"]],
                "crystal_tricks": [t["crystal"] for t in log["tricks"]],
                "crystals_left": [t["crystals_left"] for t in log["tricks"]],
                "legal": log.get("legal", []),
                "counters": log["counters"]}

    def format_log(self, log: dict) -> str:
        p = log["players"]
        lines = [f"{self.title}, {p} players"
                 + (f" - run seed {log['seed']}, game {log['index']}" if "seed" in log else "")
                 + (f" - {', '.join(log['strategies'])}" if log.get("strategies") else "")]
        lines += [f"!! {note}" for note in log.get("assumed", [])]
        if log["boxed_familiars"] or log["boxed_grimoires"]:
            lines.append(f"boxed for the game: familiars {' '.join(log['boxed_familiars']) or '-'}; "
                         f"grimoires {' '.join(map(str, log['boxed_grimoires'])) or '-'}")
        legal = iter(log.get("legal", []))
        tricks = iter(log["tricks"])
        pending = next(tricks, None)
        for r in log["rounds"]:
            lines.append(f"round {r['round'] + 1}: grimoire pile {r['grimoires']}; seat {r['leader']} leads")
            for s in range(p):
                lines.append(f"  seat {s} hand (dealt to seat {r['hand_ids'][s]}): {' '.join(r['hands'][s])}")
            while pending is not None and pending["round"] == r["round"]:
                tr = pending
                nxt = f", next {tr['next_grimoire']}" if tr["next_grimoire"] >= 0 else ""
                played = "  ".join(f"{s}:{m}" for s, m in tr["plays"])
                crystal = " +crystal" if tr["crystal"] else ""
                lines.append(f"  trick {tr['trick'] + 1} (grimoire {tr['grimoire']} = {tr['grimoire_value']:+d}{nxt}), "
                             f"lead {tr['lead_suit']}: {played} -> seat {tr['winner']}{crystal}")
                lines.append(f"    fields: {' | '.join(f'{s}: {f}' for s, f in enumerate(tr['fields']))}"
                             f"  (crystals left {tr['crystals_left']})")
                options = next(legal, None)
                if options is not None:
                    lines.append("    legal: " + " | ".join(f"{s}: {' '.join(o)}"
                                                          for (s, _), o in zip(tr["plays"], options)))
                pending = next(tricks, None)
            if r["round_scores"]:
                lines.append(f"  taken {r['taken']}  crystals {r['crystals']}  conversions {r['conversions']}")
                lines.append(f"  round scores {r['round_scores']}  totals {r['totals_after']}")
        lines.append("Totals: " + "  ".join(f"seat {s}: {v}" for s, v in enumerate(log["scores"]))
                     + f"  (hand scores {log['hand_scores']})")
        if any(log["shares"]):
            lines.append(self.winner_line(log["shares"]))
        else:
            lines.append("(the scripted tricks end before the game does)")
        return "\n".join(lines)


def reference_rules(setup):
    from simcore.reference import chimera as ref

    return ref.Rules(players=setup.players, suits=setup.suits, ranks=setup.ranks, zero_ten=setup.zero_ten,
                     crystal_ranks=setup.crystal_ranks, grimoires=setup.grimoires, crystals=setup.crystals,
                     rounds=setup.rounds, winner_leads=setup.winner_leads)


def record_dict(setup, record) -> dict:
    """A reference GameRecord in the compiled log's shape."""
    from simcore.reference import chimera as ref

    names = lambda cards: [ref.card_name(c) for c in sorted(cards)]  # noqa: E731
    p = record.players
    rounds = [{"round": r.round, "leader": r.leader, "hands": [names(h) for h in r.hands],
               "hand_ids": list(r.hand_ids), "grimoires": list(r.grimoires), "taken": [list(t) for t in r.taken],
               "crystals": list(r.crystals), "conversions": list(r.conversions),
               "round_scores": list(r.round_scores), "totals_after": list(r.totals_after)} for r in record.rounds]
    tricks = [{"round": t.round, "trick": t.trick, "leader": t.leader, "lead_suit": ref.SUIT_NAMES[t.lead_suit],
               "plays": [[s, ref.move_name((c, slot))] for s, c, slot in t.plays],
               "fields": [field_text(suits, rank) for suits, rank in t.fields], "winner": t.winner,
               "grimoire": t.grimoire, "grimoire_value": t.grimoire_value, "crystal": t.crystal,
               "crystals_left": t.crystals_left, "next_grimoire": t.next_grimoire}
              for r in record.rounds for t in r.tricks]
    return {"game": cm.GAME, "players": p, "hands": [names(h) for h in record.hands],
            "boxed_familiars": names(record.boxed_familiars), "boxed_grimoires": list(record.boxed_grimoires),
            "rounds": rounds, "tricks": tricks, "scores": list(record.totals), "hand_scores": list(record.hand_scores),
            "grimoires_held": list(record.grimoires_held), "crystals_held": list(record.crystals_held),
            "shares": [float(x) for x in record.shares], "winner": record.winner, "finished": record.finished,
            "counters": dict(record.counters),
            "ids": {"moves": [[c, slot] for r in record.rounds for t in r.tricks for _, c, slot in t.plays]}}


def reference_legal_moves(setup, record) -> list:
    """The reference's legal moves at every play of a record (per trick, per position), found by
    following its hands and sheets: what the scenario logs show as "legal"."""
    from simcore.reference import chimera as ref

    rules = reference_rules(setup)
    out = []
    for r in record.rounds:
        hands = [list(h) for h in r.hands]
        sheets = [[[], []] for _ in range(record.players)]
        for t in r.tricks:
            lead, row = None, []
            for seat, card, slot in t.plays:
                row.append([ref.move_name(m) for m in ref.legal_moves(rules, hands[seat], sheets[seat], lead)])
                hands[seat].remove(card)
                sheets[seat] = ref.place(rules, sheets[seat], (card, slot))
                lead = ref.suit(card) if lead is None else lead
            sheets[t.winner] = [[], []]
            out.append(row)
    return out


class _Replay:
    """Replays a compiled log's moves through the reference (which checks each one)."""

    def __init__(self, log: dict):
        self.moves = [tuple(m) for m in log["ids"]["moves"]]
        self.used = 0

    def play(self, view, seat, hand, moves):
        if self.used >= len(self.moves):
            return None
        self.used += 1
        return self.moves[self.used - 1]


def reference_log(setup, seed: int, index: int, decisions_from: dict | None = None) -> dict:
    """The reference engine's game ``index`` in the compiled log's shape: random play from the
    same streams, or (``decisions_from``) the moves of a compiled log replayed and checked."""
    from simcore.reference import chimera as ref

    decider = _Replay(decisions_from) if decisions_from is not None else None
    record = ref.play_game(reference_rules(setup), seed, index, decider)
    return record_dict(setup, record)

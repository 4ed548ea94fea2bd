"""10 TRICKS LATER as the driver, CLI and tests see it: setup, chunk runs, trick and round logs
from both engines, replays, scenarios and the game's own balance tables."""
from __future__ import annotations

import numpy as np

from simcore.bits import mask_to_list
from simcore.game import Columns, Event, Game, per_seat, used_rows
from simcore.games.ten_tricks import rules as tt
from simcore.replays import rounds_with_tricks, scenario_logs


class TenTricks(Game, rules=tt):
    one_contract = True
    events = (
        Event("capped", "Game hit the round cap (max_rounds)", "game"),
        Event("attacks", "Trick with an infected card (an attack)", "trick"),
        Event("infected_leads", "Trick led with an infected card", "trick"),
        Event("one_as_nine", "Survivor 1 ranked 9 (its colour's 8 in the trick)", "trick"),
        Event("bonus_taken", "Track at the cap at round end: +3 bonus (per seat-round)", "seat-round"),
        Event("swaps", "Infected 8 swapped in (per round)", "round"),
        Event("comeback", "A seat behind after round 1 won (per game going on with someone behind)", "contest"),
    )

    # --- runs --------------------------------------------------------------------
    def chunk_outputs(self, setup, n):
        p = setup.players  # column-major: every row is one contiguous Parquet column
        return (np.empty((p, n), dtype=np.int16), np.empty((p, n), dtype=np.float32),
                np.empty((tt.N_COUNTERS, n), dtype=np.uint32))

    def record(self, setup, scores, shares, counters):
        p = setup.players
        return [Columns(scores, per_seat("score", p)), Columns(shares, per_seat("share", p)),
                Columns(counters, tt.COUNTER_NAMES, shrink=True)]

    def metadata(self, setup) -> dict:
        return {**super().metadata(setup),
                "unit_columns": {"round": "rounds", "trick": "tricks", "seat-round": "seat_rounds",
                                 "contest": "behind_after_1"},
                "max_rounds": setup.max_rounds}

    # --- opening hands ---------------------------------------------------------------
    def card_of_bit(self, setup) -> list[str | None]:
        """Card ids 0..40; at 3 players without fixed colours every colour can be dealt (one is left
        out at random each round); infected 8 (the swap card) and unused infected are never dealt."""
        colours = setup.colours_3 if setup.players == 3 and setup.colours_3 else range(4)
        infected = {tt.FIRST_INFECTED + v for v in setup.infected_values}
        return [setup.card_name(card) if (card < tt.FIRST_INFECTED and card // 8 in colours) or card in infected
                else None for card in range(tt.N_CARDS)]

    # --- logs ------------------------------------------------------------------------
    def log_buffers(self, setup, k):
        return (np.full((k, setup.max_rounds * setup.hand_size, tt.LOG_WIDTH), -9, dtype=np.int64),
                np.full((k, setup.max_rounds, tt.ROUND_LOG_WIDTH), -9, dtype=np.int64),
                np.zeros((k, tt.MAX_PLAYERS), dtype=np.int64), np.zeros((k, tt.MAX_PLAYERS), dtype=np.float64),
                np.zeros((k, tt.N_COUNTERS), dtype=np.int64), np.zeros((k, tt.MAX_PLAYERS), dtype=np.int64))

    def log_dict(self, setup, log, round_log, scores, shares, counters, uppers) -> dict:
        p = setup.players
        name = [setup.card_name(c) for c in range(tt.N_CARDS)].__getitem__
        known = {0: ()}  # a card mask's names: most masks of a game come back trick after trick

        def names(mask):
            hit = known.get(mask)
            if hit is None:
                hit = known[mask] = tuple(map(name, mask_to_list(mask)))
            return list(hit)

        log = used_rows(log, tt.L_ROUND)
        tricks = []
        for row in log:
            leader = row[tt.L_LEADER]
            tricks.append({
                "round": row[tt.L_ROUND], "trick": row[tt.L_TRICK], "leader": leader,
                "plays": [[(leader + i) % p, name(row[tt.L_PLAYS + i])] for i in range(p)],
                "winner": row[tt.L_WINNER], "infected": row[tt.L_LEVEL] >= 0,
                "level": max(row[tt.L_LEVEL], 0), "lost": names(row[tt.L_LOST]),
                "rescued": [names(row[tt.L_RESCUED + s]) for s in range(p)],
                "tracks": row[tt.L_TRACKS:tt.L_TRACKS + p],
                "upper": [names(row[tt.L_UPPER + s]) for s in range(p)],
                "lower": [names(row[tt.L_LOWER + s]) for s in range(p)]})
        rounds = []
        for row in used_rows(round_log, tt.G_ROUND):
            done = row[tt.G_SCORES] != -9
            swap_seat = row[tt.G_SWAP_SEAT]
            rounds.append({
                "round": row[tt.G_ROUND], "removed_colour": row[tt.G_REMOVED],
                "hands": [names(row[tt.G_HANDS + s]) for s in range(p)],
                "swap_offers": mask_to_list(row[tt.G_OFFERS]),
                "swap": [swap_seat, name(row[tt.G_SWAP_CARD])] if swap_seat >= 0 else None,
                "leader": row[tt.G_LEADER],
                "round_scores": row[tt.G_SCORES:tt.G_SCORES + p] if done else [],
                "totals_after": row[tt.G_TOTALS:tt.G_TOTALS + p] if done else [],
                "tracks_end": row[tt.G_TRACKS:tt.G_TRACKS + p] if done else [],
                "lost_counts": row[tt.G_LOST:tt.G_LOST + p] if done else []})
        shares = [float(x) for x in shares[:p]]
        ids = {"cards": [row[tt.L_PLAYS + i] for row in log for i in range(p)]}
        return {"game": self.name, "players": p, "rounds": rounds, "tricks": tricks,
                "scores": [int(x) for x in scores[:p]], "upper_counts": [int(x) for x in uppers[:p]],
                "shares": shares, "winner": shares.index(1.0) if 1.0 in shares else -1,
                "capped": bool(counters[tt.C_CAPPED]),
                "counters": {n: int(counters[c]) for c, n in enumerate(tt.COUNTER_NAMES[:tt.N_REFERENCE_COUNTERS])},
                "ids": ids}

    def reference_rules(self, setup):
        return reference_rules(setup)

    # --- scenarios --------------------------------------------------------------------------
    def scenario(self, data: dict, where: str, lineup_spec=None, plugin_paths=()) -> dict:
        """Scripted hands, swaps, cards and tie-settling leaders (docs/scenarios.md, 10 TRICKS
        LATER section) through both engines: the reference checks and plays the script, the
        compiled engine replays the same hands and decisions and must reach the same tricks,
        boards, tracks and scores."""
        setup, record = self.reference_scenario(data, where, {"start_totals", "start_round", "rounds"})
        reference = record_dict(setup, record)
        p = setup.players
        deal_rows, script = [], []
        for r in record.rounds:
            row = [0] * tt.MAX_PLAYERS
            for s in range(p):
                row[s] = sum(1 << c for c in r.hands[s])
            deal_rows.append(row)
            if setup.swap:
                for s in range(p):
                    if not any(c >= tt.FIRST_INFECTED for c in r.hands[s]):
                        script.append(r.swap[1] if r.swap and r.swap[0] == s else -2)
            script += [card for t in r.tricks for _, card in t.plays]
        start_totals = np.zeros(tt.MAX_PLAYERS, dtype=np.int64)
        start_totals[:p] = data.get("start_totals") or [0] * p
        first_round = int(data.get("start_round", 0))
        tricks, trick_limit, log, round_log = scenario_logs(record, tt.LOG_WIDTH, tt.ROUND_LOG_WIDTH)
        scripts = (np.array(deal_rows, dtype=np.int64).reshape(-1, tt.MAX_PLAYERS), np.array(script, dtype=np.int64),
                   np.array([r.leader for r in record.rounds], dtype=np.int64))
        status, rows = self.kernel_position(setup, self.lineup("random", p), scripts, log, round_log, start_totals,
                                            first_round, len(record.rounds), trick_limit)
        compiled = self.log_dict(setup, *rows)
        if not record.finished:  # no winner yet
            compiled.update(shares=[0.0] * p, winner=-1, capped=False)
        compiled.pop("ids")
        reference.pop("ids")
        self.require_agreement(status != -2 and compiled == {**reference, "game": self.name}, where)
        compiled.update(engines_agree=True, finished=record.finished, start_totals=start_totals[:p].tolist())
        return compiled

    def kernel_position(self, setup, lineup, scripts, log, round_log, start_totals=None, first_round=0, rounds=1,
                        tricks=-1):
        """The compiled play loop on a scripted position (``scripts`` = deals, decisions, the leaders
        that settle ties) from ``start_totals`` and ``first_round``, stopped after ``rounds`` rounds
        or ``tricks`` tricks (-1: none): its status and ``log_dict``'s arguments (the trick and
        round logs filled in place).  Chance the scripts leave open is game 0 of run 0's."""
        from simcore.rng import SCENARIO_KEYS, SCENARIO_SEED

        p = setup.players
        totals = np.zeros(tt.MAX_PLAYERS, dtype=np.int64) if start_totals is None else start_totals
        inputs = self.kernel_inputs(setup)
        state = lineup.kernels.new_state(inputs, False)._replace(log=log, round_log=round_log)
        status = lineup.kernels.play_scenario(state, (SCENARIO_SEED, SCENARIO_KEYS),
                                              (totals, np.int64(first_round), np.int64(rounds), np.int64(tricks)),
                                              inputs, (lineup.ids, lineup.params), scripts)
        scores = np.zeros(tt.MAX_PLAYERS, dtype=np.int64)
        scores[:p] = state.table[tt.T_TOTAL:tt.T_TOTAL + p]
        uppers = np.zeros(tt.MAX_PLAYERS, dtype=np.int64)
        uppers[:p] = [int(state.table[tt.T_UPPER + s]).bit_count() for s in range(p)]
        return int(status), (log, round_log, scores, state.shares, state.counters, uppers)

    @staticmethod
    def expectations(log: dict) -> dict:
        """What a scenario's "expect" block may check."""
        return {"totals": log["scores"], "shares": log["shares"], "winner": log["winner"],
                "capped": log["capped"], "upper_counts": log["upper_counts"],
                "leaders": [r["leader"] for r in log["rounds"]],
                "round_scores": [r["round_scores"] for r in log["rounds"]],
                "swaps": [r["swap"] for r in log["rounds"]],
                "winners": [t["winner"] for t in log["tricks"]],
                "levels": [t["level"] for t in log["tricks"]],
                "lost": [t["lost"] for t in log["tricks"]],
                "rescued": [t["rescued"] for t in log["tricks"]],
                "tracks": [t["tracks"] for t in log["tricks"]],
                "upper": [t["upper"] for t in log["tricks"]],
                "lower": [t["lower"] for t in log["tricks"]],
                "counters": log["counters"]}

    def seat_decisions(self, setup, log: dict, seat: int) -> list[int]:
        """How many choices ``seat`` had at each of its decisions in a logged game, in order: per
        round, the swap offer if it was asked (the swap rule on and no infected dealt to it: no
        offer, or any card of its hand) and then every play (the reference's ``legal_plays`` on
        its hand after the swap, the trick so far and whether an infected card was played this
        round).  `balance bench --search` counts a search player's work with it."""
        from simcore.games.ten_tricks import reference as ref

        rules = reference_rules(setup)
        by_round: dict[int, list] = {}
        for trick in log["tricks"]:
            by_round.setdefault(trick["round"], []).append(trick)
        options = []
        for rnd in log["rounds"]:
            hand = [ref.parse_card(name) for name in rnd["hands"][seat]]  # as dealt, before the swap
            if rules.swap and not any(ref.is_infected(card) for card in hand):
                options.append(len(hand) + 1)
            if rnd["swap"] and rnd["swap"][0] == seat:
                hand.remove(ref.parse_card(rnd["swap"][1]))
                hand.append(ref.SWAP_CARD)
            unlocked = False
            for trick in by_round.get(rnd["round"], []):
                cards = []
                for s, name in trick["plays"]:
                    card = ref.parse_card(name)
                    if s == seat:
                        options.append(len(ref.legal_plays(rules, hand, cards, unlocked)))
                        hand.remove(card)
                    cards.append(card)
                    unlocked = unlocked or ref.is_infected(card)
        return options

    def format_log(self, log: dict) -> str:
        p = log["players"]
        lines = [self.log_heading(log)]
        for r, played_tricks in rounds_with_tricks(log):
            removed = (f" (without {tt.COLOUR_NAMES[r['removed_colour']]})" if r["removed_colour"] >= 0 else "")
            lines.append(f"round {r['round'] + 1}{removed}")
            for s in range(p):
                lines.append(f"  seat {s} hand: {' '.join(r['hands'][s])}")
            if r["swap"]:
                lines.append(f"  seat {r['swap'][0]} swaps {r['swap'][1]} for infected-8"
                             + (f" (offers from seats {r['swap_offers']})" if len(r["swap_offers"]) > 1 else ""))
            lines.append(f"  seat {r['leader']} leads")
            for t in played_tricks:
                played = "  ".join(f"{s}:{c}" for s, c in t["plays"])
                attack = (f"; attack level {t['level']}" + (f", loses {' '.join(t['lost'])}" if t["lost"] else "")
                          if t["infected"] else "")
                rescued = "".join(f"; seat {s} rescues {' '.join(m)}" for s, m in enumerate(t["rescued"]) if m)
                lines.append(f"  trick {t['trick'] + 1}: {played} -> seat {t['winner']}{attack}{rescued}")
                lines.append(f"    tracks {t['tracks']}  upper {[len(u) for u in t['upper']]}  "
                             f"lower {[len(lo) for lo in t['lower']]}")
            if r["round_scores"]:
                lines.append(f"  round scores {r['round_scores']}  totals {r['totals_after']}  "
                             f"(tracks {r['tracks_end']}, lost {r['lost_counts']})")
        return "\n".join(lines + self.closing_lines(log, " (round cap hit)" if log["capped"] else ""))


def reference_rules(setup):
    from simcore.games.ten_tricks import reference as ref

    return ref.Rules(players=setup.players, target=setup.target, track_cap=setup.track_cap,
                     track_bonus=setup.track_bonus, infected_3=setup.infected_3, infected_4=setup.infected_4,
                     colours_3=setup.colours_3, swap=setup.swap, hand_size=setup.hand_size,
                     max_rounds=setup.max_rounds)


def record_dict(setup, record) -> dict:
    """A reference GameRecord in the compiled log's shape."""
    name = setup.card_name
    names = lambda cards: [name(c) for c in sorted(cards)]  # noqa: E731
    p = record.players
    rounds = [{"round": r.round, "removed_colour": r.removed_colour, "hands": [names(h) for h in r.hands],
               "swap_offers": list(r.swap_offers), "swap": [r.swap[0], name(r.swap[1])] if r.swap else None,
               "leader": r.leader, "round_scores": list(r.round_scores), "totals_after": list(r.totals_after),
               "tracks_end": list(r.tracks_end), "lost_counts": list(r.lost_counts)} for r in record.rounds]
    tricks = [{"round": t.round, "trick": t.trick, "leader": t.leader, "plays": [[s, name(c)] for s, c in t.plays],
               "winner": t.winner, "infected": t.infected, "level": t.level, "lost": names(t.lost),
               "rescued": [names(m) for m in t.rescued], "tracks": list(t.tracks),
               "upper": [names(u) for u in t.upper], "lower": [names(lo) for lo in t.lower]}
              for r in record.rounds for t in r.tricks]
    return {"game": tt.GAME, "players": p, "rounds": rounds, "tricks": tricks, "scores": list(record.totals),
            "upper_counts": list(record.upper_counts), "shares": [float(x) for x in record.shares],
            "winner": record.winner, "capped": record.capped, "counters": dict(record.counters),
            "ids": {}}


class _Replay:
    """Replays a compiled log's decisions through the reference (which checks each one): swap
    answers by seat and round, cards in play order."""

    def __init__(self, log: dict):
        self.swaps = {(r["round"], r["swap"][0]): r["swap"][1] for r in log["rounds"] if r["swap"]}
        self.cards = list(log["ids"]["cards"])
        self.offers = {(r["round"], s) for r in log["rounds"] for s in r["swap_offers"]}

    def swap(self, view, seat, hand):
        from simcore.games.ten_tricks import reference as ref

        key = (view.round, seat)
        if key in self.swaps:
            return ref.parse_card(self.swaps[key])
        if key in self.offers:  # offered but another seat was drawn: any held card offers
            return sorted(hand)[0]
        return None

    def play(self, view, seat, hand, legal):
        return self.cards.pop(0) if self.cards else None


def reference_log(setup, seed: int, index: int, decisions_from: dict | None = None) -> dict:
    """The reference engine's game ``index`` in the compiled log's shape: random play from the
    same streams, or (``decisions_from``) the decisions of a compiled log replayed and checked."""
    from simcore.games.ten_tricks import reference as ref

    decider = _Replay(decisions_from) if decisions_from is not None else None
    record = ref.play_game(reference_rules(setup), seed, index, decider)
    return record_dict(setup, record)

"""TriATri as the driver, CLI and tests see it: setup, chunk runs, trick and deal logs from both
engines, replays, scenarios and the game's own balance tables."""
from __future__ import annotations

import numpy as np

from simcore.bits import mask_to_list
from simcore.game import Columns, Event, Game, per_seat, used_rows
from simcore.games.triatri import rules as tt
from simcore.replays import rounds_with_tricks

GEM_SOURCES = ("supply", "own")


def gem_name(option: int) -> str:
    return f"{GEM_SOURCES[option // 3]} {tt.COLOUR_NAMES[option % 3]}"


class TriATri(Game, rules=tt):
    one_contract = True
    min_score = -2 * 100 * 1000  # two-colour pairs score below zero (variant bounds)
    events = (
        Event("ended_instant_win", "Game ended by an instant win (two full sets)", "game"),
        Event("ended_supply", "Game ended by an emptied supply colour", "game"),
        Event("ended_rounds", "Game ended after the last round", "game"),
        Event("redeals", "Start-player bid redealt", "round"),
        Event("fakes_played", "Fake played into a trick", "trick"),
        Event("fake_wins", "Fake's player won the trick (per fake played)", "fake"),
        Event("fake_swaps", "Fake swapped with the best card (per fake played)", "fake"),
        Event("own_gem_offers", "Start player offered an own gem", "trick"),
        Event("doubled", "Cards doubled or quadrupled (per trick)", "trick"),
    )

    # --- runs --------------------------------------------------------------------
    def kernel_inputs(self, setup):
        return (setup.rules, setup.cards, setup.masks)

    def chunk_outputs(self, setup, n):
        p = setup.players  # column-major: every row is one contiguous Parquet column
        return (np.empty((p, n), dtype=np.int16), np.empty((p, n), dtype=np.float32),
                np.empty((tt.N_COUNTERS, n), dtype=np.uint16), np.empty((p, n), dtype=np.uint32))

    def record(self, setup, scores, shares, counters, gems):
        p = setup.players
        end = counters[tt.C_END]  # how the game ended, one column per way
        endings = {f"ended_{way}": (end == code).astype(np.uint8)
                   for way, code in (("instant_win", tt.END_INSTANT), ("supply", tt.END_SUPPLY),
                                     ("rounds", tt.END_ROUNDS))}
        return [Columns(scores, per_seat("score", p)), Columns(shares, per_seat("share", p)), endings,
                Columns(counters, tuple(None if name == "end" else name for name in tt.COUNTER_NAMES)),
                Columns(gems, per_seat("gems", p))]

    def metadata(self, setup) -> dict:
        return {**super().metadata(setup),
                "unit_columns": {"round": "rounds", "trick": "tricks", "fake": "fakes_played"},
                "deck": [setup.card_name(c) for c in range(setup.deck_size)],
                "gem_columns": "gems_s = fire + 1024 * water + 1048576 * wood (seat s's gems at the end)"}

    # --- opening hands ---------------------------------------------------------------
    def card_of_bit(self, setup) -> list[str]:
        return [setup.card_name(card) for card in range(setup.deck_size)]  # the fakes are one printed card

    # --- logs ------------------------------------------------------------------------
    def log_buffers(self, setup, k):
        return (np.full((k, setup.rounds * (tt.HAND_SIZE - 1), tt.LOG_WIDTH), -9, dtype=np.int64),
                np.full((k, 8 * setup.rounds, tt.DEAL_LOG_WIDTH), -9, dtype=np.int64),
                np.zeros((k, tt.MAX_PLAYERS), dtype=np.int64), np.zeros((k, tt.MAX_PLAYERS), dtype=np.float64),
                np.zeros((k, tt.N_COUNTERS), dtype=np.int64), np.zeros((k, tt.MAX_PLAYERS, 3), dtype=np.int64))

    def log_dict(self, setup, log, deal_log, scores, shares, counters, gems) -> dict:
        p = setup.players
        name = setup.card_name
        rounds = []
        for row in used_rows(deal_log, tt.D_ROUND):
            if not rounds or rounds[-1]["round"] != row[tt.D_ROUND]:
                rounds.append({"round": int(row[tt.D_ROUND]), "deals": [], "start": -1})
            rounds[-1]["deals"].append({
                "hands": [[name(c) for c in mask_to_list(row[tt.D_HANDS + s])] for s in range(p)],
                "bids": [name(row[tt.D_BIDS + s]) for s in range(p)]})
            rounds[-1]["start"] = int(row[tt.D_START])
        tricks = []
        for row in used_rows(log, tt.L_ROUND):
            start = int(row[tt.L_START])
            order = [(start + i) % p for i in range(p)]
            tricks.append({
                "round": int(row[tt.L_ROUND]), "trick": int(row[tt.L_TRICK]), "start": start,
                "gem": gem_name(row[tt.L_GEM]),
                "plays": [[order[i], name(row[tt.L_PLAYS + i])] for i in range(p)],
                "held": [[name(row[tt.L_HELD + s]) if row[tt.L_HELD + s] >= 0 else None, int(row[tt.L_VALUE + s])]
                         for s in range(p)],
                "winner": int(row[tt.L_WINNER]),
                "swaps": [[order[i], int(row[tt.L_VICTIM + i])] for i in range(p) if row[tt.L_VICTIM + i] >= 0],
                "doubled": [bool(row[tt.L_DOUBLED + s] == 1) for s in range(p)],
            })
        ids = {"bids": [int(row[tt.D_BIDS + s]) for row in deal_log if row[tt.D_ROUND] >= 0 for s in range(p)],
               "gems": [int(row[tt.L_GEM]) for row in log if row[tt.L_ROUND] >= 0],
               "cards": [int(row[tt.L_PLAYS + i]) for row in log if row[tt.L_ROUND] >= 0 for i in range(p)]}
        end = tt.END_NAMES[counters[tt.C_END]]
        shares = [float(x) for x in shares[:p]]
        supply = [setup.gems_per_colour - int(sum(gems[s][c] for s in range(p))) for c in range(3)]
        return {"game": self.name, "players": p, "rounds": rounds, "tricks": tricks,
                "gems": [[int(x) for x in gems[s]] for s in range(p)], "supply": supply,
                "scores": [int(x) for x in scores[:p]], "shares": shares,
                "winner": shares.index(1.0) if 1.0 in shares else -1, "end": end,
                "counters": {n: int(counters[c]) for c, n in enumerate(tt.COUNTER_NAMES) if n != "end"},
                "ids": ids}

    def reference_rules(self, setup):
        return reference_rules(setup)

    # --- scenarios --------------------------------------------------------------------------
    def scenario(self, data: dict, where: str, lineup_spec=None, plugin_paths=()) -> dict:
        """Scripted deals, bids, gem choices and cards (docs/scenarios.md, TriATri section) through
        both engines: the reference checks and plays the script, the compiled engine replays the
        same deals and decisions and must reach the same tricks, gems and scores."""
        setup, record = self.reference_scenario(data, where, {"start_round", "start_gems", "rounds"})
        reference = record_dict(setup, record)
        p = setup.players
        deal_rows, script = [], []
        for r in record.rounds:
            for hands, bids in zip(r.deals, r.bids):
                row = [0] * tt.MAX_PLAYERS
                for s in range(p):
                    row[s] = sum(1 << c for c in hands[s])
                deal_rows.append(row)
                script += list(bids)
            for t in r.tricks:
                script.append(t.gem)
                script += [card for _, card in t.plays]
        start_gems = np.zeros((tt.MAX_PLAYERS, 3), dtype=np.int64)
        start_gems[:p] = np.array(data.get("start_gems") or [[0, 0, 0]] * p, dtype=np.int64)
        first_round = int(data.get("start_round", 0))
        trick_limit = -1 if record.finished else sum(len(r.tricks) for r in record.rounds)
        log = np.full((max(trick_limit, setup.rounds * 5, 1), tt.LOG_WIDTH), -9, dtype=np.int64)
        deal_log = np.full((max(len(deal_rows), 1), tt.DEAL_LOG_WIDTH), -9, dtype=np.int64)
        _, rows = self.kernel_position(setup, self.lineup("random", p),
                                       (np.array(deal_rows, dtype=np.int64).reshape(-1, tt.MAX_PLAYERS),
                                        np.array(script, dtype=np.int64)), log, deal_log, start_gems, first_round,
                                       len(record.rounds), trick_limit)
        compiled = self.log_dict(setup, *rows)
        if not record.finished:  # no ending and no winner yet
            compiled.update(end=None, shares=[0.0] * p, winner=-1)
            reference.update(end=None, shares=[0.0] * p, winner=-1)
        self.require_agreement(compiled == {**reference, "game": self.name}, where)
        compiled.update(engines_agree=True, finished=record.finished, start_gems=start_gems[:p].tolist())
        return compiled

    def kernel_position(self, setup, lineup, scripts, log, deal_log, start_gems, first_round, rounds, tricks):
        """The compiled play loop on scripted deals and decisions (``scripts``) from ``start_gems``
        (seat x colour) and ``first_round``, stopped after ``rounds`` rounds or ``tricks`` tricks
        (-1: none): its status and ``log_dict``'s arguments (the trick and deal logs filled in
        place).  Deals the script leaves open, and a strategy asked, draw from game 0 of run 0."""
        from simcore.rng import SCENARIO_KEYS, SCENARIO_SEED

        p = setup.players
        inputs = self.kernel_inputs(setup)
        state = lineup.kernels.new_state(inputs, False)._replace(log=log, deal_log=deal_log)
        status = lineup.kernels.play_scenario(state, (SCENARIO_SEED, SCENARIO_KEYS),
                                              (start_gems, np.int64(first_round), np.int64(rounds), np.int64(tricks)),
                                              inputs, (lineup.ids, lineup.params), scripts)
        gems = np.zeros((tt.MAX_PLAYERS, 3), dtype=np.int64)
        gems[:p] = state.table[tt.T_GEMS:tt.T_GEMS + 3 * p].reshape(p, 3)
        return int(status), (log, deal_log, state.scores, state.shares, state.counters, gems)

    @staticmethod
    def expectations(log: dict) -> dict:
        """What a scenario's "expect" block may check."""
        return {"scores": log["scores"], "shares": log["shares"], "winner": log["winner"], "gems": log["gems"],
                "supply": log["supply"], "end": log["end"], "starts": [r["start"] for r in log["rounds"]],
                "redeals": [len(r["deals"]) - 1 for r in log["rounds"]],
                "winners": [t["winner"] for t in log["tricks"]],
                "values": [[v for _, v in t["held"]] for t in log["tricks"]],
                "swaps": [t["swaps"] for t in log["tricks"]], "counters": log["counters"]}

    def seat_decisions(self, setup, log: dict, seat: int, distinct: bool = True) -> list[int]:
        """How many choices ``seat`` had at each of its decisions in a logged game, in the order
        asked: per deal attempt its bid (any card of the hand), then per trick the gem if it
        starts the trick (the reference's ``gem_options`` on the supply and its own gems then)
        and its card (``legal_cards`` for the gem's colour).  ``distinct``: the fakes are one
        printed card, so a hand's fakes are one choice, as the search weighs them; False: every
        card id, as the rules engine lists them.  `balance bench --search` counts a search
        player's work with it."""
        from simcore.games.triatri import reference as ref

        rules = reference_rules(setup)

        def cards(names):  # names to ids; each "fake" a fake of its own (they are interchangeable)
            fakes = iter(range(rules.fakes))
            return [ref.parse_card(rules, name, next(fakes) if name == ref.FAKE else 0) for name in names]

        def take(hand, name):  # the card played or bid leaves the hand (any fake for "fake")
            card = ref.parse_card(rules, name, 0)
            hand.remove(next(c for c in hand if c == card or ref.is_fake(rules, c) and ref.is_fake(rules, card)))

        def count(choices):
            if not distinct:
                return len(choices)
            return len({ref.FAKE if ref.is_fake(rules, c) else c for c in choices})

        # the gems before the first trick: the end of the game with every trick's move undone
        supply, gems = list(log["supply"]), [list(g) for g in log["gems"]]
        for trick in log["tricks"]:
            code = ref.parse_gem(trick["gem"])
            gems[trick["winner"]][code % 3] -= 1
            if code < 3:
                supply[code % 3] += 1
            else:
                gems[trick["start"]][code % 3] += 1
        by_round: dict[int, list] = {}
        for trick in log["tricks"]:
            by_round.setdefault(trick["round"], []).append(trick)
        options = []
        for rnd in log["rounds"]:
            for deal in rnd["deals"]:
                options.append(count(cards(deal["hands"][seat])))
            hand = cards(rnd["deals"][-1]["hands"][seat])  # the deal bid on to a start player
            take(hand, rnd["deals"][-1]["bids"][seat])
            for trick in by_round.get(rnd["round"], []):
                code = ref.parse_gem(trick["gem"])
                if trick["start"] == seat:
                    options.append(len(ref.gem_options(supply, gems[seat])))
                for s, name in trick["plays"]:
                    if s == seat:
                        options.append(count(ref.legal_cards(rules, hand, code % 3)))
                        take(hand, name)
                if code < 3:
                    supply[code % 3] -= 1
                else:
                    gems[trick["start"]][code % 3] -= 1
                gems[trick["winner"]][code % 3] += 1
        return options

    def format_log(self, log: dict) -> str:
        p = log["players"]
        lines = [self.log_heading(log)]
        for r, played_tricks in rounds_with_tricks(log):
            lines.append(f"round {r['round'] + 1}")
            for k, d in enumerate(r["deals"]):
                if k:
                    lines.append("  redeal")
                for s in range(p):
                    lines.append(f"  seat {s} hand: {' '.join(d['hands'][s])}")
                lines.append("  bids: " + "  ".join(f"seat {s} {b}" for s, b in enumerate(d["bids"])))
            lines.append(f"  start player: seat {r['start']}")
            for t in played_tricks:
                played = "  ".join(f"{s}:{c}" for s, c in t["plays"])
                held = "  ".join(f"{s}:{h or 'colourless'}={v}" for s, (h, v) in enumerate(t["held"]))
                swaps = "".join(f"  (seat {f}'s fake took seat {v}'s card)" for f, v in t["swaps"])
                lines.append(f"  trick {t['trick'] + 1}: seat {t['start']} plays for {t['gem']}; {played}{swaps}")
                lines.append(f"    held {held}; seat {t['winner']} takes the gem")
        colours = "/".join(tt.COLOUR_NAMES)
        lines.append(f"Gems ({colours}): " + "  ".join(f"seat {s}: {g}" for s, g in enumerate(log["gems"]))
                     + f"  supply: {log['supply']}")
        lines.append(f"Ended by: {log['end'] or '(the scripted tricks end before the game does)'}")
        lines.append(("Scores: " if log.get("end") is not None else "Scores if it were scored now: ")
                     + "  ".join(f"seat {s}: {v}" for s, v in enumerate(log["scores"])))
        if log.get("end") is not None:
            lines.append(self.winner_line(log["shares"]))
        return "\n".join(lines)


def reference_rules(setup):
    from simcore.games.triatri import reference as ref

    return ref.Rules(players=setup.players, low=setup.low, high=setup.high, fakes=setup.fakes,
                     gems_per_colour=setup.gems_per_colour, rounds=setup.rounds, set_points=setup.set_points,
                     pair_points=setup.pair_points, double_factor=setup.double_factor, two_factor=setup.two_factor,
                     instant_win_sets=setup.instant_win_sets,
                     latest_wins_three_way_ties=setup.latest_wins_three_way_ties)


def record_dict(setup, record) -> dict:
    """A reference GameRecord in the compiled log's shape."""
    name = setup.card_name
    p = record.players
    rounds = [{"round": r.round, "deals": [{"hands": [[name(c) for c in sorted(h)] for h in hands],
                                            "bids": [name(b) for b in bids]} for hands, bids in zip(r.deals, r.bids)],
               "start": r.start} for r in record.rounds]
    tricks = [{"round": t.round, "trick": t.trick, "start": t.start, "gem": gem_name(t.gem),
               "plays": [[s, name(c)] for s, c in t.plays],
               "held": [[name(c) if c is not None else None, int(v)] for c, v in t.held],
               "winner": t.winner, "swaps": [[f, v] for f, v in t.swaps], "doubled": [bool(d) for d in t.doubled]}
              for r in record.rounds for t in r.tricks]
    return {"game": "triatri", "players": p, "rounds": rounds, "tricks": tricks,
            "gems": [list(g) for g in record.gems], "supply": list(record.supply),
            "scores": list(record.scores), "shares": [float(x) for x in record.shares],
            "winner": record.winner if record.winner is not None else -1, "end": record.end,
            "counters": dict(record.counters),
            "ids": {"bids": [b for r in record.rounds for bids in r.bids for b in bids],
                    "gems": [t.gem for r in record.rounds for t in r.tricks],
                    "cards": [c for r in record.rounds for t in r.tricks for _, c in t.plays]}}


def reference_log(setup, seed: int, index: int, decisions_from: dict | None = None) -> dict:
    """The reference engine's game ``index`` in the compiled log's shape: random play from the
    same streams, or (``decisions_from``) the decisions of a compiled log (with card ids under
    ``"ids"``) replayed and checked."""
    from simcore.games.triatri import reference as ref

    decider = None
    if decisions_from is not None:
        ids = decisions_from["ids"]
        decider = ref.ScriptedDecider(ids["bids"], ids["gems"], ids["cards"])
    record = ref.play_game(reference_rules(setup), seed, index, decider)
    return record_dict(setup, record)

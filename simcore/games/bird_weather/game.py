"""Trick-Take BIRD & WEATHER as the driver, CLI and tests see it: setup, chunk runs,
trick logs from both engines, replays and scenarios."""
from __future__ import annotations

import numpy as np

from simcore.errors import BalanceError
from simcore.game import Columns, Event, Game, per_seat, used_rows
from simcore.games.bird_weather import rules as bw
from simcore.games.bird_weather import reference as ref
from simcore.bits import mask_to_list
from simcore.rng import seat_keys, seat_play_streams


class LogDecider:
    """Replays the decisions of a compiled game log through the reference engine, so the
    oracle checks any strategy's play (a decision it finds illegal raises IllegalPlay)."""

    def __init__(self, log: dict):
        self.facedowns = [card for deal in log["deals"] for card in deal["facedown"]]
        self.plays = [card for trick in log["tricks"] for card in trick["cards"]]
        self.picks = [t["pick_seat"] for t in log["tricks"] if t["pick_seat"] is not None]

    def facedown(self, seat, hand):
        return self.facedowns.pop(0)

    def play(self, seat, hand, legal, view):
        return self.plays.pop(0)

    def pick(self, seat, seats_available, view):
        return self.picks.pop(0)


class BirdWeather(Game, rules=bw):
    one_contract = True
    events = (
        Event("reversals", "Reversal (lowest card wins)"),
        Event("zero_wins", "Zero win (all same tens)"),
        Event("zero_point_tricks", "0-point trick (face-down rule)"),
        Event("facedowns_taken", "Face-down card taken"),
        Event("zero_scored_tricks", "0-point trick still scoring 0"),
    )

    def reference_rules(self, setup) -> ref.Rules:
        return ref.Rules(setup.players, setup.cards, setup.hand_size, setup.deals, setup.reversal,
                         setup.zero_win, setup.facedown)

    # --- runs --------------------------------------------------------------------
    def kernel_inputs(self, setup):
        return (setup.rules, setup.number, setup.follow)

    def chunk_outputs(self, setup, n):
        p = setup.players
        return (np.zeros((n, p), dtype=np.int16), np.zeros((n, p), dtype=np.float32),
                np.zeros((n, bw.N_COUNTERS), dtype=np.uint8), np.zeros((n, p), dtype=np.uint64))

    def record(self, setup, scores, shares, counters, hands):
        p = setup.players
        return [Columns(scores, per_seat("score", p), games_first=True),
                Columns(shares, per_seat("share", p), games_first=True),
                Columns(counters, bw.COUNTER_NAMES, games_first=True),
                Columns(hands, per_seat("hand", p), games_first=True)]

    def metadata(self, setup) -> dict:
        return {**super().metadata(setup), "tricks_per_game": setup.tricks * setup.deals, "deck": list(setup.cards),
                "hand_columns": "deck-index bitmask of the first deal's hand (incl. the face-down card)"}

    # --- opening hands ---------------------------------------------------------------
    def card_of_bit(self, setup) -> list[str]:
        return [bw.card_name(number) for number in setup.cards]  # deck index = bit; every number printed once

    # --- logs ------------------------------------------------------------------------
    def log_buffers(self, setup, k):
        rows = setup.deals * setup.tricks
        return (np.full((k, rows, bw.LOG_WIDTH), -1, dtype=np.int64),
                np.zeros((k, setup.deals, bw.MAX_PLAYERS), dtype=np.uint64),  # the hands dealt
                np.full((k, setup.deals, bw.MAX_PLAYERS), -1, dtype=np.int64),  # the face-down cards
                np.zeros((k, bw.MAX_PLAYERS), dtype=np.int64), np.zeros((k, bw.N_COUNTERS), dtype=np.int64))

    def log_dict(self, setup, log, dealt, facedowns, totals, counters) -> dict:
        p = setup.players
        card = setup.cards
        deals = []
        for d in range(setup.deals):
            deals.append({
                "deal": d, "leader": d % p,
                "hands": [[card[i] for i in mask_to_list(dealt[d, s])] for s in range(p)],
                "facedown": [card[facedowns[d, s]] if facedowns[d, s] >= 0 else None for s in range(p)],
            })
        tricks = []
        for row in used_rows(log, bw.L_TRICK):
            cards = [card[row[bw.L_CARD + i]] for i in range(p)]
            lead = cards[0]
            tricks.append({
                "deal": int(row[bw.L_DEAL]), "trick": int(row[bw.L_TRICK]), "leader": int(row[bw.L_LEADER]),
                "cards": cards,
                "followed": [c // 10 == lead // 10 or c % 10 == lead % 10 for c in cards],
                "winner": int(row[bw.L_WINNER]), "kind": bw.KIND_NAMES[row[bw.L_KIND]],
                "points_card": card[row[bw.L_POINTS_CARD]],
                "pick_seat": int(row[bw.L_PICK_SEAT]) if row[bw.L_PICK_SEAT] >= 0 else None,
                "pick_card": card[row[bw.L_PICK_CARD]] if row[bw.L_PICK_CARD] >= 0 else None,
                "points": int(row[bw.L_POINTS]),
            })
        scores = [int(x) for x in totals[:p]]
        return {"game": self.name, "players": p, "deals": deals, "tricks": tricks, "scores": scores,
                "shares": ref.shares_of(scores),
                "counters": {name: int(counters[c]) for c, name in enumerate(bw.COUNTER_NAMES)}}

    @staticmethod
    def _record_dict(record: ref.GameRecord, name: str) -> dict:
        deals = [{"deal": d, "leader": d % record.players, "hands": record.hands[d], "facedown": record.facedown[d]}
                 for d in range(len(record.hands))]
        tricks = [{"deal": t.deal, "trick": t.trick, "leader": t.leader, "cards": list(t.cards),
                   "followed": list(t.followed), "winner": t.winner, "kind": t.kind, "points_card": t.points_card,
                   "pick_seat": t.pick_seat, "pick_card": t.pick_card, "points": t.points} for t in record.tricks]
        return {"game": name, "players": record.players, "deals": deals, "tricks": tricks,
                "scores": list(record.scores), "shares": list(record.shares), "counters": dict(record.counters)}

    def reference_log(self, setup, seed: int, index: int, decisions_from: dict | None = None) -> dict:
        """The reference engine's log of game ``index``: random play from the same streams,
        or (``decisions_from``) the decisions of a compiled log replayed and checked."""
        deciders = None if decisions_from is None else [LogDecider(decisions_from)] * setup.players
        record = ref.play_game(self.reference_rules(setup), seed, index, deciders)
        return self._record_dict(record, self.name)

    # --- scenarios ---------------------------------------------------------------------
    def scenario(self, data: dict, where: str, lineup_spec=None, plugin_paths=()) -> dict:
        """Run a scenario (docs/scenarios.md) through both engines; refuse it if they disagree."""
        from simcore.scenarios import field, int_list

        setup = self.scenario_setup(data, where, {"hands", "facedown", "leader", "plays", "picks", "strategies",
                                                  "seed"})
        players = setup.players
        hands = [int_list(h, f"hands[{s}]", where) for s, h in enumerate(field(data, "hands", list, where))]
        if len(hands) != players:
            raise BalanceError(f"{where}: 'hands' has {len(hands)} hands for {players} players")
        facedown = data.get("facedown")
        if facedown is None:
            facedown = [None] * players
        elif not isinstance(facedown, list) or len(facedown) != players or not all(
                c is None or (isinstance(c, int) and not isinstance(c, bool)) for c in facedown):
            raise BalanceError(f"{where}: 'facedown' must list one card number (or null) per seat")
        leader = data.get("leader", 0)
        if not isinstance(leader, int) or isinstance(leader, bool) or not 0 <= leader < players:
            raise BalanceError(f"{where}: 'leader' must be a seat 0..{players - 1}")
        plays = data.get("plays", [])
        if plays and all(isinstance(t, list) for t in plays):
            plays = [c for trick in plays for c in trick]
        plays = int_list(plays, "plays", where)
        picks = int_list(data.get("picks", []), "picks", where)
        if hands and len(plays) > players * len(hands[0]):
            raise BalanceError(f"{where}: {len(plays)} scripted plays, but {players} hands of {len(hands[0])} "
                               f"cards make only {players * len(hands[0])}")
        from simcore.registry import check_seed

        seed = check_seed(data.get("seed", 0), f"{where}: 'seed'")
        strategies = data.get("strategies", lineup_spec)
        if strategies is not None and not (isinstance(strategies, str) or (
                isinstance(strategies, list) and all(isinstance(x, str) for x in strategies))):
            raise BalanceError(f"{where}: 'strategies' must be a string such as \"heuristic,random,random\" "
                               "or a list of names")
        lineup = self.lineup(strategies, players, plugin_paths)

        # The reference engine checks the position and every scripted decision first (its
        # errors say which play and why), then the compiled engine plays the same deal.
        rules = self.reference_rules(setup)
        fallback = ref.RandomDecider(seat_play_streams(seed, 0, players))
        record = ref.play_scenario(rules, hands, facedown, leader, plays, picks, fallback)
        compiled = self._kernel_scenario(setup, lineup, hands, facedown, leader, plays, picks, seed)
        if any(n != "random" for n in lineup.names):
            # other strategies finished the deal: the reference replays their decisions
            all_plays = [c for t in compiled["tricks"] for c in t["cards"]]
            all_picks = [t["pick_seat"] for t in compiled["tricks"] if t["pick_seat"] is not None]
            record = ref.play_scenario(rules, hands, facedown, leader, all_plays, all_picks, None)
        picks_made = sum(1 for t in compiled["tricks"] if t["pick_seat"] is not None)
        if len(picks) > picks_made:
            raise BalanceError(f"{where}: {len(picks)} scripted picks, but only {picks_made} face-down card(s) "
                               "were taken in this deal")
        reference = self._record_dict(record, self.name)
        self.require_agreement(all(compiled[key] == reference[key] for key in ("tricks", "scores")), where)
        compiled.update(engines_agree=True, strategies=list(lineup.names))
        return compiled

    def _kernel_scenario(self, setup, lineup, hands, facedown, leader, plays, picks, seed) -> dict:
        p = setup.players
        index = {c: i for i, c in enumerate(setup.cards)}
        hand_masks = np.zeros(bw.MAX_PLAYERS, dtype=np.uint64)
        for s in range(p):
            for c in hands[s]:
                hand_masks[s] |= np.uint64(1) << np.uint64(index[c])
        fd = np.full(bw.MAX_PLAYERS, -1, dtype=np.int64)
        for s in range(p):
            if facedown[s] is not None and setup.facedown:
                fd[s] = index[facedown[s]]
        script = np.array([index.get(c, -1) for c in plays], dtype=np.int64)
        script_picks = np.array(picks, dtype=np.int64)
        dealt = np.zeros((1, bw.MAX_PLAYERS), dtype=np.uint64)
        for s in range(p):  # before the kernel plays the cards out of hand_masks
            dealt[0, s] = hand_masks[s] | (np.uint64(1) << np.uint64(fd[s]) if fd[s] >= 0 else np.uint64(0))
        tricks = len(hands[0])
        inputs = self.kernel_inputs(setup)
        state = lineup.kernels.new_state(inputs, True)
        state.hands[:] = hand_masks
        state.facedown[:] = fd  # the play loop takes them; ``fd`` stays as dealt
        status = lineup.kernels.play_scenario(state, (seed, seat_keys(seed)), (leader, tricks), inputs,
                                              (lineup.ids, lineup.params), (script, script_picks))
        log, totals, counters = state.log, state.totals, state.counters
        if status == -2:
            self.check_status(np.array([status]), lineup, [0], seed)
        if status >= 0:
            raise BalanceError(f"the compiled engine refused scripted step {status} that the reference accepted (a bug)")
        out = self.log_dict(setup, log, dealt, fd.reshape(1, -1), totals, counters)
        out["deals"][0]["leader"] = leader
        return out

    @staticmethod
    def expectations(log: dict) -> dict:
        """What a scenario's "expect" block may check."""
        return {"scores": log["scores"], "winners": [t["winner"] for t in log["tricks"]],
                "points": [t["points"] for t in log["tricks"]], "kinds": [t["kind"] for t in log["tricks"]],
                "counters": log["counters"]}

    # --- text -----------------------------------------------------------------------
    def seat_decisions(self, setup, log: dict, seat: int) -> list[int]:
        """How many choices ``seat`` had at each of its decisions in a logged game, in order: the
        face-down card, every play (its legal cards, §5-②) and every pick (the unused face-down
        cards, §6-③).  `balance bench --search` counts a search player's work with it."""
        options = []
        n = setup.players
        for deal in log["deals"]:
            hand = set(deal["hands"][seat])
            unused = set(range(n)) if setup.facedown else set()
            if setup.facedown:
                options.append(len(hand))
                hand.discard(deal["facedown"][seat])
            for trick in (t for t in log["tricks"] if t["deal"] == deal["deal"]):
                position = (seat - trick["leader"]) % n
                lead = trick["cards"][0]
                follows = {c for c in hand if c // 10 == lead // 10 or c % 10 == lead % 10}
                options.append(len(hand) if position == 0 or not follows else len(follows))
                hand.discard(trick["cards"][position])
                if trick["pick_seat"] is not None:
                    if trick["winner"] == seat:
                        options.append(len(unused))
                    unused.discard(trick["pick_seat"])
        return options

    def format_log(self, log: dict) -> str:
        lines = [self.log_heading(log)]
        for deal in log["deals"]:
            if len(log["deals"]) > 1:
                lines.append(f"Deal {deal['deal'] + 1} (seat {deal['leader']} leads)")
            for s, hand in enumerate(deal["hands"]):
                fd = deal["facedown"][s]
                lines.append(f"  seat {s}: {' '.join(map(str, hand))}" + (f"   face-down {fd}" if fd is not None else ""))
            for t in (t for t in log["tricks"] if t["deal"] == deal["deal"]):
                plays = []
                for i, c in enumerate(t["cards"]):
                    seat = (t["leader"] + i) % log["players"]
                    plays.append(f"s{seat}:{c}" + ("" if t["followed"][i] else "x"))
                extra = "" if t["kind"] == "normal" else f" [{t['kind']}]"
                pts = f"{t['points']} {'pt' if t['points'] == 1 else 'pts'} (card {t['points_card']}"
                if t["pick_seat"] is not None:
                    pts += f"; face-down {t['pick_card']} of seat {t['pick_seat']}"
                pts += ")"
                lines.append(f"  trick {t['trick'] + 1}: {' '.join(plays):<30} -> seat {t['winner']}{extra}, {pts}")
        lines.append("Scores: " + "  ".join(f"seat {s}: {v}" for s, v in enumerate(log["scores"])))
        winners = [s for s, sh in enumerate(log["shares"]) if sh > 0]
        lines.append("Winner: " + (f"seat {winners[0]}" if len(winners) == 1 else "tie between seats " + ", ".join(map(str, winners))))
        lines.append("(x = did not follow, so could not win)")
        return "\n".join(lines)

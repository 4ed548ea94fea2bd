"""High Card as the engine sees it: what it records, its logs, its reference and scenarios."""
import numpy as np

from high_card import reference as ref
from high_card import rules as hc
from simcore.bits import mask_to_list
from simcore.errors import BalanceError
from simcore.game import Columns, Event, Game, per_seat
from simcore.lineup import Lineup
from simcore.rng import seat_keys


class HighCard(Game, rules=hc):
    default_strategy = "random"
    strong_strategy = "highest"
    events = (Event("leader_wins", "Trick won by its leader"),)

    def chunk_outputs(self, setup, n):
        p = setup.players
        return (np.empty((p, n), dtype=np.int16), np.empty((p, n), dtype=np.float32),
                np.empty((hc.N_COUNTERS, n), dtype=np.uint8))

    def record(self, setup, scores, shares, counters):
        p = setup.players
        return [Columns(scores, per_seat("score", p)), Columns(shares, per_seat("share", p)),
                Columns(counters, hc.COUNTER_NAMES)]

    def metadata(self, setup) -> dict:
        return {**super().metadata(setup), "tricks_per_game": setup.hand}

    def card_of_bit(self, setup):
        return [str(c + 1) if c < setup.cards else None for c in range(64)]

    def logged_batch(self, setup, lineup: Lineup, seed, indices):
        k = len(indices)
        logs = np.full((k, setup.hand, hc.LOG_WIDTH), -1, dtype=np.int64)
        scores = np.zeros((k, hc.MAX_PLAYERS), dtype=np.int64)
        status = np.zeros(k, dtype=np.int8)
        lineup.kernels.play_many_logged(seed, seat_keys(seed), indices, setup.rules, lineup.ids, lineup.params, logs,
                                        scores, status)
        self.check_status(status, lineup, indices, seed)
        hands = self.opening_masks(setup, seed, indices)
        return [self._log(setup, [[c + 1 for c in mask_to_list(h)] for h in hands[g]],
                          [{"leader": int(row[hc.L_LEADER]), "winner": int(row[hc.L_WINNER]),
                            "cards": [int(c) for c in row[hc.L_CARD:hc.L_CARD + setup.players]]} for row in logs[g]],
                          [int(x) for x in scores[g, :setup.players]]) for g in range(k)]

    @staticmethod
    def _log(setup, hands, tricks, scores) -> dict:
        top = max(scores)
        shares = [1 / scores.count(top) if x == top else 0.0 for x in scores]
        return {"game": hc.GAME, "players": setup.players, "hands": hands, "tricks": tricks, "scores": scores,
                "shares": shares}

    def reference_game(self, setup, seed, index):
        return ref.play_game(setup.players, setup.cards, seed, index)

    def reference_log(self, setup, seed, index) -> dict:
        record = self.reference_game(setup, seed, index)
        return self._log(setup, record.hands, record.tricks, record.scores)

    def scenario(self, data: dict, where: str, lineup_spec=None, plugin_paths=()) -> dict:
        """A dealt position and the cards to play, through the reference (the kernel deals from
        its streams only)."""
        setup = self.scenario_setup(data, where, {"hands", "plays"})
        hands = [sorted(h) for h in data.get("hands", [])]
        plays = list(data.get("plays", []))
        if len(hands) != setup.players:
            raise BalanceError(f"{where}: 'hands' has {len(hands)} hands for {setup.players} players")

        def decide(seat, hand, best):
            if not plays:
                raise BalanceError(f"{where}: the scripted plays end before the game does")
            return plays.pop(0)

        try:
            record = ref.play_hands(hands, decide)
        except ValueError as exc:
            raise BalanceError(f"{where}: {exc}") from None
        return self._log(setup, record.hands, record.tricks, record.scores)

    @staticmethod
    def expectations(log: dict) -> dict:
        return {"scores": log["scores"], "winners": [t["winner"] for t in log["tricks"]]}

    def format_log(self, log: dict) -> str:
        lines = [f"{self.title}, {log['players']} players"]
        for t in log["tricks"]:
            lines.append(f"  {t['cards']} -> seat {t['winner']}")
        lines.append("Scores: " + "  ".join(f"seat {s}: {v}" for s, v in enumerate(log["scores"])))
        return "\n".join(lines + [self.winner_line(log["shares"])])

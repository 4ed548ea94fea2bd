"""Chimera Tricks as the driver, CLI and tests see it: setup, chunk runs, trick and round logs
from both engines, replays, scenarios and the game's own balance tables."""
from __future__ import annotations

import numpy as np

from simcore.game import Columns, Event, Game, per_seat, used_rows
from simcore.games.chimera import rules as cm
from simcore.lineup import Lineup
from simcore.replays import rounds_with_tricks, scenario_logs

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


def field_text(suits, rank) -> str:
    """A field as the logs write it: "S+H 7" (suits ascending)."""
    return f"{'+'.join(cm.SUIT_NAMES[s] for s in suits) or 'empty'} {int(rank)}"


class Chimera(Game, rules=cm):
    one_contract = True
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
        """Notes on the ASSUMED game data (docs/rules/chimera-tricks.md, Project rulings) of the rules
        in force: those of the last setup built by this object, the defaults' before any."""
        return getattr(self, "_assumed", cm.DEFAULT_ASSUMED)

    def build_setup(self, players, variant):
        setup = cm.make_setup(players, variant.settings)
        self._assumed = setup.assumed
        return setup

    # --- runs --------------------------------------------------------------------
    def chunk_outputs(self, setup, n):
        p = setup.players  # column-major: every row is one contiguous Parquet column
        return (np.empty((p, n), dtype=np.int16), np.empty((p, n), dtype=np.float32),
                np.empty((cm.N_COUNTERS, n), dtype=np.uint32), np.empty((cm.N_SEAT_TALLIES, n), dtype=np.int16))

    def record(self, setup, scores, shares, counters, seats):
        p = setup.players
        blocks = [Columns(scores, per_seat("score", p)), Columns(shares, per_seat("share", p)),
                  Columns(counters, cm.COUNTER_NAMES, shrink=True)]
        for s in range(p):  # each seat's value, grimoires taken and crystals, side by side
            blocks += [{f"value_{s}": seats[cm.S_VALUE + s]},
                       {f"grimoires_{s}": seats[cm.S_GRIMOIRES + s].astype(np.uint16),
                        f"crystals_{s}": seats[cm.S_CRYSTALS + s].astype(np.uint16)}]
        return blocks

    def metadata(self, setup) -> dict:
        return {**super().metadata(setup),
                "unit_columns": {"trick": "tricks", "play": "plays", "follower play": "follower_plays",
                                 "seat-round": "seat_rounds", "round": "rounds"},
                "assumed": list(setup.assumed),
                "tricks_per_round": setup.tricks, "rounds_per_game": setup.rounds,
                "seat_columns": "value_s = grimoire values taken by seat s over the game (before crystals); "
                                "grimoires_s, crystals_s = how many it took"}

    # --- opening hands ---------------------------------------------------------------
    def random_build_plays(self, setup) -> bool:
        """The random build's loop has no withholding in it (kernel.run_chunk, RANDOM_ONLY)."""
        return int(setup.rules[cm.R_WITHHELD]) == 0

    def card_of_bit(self, setup) -> list[str | None]:
        return [cm.card_name(card) if card in setup.deck else None for card in range(cm.N_IDS)]

    # --- logs ------------------------------------------------------------------------
    def log_batch(self, setup) -> int:
        return max(1, min(1000, 2_000_000 // (setup.rounds * setup.tricks * cm.LOG_WIDTH)))

    def log_buffers(self, setup, k):
        return (np.full((k, setup.rounds * setup.tricks, cm.LOG_WIDTH), -9, dtype=np.int64),
                np.full((k, setup.rounds, cm.ROUND_LOG_WIDTH), -9, dtype=np.int64),
                np.zeros((k, cm.INFO_WIDTH), dtype=np.int64), np.zeros((k, cm.MAX_PLAYERS), dtype=np.float64),
                np.zeros((k, cm.N_COUNTERS), dtype=np.int64))

    def log_dict(self, setup, log, round_log, info, shares, counters, status=-1) -> dict:
        """One game's log; ``status`` -1 (finished) unless a scenario's script stopped it."""
        p, t = setup.players, setup.tricks
        name = cm.card_name
        cards = lambda mask: [name(c) for c in _bits(mask)]  # noqa: E731
        tricks, moves = [], []
        taken = {}
        for row in used_rows(log, cm.L_ROUND):
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
        for row in used_rows(round_log, cm.G_ROUND):
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

    def reference_rules(self, setup):
        return reference_rules(setup)

    def replay(self, setup, lineup: Lineup, seed: int, index: int) -> dict:
        log = super().replay(setup, lineup, seed, index)
        log["assumed"] = list(setup.assumed)
        return log

    # --- scenarios --------------------------------------------------------------------------
    def kernel_position(self, setup, lineup, dealt, in_play, boxed_familiars, boxed_grimoires, orders, script, log,
                        round_log, rounds, tricks):
        """The compiled play loop on a scripted game: the deal (a familiar mask a seat), the
        grimoires in play (ascending), the boxed familiars and grimoires (masks), every round's pile
        (``orders``) and the moves (``script``, card * 2 + slot), stopped after ``rounds`` rounds or
        ``tricks`` tricks (-1: none).  Its status and ``log_dict``'s arguments (the trick and round
        logs filled in place).  A strategy asked draws from game 0 of run 0."""
        from simcore.rng import SCENARIO_KEYS, SCENARIO_SEED

        inputs = self.kernel_inputs(setup)
        state = lineup.kernels.new_state(inputs, False)._replace(log=log, round_log=round_log)
        position = (dealt, in_play, np.int64(_as_int64(boxed_familiars)), np.int64(_as_int64(boxed_grimoires)),
                    np.int64(rounds), np.int64(tricks))
        status = lineup.kernels.play_scenario(state, (SCENARIO_SEED, SCENARIO_KEYS), position, inputs,
                                              (lineup.ids, lineup.params), (script, orders))
        return int(status), (log, round_log, state.info, state.shares, state.counters)

    def scenario(self, data: dict, where: str, lineup_spec=None, plugin_paths=()) -> dict:
        """Scripted deal, grimoire piles and moves (docs/rules/chimera-tricks.md, "Scenarios")
        through both engines: the reference checks and plays the script, the compiled engine
        replays the same deal, piles and moves and must reach the same fields, winners,
        grimoires, crystals, scores and counters — and offer the same legal moves at every play."""
        setup, record = self.reference_scenario(data, where, set(self.reference.SCENARIO_KEYS), ("hands", "rounds"))
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
        tricks, trick_limit, log, round_log = scenario_logs(record, cm.LOG_WIDTH, cm.ROUND_LOG_WIDTH)
        status, rows = self.kernel_position(setup, self.lineup("random", p), dealt, in_play,
                                            sum(1 << c for c in record.boxed_familiars),
                                            sum(1 << g for g in record.boxed_grimoires), orders, script, log, round_log,
                                            len(record.rounds), trick_limit)
        compiled = self.log_dict(setup, *rows, status)
        compiled["legal"] = [[_moves(row[cm.L_LEGAL + 2 * i], row[cm.L_LEGAL + 2 * i + 1]) for i in range(p)]
                             for row in log[:tricks]]
        compiled.pop("ids")
        reference.pop("ids")
        self.require_agreement(status != -2 and compiled == reference, where)
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

    def seat_decisions(self, setup, log: dict, seat: int, distinct: bool = True) -> list[int]:
        """How many choices ``seat`` had at each of its decisions in a logged game, in order: one
        per play (the game's only decision), the legal moves of the reference
        (``legal_moves``) on the hand and sheet ``seat`` had then, followed from the log.
        ``distinct``: on an empty sheet a card in slot 0 or in slot 1 is the same move (mirror
        images), counted once, as the search weighs them; False: every (card, slot) the rules
        list.  `balance bench --search` counts a search player's work with it."""
        from simcore.games.chimera import reference as ref

        rules = reference_rules(setup)
        rounds = {r["round"]: r for r in log["rounds"]}
        options = []
        hand, sheet, current = [], [[], []], None
        for trick in log["tricks"]:
            if trick["round"] != current:  # a new round: the hand passed on, a clean sheet
                current = trick["round"]
                hand = [ref.parse_card(name) for name in rounds[current]["hands"][seat]]
                sheet = [[], []]
            lead = None
            for s, name in trick["plays"]:
                move = ref.parse_move(name)
                if s == seat:
                    legal = ref.legal_moves(rules, hand, sheet, lead)
                    empty = not sheet[0] and not sheet[1]
                    options.append(len({card for card, _ in legal}) if distinct and empty else len(legal))
                    hand.remove(move[0])
                    sheet = ref.place(rules, sheet, move)
                if lead is None:
                    lead = ref.suit(move[0])
            if trick["winner"] == seat:  # the winner's sheet goes to its pile; losers keep theirs
                sheet = [[], []]
        return options

    def format_log(self, log: dict) -> str:
        p = log["players"]
        lines = [self.log_heading(log)]
        lines += [f"!! {note}" for note in log.get("assumed", [])]
        if log["boxed_familiars"] or log["boxed_grimoires"]:
            lines.append(f"boxed for the game: familiars {' '.join(log['boxed_familiars']) or '-'}; "
                         f"grimoires {' '.join(map(str, log['boxed_grimoires'])) or '-'}")
        legal = iter(log.get("legal", []))
        for r, played_tricks in rounds_with_tricks(log):
            lines.append(f"round {r['round'] + 1}: grimoire pile {r['grimoires']}; seat {r['leader']} leads")
            for s in range(p):
                lines.append(f"  seat {s} hand (dealt to seat {r['hand_ids'][s]}): {' '.join(r['hands'][s])}")
            for tr in played_tricks:
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
            if r["round_scores"]:
                lines.append(f"  taken {r['taken']}  crystals {r['crystals']}  conversions {r['conversions']}")
                lines.append(f"  round scores {r['round_scores']}  totals {r['totals_after']}")
        return "\n".join(lines + self.closing_lines(log, f"  (hand scores {log['hand_scores']})"))


def reference_rules(setup):
    from simcore.games.chimera import reference as ref

    return ref.Rules(players=setup.players, suits=setup.suits, ranks=setup.ranks, zero_ten=setup.zero_ten,
                     crystal_ranks=setup.crystal_ranks, grimoires=setup.grimoires, crystals=setup.crystals,
                     rounds=setup.rounds, winner_leads=setup.winner_leads)


def record_dict(setup, record) -> dict:
    """A reference GameRecord in the compiled log's shape."""
    from simcore.games.chimera import reference as ref

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
    from simcore.games.chimera import reference as ref

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
    from simcore.games.chimera import reference as ref

    decider = _Replay(decisions_from) if decisions_from is not None else None
    record = ref.play_game(reference_rules(setup), seed, index, decider)
    return record_dict(setup, record)

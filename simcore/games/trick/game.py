"""A trick-taking game from a rules file, as the driver, CLI and tests see it.

Each rules file is a game of its own, named by its path (``balance simulate my-game.toml``):
``get_game`` makes a ``RulesFileGame`` for a name that ends in ``.toml``.  Every such game runs on
the one compiled loop in kernel.py; the file's contents are the arrays of ``rules.make_setup``, and
its variants are dotted overrides of its keys (``deal.hand_size``), checked like the file itself.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.bits import mask_to_list
from simcore.errors import BalanceError
from simcore.game import Columns, Event, Game, per_seat, used_rows
from simcore.games.trick import rules as tr
from simcore.games.trick.rulesfile import key_kinds, read_rules
from simcore.registry import RULES_FILE_ENGINE
from simcore.variants import Variant

STRATEGIES = RULES_FILE_ENGINE[1]  # the players of every rules-file game, reached through the registry
_HOOKED: dict = {}


def hooked_build(spec, random_only: bool):
    """The play loop (and the players) with a rules file's hooks compiled in: copies of
    kernel.py and strategies/trick.py executed with ``__hooks__`` (``simcore.codegen.module_copy``),
    kept in a folder of the compile cache named by the engine's and the hooks module's hashes,
    so an edited hooks module compiles afresh and an unchanged one loads.  A line-up of random
    seats gets the random player's dispatch alone (simcore/builds.py)."""
    import hashlib
    import importlib

    from simcore.builds import random_strategies
    from simcore.cache import CACHE_ROOT, FINGERPRINT
    from simcore.codegen import module_copy
    from simcore.games.trick.rulesfile import hooks_digest, hooks_of

    key = hashlib.sha1(f"{FINGERPRINT}:{hooks_digest(spec)}".encode()).hexdigest()[:16]
    kind = f"{key}-random" if random_only else key
    if kind not in _HOOKED:
        module = []
        names = list(hooks_of(spec, module))
        folder = CACHE_ROOT / "rules-builds" / key
        checked = folder / ".hooks-checked"  # once per engine and hooks module, as their build is
        if not checked.exists():
            from simcore.games.trick.hookcheck import check_compiles, check_run

            check_compiles(spec, names)  # a hook Numba refuses: one line, not its traceback
            check_run(spec)  # an index out of bounds in a checking game: one line, not a crash
            try:
                folder.mkdir(parents=True, exist_ok=True)
                checked.touch()
            except OSError:
                pass  # a read-only cache: the check runs again next time
        compiled = importlib.import_module(RulesFileGame.kernels_module).compiled_hooks(module[0], names)
        stock_strategies = importlib.import_module(STRATEGIES)
        stock_kernel = importlib.import_module(f"{RulesFileGame.kernels_module}")
        players = module_copy(stock_strategies, folder, f"strategies_{key}", {"__hooks__": compiled})
        dispatch = random_strategies(players) if random_only else players
        copy = module_copy(stock_kernel, folder, f"kernel_{key}{'_random' if random_only else ''}",
                           {"__strategies__": dispatch, "__hooks__": compiled})
        copy.__balance_random__ = random_only
        copy.__balance_hooks__ = hooks_digest(spec)  # which hooks it plays (RulesFileGame.play_loop)
        copy.__balance_hooks_module__ = spec.model.hooks.module
        _HOOKED[kind] = copy
    return _HOOKED[kind]


def flatten(data: dict, prefix: str = "") -> dict:
    """``{"deal": {"hand_size": 9}}`` and ``{"deal.hand_size": 9}`` alike as dotted keys; a table
    under a key that takes one (``scoring.card_points``, ``deck.players``) stays whole."""
    out = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and dotted.count(".") == 0:
            out.update(flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


class RulesFileGame(Game, rules=tr):
    events = (
        Event("leads_won", "Trick won by the card led"),
        Event("trumped_tricks", "Trick won by a trump on another suit's lead"),
        Event("reversed_tricks", "Trick turned round (trick.reverse_if_played)"),
        Event("moons", "Shooting the moon", per="round"),
        Event("exact_bids", "Exact bid", per="bid"),  # a bid: one seat's in one round
        Event("capped", "Game stopped at game.rounds, no total at game.target", per="game"),
    )

    def __init__(self, path: str | Path):
        self.path = str(path)
        self.spec = read_rules(self.path)
        self.name = self.path
        self.title = self.spec.name
        self.player_counts = self.spec.player_counts
        self.variant_keys = {key: (kinds if len(kinds) > 1 else kinds[0], "a key of the rules file (docs/rules-files.md)")
                             for key, kinds in key_kinds().items()}
        # the conformance bound: no rules in force can score below it (rules.score_bound)
        self.min_score = -tr.SCORE_LIMIT

    @property
    def strategies_module(self) -> str:
        return STRATEGIES

    def lineup(self, spec=None, players: int = 4, plugin_paths=()):
        """A line-up as for any game; with hooks, the play loop they are compiled into (the rules
        file's own: a variant that sets ``hooks.module`` plays its hooks, ``play_loop``)."""
        return self._hooked(super().lineup(spec, players, plugin_paths), self.spec)

    def _hooked(self, lineup, spec):
        """``lineup`` on the play loop of ``spec``'s hooks: the stock (or random) loop without
        hooks, else the build with them compiled in (``hooked_build``)."""
        import dataclasses

        from simcore.games.trick.rulesfile import hooks_digest

        wanted = hooks_digest(spec)
        if getattr(lineup.kernels, "__balance_hooks__", None) == wanted:
            return lineup
        if wanted is None:  # a hooked line-up for a spec without hooks: the stock loop's line-up
            return Game.lineup(self, list(lineup.names), len(lineup.names))
        if lineup.plugins:
            raise BalanceError(f"{spec.path}: strategy plug-ins for a rules file with hooks are not supported yet")
        random_only = bool((lineup.ids == self.strategy_module().RANDOM).all())
        return dataclasses.replace(lineup, kernels=hooked_build(spec, random_only))

    def play_loop(self, setup, lineup):
        """The line-up on the play loop of the rules in force: a variant's ``hooks.module`` (set
        or changed) has its own build, keyed on that module's hash."""
        return self._hooked(lineup, setup.spec)

    def run_chunk(self, setup, lineup, seed: int, start: int, n: int):
        lineup = self.play_loop(setup, lineup)
        with self._hook_errors(lineup, f"games {start} to {start + n - 1} of seed {seed}"):
            return super().run_chunk(setup, lineup, seed, start, n)

    def logged_batch(self, setup, lineup, seed: int, indices):
        lineup = self.play_loop(setup, lineup)
        with self._hook_errors(lineup, f"the logged games of seed {seed}"):
            return super().logged_batch(setup, lineup, seed, indices)

    def _hook_errors(self, lineup, where: str):
        """What a compiled hook raises past the checking run (a division by zero on a path its
        games did not take ...): one line naming the hooks module, not a traceback."""
        import contextlib

        module = getattr(lineup.kernels, "__balance_hooks_module__", None)

        @contextlib.contextmanager
        def one_line():
            try:
                yield
            except (ArithmeticError, IndexError, ValueError, TypeError) as exc:
                if module is None:
                    raise
                raise BalanceError(f"{self.path}: a hook of {module} raised {type(exc).__name__} ({exc}) in {where}") \
                    from None

        return one_line()

    def check_status(self, status, lineup, games, seed: int) -> None:
        status = np.asarray(status)
        module = getattr(lineup.kernels, "__balance_hooks_module__", None) or (
            self.spec.model.hooks.module if self.spec.model.hooks else "the hooks")
        said = {-4: "'legal' gave no card, or a card not in the hand",
                -5: "'trick_winner' gave a position outside the trick",
                -7: "'legal_bids' gave no bid",
                -8: "'next_leader' gave no seat of the game",
                -10: "'hand_size' dealt no card, or more than the round's deal.hand_size",
                -6: f"a round's score (after 'score_round') is past ±{tr.SCORE_LIMIT // self.spec.model.game.rounds:,}, "
                    "more than the engine keeps"}
        for code, what in said.items():
            broke = np.flatnonzero(status == code)
            if broke.size:
                first = broke[0] + games if isinstance(games, int) else games[broke[0]]
                raise BalanceError(f"{self.path}: a hook of {module} broke the rules in game {int(first)} of seed "
                                   f"{seed}: {what}")
        super().check_status(status, lineup, games, seed)

    # --- variants and setup --------------------------------------------------------------
    def variant(self, path=None, overrides: dict | None = None) -> Variant:
        """A variant of a rules file: dotted overrides of its keys (``deal.hand_size``), from a
        variant file (``game = "my-game.toml"``, or ``rules_file = ...`` where it changes a
        ``[game]`` key, and the keys it changes, as ``[deal]`` tables or dotted keys) and/or
        ``overrides``; checked like the rules file itself."""
        from simcore.variants import read_toml

        settings, name, description, source = {}, None, "", None
        if path is not None:
            data = read_toml(path, "variant file")
            source = str(path)
            # which game: `game = "my-game.toml"`, or `rules_file = "my-game.toml"` where the
            # variant changes keys of the rules file's own [game] table (`[game]` rounds = 3)
            named = data.get("rules_file", data["game"] if isinstance(data.get("game"), str) else None)
            if named is None:
                example = f'rules_file = "{self.path}"' if "game" in data else f'game = "{self.path}"'
                raise BalanceError(f"{path}: a variant file must say which game it is for, e.g. {example}")
            if Path(str(named)).name != Path(self.path).name:
                raise BalanceError(f"{path}: this variant is for '{named}', not '{self.path}'")
            name, description = data.get("name"), data.get("description", "")
            header = ("rules_file", "name", "description") + (("game",) if isinstance(data.get("game"), str) else ())
            settings = flatten({k: v for k, v in data.items() if k not in header})
            if "hooks.module" in settings:  # a path in a variant file is read from the variant file's folder
                settings["hooks.module"] = self.hooks_from(Path(source).parent, settings["hooks.module"])
        settings.update(flatten(dict(overrides or {})))
        where = source or self.path
        try:  # a wrong override is one line now, not at the first game
            read_rules(self.path, settings, counts=())  # what holds at every player count
            # a deal that fits at one of the file's counts is a variant: the others refuse it
            # when asked for (`sweep --set deal.hand_size=1..14 -p 4` of a 3-4 player game)
            failed = []
            for n in self.player_counts:
                try:
                    read_rules(self.path, settings, counts=(n,))
                except BalanceError as exc:
                    failed.append(exc)
            if len(failed) == len(self.player_counts):
                raise failed[0]
        except BalanceError as exc:
            raise BalanceError(f"{where}: {exc}" if source else str(exc)) from None
        if name is None:
            name = Path(source).stem if source else (", ".join(f"{k}={v}" for k, v in settings.items()) or "default")
        return Variant(self.name, str(name), str(description), settings, source)

    def hooks_from(self, folder: Path, module) -> object:
        """A ``hooks.module`` named in a file of ``folder`` as the rules file's keys name it:
        relative to the rules file's folder (anything but a path is left for the schema's line)."""
        import os

        if not isinstance(module, str) or Path(module).is_absolute():
            return module
        return Path(os.path.relpath(folder / module, Path(self.path).parent)).as_posix()

    def setup(self, players: int, variant: Variant):
        self.check_players(players)
        return self.build_setup(players, variant)

    def build_setup(self, players: int, variant: Variant):
        spec = read_rules(self.path, variant.settings, counts=(players,)) if variant.settings else self.spec
        return tr.make_setup(spec, players)

    def check_players(self, players: int) -> None:
        if players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise BalanceError(f"{self.title} ({self.path}) is played by {counts} players, not {players}")

    # --- runs ----------------------------------------------------------------------------
    def kernel_inputs(self, setup):
        return (setup.rules, setup.cards, setup.masks)

    def chunk_outputs(self, setup, n):
        p = setup.players
        return (np.zeros((n, p), dtype=np.int16), np.zeros((n, p), dtype=np.float32),
                np.zeros((n, tr.N_COUNTERS), dtype=np.uint16), np.zeros((n, p), dtype=np.uint64))

    def record(self, setup, scores, shares, counters, hands):
        p = setup.players
        return [Columns(scores, per_seat("score", p), games_first=True),
                Columns(shares, per_seat("share", p), games_first=True),
                Columns(counters, self.counter_names(setup), games_first=True),
                Columns(hands, per_seat("hand", p), games_first=True)]

    @staticmethod
    def counter_names(setup) -> tuple:
        """The counters' columns: the engine's, then the events the hooks module declares (EVENTS),
        the slots it leaves unused skipped (None)."""
        declared = [column for column, _, _ in setup.events]
        return tr.COUNTER_NAMES + tuple(declared) + (None,) * (tr.MAX_HOOK_EVENTS - len(declared))

    def metadata(self, setup) -> dict:
        # only the events the rules in force can have (no trump: no trick is trumped ...)
        rules = setup.rules
        applies = {"leads_won": True,
                   # a decision of the designer's may name a trump where the keys have none
                   "trumped_tricks": rules[tr.R_TRUMP_KIND] != tr.TRUMP_NONE or bool(rules[tr.R_DECISIONS]),
                   "reversed_tricks": setup.masks[tr.M_REVERSING] != 0,
                   "moons": bool(rules[tr.R_MOON]), "exact_bids": bool(rules[tr.R_BIDDING]),
                   "capped": bool(rules[tr.R_TARGET_ON])}
        events = [e.__dict__ for e in self.events if applies[e.column]]
        # the designer's events, counted by the count_events hook, on every page like the engine's
        events += [Event(column, label, per).__dict__ for column, label, per in setup.events]
        m = setup.spec.model
        if m.game.dealer == "random":
            first, seat_1_first = "the first dealer is drawn at random: seat 1 is first by number only", False
        elif m.play.lead == "holder":
            first = f"the {m.play.first_lead_card}'s holder leads: seat 1 is first by number only"
            seat_1_first = False
        elif m.play.lead == "bid-winner":
            first, seat_1_first = "the highest bidder leads: seat 1 bids first", False
        else:
            first, seat_1_first = "seat 1 leads the first trick", True
        return {**super().metadata(setup), "events": events, "first_seat": first, "seat_1_plays_first": seat_1_first,
                **self.game_length(setup), "deck": list(setup.names),
                # game.teams, seats from 0: partners score and win together, and every figure is by team
                **({"teams": [[seat - 1 for seat in team] for team in m.game.teams]} if m.game.teams else {}),
                "rules_file": self.path, "rules_file_sha256": self.spec.digest, "overrides": setup.spec.overrides,
                "hand_columns": "deck-index bitmask of the first round's hand as dealt (before any pass)"}

    @staticmethod
    def game_length(setup) -> dict:
        """How long a game is, for the events' rates per trick: a constant, or (a game played to
        game.target) the rounds and tricks each game counted (its ``rounds_played`` and
        ``tricks_played`` columns, which whatif and sweep also compare as the game's length)."""
        if setup.spec.model.game.target is None:
            return {"tricks_per_game": sum(setup.hands), "rounds_per_game": setup.rounds,
                    "bids_per_game": setup.rounds * setup.players}
        return {"unit_columns": {"round": "rounds_played", "trick": "tricks_played", "bid": "bids_made"},
                "round_cap": setup.rounds}  # game.rounds: a game still short of game.target stops there

    def ladder(self) -> list[str]:
        """The skill ladder (``balance ladder``): strategies/trick.py's.  Where a ``score_round``
        hook scores the round the heuristic asks it what a trick is worth (its round score with
        the trick and without), so it keeps its rung."""
        return list(self.strategy_module().LADDER)

    def hooks(self) -> dict:
        from simcore.games.trick.rulesfile import hooks_of

        return hooks_of(self.spec) if self.spec.model.hooks is not None else {}

    def card_of_bit(self, setup) -> list[str]:
        return list(setup.names)

    def opening_masks(self, setup, seed: int, games: np.ndarray) -> np.ndarray:
        from simcore.games.trick.kernel import deal_openings

        hands = np.zeros((len(games), setup.players), dtype=np.uint64)
        deal_openings(seed, games, setup.rules, hands)
        return hands

    # --- logs ----------------------------------------------------------------------------
    def log_buffers(self, setup, k):
        rows = sum(setup.hands)  # every trick of the longest game: each round's hand
        return (np.full((k, rows, tr.LOG_WIDTH), -1, dtype=np.int64),
                np.zeros((k, setup.rounds, tr.MAX_PLAYERS), dtype=np.uint64),
                np.full((k, setup.rounds, tr.ROUND_WIDTH), -1, dtype=np.int64),
                np.zeros((k, tr.MAX_PLAYERS), dtype=np.int64), np.zeros((k, tr.N_COUNTERS), dtype=np.int64))

    def log_dict(self, setup, log, dealt, infos, totals, counters) -> dict:
        p = setup.players
        name = setup.names
        rounds = []
        for r in range(setup.rounds):
            info = infos[r]
            if info[tr.I_DEALER] < 0:  # the game ended before this round (game.target)
                break
            passes = []
            if info[tr.I_PASS_OFFSET] > 0:
                cards = setup.rules[tr.R_PASS_CARDS]
                passes = [[name[info[tr.I_PASSED + s * tr.MAX_PASS + k]] for k in range(cards)] for s in range(p)]
            extra = {}
            if setup.spec.model.decision:  # the designer's decisions before the play: each seat's choice
                extra["decisions"] = {
                    d.name: [int(info[tr.I_CHOSEN + k * tr.MAX_PLAYERS + s]) if info[tr.I_CHOSEN + k * tr.MAX_PLAYERS + s] >= 0
                             else None for s in range(p)]
                    for k, d in enumerate(setup.spec.model.decision) if d.at in ("before-bidding", "before-play")}
            rounds.append({
                **extra,
                "round": r, "dealer": int(info[tr.I_DEALER]),
                "hands": [[name[i] for i in mask_to_list(dealt[r, s])] for s in range(p)],
                "trump_card": name[info[tr.I_TRUMP_CARD]] if info[tr.I_TRUMP_CARD] >= 0 else None,
                "trump": setup.suits[info[tr.I_TRUMP]] if info[tr.I_TRUMP] >= 0 else None,
                "pass_offset": int(info[tr.I_PASS_OFFSET]), "passes": passes,
                "bids": [int(info[tr.I_BID + s]) for s in range(p)] if setup.rules[tr.R_BIDDING] else [],
            })
        tricks = [{"round": int(row[tr.L_ROUND]), "trick": int(row[tr.L_TRICK]), "leader": int(row[tr.L_LEADER]),
                   "cards": [name[row[tr.L_CARD + i]] if row[tr.L_CARD + i] >= 0 else None for i in range(p)],
                   "winner": int(row[tr.L_WINNER]),
                   "points": int(row[tr.L_POINTS])}
                  for row in used_rows(log, tr.L_TRICK)]
        after = [(k, d.name) for k, d in enumerate(setup.spec.model.decision) if d.at in ("after-card", "after-trick")]
        if setup.spec.model.decision:  # the designer's decisions after each trick: the choice made
            for trick, row in zip(tricks, used_rows(log, tr.L_TRICK)):
                trick["decisions"] = {n: (int(row[tr.L_DECIDED + k]) if row[tr.L_DECIDED + k] >= 0 else None)
                                      for k, n in after}
        scores = [int(x) for x in totals[:p]]
        shares = np.zeros(tr.MAX_PLAYERS)
        tr.match_shares.py_func(np.array(scores + [0] * (tr.MAX_PLAYERS - p)), p,
                                bool(setup.rules[tr.R_LOWEST_WINS]), shares)
        return {"game": self.name, "players": p, "rounds": rounds, "tricks": tricks, "scores": scores,
                "shares": [float(x) for x in shares[:p]],
                "counters": {n: int(counters[c]) for c, n in enumerate(self.counter_names(setup)) if n is not None}}

    def plays_in_log(self, setup, log: dict) -> int:
        return sum(c is not None for trick in log["tricks"] for c in trick["cards"])  # a seat may sit out

    def scripted_round(self, setup, lineup, hands, dealer: int, trump_card: int, offset: int, script) -> dict:
        """One round of the compiled loop from a given deal (``hands``: each seat's deck indices)
        with ``script``'s decisions (passes, bids, cards in the order asked; the line-up decides
        after it): {"status", "winners", "scores", "log"} (status -1 when it finished)."""
        from simcore.rng import seat_keys

        p = setup.players
        dealt = np.zeros(tr.MAX_PLAYERS, dtype=np.uint64)
        for s, hand in enumerate(hands):
            for c in hand:
                dealt[s] |= np.uint64(1) << np.uint64(c)
        log = np.full((setup.tricks, tr.LOG_WIDTH), -1, dtype=np.int64)
        infos = np.full((1, tr.ROUND_WIDTH), -1, dtype=np.int64)
        scores = np.zeros(tr.MAX_PLAYERS, dtype=np.int64)
        counters = np.zeros(tr.N_COUNTERS, dtype=np.int64)
        lineup = self.play_loop(setup, lineup)
        status = lineup.kernels.play_scripted(dealt, dealer, trump_card, offset, setup.rules, setup.cards, setup.masks,
                                              lineup.ids, lineup.params, 0, seat_keys(0),
                                              np.asarray(script, dtype=np.int64), log, infos, scores, counters)
        return {"status": int(status), "winners": [int(w) for w in log[:, tr.L_WINNER] if w >= 0],
                "scores": [int(x) for x in scores[:p]], "log": log, "infos": infos[0]}

    # --- the reference engine ------------------------------------------------------------
    def reference_rules(self, setup):
        return self.reference.Rules.from_setup(setup)

    def reference_log(self, setup, seed: int, index: int) -> dict:
        record = self.reference.play_game(self.reference_rules(setup), seed, index)
        return record.as_log(self.name)

    # --- text ----------------------------------------------------------------------------
    def format_log(self, log: dict) -> str:
        lines = [self.log_heading(log)]
        p = log["players"]
        for rnd in log["rounds"]:
            extra = f", dealer seat {rnd['dealer'] + 1}"  # seats from 1, as every page numbers them
            if rnd["trump_card"]:
                extra += f", {'upcard' if self.spec.model.deal.upcard else 'trump card'} {rnd['trump_card']}"
            decided = rnd.get("decisions")  # the designer's decisions before the play
            if rnd.get("trump"):
                extra += f", trump {rnd['trump']}" + (" (as the decisions named it)" if decided is not None
                                                      else " (the bid winner's choice)")
            lines.append(f"Round {rnd['round'] + 1}{extra}")
            decisions = {d.name: d for d in self.spec.model.decision}
            names = self.setup(p, self.variant()).names if any(d.options == "cards" for d in decisions.values()) else []
            tricks = [t for t in log["tricks"] if t["round"] == rnd["round"]]
            playing = {(t["leader"] + i) % p for t in tricks for i, c in enumerate(t["cards"]) if c is not None}
            for s, hand in enumerate(rnd["hands"]):
                more = f"   passes {' '.join(rnd['passes'][s])}" if rnd["passes"] else ""
                if tricks and s not in playing:
                    more += "   sits the round out"
                bid = f"   bids {rnd['bids'][s]}" if rnd["bids"] else ""
                for name, choices in (decided or {}).items():
                    if choices[s] is not None:
                        more += f"   {name}: {decisions[name].option_name(choices[s], names)}"
                lines.append(f"  seat {s + 1}: {' '.join(hand)}{more}{bid}")
            for t in tricks:
                plays = " ".join(f"s{(t['leader'] + i) % p + 1}:{c}" for i, c in enumerate(t["cards"]) if c is not None)
                points = f", {t['points']} pts" if t["points"] else ""
                after = "".join(f"; {name}: {decisions[name].option_name(choice, names)}"
                                for name, choice in t.get("decisions", {}).items() if choice is not None)
                lines.append(f"  trick {t['trick'] + 1}: {plays:<40} -> seat {t['winner'] + 1}{points}{after}")
        lines += self.closing_lines(log, first=1)
        return "\n".join(lines)

"""What every game offers the driver, the command line and the tests.

A game is a subclass of :class:`Game` in ``simcore/games/<game>/game.py`` that names its rules
module; this base class supplies what is the same for every game: variants and setup, strategy
line-ups (built-ins and plug-ins), a chunk of games as Parquet columns from the outputs the game
declares (``Columns``), logs in batches, the reference engine's games and scenarios, and the
text of a log.  Adding a game = its folder, its strategies module and one ``register`` line in
simcore/registry.py (docs/architecture.md, "Adding a game").
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from simcore.errors import BalanceError
from simcore.lineup import Lineup, make_lineup
from simcore.registry import DUPLICATE, GAMES, MAX_SEED, check_seed
from simcore.variants import Variant, load_variant, parse_variant


@dataclass(frozen=True)
class Event:
    """A rule event counted per game: Parquet column, label, and what it is a rate of."""

    column: str
    label: str
    per: str = "trick"  # "trick" (rate = count / tricks) or "game"


@dataclass(frozen=True)
class Columns:
    """One block of a chunk's record: a kernel output array and the Parquet columns it becomes.

    ``array`` has one row per column (column-major: each row is one contiguous column), or with
    ``games_first`` one row per game; ``names`` name its rows in order (None skips a row);
    ``dtype`` casts the columns, and ``shrink`` stores a count column as uint16 when every
    value fits."""

    array: np.ndarray
    names: tuple[str | None, ...]
    dtype: object = None
    shrink: bool = False
    games_first: bool = False

    def columns(self) -> dict[str, np.ndarray]:
        out = {}
        for k, name in enumerate(self.names):
            if name is None:
                continue
            column = self.array[:, k] if self.games_first else self.array[k]
            if self.shrink and column.max(initial=0) < 65536:
                column = column.astype(np.uint16)
            elif self.dtype is not None:
                column = column.astype(self.dtype)
            out[name] = column
        return out


def used_rows(table, column: int) -> list[list]:
    """A log table's rows up to its first unused one (``column`` negative), as Python lists of
    Python numbers: a game's ``log_dict`` reads every field, and one field of a numpy row at a time
    costs more than the whole conversion."""
    table = np.asarray(table)
    unused = np.flatnonzero(table[:, column] < 0)
    return table[:unused[0] if len(unused) else len(table)].tolist()


def per_seat(prefix: str, players: int) -> tuple[str, ...]:
    """``score_0 .. score_{players-1}``: the names of a per-seat block of columns."""
    return tuple(f"{prefix}_{s}" for s in range(players))


class Game:
    """A game as the engine sees it.  A subclass names its rules module (``class X(Game,
    rules=...)``), which supplies GAME, TITLE, PLAYER_COUNTS, MAX_PLAYERS, VARIANT_KEYS and
    ``make_setup``; its play loop is the ``kernel.py`` beside it and its players are the
    strategies module the registry names."""

    name: str
    title: str
    player_counts: tuple[int, ...]
    variant_keys: dict
    max_players: int
    assumed: tuple[str, ...] = ()  # notes printed wherever assumed game data is used
    kernels_module: str  # e.g. "simcore.games.bird_weather.kernel"
    events: tuple[Event, ...] = ()
    min_score = 0  # the lowest final score the rules allow (conformance bound)
    default_strategy = "random"
    strong_strategy = "heuristic"  # what `bench` times as skilled play
    play_unit = "card plays"  # what `bench` counts per game (plays_in_log)
    duplicate_deals = True
    """Whether the game's deal can be turned round the table (simcore/rng.py, duplicate deals):
    every card game's hands can.  A game whose chance cannot be (ALEA's dice follow the roller)
    says why instead (``duplicate_deals_refused``), and its analyses play independent games."""
    duplicate_deals_refused = ""

    def __init_subclass__(cls, rules: ModuleType | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if rules is not None:
            cls.rules = rules
            cls.name, cls.title = rules.GAME, rules.TITLE
            cls.player_counts, cls.max_players, cls.variant_keys = rules.PLAYER_COUNTS, rules.MAX_PLAYERS, rules.VARIANT_KEYS
            cls.kernels_module = rules.__name__.rpartition(".")[0] + ".kernel"

    @property
    def strategies_module(self) -> str:
        return GAMES[self.name][1]

    # --- variants and setup ------------------------------------------------
    def variant(self, path=None, overrides: dict | None = None) -> Variant:
        variant = load_variant(self.name, path, self.variant_keys)
        if overrides:
            merged = {**variant.to_dict(), **overrides}
            variant = parse_variant(self.name, merged, self.variant_keys, variant.source or "options")
            if path is None:
                variant = Variant(self.name, "default", "", variant.settings, None)
        return variant

    def check_players(self, players: int) -> None:
        if players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise BalanceError(f"{self.title} is played by {counts} players, not {players}")

    def setup(self, players: int, variant: Variant):
        """The rules in force as kernel arrays; a problem with the variant names its file."""
        self.check_players(players)
        try:
            return self.build_setup(players, variant)
        except BalanceError as exc:
            raise BalanceError(f"{variant.source}: {exc}" if variant.source else str(exc)) from None

    def build_setup(self, players: int, variant: Variant):
        return self.rules.make_setup(players, variant.settings)

    # --- strategies ----------------------------------------------------------
    def strategy_module(self) -> ModuleType:
        return importlib.import_module(self.strategies_module)

    @property
    def plugin_decisions(self) -> dict:
        """Decision -> argument list of a plug-in's functions (from the strategy module)."""
        return self.strategy_module().PLUGIN_DECISIONS

    def builtin_strategies(self) -> dict[str, int]:
        return dict(self.strategy_module().BUILTIN)

    def strategy_label(self, name: str) -> str:
        """A strategy as a designer reads it: its name and, where it takes parameters, the values it
        plays with (``search (d=24, p=1, policy=random, margin=0.05)``, ``cautious (P=0.25)``); the
        strategies module's ``describe(name, argument)`` says how.  Anything else (a plug-in, an
        unknown name) is its name."""
        module = self.strategy_module()
        base, _, argument = str(name).partition(":")
        describe = getattr(module, "describe", None)
        if describe is None or base not in module.BUILTIN:
            return str(name)
        try:
            return describe(base, argument or None)
        except (BalanceError, ValueError):
            return str(name)

    def lineup(self, spec: str | list[str] | None, players: int, plugin_paths=()) -> Lineup:
        """Parse ``heuristic,random,...`` (one name = every seat) into a Lineup (simcore/lineup.py)."""
        return make_lineup(self, spec, players, plugin_paths)

    def play_loop(self, setup, lineup: Lineup) -> Lineup:
        """``lineup`` on the compiled play loop that plays ``setup``'s rules: the line-up's own,
        except in a game whose rules in force choose their loop (a rules file's variant with
        hooks of its own, simcore/games/trick/game.py)."""
        return lineup

    def check_lineup(self, setup, lineup: Lineup) -> None:
        """Refuse a strategy parameter the rules in force make meaningless (a game whose
        parameters depend on its variant checks them here; the driver asks before any game)."""

    # --- runs ------------------------------------------------------------------
    def take_tallies(self) -> dict | None:
        """Run-level tallies of the chunk just played (lists of whole numbers by name), which
        the driver keeps with the chunk's rows and sums over the run (``finish_run``); None
        for a game without any.  The tallies of chunks played anywhere, in any order, add up to
        the same totals."""
        return None

    def run_chunk(self, setup, lineup: Lineup, seed: int, start: int, n: int) -> dict[str, np.ndarray]:
        """Games start..start+n-1 of run ``seed`` as Parquet columns: ``game``, then the record's
        blocks.  The compiled ``run_chunk`` fills the outputs and a status a game (``play_chunk``;
        ``keys = seat_keys(seed)`` seeds the seats' own PLAY streams, simcore/rng.py); a
        plug-in's illegal move stops the run with one line."""
        from simcore.rng import seat_keys  # here: importing this module does not load Numba

        if getattr(lineup.kernels, "__balance_random__", False) and not self.random_build_plays(setup):
            import dataclasses

            lineup = dataclasses.replace(lineup, kernels=importlib.import_module(self.kernels_module))
        outputs = self.chunk_outputs(setup, n)
        status = np.empty(n, dtype=np.int8)
        self.play_chunk(lineup, seed, seat_keys(seed), start, n, self.kernel_inputs(setup), (*outputs, status))
        self.check_status(status, lineup, start, seed)
        return self.rows(start, n, self.record(setup, *outputs))

    def random_build_plays(self, setup) -> bool:
        """Whether the random build's ``run_chunk`` (simcore/builds.py) plays ``setup``'s rules;
        where it does not, ``run_chunk`` plays the stock loop instead, with the same rows.  A game
        whose random build leaves a rule out of its loop says so here (Chimera Tricks: a card
        withheld by ``cards --cause``)."""
        return True

    one_contract: bool = False
    """Whether its kernel keeps simcore/play.py's contract (else it takes arrays one by one)."""

    tally_outputs: dict[int, str] = {}
    """Which of ``chunk_outputs`` are tallies summed over the chunk's games rather than one row a
    game (simcore/threads.py gives each thread its own), each the state field the games add into."""

    def play_chunk(self, lineup: Lineup, seed: int, keys, start: int, n: int, inputs: tuple,
                   outputs: tuple) -> None:
        """The compiled ``run_chunk`` (one thread's loop, simcore/play.py) on games start..start+n-1,
        shared among ``--threads`` threads (simcore/threads.py), each on a state of its own."""
        from simcore.threads import share_out

        kernels, players = lineup.kernels, (lineup.ids, lineup.params)

        def share(first: int, last: int, into: tuple) -> None:  # a thread's state of its own
            if self.one_contract:
                tallies = {field: into[i] for i, field in self.tally_outputs.items()}
                state = kernels.new_state(inputs, False)._replace(**tallies)
                kernels.run_chunk(state, (seed, keys), start, inputs, players, into, first, last)
            else:
                kernels.run_chunk(seed, keys, start, first, last, *inputs, *players, *into)

        share_out(share, n, outputs, self.tally_outputs)

    @staticmethod
    def rows(start: int, n: int, blocks) -> dict[str, np.ndarray]:
        """A chunk's Parquet columns: ``game`` (the index in the run), then the blocks in order."""
        columns = {"game": np.arange(start, start + n, dtype=np.uint64)}
        for block in blocks:
            columns.update(block.columns() if isinstance(block, Columns) else block)
        return columns

    def kernel_inputs(self, setup) -> tuple:
        """The rules-in-force arrays the compiled run_chunk takes after (seed, start, n)."""
        return (setup.rules, setup.masks)

    def chunk_outputs(self, setup, n: int) -> tuple[np.ndarray, ...]:
        """The empty arrays the compiled run_chunk fills for ``n`` games, in its argument order."""
        raise NotImplementedError

    def record(self, setup, *outputs) -> list:
        """The filled outputs as blocks of columns (``Columns``, or a dict name -> column), in
        the order the Parquet file has them: score_s, share_s, the events, the game's own."""
        raise NotImplementedError

    def finish_run(self, setup, tallies: dict | None = None) -> dict:
        """Run-level figures added to the metadata after the last chunk, from the summed
        ``take_tallies`` of every chunk."""
        return {}

    def metadata(self, setup) -> dict:
        """Game-specific run metadata (events, tricks per game, deck ...)."""
        return {"events": [e.__dict__ for e in self.events]}

    # --- opening hands (card strength, analysis/cards.py) ----------------------------
    def card_of_bit(self, setup) -> list[str | None] | None:
        """The printed card behind each bit of a hand mask (None: no card of the deck in force
        uses that bit; identical copies share a name), or None for a game whose players are not
        dealt hands of cards (no card-strength analysis)."""
        return None

    def opening_masks(self, setup, seed: int, games: np.ndarray) -> np.ndarray:
        """uint64[len(games), players]: each seat's hand as first dealt in these games of run
        ``seed``, by the kernel's own deal (``deal_openings``): the run's deal, whoever played."""
        from simcore.rng import seat_keys

        hands = np.zeros((len(games), setup.players), dtype=np.uint64)
        kernels, inputs = importlib.import_module(self.kernels_module), self.kernel_inputs(setup)
        kernels.deal_openings(kernels.new_state(inputs, False), (seed, seat_keys(seed)), games, inputs, hands)
        return hands

    def card_names(self, setup) -> list[str] | None:
        """The distinct printed cards that can be dealt, in deck order; None: no card analysis."""
        bits = self.card_of_bit(setup)
        return None if bits is None else list(dict.fromkeys(name for name in bits if name is not None))

    def opening_hands(self, setup, seed: int, games) -> np.ndarray:
        """uint8[len(games), players, len(card_names)]: how many copies of each printed card seat
        s was dealt in the first deal of each game (0/1 for a card printed once)."""
        names = self.card_names(setup)
        if names is None:
            raise BalanceError(f"{self.title} deals no hands of cards: it has no card strength")
        games = np.asarray(games)
        if games.size and (games.min() < 0 or games.max() > MAX_SEED):
            raise BalanceError("game indices must be 0 to 2**63-1")
        masks = self.opening_masks(setup, check_seed(seed), np.ascontiguousarray(games, dtype=np.int64))
        column = {name: c for c, name in enumerate(names)}
        # one contiguous plane per card (a strided write per bit is several times slower)
        copies = np.zeros((len(names), *masks.shape), dtype=np.uint8)
        for b, name in enumerate(self.card_of_bit(setup)):
            if name is not None:
                copies[column[name]] += ((masks >> np.uint64(b)) & np.uint64(1)).astype(np.uint8)
        return np.moveaxis(copies, 0, -1)

    def withheld_setup(self, setup, card: str):
        """The rules in force with one printed card *withheld* (``balance cards --cause``): no seat
        plays it (any copy) to a trick while another legal move exists.  The card's bits go into the
        rules slot ``R_WITHHELD`` of a card game's rules module, which its play loop applies to the
        legal moves before any strategy chooses (``simcore.play.withhold``), so it binds every
        strategy alike; the deal and every chance draw are unchanged.  A setup with nothing withheld
        (the slot 0, every ordinary run) plays exactly as before."""
        import dataclasses

        slot = getattr(self.rules, "R_WITHHELD", None)
        bits = self.card_of_bit(setup)
        if slot is None or bits is None:
            raise BalanceError(f"{self.title} has no cards to withhold")
        mask = 0
        for b, name in enumerate(bits):
            if name == card:
                mask |= 1 << b
        if not mask:
            raise BalanceError(f"{self.title} has no card '{card}' in the deck in force")
        rules = setup.rules.copy()
        rules[slot] = np.array([mask], dtype=np.uint64).view(np.int64)[0]
        return dataclasses.replace(setup, rules=rules)

    @staticmethod
    def check_status(status: np.ndarray, lineup: Lineup, games, seed: int) -> None:
        """Turn a kernel's per-game status into an error naming the first broken game.

        Built-in strategies always play legally; a plug-in's illegal decision stops its game
        (status -2) rather than corrupting the results."""
        bad = np.flatnonzero(status != -1)
        if bad.size:
            first = bad[0] + games if isinstance(games, int) else games[bad[0]]
            who = ", ".join(lineup.plugins) or "a built-in strategy"
            raise BalanceError(f"a strategy made an illegal move in game {int(first)} of seed {seed} "
                               f"({bad.size} game(s) in this batch; strategies: {', '.join(lineup.names)}; "
                               f"plug-ins: {who})")

    # --- the reference engine ------------------------------------------------------------
    @property
    def reference(self) -> ModuleType:
        """The game's ``reference.py``: the same rules in plain Python."""
        return importlib.import_module(self.kernels_module.rpartition(".")[0] + ".reference")

    def reference_rules(self, setup):
        """The rules in force as the reference engine takes them."""
        raise NotImplementedError

    def reference_game(self, setup, seed: int, index: int):
        """Game ``index`` of run ``seed`` played at random by the plain-Python reference engine
        (from the same streams as the kernel's random play, the game's DEAL stream and each
        seat's own PLAY stream: what ``bench`` times)."""
        return self.reference.play_game(self.reference_rules(setup), seed, index)

    def reference_scenario(self, data: dict, where: str, keys: set[str], lists=("rounds",)):
        """A scenario's setup and the reference engine's record of it: the reference checks every
        scripted step first, so a wrong script is refused in the rules' own words."""
        from simcore.scenarios import field

        setup = self.scenario_setup(data, where, keys)
        for key in lists:
            field(data, key, list, where)
        try:
            return setup, self.reference.play_scenario(self.reference_rules(setup), data)
        except BalanceError as exc:
            raise BalanceError(f"{where}: {exc}") from None

    def reference_result(self, setup, seed: int, index: int) -> tuple[list[int], list[float]]:
        """The final scores and win shares of ``reference_game`` (conformance: kernel = reference)."""
        record = self.reference_game(setup, seed, index)
        scores = record.scores if hasattr(record, "scores") else record.totals
        return [int(x) for x in scores], [float(x) for x in record.shares]

    # --- logs, replays, scenarios --------------------------------------------------
    def kernel_logs(self, setup, lineup: Lineup, seed: int, indices) -> list[dict]:
        """Games ``indices`` of run ``seed`` with their full logs, exactly as the run played them,
        logged ``log_batch`` games at a time so that memory stays bounded."""
        indices = np.asarray(indices, dtype=np.int64)
        size = self.log_batch(setup)
        logs = []
        for first in range(0, len(indices), size):
            logs += self.logged_batch(setup, lineup, seed, indices[first:first + size])
        return logs

    def plays_in_log(self, setup, log: dict) -> int:
        """The plays of one logged game, in ``play_unit``: for the trick-taking games every card
        played (tricks x players); `balance bench` divides time by it (ns per play)."""
        return len(log["tricks"]) * setup.players

    def plays_per_game(self, setup, lineup: Lineup, seed: int = 1000, games: int = 2000) -> float:
        """Mean plays per game (``plays_in_log``) over games 0..games-1 of run ``seed``, counted
        from the kernel's own logs of exactly those games."""
        logs = self.kernel_logs(setup, lineup, seed, range(games))
        return sum(self.plays_in_log(setup, log) for log in logs) / len(logs)

    def log_batch(self, setup) -> int:
        """Games logged at once (a log has room for the longest game the rules allow)."""
        return 1000

    def logged_batch(self, setup, lineup: Lineup, seed: int, indices: np.ndarray) -> list[dict]:
        """The logs of a few games: the compiled ``play_many_logged(seed, keys, indices,
        *kernel_inputs, ids, params, *log_buffers, status)`` fills the buffers the game declares,
        and ``log_dict(setup, *one game's rows)`` reads each game's."""
        from simcore.rng import seat_keys

        buffers = self.log_buffers(setup, len(indices))
        status = np.zeros(len(indices), dtype=np.int8)
        inputs = self.kernel_inputs(setup)
        if self.one_contract:
            lineup.kernels.play_many_logged(lineup.kernels.new_state(inputs, True), (seed, seat_keys(seed)), indices,
                                            inputs, (lineup.ids, lineup.params), (*buffers, status))
        else:
            lineup.kernels.play_many_logged(seed, seat_keys(seed), indices, *inputs, lineup.ids, lineup.params,
                                            *buffers, status)
        self.check_status(status, lineup, indices, seed)
        return [self.log_dict(setup, *(buffer[g] for buffer in buffers)) for g in range(len(indices))]

    def log_buffers(self, setup, k: int) -> tuple[np.ndarray, ...]:
        """The arrays ``play_many_logged`` fills for ``k`` games (a leading game axis each)."""
        raise NotImplementedError

    def log_dict(self, setup, *rows) -> dict:
        """One game's log as a dictionary (what ``replay`` prints and the tests compare)."""
        raise NotImplementedError

    def seat_decisions(self, setup, log: dict, seat: int) -> list[int]:
        """How many choices ``seat`` had at each of its decisions in a logged game (``log`` as
        ``kernel_logs`` gives it), in the order it was asked, a forced decision as 1: what
        `balance bench --search` counts a search player's work with."""
        raise BalanceError(f"{self.name} does not count a seat's decisions from its logs (Game.seat_decisions), "
                           "so bench --search cannot measure its search")

    def replay(self, setup, lineup: Lineup, seed: int, index: int) -> dict:
        """Game ``index`` of run ``seed``, logged exactly as the run played it (an index from
        DUPLICATE on: that duplicate deal's turn, simcore/rng.py)."""
        self.check_lineup(setup, lineup)
        if index >= DUPLICATE and not self.duplicate_deals:
            raise BalanceError(f"{self.name} cannot play duplicate deals (game {index} is one): "
                               f"{self.duplicate_deals_refused}")
        if lineup.plugins:  # a plug-in that writes to the game's state is refused (simcore/plugins/writes.py)
            from simcore.plugins.writes import check_writes

            check_writes(self, setup, lineup, seed, logs=True)
        log = self.kernel_logs(setup, lineup, seed, [index])[0]
        log.update(seed=seed, index=index, strategies=list(lineup.names))
        return log

    def scenario_setup(self, data: dict, where: str, keys: set[str]):
        """A scenario file's checked players and inline variant, as a setup; ``keys`` are the
        game's own keys beside the common ones (game, players, variant, expect, name, description)."""
        from simcore.scenarios import field

        known = keys | {"game", "players", "variant", "expect", "name", "description"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BalanceError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(sorted(known))})")
        players = field(data, "players", int, where)
        if not isinstance(data.get("variant", {}), dict):
            raise BalanceError(f"{where}: 'variant' must be an object of variant settings")
        if not isinstance(data.get("expect", {}), dict):
            raise BalanceError(f"{where}: 'expect' must be an object")
        return self.setup(players, self.variant(overrides=data.get("variant") or {}))

    def format_log(self, log: dict) -> str:
        raise NotImplementedError

    @staticmethod
    def require_agreement(agree: bool, where: str) -> None:
        """A scenario the two engines play differently is a bug in one of them: refuse it."""
        if not agree:
            raise BalanceError(f"{where}: the compiled and reference engines disagree on this scenario "
                               "(a bug: please report it with this file)")

    def log_heading(self, log: dict) -> str:
        """A log's first line: the game, the players, and for a replay the run, game and line-up."""
        head = f"{self.title}, {log['players']} players"
        if "seed" in log:
            head += f" - run seed {log['seed']}, game {log['index']}"
        if log.get("strategies"):
            head += f" - {', '.join(log['strategies'])}"
        return head

    def closing_lines(self, log: dict, note: str = "", first: int = 0) -> list[str]:
        """A log's last lines: every seat's total (``note`` after them), then the winner, or that
        the scripted tricks stopped before the game ended; seats numbered from ``first``."""
        totals = "Totals: " + "  ".join(f"seat {s + first}: {v}" for s, v in enumerate(log["scores"])) + note
        if any(log["shares"]):
            return [totals, self.winner_line(log["shares"], first)]
        return [totals, "(the scripted tricks end before the game does)"]

    @staticmethod
    def winner_line(shares, first: int = 0) -> str:
        """"Winner: seat 2" or "Winner: shared by seats 0, 3" from a log's win shares."""
        winners = [s + first for s, x in enumerate(shares) if x > 0]
        return "Winner: " + (f"seat {winners[0]}" if len(winners) == 1 else
                             "shared by seats " + ", ".join(map(str, winners)))

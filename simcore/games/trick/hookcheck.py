"""A rules file's hooks checked before the play loop compiles them: every mistake is one line.

Compiled into the play loop, a hook's mistake surfaced as Numba's traceback (an unknown name: 81
lines; a dict: 185), blamed the engine's own functions (``np.zeros`` in ``legal``: the play loop's
``game_buffers``), or crashed the process (an index past an array's end: a segmentation fault).
Here each hook is first compiled alone, as the loop calls it (the game's argument types; without
reference counts for the hooks called at every card, as the loop is compiled), and then played in
plain Python through a few random games of the reference engine (the checking run: an index out
of bounds, a division by zero ... raise there, where compiled code would read past memory).  A
problem is one ``RulesFileError`` naming the rules file, the hooks module, the hook, the line and
the reason.
"""
from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import traceback
from pathlib import Path

import numpy as np

# the games of the checking run: enough to reach a round's last trick and its score at every
# player count, a fraction of a second in plain Python
CHECK_GAMES = 12
CHECK_SECONDS = 30  # a checking run longer than this has a hook that does not return (a loop without end)


def argument_types(name: str) -> tuple:
    """The Numba types the play loop passes to hook ``name`` (rulesfile.HOOKS' argument lists)."""
    from numba import types

    table = rules = types.Array(types.int64, 1, "C")
    cards = types.Array(types.int64, 2, "C")
    masks = types.Array(types.uint64, 1, "C")
    scores = types.Array(types.int64, 1, "A")  # a slice of the loop's work array
    return {"legal": (types.uint64, table, rules, cards, masks, types.boolean),
            "trick_winner": (table, types.int64, types.int64, cards, masks, rules, types.int64),
            "trick_points": (table, types.int64, cards, masks, rules),
            "score_round": (table, types.int64, cards, masks, rules, scores),
            "legal_bids": (rules, table, types.int64, types.int64, types.int64),
            "count_events": (table, types.int64, cards, masks, rules, types.Array(types.int64, 1, "A")),
            "next_leader": (table, types.int64, cards, masks, rules),
            "hand_size": (types.int64, types.Array(types.int64, 1, "C"), rules),
            "suit_of": (types.int64, types.int64, cards),
            "decision_options": (types.int64, types.int64, types.uint64, table, rules, cards, masks),
            "decision_apply": (types.int64, types.int64, types.int64, types.Array(types.uint64, 1, "C"), table, rules,
                               cards, masks)}[name]


def _fresh(path: Path, name: str):
    """The hooks module executed afresh under a name of its own: the check's compiled functions
    are not the play loop's (a failed Numba compile stays with the function it was tried on)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _location(text: str, path: Path) -> int | None:
    """The line of the hooks module a Numba message points at (its ``File "...", line N``)."""
    for found in re.finditer(r'File "([^"]+)", line (\d+)', text):
        if Path(found.group(1)).name == path.name:
            return int(found.group(2))
    return None


ALLOCATES = ("NRT required but not enabled", "Only accept returning of array passed into the function")


def _unknown_name(text: str) -> str | None:
    found = re.search(r"name '([^']+)' is not defined", text) or re.search(r"Untyped global name '([^']+)'", text)
    return found.group(1) if found else None


def _reason(text: str) -> str:
    from simcore.errors import numba_reason

    if any(marker in text for marker in ALLOCATES):
        return ("it makes an array, list or dict (np.zeros, [], {} ...), which a hook called for every card may "
                "not: work in the arrays it is handed, or in whole numbers")
    name = _unknown_name(text)
    if name:
        return f"unknown name '{name}' (not defined or imported in the module)"
    return re.sub(r"\x1b\[[0-9;]*m", "", numba_reason(text))[:200]


def _line_of_name(function, name: str) -> int | None:
    """The first line of ``function`` (or the module's function it calls) that uses ``name``."""
    try:
        lines, first = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return None
    for k, line in enumerate(lines):
        if re.search(rf"\b{re.escape(name)}\b", line.split("#")[0]):
            return first + k
    return None


MOVES = "simcore.games.trick.moves"  # the card moves a hook may call, compiled with it


def check_compiles(spec, names) -> None:
    """Compile each hook of ``names`` alone for the loop's argument types: a hook Numba refuses is
    one line with its function, line and reason."""
    from numba import njit, types
    from numba.core.errors import NumbaError

    from simcore.games.trick.rulesfile import hooks_path

    path = hooks_path(spec)
    module = _fresh(path, f"balance_hookcheck_{abs(hash(path.read_bytes()))}")
    per_card = {name: name not in ("score_round", "count_events") for name in names}
    functions = [n for n, v in vars(module).items()
                 if inspect.isfunction(v) and v.__module__ in (module.__name__, MOVES)]
    for hook in names:
        # the helpers as the loop compiles them: every function of the module jitted, with
        # reference counts only where the loop gives them (score_round)
        nrt = not per_card[hook]
        again = _fresh(path, f"balance_hookcheck_{hook}_{abs(hash(path.read_bytes()))}")
        for name in functions:
            setattr(again, name, njit(_nrt=nrt)(getattr(again, name)))
        try:
            compiled = njit(argument_types(hook), _nrt=nrt)(getattr(again, hook).py_func)
        except NumbaError as exc:
            text = str(exc)
            line = _location(text, path)
            if line is None and _unknown_name(text):
                line = _line_of_name(getattr(module, hook), _unknown_name(text))
            where = f"{path.name}, {hook}" + (f", line {line}" if line else "")
            raise spec.error(("hooks", "module"), f"{where}: does not compile: {_reason(text)}") from None
        answer = compiled.nopython_signatures[0].return_type
        wanted_integer = hook not in ("score_round", "count_events", "decision_apply")
        if wanted_integer and not isinstance(answer, (types.Integer, types.Boolean)):
            raise spec.error(("hooks", "module"), f"{path.name}, {hook}: returns {answer}, not a whole number")


def check_run(spec) -> None:
    """The checking run: CHECK_GAMES random games of the reference engine, which runs the hooks as
    plain Python, at every player count; an exception inside a hook (an index out of bounds ...)
    is one line naming the hook's line, where the compiled loop would have read past memory; a
    hook that never returns stops the run after CHECK_SECONDS with one line too."""
    import signal
    import threading

    from simcore.games.trick.rulesfile import hooks_path

    path = hooks_path(spec).resolve()
    timed = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")
    if timed:
        def stalled(signum, frame):
            raise TimeoutError(f"a checking game did not end in {CHECK_SECONDS} s: a hook that never returns?")

        previous = signal.signal(signal.SIGALRM, stalled)
        signal.alarm(CHECK_SECONDS)
    try:
        _check_games(spec, path)
    finally:
        if timed:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def _check_games(spec, path: Path) -> None:
    from simcore.errors import BalanceError
    from simcore.games.trick import reference
    from simcore.games.trick.rules import make_setup

    for players in spec.player_counts:
        try:
            setup = make_setup(spec, players)
        except BalanceError:
            continue  # a count this variant does not deal: it is refused when asked for
        rules = reference.Rules.from_setup(setup)
        for index in range(CHECK_GAMES):
            try:
                with np.errstate(all="raise"):  # numpy's scalars warn where compiled code raises (1 // 0)
                    reference.play_game(rules, 0, index)
            except BalanceError as exc:  # an impossible answer, said by the reference
                raise spec.error(("hooks", "module"), f"{path.name}: {exc}") from None
            except Exception as exc:  # noqa: BLE001 - the designer's code: whatever it raised, one line
                frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path]
                if not frames:
                    if isinstance(exc, TimeoutError):
                        raise spec.error(("hooks", "module"), f"{path.name}: {exc}") from None
                    raise
                frame = frames[-1]
                what = {"IndexError": "an index out of bounds", "TimeoutError": "no end",
                        "FloatingPointError": "a division by zero or an overflow"}.get(
                    type(exc).__name__, type(exc).__name__)
                raise spec.error(("hooks", "module"),
                                 f"{path.name}, {frame.name}, line {frame.lineno}: {what} ({exc}) in a checking "
                                 f"game ({players} players, game {index})") from None

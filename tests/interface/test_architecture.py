"""The layers of docs/architecture.md, checked by reading every import (ast, nothing is run):

    cli -> analysis -> simcore <- strategies

(the cli layer: the package balance/, the command, and the top-level cli.py that runs it from a checkout)
No module of the engine (simcore/) or of the players (strategies/) imports analysis or cli, the
engine reaches the players through the registry alone (it never imports strategies/), and no
import cycle exists anywhere in the project, counting imports inside functions too.  One job a
module: no engine module outside a game's folder is longer than 500 lines, and code is generated
in one module only."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("simcore", "strategies", "analysis", "balance")


def project_modules() -> dict[str, Path]:
    modules = {"cli": ROOT / "cli.py"}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Project modules that ``name`` imports anywhere in its file (``from a import b`` counts as
    ``a.b`` where that is a module, else as ``a``)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # a name inside a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def layer(module: str) -> str:
    top = module.split(".")[0]
    return "cli" if top == "balance" else top


def test_the_graph_is_read():
    graph = import_graph()
    assert "simcore.games.bird_weather.kernel" in graph and "analysis.summary" in graph["analysis.report"]
    assert "simcore.games.sky_city.trap_language" in graph["simcore.games.sky_city.trap_odds"]
    assert "cli" in graph and "strategies.chimera" in graph
    assert graph["cli"] == {"balance.cli"} and "analysis.report" in graph["balance.cli"]


def test_engine_and_players_never_import_analysis_or_cli():
    upward = [(module, target) for module, targets in import_graph().items() for target in targets
              if layer(module) in ("simcore", "strategies") and layer(target) in ("analysis", "cli")]
    assert upward == []


def test_the_engine_reaches_the_players_through_the_registry_alone():
    """A game's players are named in simcore/registry.py and imported by name (importlib), so no
    engine module, a game's own included, imports strategies/ (the players import the engine)."""
    upward = [(module, target) for module, targets in import_graph().items() for target in targets
              if layer(module) == "simcore" and layer(target) == "strategies"]
    assert upward == []
    assert "strategies.search" in import_graph()["strategies.bird_weather"]  # imports of strategies/ are read


ENGINE_LINES = 500


def test_no_engine_module_outside_a_game_folder_is_long():
    """A module longer than this does several jobs (issue 49): split it along its seams."""
    long = {path.relative_to(ROOT).as_posix(): n for path in (ROOT / "simcore").rglob("*.py")
            if "games" not in path.relative_to(ROOT / "simcore").parts
            and (n := len(path.read_text(encoding="utf-8").splitlines())) > ENGINE_LINES}
    assert long == {}


# the games whose kernels keep the one contract of simcore/play.py (their Game.one_contract, which
# tests/engine/test_cache.py reads); the rules-file engine is still to move
ONE_CONTRACT = ("bird_weather", "chimera", "sky_city", "ten_tricks", "triatri")


def test_no_function_of_a_kernel_on_the_one_contract_takes_more_than_ten_parameters():
    """A kernel on the one contract hands its game a state, the rules in force and the line-up
    (simcore/play.py), not twenty arrays one by one (issue 49): no function of it, nor of the
    entry points written once, takes more than ten parameters."""
    paths = [ROOT / "simcore" / "play.py"] + [ROOT / "simcore" / "games" / game / "kernel.py" for game in ONE_CONTRACT]
    long = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and len(node.args.args) > 10:
                long[f"{path.relative_to(ROOT).as_posix()}:{node.name}"] = len(node.args.args)
    assert long == {}


def test_code_is_generated_in_one_module():
    """``exec`` (the dispatchers written from a game's own argument lists) lives in
    simcore/codegen.py alone; everything else is code a reader can open."""
    found = set()
    for name, path in project_modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "exec":
                found.add(name)
    assert found == {"simcore.codegen"}


def test_analysis_never_imports_cli_or_strategies():
    wrong = [(module, target) for module, targets in import_graph().items() for target in targets
             if layer(module) == "analysis" and layer(target) in ("cli", "strategies")]
    assert wrong == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_anywhere():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_plugins_written_before_game_folders_still_import_the_encoding():
    """A plug-in file from before games had folders imports the encoding from the game's package;
    the package hands those names on from rules.py."""
    from simcore.games import bird_weather, chimera, sky_city
    from simcore.games.bird_weather import rules as bw
    from simcore.games.chimera import rules as cm
    from simcore.games.sky_city import rules as sc

    assert bird_weather.T_FACEDOWN == bw.T_FACEDOWN and bird_weather.resolve_trick is bw.resolve_trick
    assert chimera.T_SCRATCH == cm.T_SCRATCH and sky_city.R_DICE == sc.R_DICE
    with pytest.raises(AttributeError):
        bird_weather.NO_SUCH_SLOT

"""What `pip install` puts on a machine: the project's own packages and nothing else at the top level
(the command is the package ``balance``: ``balance`` console script, ``python -m balance``; a
top-level ``cli`` would collide with any other distribution's), and dependencies that match the
code: every declared package is imported where it is needed, every package imported is declared.

The installed-distribution checks read the metadata of the installation this interpreter sees
(`make test` reinstalls after any change to pyproject.toml)."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"analysis", "balance", "simcore", "strategies"}
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# the project's code, what a user runs, and the examples a user copies (plug-ins import numba)
RUNTIME_CODE = [ROOT / "cli.py", *(ROOT / package for package in sorted(PACKAGES)), ROOT / "examples"]
TEST_CODE = [ROOT / "tests"]
TOOLS = [ROOT / "tools"]
# declared, and rightly so, but not imported: each with where it is used
USED_UNIMPORTED = {
    "dask": "the `dask scheduler` / `dask worker` commands of docs/scaling.md; the code imports "
            "`distributed`, the [distributed] extra declared with it",
    "pytest-xdist": "a pytest plug-in: `make test` runs `pytest -n auto`",
    "httpx2": "Starlette's TestClient (tests/interface/test_studio.py) sends its requests through it",
}
# imported, and rightly not declared: each with why
UNDECLARED = {
    "pyspiel": "tools/ only, run by the OpenSpiel environment of their own (Makefile PEERS_VENV)",
}


def _environment() -> dict:
    """This interpreter's environment, less PYTHONPATH (so only the installation is seen)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def test_the_installed_distribution_has_only_the_project_packages_at_the_top_level(tmp_path):
    distribution = metadata.distribution("balance")
    top_level = distribution.read_text("top_level.txt")
    assert top_level is not None, "the installed balance has no top_level.txt"
    assert set(top_level.split()) == PACKAGES
    scripts = {e.name: e.value for e in distribution.entry_points if e.group == "console_scripts"}
    assert scripts == {"balance": "balance.cli:main"}
    # outside the checkout there is no `cli` to import: the top-level cli.py is not installed
    done = subprocess.run([sys.executable, "-c", "import cli"], cwd=tmp_path, env=_environment(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "No module named 'cli'" in done.stderr


def test_pyproject_installs_packages_only():
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert "py-modules" not in setuptools
    include = setuptools["packages"]["find"]["include"]
    assert {pattern.rstrip("*").rstrip(".") for pattern in include} == PACKAGES
    assert PYPROJECT["project"]["scripts"] == {"balance": "balance.cli:main"}


def test_python_dash_m_balance_answers_help_without_the_heavy_packages(tmp_path):
    """Run outside the checkout, so it is the installed package that answers."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "balance", "--help"], cwd=tmp_path,
                          env=_environment(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Run: set up a project and simulate" in done.stdout and "simulate" in done.stdout
    imported = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "balance" in imported
    assert imported.isdisjoint({"numba", "llvmlite", "polars", "matplotlib", "pandas", "pyarrow"})
    version = subprocess.run([sys.executable, "-m", "balance", "--version"], cwd=tmp_path, env=_environment(),
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("balance ")


def _imports(paths: list[Path]) -> dict[str, set[str]]:
    """Top-level name imported -> the files importing it, for every .py under ``paths`` (imports
    inside functions included; relative imports left out)."""
    found: dict[str, set[str]] = {}
    for base in paths:
        for path in [base] if base.is_file() else sorted(base.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], set()).add(path.relative_to(ROOT).as_posix())
    return found


def _third_party(found: dict[str, set[str]]) -> dict[str, set[str]]:
    """Leave out the standard library and the project's own modules (its packages, top-level files
    and the tests' helpers)."""
    local = (PACKAGES | {"cli"} | {p.stem for p in (ROOT / "tests").rglob("*") if p.suffix == ".py" or p.is_dir()}
             | {p.stem for p in (ROOT / "tools").glob("*.py")})  # the tools, which tests import from tools/
    return {name: files for name, files in found.items()
            if name not in sys.stdlib_module_names and name not in local and name != "__future__"}


def _name(requirement: str) -> tuple[str, list[str]]:
    """``"dask[distributed]>=2024.8"`` -> ("dask", ["distributed"]), names normalised (PEP 503)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", requirement)
    extras = [extra.strip() for extra in (match.group(2) or "").split(",") if extra.strip()]
    return re.sub(r"[-_.]+", "-", match.group(1)).lower(), extras


def _declared(requirements: list[str]) -> set[str]:
    """The distributions a list of requirements installs directly: each one, and those its
    declared extras add (``dask[distributed]`` declares ``distributed`` too)."""
    names = set()
    for requirement in requirements:
        name, extras = _name(requirement)
        names.add(name)
        for extra in extras:
            for needed in metadata.requires(name) or []:
                if re.search(rf"""extra\s*==\s*["']{re.escape(extra)}["']""", needed):
                    names.add(_name(needed)[0])
    return names


def _distributions(module: str) -> set[str]:
    return {_name(d)[0] for d in metadata.packages_distributions().get(module, [module])}


def test_every_import_is_declared_and_every_declared_package_imported():
    runtime = _declared(PYPROJECT["project"]["dependencies"])
    test = _declared(PYPROJECT["project"]["optional-dependencies"]["test"])
    used_at_runtime = _third_party(_imports(RUNTIME_CODE))
    used_in_tests = _third_party(_imports(TEST_CODE))
    used_in_tools = _third_party(_imports(TOOLS))
    missing = {module: sorted(files) for module, files in used_at_runtime.items()
               if not _distributions(module) & runtime}
    missing |= {module: sorted(files) for module, files in used_in_tests.items()
                if not _distributions(module) & (runtime | test)}
    # the tools run from the project's environment, test extras included (make's .venv has them)
    missing |= {module: sorted(files) for module, files in used_in_tools.items()
                if not _distributions(module) & (runtime | test) and module not in UNDECLARED}
    assert missing == {}, "imported but not declared in pyproject.toml"
    imported = {d for module in {*used_at_runtime, *used_in_tests, *used_in_tools} for d in _distributions(module)}
    unused = sorted((runtime | test) - imported - set(USED_UNIMPORTED))
    assert unused == [], "declared in pyproject.toml but imported nowhere"
    assert set(USED_UNIMPORTED) <= runtime | test and set(UNDECLARED).isdisjoint(runtime | test)


def test_pandas_is_imported_where_pandas_users_meet_it():
    """The one place pandas is needed: the notebook API hands the rows back as pandas on request."""
    assert _third_party(_imports(RUNTIME_CODE))["pandas"] == {"simcore/api.py"}

"""Reading scenario files (docs/scenarios.md): JSON, checked field by field."""
from __future__ import annotations

import json
from pathlib import Path

from simcore.errors import BalanceError


def load_scenario(path: str | Path) -> dict:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Windows editors) is not an error
    except FileNotFoundError:
        raise BalanceError(f"scenario file not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise BalanceError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BalanceError(f"cannot read scenario {path}: {exc}") from None
    except (RecursionError, ValueError):  # nested too deeply; a number too long to convert
        raise BalanceError(f"{path}: not valid JSON (nested too deeply or a number too long)") from None
    if not isinstance(data, dict):
        raise BalanceError(f"{path}: a scenario is a JSON object")
    if not isinstance(data.get("game"), str):
        raise BalanceError(f"{path}: missing \"game\" (e.g. \"bird-weather\")")
    return data


def field(data: dict, key: str, kind, where: str):
    if key not in data:
        raise BalanceError(f"{where}: missing '{key}'")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BalanceError(f"{where}: '{key}' must be {kind.__name__}")
    return value


def int_list(value, name: str, where: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise BalanceError(f"{where}: '{name}' must be a list of whole numbers")
    return value

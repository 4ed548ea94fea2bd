"""The studio's versions on disk: one JSON file per version in the studio's folder.

Every write is atomic (``simcore.outputs.write_atomic``): a version file is complete or absent,
whatever stops the server (Ctrl-C, a kill, a crash).  Numbers are handed out under one lock, so
two tabs that add versions at the same moment get two versions, neither lost.  A version that
was still being measured when the server stopped keeps the figures of its last finished stage and
reads as "interrupted" when the studio starts again.
"""
from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from pathlib import Path

from simcore.errors import BalanceError
from simcore.outputs import reason, write_atomic

FORMAT = 1  # the version files' layout; a file of another layout is refused with one line


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    """The versions of one game at one player count and seed, kept in ``folder``."""

    def __init__(self, folder: Path, identity: dict):
        self.folder = Path(folder)
        self.identity = identity  # game, players, seed: a folder holds the versions of one studio
        self.lock = threading.RLock()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BalanceError(f"cannot make the studio's folder {self.folder}: {reason(exc)}") from None
        self.versions: dict[int, dict] = {}
        for path in sorted(self.folder.glob("v*.json")):
            try:
                version = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise BalanceError(f"{path}: not a studio version file ({exc})") from None
            if version.get("format") != FORMAT or version.get("identity") != identity:
                raise BalanceError(f"{path} holds a version of another studio ({version.get('identity')}); "
                                   f"give another --versions folder")
            for result in version.get("results", {}).values():
                if result.get("status") == "running":  # the server stopped while it was measured
                    result["status"] = "interrupted"
            self.versions[version["number"]] = version

    def path(self, number: int) -> Path:
        return self.folder / f"v{number:04d}.json"

    def save(self, version: dict) -> None:
        with self.lock:
            self.versions[version["number"]] = version
            try:
                write_atomic(self.path(version["number"]), json.dumps(version, indent=1, default=str) + "\n")
            except OSError as exc:
                raise BalanceError(f"cannot save version {version['number']} in {self.folder}: {reason(exc)}") from None

    def add(self, settings: dict, name: str, description: str, rules_text: str | None = None,
            parent: int | None = None) -> tuple[dict, bool]:
        """The version with these settings: an existing one (False; the same rules are the same
        version however they were reached, a control or the rules file's text) or a new one, saved
        (True)."""
        with self.lock:
            for version in self.versions.values():
                if version["settings"] == settings:
                    return version, False
            number = max(self.versions, default=0) + 1
            version = {"format": FORMAT, "identity": self.identity, "number": number, "name": name,
                       "description": description, "settings": settings, "rules_text": rules_text,
                       "parent": parent, "created": now(), "results": {}}
            self.save(version)
            return version, True

    def get(self, number: int) -> dict:
        with self.lock:
            if number not in self.versions:
                raise KeyError(number)
            return self.versions[number]

    def listed(self) -> list[dict]:
        with self.lock:
            return [self.versions[n] for n in sorted(self.versions)]

    def update_result(self, number: int, tier: str, result: dict) -> None:
        with self.lock:
            version = json.loads(json.dumps(self.versions[number], default=str))  # a copy: readers see whole ones
            version["results"][tier] = result
            self.save(version)

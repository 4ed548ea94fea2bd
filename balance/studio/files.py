"""A version as a file: the variant file ``balance whatif`` reproduces the page's figures from, and
for a rules file the whole edited rules file."""
from __future__ import annotations

from pathlib import Path


def variant_text(studio, version: dict, tier: str) -> str:
    """A version as a variant file, headed by the ``balance whatif`` command that gives the page's
    figures from it (the same seed, the same games, the same players)."""
    from analysis.tune_report import toml_key, toml_value

    game = studio.game
    settings = version["settings"]
    games = version.get("results", {}).get(tier, {}).get("games") or studio.looks[0]
    name = f"{Path(game.name).stem}-v{version['number']}.toml"
    header = "rules_file" if any(key.startswith("game.") for key in settings) else "game"
    lines = [f"# version {version['number']} of balance studio {game.name} ({studio.players} players, seed {studio.seed})",
             "# the page's figures, reproduced:",
             f"#   balance whatif {game.name} -p {studio.players} -n {games} --seed {studio.seed} "
             f"-s {tier} --{studio.design} --variant {name}",
             f"{header} = {toml_value(game.name)}",
             f"name = {toml_value(version['name'])}",
             f"description = {toml_value(version.get('description') or 'made in balance studio')}"]
    for key, value in settings.items():
        dotted = ".".join(toml_key(part) for part in key.split("."))
        lines.append(f"{dotted} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def edited_rules(studio, version: dict) -> str:
    """A version of a rules file as a whole rules file: the published file's table with the
    version's keys set (written as TOML; the published file's comments are not kept)."""
    from analysis.tune_report import toml_key, toml_value
    from simcore.games.trick.rulesfile import apply_overrides

    data = apply_overrides(studio.game.spec.raw, version["settings"], studio.game.path)
    lines = [f"# version {version['number']} of {studio.game.path}: {version['name']}"]
    for section, table in data.items():
        if not isinstance(table, dict):
            lines.append(f"{toml_key(section)} = {toml_value(table)}")
    for section, table in data.items():
        if isinstance(table, dict):
            lines += ["", f"[{toml_key(section)}]"]
            lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"

"""The studio's web application: the page (``page/``, served as it is) and its JSON API.

Every answer to input is JSON the page can show: 200/201 with the thing asked for; a proposal
the rules refuse (a value, a variant file, a tuner's target) is an answer too, 200 with
``{"refused": true, "error": one line, "key": the control it is about}`` (a browser logs every
4xx as an error, and a designer's wrong value is not the page's error); 404 for a version that
does not exist; 422 with ``{"error", "key"}`` for a request the API cannot read (not JSON, a
table that is not one, an unknown tier).  Never a 500 for input.  Work that plays games
runs on the studio's own threads (``balance.studio.live``) or in the server's thread pool, never
on the event loop, so a long measurement never blocks the page.

| method and path | what |
|---|---|
| GET /api/game | the game, its controls (key, kind, published value), tiers, seed, cap, thresholds |
| GET /api/published | the published rules' verdict at every tier (measured once, then kept) |
| GET /api/versions | every version, with its headline at each tier measured |
| POST /api/versions | a new version from ``{settings, name?, changed?}`` or ``{rules_text}``; measured at once |
| GET /api/versions/N | one version, its what-if document at each tier |
| POST /api/versions/N/measure | measure it (again, or further, or at ``?tier=``) |
| POST /api/stop | stop the running measurement (it keeps its figures) |
| GET /api/compare?a=N&b=M | version M against version N, every figure paired |
| GET /api/versions/N/export | its variant file (``?as=rules``: the edited rules file) as a download |
| POST /api/import | a version from a variant file's (or a rules file's) text |
| GET /api/versions/N/cards | its card-strength table (measured on first asking) |
| POST /api/tune, GET /api/tune | the tuner on targets set on the page (from version ``from``), and its race |
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from balance.studio.controls import checked_variant, normalised, text_settings, version_name
from balance.studio.files import edited_rules, variant_text
from balance.studio.live import Studio
from simcore.errors import BalanceError

PAGE = Path(__file__).with_name("page")
MAX_BODY = 1 << 20  # bytes: a rules file or a variant file is a few KB


def refused(message: str, key: str | None = None, status: int = 422) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split()), "key": key}, status_code=status)


class Refused(BalanceError):
    """The rules (or the file, or the tuner) refuse what the page proposed: answered, not failed."""

    def __init__(self, exc: BalanceError):
        super().__init__(str(exc))
        self.key = getattr(exc, "key", None)


async def body_json(request: Request) -> dict:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise BalanceError(f"the request is larger than {MAX_BODY // 1024} KB")
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise BalanceError("the request is not JSON") from None
    if not isinstance(data, dict):
        raise BalanceError("the request must be a JSON object")
    return data


def number_of(text: str | None, what: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise BalanceError(f"{what} must be a version number, not {text!r}") from None


def summary_of(version: dict) -> dict:
    """A version as the list shows it: its settings and, per tier measured, the headline."""
    results = {tier: {k: r.get(k) for k in ("status", "games", "live", "error", "cap")}
               for tier, r in version.get("results", {}).items()}
    return {k: version.get(k) for k in ("number", "name", "description", "settings", "parent", "created")} \
        | {"rules_edited": version.get("rules_text") is not None, "results": results}


def make_app(studio: Studio) -> Starlette:
    def handled(handler):
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except Refused as exc:
                return JSONResponse({"refused": True, "error": " ".join(str(exc).split()), "key": exc.key})
            except BalanceError as exc:
                return refused(str(exc), getattr(exc, "key", None))
            except KeyError as exc:
                return refused(f"there is no version {exc.args[0]}", status=404)
        return wrapped

    async def index(request: Request):
        return FileResponse(PAGE / "index.html", headers={"Cache-Control": "no-store"})

    async def game(request: Request):
        from analysis.verdict import thresholds

        g = studio.game
        limits = thresholds()
        return JSONResponse({
            "game": g.name, "title": g.title, "players": studio.players, "player_counts": list(g.player_counts),
            "seed": studio.seed, "tiers": studio.tiers, "tier": studio.tier,
            "tier_labels": {t: g.strategy_label(t) for t in studio.tiers}, "cap": studio.cap,
            "looks": studio.looks, "thresholds": {"change_pp": limits.change_pp, "seat_pp": limits.seat_pp},
            "controls": [c.to_dict() for c in studio.controls], "folder": str(studio.store.folder),
            "rules_text": g.spec.text if getattr(g, "spec", None) is not None else None,
            "has_cards": g.card_names(g.setup(studio.players, studio.published)) is not None})

    async def published(request: Request):
        return JSONResponse(studio.published_verdict)

    async def versions(request: Request):
        running = studio.measuring.current is not None
        return JSONResponse({"versions": [summary_of(v) for v in studio.store.listed()], "busy": running})

    async def add_version(request: Request):
        data = await body_json(request)
        tier = studio.check_tier(data.get("tier"))
        rules_text = data.get("rules_text")
        if rules_text is not None:
            if getattr(studio.game, "spec", None) is None:
                raise BalanceError(f"{studio.game.title} is a built-in game: its rules are changed through its keys")
            if not isinstance(rules_text, str):
                raise BalanceError("rules_text must be the rules file's text")
            try:
                settings = await run_in_threadpool(text_settings, studio.game, studio.players, rules_text)
            except BalanceError as exc:
                raise Refused(exc) from None
            if rules_text == studio.game.spec.text:
                rules_text = None
        else:
            settings = data.get("settings", {})
            if not isinstance(settings, dict):
                raise BalanceError("settings must be a table of variant keys and values")
        changed = data.get("changed")
        try:
            variant = await run_in_threadpool(checked_variant, studio.game, studio.players, studio.published, settings)
        except BalanceError as exc:
            if getattr(exc, "key", None) is None:
                exc.key = changed if isinstance(changed, str) else None
            raise Refused(exc) from None
        settings = normalised(studio, variant.settings, settings)
        name = data.get("name") if isinstance(data.get("name"), str) and data.get("name").strip() else \
            version_name(studio, settings)
        parent = data.get("parent") if isinstance(data.get("parent"), int) else None
        version, new = studio.store.add(settings, name, str(data.get("description") or ""), rules_text, parent)
        if version["settings"] and (new or tier not in version["results"] or data.get("measure")):
            studio.measure(version["number"], tier)
        return JSONResponse({"version": version, "new": new}, status_code=201 if new else 200)

    async def one_version(request: Request):
        number = number_of(request.path_params["number"], "the version")
        return JSONResponse(studio.store.get(number))

    async def measure(request: Request):
        number = number_of(request.path_params["number"], "the version")
        studio.measure(number, request.query_params.get("tier"))
        return JSONResponse({"measuring": number})

    async def stop(request: Request):
        studio.measuring.stop()
        return JSONResponse({"stopped": True})

    async def compare(request: Request):
        first = number_of(request.query_params.get("a"), "a")
        second = number_of(request.query_params.get("b"), "b")
        tier = studio.check_tier(request.query_params.get("tier"))
        document = await run_in_threadpool(studio.compare, first, second, tier)
        return JSONResponse(document)

    async def export(request: Request):
        number = number_of(request.path_params["number"], "the version")
        version = studio.store.get(number)
        tier = studio.check_tier(request.query_params.get("tier"))
        stem = Path(studio.game.name).stem
        if request.query_params.get("as") == "rules":
            if getattr(studio.game, "spec", None) is None:
                raise BalanceError(f"{studio.game.title} is a built-in game: it exports as a variant file")
            text = version.get("rules_text") or await run_in_threadpool(edited_rules, studio, version)
            name = f"{stem}-v{number}-rules.toml"
        else:
            text = variant_text(studio, version, tier)
            name = f"{stem}-v{number}.toml"
        return Response(text, media_type="application/toml",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def import_file(request: Request):
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise BalanceError(f"the file is larger than {MAX_BODY // 1024} KB")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise BalanceError("the file is not UTF-8 text") from None
        tier = studio.check_tier(request.query_params.get("tier"))
        try:
            version, new = await run_in_threadpool(imported, studio, text, tier)
        except BalanceError as exc:
            raise Refused(exc) from None
        return JSONResponse({"version": version, "new": new}, status_code=201 if new else 200)

    async def cards(request: Request):
        number = number_of(request.path_params["number"], "the version")
        state = studio.measure_cards(number, request.query_params.get("tier"))
        return JSONResponse(state)

    async def tune_start(request: Request):
        data = await body_json(request)
        data.setdefault("from", None)
        studio.check_tier(data.get("tier"))
        try:
            return JSONResponse(await run_in_threadpool(studio.start_tune, data), status_code=202)
        except BalanceError as exc:
            raise Refused(exc) from None

    async def tune_state(request: Request):
        return JSONResponse(studio.tune_state)

    routes = [
        Route("/", index),
        Route("/api/game", handled(game)),
        Route("/api/published", handled(published)),
        Route("/api/versions", handled(versions), methods=["GET"]),
        Route("/api/versions", handled(add_version), methods=["POST"]),
        Route("/api/versions/{number}", handled(one_version)),
        Route("/api/versions/{number}/measure", handled(measure), methods=["POST"]),
        Route("/api/versions/{number}/export", handled(export)),
        Route("/api/versions/{number}/cards", handled(cards)),
        Route("/api/stop", handled(stop), methods=["POST"]),
        Route("/api/compare", handled(compare)),
        Route("/api/import", handled(import_file), methods=["POST"]),
        Route("/api/tune", handled(tune_start), methods=["POST"]),
        Route("/api/tune", handled(tune_state), methods=["GET"]),
        Mount("/page", StaticFiles(directory=PAGE), name="page"),
    ]
    return Starlette(routes=routes)


def imported(studio: Studio, text: str, tier: str | None):
    """A version from the text of a variant file (``game = ...`` and its keys), or of a whole rules
    file for a rules-file game ([game] with its name): checked as ``--variant`` checks it."""
    import tomllib

    tier = studio.check_tier(tier)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BalanceError(f"the file is not TOML: {exc}") from None
    rules_text = None
    if getattr(studio.game, "spec", None) is not None and isinstance(data.get("game"), dict):
        settings = text_settings(studio.game, studio.players, text)
        rules_text = text
        name, description = None, ""
    else:
        with tempfile.TemporaryDirectory(prefix="balance-studio-") as folder:
            path = Path(folder) / "imported.toml"
            path.write_text(text, encoding="utf-8")
            try:
                variant = studio.game.variant(path)
            except BalanceError as exc:
                raise BalanceError(str(exc).replace(str(path), "the file")) from None
        settings, name, description = dict(variant.settings), variant.name, variant.description
    taken = checked_variant(studio.game, studio.players, studio.published, settings)
    settings = normalised(studio, taken.settings, settings)
    version, new = studio.store.add(settings, name if name and name != "imported" else version_name(studio, settings),
                                    description, rules_text)
    if version["settings"] and (new or tier not in version["results"]):
        studio.measure(version["number"], tier)
    return version, new

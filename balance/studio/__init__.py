"""`balance studio GAME`: a local page where a designer changes a card or a rule and watches the
verdict move, on the same deals as the published rules, with every version kept.

- ``store``: the versions, one JSON file each in the studio's folder, written atomically;
- ``live``: the engine side: each version's games grown in stages on the engine's own path
  (threads, compile cache, a Dask cluster), compared with the published rules paired by game,
  stopped when settled, superseded by a newer edit;
- ``controls``: the game's variant keys as controls (kind, published value, choices), and a
  change from the page checked into a variant the engine accepts;
- ``app``: the web application (Starlette), its JSON API and the page in ``page/`` (plain HTML,
  CSS and JavaScript, no build step).

docs/studio.md is the user's guide.
"""

"""The compile cache's key (simcore/cache.py): every source compiled code can depend on, and
nothing else, so editing the driver, the command line or an analysis keeps the compiled kernels."""
from simcore.cache import ROOT, kernel_sources


def test_kernel_sources_hold_what_compiled_code_depends_on():
    sources = {path.relative_to(ROOT).as_posix() for path in kernel_sources()}
    games = [p.name for p in (ROOT / "simcore" / "games").iterdir() if (p / "kernel.py").is_file()]
    assert len(games) == 5
    for game in games:
        assert {f"simcore/games/{game}/kernel.py", f"simcore/games/{game}/rules.py",
                f"strategies/{game}.py"} <= sources
    # compiled helpers, and plain modules whose names a compiled module imports (a constant or
    # a function called while compiling is frozen into the machine code)
    assert {"simcore/bits.py", "simcore/rng.py", "simcore/jit.py", "simcore/play.py", "strategies/search.py",
            "simcore/games/sky_city/trap_odds.py", "simcore/errors.py", "simcore/game.py"} <= sources
    # plain Python that no compiled code reaches
    for plain in ("simcore/driver.py", "simcore/api.py", "simcore/cluster.py", "simcore/bench.py",
                  "simcore/games/sky_city/reference.py", "simcore/games/bird_weather/game.py"):
        assert plain not in sources, plain


def test_a_module_a_kernel_imports_is_followed(tmp_path, monkeypatch):
    import simcore.cache as cache

    (tmp_path / "simcore" / "games" / "toy").mkdir(parents=True)
    (tmp_path / "strategies").mkdir()
    (tmp_path / "simcore" / "games" / "toy" / "kernel.py").write_text(
        "from simcore.games.toy import deck\nfrom simcore.jit import kernel\n@kernel(globals())\ndef f(): ...\n")
    (tmp_path / "simcore" / "games" / "toy" / "deck.py").write_text("from simcore.cards import SUITS\nSIZE = 52\n")
    (tmp_path / "simcore" / "cards.py").write_text("SUITS = 4\n")
    (tmp_path / "simcore" / "report.py").write_text("import simcore.games.toy.kernel\n")
    monkeypatch.setattr(cache, "ROOT", tmp_path)
    found = {p.relative_to(tmp_path).as_posix() for p in cache.kernel_sources()}
    assert found == {"simcore/games/toy/kernel.py", "simcore/games/toy/deck.py", "simcore/cards.py"}

"""The compile cache's key (simcore/cache.py): every source compiled code can depend on, and
nothing else, so editing the driver, the command line or an analysis keeps the compiled kernels."""
from simcore.cache import ROOT, kernel_sources


def test_kernel_sources_hold_what_compiled_code_depends_on():
    sources = {path.relative_to(ROOT).as_posix() for path in kernel_sources()}
    games = [p.name for p in (ROOT / "simcore" / "games").iterdir() if (p / "kernel.py").is_file()]
    assert len(games) == 6  # the five games and the rules-file engine (simcore/games/trick)
    for game in games:
        assert {f"simcore/games/{game}/kernel.py", f"simcore/games/{game}/rules.py",
                f"strategies/{game}.py"} <= sources
    # compiled helpers, and plain modules whose names a compiled module imports (a constant or
    # a function called while compiling is frozen into the machine code)
    assert {"simcore/bits.py", "simcore/rng.py", "simcore/jit.py", "simcore/play.py", "strategies/search.py",
            "simcore/games/sky_city/trap_odds.py", "simcore/errors.py", "simcore/registry.py"} <= sources
    # plain Python that no compiled code reaches
    for plain in ("simcore/driver.py", "simcore/api.py", "simcore/cluster.py", "simcore/bench.py", "simcore/game.py",
                  "simcore/games/sky_city/reference.py", "simcore/games/bird_weather/game.py",
                  # a rules file's schema and messages: editing them recompiles nothing
                  "simcore/games/trick/rulesfile.py", "simcore/games/trick/game.py"):
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
    monkeypatch.setattr(cache, "_SOURCES", {})
    found = {p.relative_to(tmp_path).as_posix() for p in cache.kernel_sources()}
    assert found == {"simcore/games/toy/kernel.py", "simcore/games/toy/deck.py", "simcore/cards.py"}


def test_each_game_compiles_into_a_folder_of_its_own():
    """Numba is told to cache a project file's functions in its group's folder (one per game, one
    for the common helpers), keyed on that group's sources: editing one game's rules leaves the
    other games' compiled kernels in place."""
    from numba.core import caching

    import simcore.jit  # noqa: F401 (installs the locator)
    from simcore import cache
    from simcore.games.sky_city.trap_odds import compare
    from simcore.rng import mix64

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
    locator = impl._locator_classes[0]
    assert locator.__name__ == "GroupCacheLocator"
    for fn, group in ((mix64, "common"), (compare, "sky_city")):
        found = locator.from_function(fn.py_func, fn.py_func.__code__.co_filename)
        folder = cache.CACHE_ROOT / f"numba-{group}-{cache.group_fingerprint(group)}"
        assert found.get_cache_path().startswith(str(folder) + "/"), (found.get_cache_path(), folder)
    assert len({cache.group_fingerprint(g) for g in ("bird_weather", "chimera", "sky_city", "ten_tricks",
                                                       "triatri", "common")}) == 6
    # a file outside the project (a plug-in build's copy) is left to NUMBA_CACHE_DIR
    assert locator.from_function(test_each_game_compiles_into_a_folder_of_its_own, __file__) is None
    assert cache.group_cache_dir(cache.ROOT / "strategies" / "chimera.py").name.startswith("numba-chimera-")


def test_the_entry_points_written_once_are_cached_with_each_game_that_runs_them():
    """The entry points of simcore/play.py run in each game's kernel module (``entry_points``):
    each is cached in that game's folder, in files of its own module, and what a run compiled is
    in the cache for the next process.  A compiled function that holds the address of another (a
    function handed over as a value) cannot be cached: Numba would compile the whole play loop
    again in every process, and this would fail."""
    import importlib

    from simcore import cache
    from simcore.registry import get_game, game_names

    moved = [name for name in game_names() if get_game(name).one_contract]
    assert {"bird-weather", "chimera", "ten-tricks", "triatri"} <= set(moved)
    for name in moved:
        game = get_game(name)
        players = game.player_counts[0]
        setup = game.setup(players, game.variant())
        lineup = game.lineup(game.strong_strategy, players)
        game.run_chunk(setup, lineup, 3, 0, 20)
        game.take_tallies()
        game.kernel_logs(setup, lineup, 3, range(2))
        kernels = importlib.import_module(game.kernels_module)
        assert lineup.kernels is kernels
        for entry in ("run_chunk", "play_many_logged"):
            function = getattr(kernels, entry)
            folder = function.stats.cache_path
            assert folder.endswith("/" + kernels.__name__.rsplit(".", 1)[-1]), (name, entry, folder)
            if cache._in_packages(kernels.__file__):
                assert folder.startswith(str(cache.group_cache_dir(kernels.__file__))), (name, folder)
            target = function.targetctx
            for signature in function.signatures:
                assert function._cache.load_overload(signature, target) is not None, (name, entry, signature)


def test_the_cache_folders_do_not_depend_on_numba_being_imported_after_the_engine(monkeypatch):
    """Numba reads NUMBA_CACHE_DIR when it is first imported; imported before the engine (a
    notebook's ``import numba`` first) it has none.  The engine's functions still go to their
    groups' folders, and an entry point run in a copy of a kernel module (a build) to a folder of
    that copy's: otherwise Numba's own locator would keep every module's entry points in one
    file, and a build's machine code would be loaded for another's."""
    from numba.core import caching, config

    import simcore.jit  # noqa: F401 (installs the locator)
    from simcore import cache
    from simcore.games.bird_weather import kernel

    monkeypatch.setattr(config, "CACHE_DIR", "")
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
    locator = impl._locator_classes[0]
    entry = kernel.run_chunk.py_func
    found = locator.from_function(entry, entry.__code__.co_filename)
    assert found.get_cache_path().startswith(str(cache.group_cache_dir(kernel.__file__)) + "/")
    assert found.get_cache_path().endswith("/kernel")
    own = kernel.new_state.py_func
    assert locator.from_function(own, own.__code__.co_filename).get_cache_path().startswith(
        str(cache.group_cache_dir(kernel.__file__)) + "/")

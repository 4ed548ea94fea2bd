"""simcore/warm.py: a book on an empty cache compiles its games' play loops in parallel
processes, dealt so that the last one ends early, and starts none when the cache is warm."""
from simcore import warm


def test_the_games_are_dealt_longest_first_to_the_least_loaded_process(monkeypatch):
    names = ["ten-tricks", "bird-weather", "triatri", "sky-city", "chimera"]
    # made-up compile times (the real ones are read from benchmarks/, simcore/measured.py):
    # 67, 60, then 42 to the lighter (60), 36 to the lighter (67), 33 to the lighter (102)
    seconds = {"triatri": 67, "chimera": 60, "sky-city": 42, "ten-tricks": 36, "bird-weather": 33}
    monkeypatch.setattr(warm, "_seconds", seconds.__getitem__)
    assert warm.deal(names, 2) == [["triatri", "ten-tricks"], ["chimera", "sky-city", "bird-weather"]]
    assert warm.deal(names, 1) == [["triatri", "chimera", "sky-city", "ten-tricks", "bird-weather"]]
    assert warm.deal(["sky-city"], 16) == [["sky-city"]]  # never more processes than games
    assert sorted(sum(warm.deal(names, 3), [])) == sorted(names)


def test_a_game_never_measured_counts_as_the_mean_of_those_that_were(monkeypatch, tmp_path):
    import json

    from simcore import measured

    (tmp_path / "kept.json").write_text(json.dumps([
        {"game": game, "date": "2026-12-01", "first_compile_seconds": {"stock": stock, "random": 5.0}}
        for game, stock in (("triatri", 14.0), ("chimera", 18.0))]))
    monkeypatch.setattr(measured, "RESULTS", tmp_path)
    measured.kept.cache_clear()
    try:
        with __import__("simcore.builds", fromlist=["stock_loops"]).stock_loops():
            assert warm._seconds("triatri") == 14.0 and warm._seconds("sky-city") == 16.0
        assert warm._seconds("chimera") == 23.0
    finally:
        measured.kept.cache_clear()


def test_nothing_starts_unless_two_games_are_cold(monkeypatch):
    started = []
    monkeypatch.setattr(warm.subprocess, "Popen", lambda *a, **k: started.append(a) or None)
    monkeypatch.setattr(warm, "cold_games", lambda names: [])
    assert warm.warm_games(["bird-weather", "triatri"], announce=False) == [] and not started
    monkeypatch.setattr(warm, "cold_games", lambda names: ["triatri"])
    assert warm.warm_games(["bird-weather", "triatri"], announce=False) == [] and not started
    monkeypatch.setattr(warm, "cold_games", lambda names: list(names))
    assert warm.warm_games(["bird-weather", "triatri"], announce=False, processes=1) == [] and not started


def test_the_warm_games_of_this_cache_are_not_cold():
    """The suite's warm-up (tests/warm_kernels.py) has compiled every game here, and its marker
    lies in the game's own cache folder (driver._compiled_marker)."""
    from simcore.registry import game_names, get_game

    names = game_names()
    for name in names:  # as a run would: load it (from the cache) and leave its marker
        from simcore.driver import compile_kernels

        game = get_game(name)
        setup = game.setup(game.player_counts[0], game.variant())
        for lineup in warm.play_loops(game):  # the random build and the stock loop
            compile_kernels(game, setup, lineup, 1, announce=False)
    assert warm.cold_games(names) == []

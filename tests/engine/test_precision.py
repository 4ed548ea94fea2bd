"""`balance simulate --precision`: stops at the first checkpoint where every seat's interval is
narrow enough, at the same game count for any chunk size or thread count."""
import json

from conftest import balance
from simcore.driver import precision_checkpoints, widest_half_width


def test_checkpoints_are_fixed_and_end_at_the_cap():
    points = precision_checkpoints(1_000_000)
    assert points[:6] == [10_000, 20_000, 30_000, 40_000, 50_000, 60_000]
    assert points[-1] == 1_000_000 and points == sorted(set(points))
    assert all(b - a <= max(10_000, a // 4 + 5000) for a, b in zip(points, points[1:-1]))
    assert precision_checkpoints(5000) == [5000]


def test_widest_half_width_is_the_worst_seat():
    # 95% Wilson half-width at p = 0.5, n = 10,000 is 0.0098; at p = 0.1 it is narrower
    assert abs(widest_half_width([5000, 1000], 10_000) - 0.0098) < 0.0001


def test_precision_run_stops_when_every_seat_is_narrow_enough(tmp_path):
    runs = []
    for options in ([], ["--chunk-size", "3333", "--threads", "1"]):
        code, out, err = balance("simulate", "sky-city", "-p", 3, "--precision", "0.008", "-q", "--json", *options)
        assert code == 0, err
        runs.append(json.loads(out))
    first, second = runs
    assert first["games"] == second["games"] and first["precision"]["reached"]
    assert [s["wins"] for s in first["seats"]] == [s["wins"] for s in second["seats"]]
    widest = max((s["win_share_ci"][1] - s["win_share_ci"][0]) / 2 for s in first["seats"])
    assert widest <= 0.008 and first["games"] in precision_checkpoints(50_000_000)
    # one checkpoint earlier was not yet enough
    earlier = [p for p in precision_checkpoints(50_000_000) if p < first["games"]]
    if earlier:
        code, out, err = balance("simulate", "sky-city", "-p", 3, "-n", earlier[-1], "-q", "--json")
        seats = json.loads(out)["seats"]
        assert max((s["win_share_ci"][1] - s["win_share_ci"][0]) / 2 for s in seats) > 0.008


def test_precision_cap_and_bad_values(tmp_path):
    code, out, err = balance("simulate", "sky-city", "-p", 3, "--precision", "0.001", "-n", 20_000, "-q")
    assert code == 0 and "NOT reached within the cap of 20,000 games" in out
    for bad in ("0", "0.5", "-0.1"):
        target = tmp_path / "never.parquet"
        code, out, err = balance("simulate", "sky-city", "--precision", bad, "-q", "--out", target)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "--precision" in err
        assert not target.exists()

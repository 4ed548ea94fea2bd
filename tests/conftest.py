"""Shared fixtures: one game object per session (kernels compile once, then load from cache)."""
import pytest

from simcore.game import get_game


@pytest.fixture(scope="session")
def bird_weather():
    return get_game("bird-weather")

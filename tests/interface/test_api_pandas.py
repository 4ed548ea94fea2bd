"""``simcore.simulate(..., to=...)`` and ``simcore.api.to_pandas``, on tables built here (no games
are played: the rows of a real run are compared in tests/interface/test_api_docs.py, which runs docs/api.md)."""
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest

import simcore
from simcore.api import to_pandas
from simcore.errors import BalanceError


def test_a_table_kind_other_than_polars_or_pandas_is_refused_before_any_game():
    with pytest.raises(BalanceError, match=r"to='arrow': a table is handed back as 'polars' or 'pandas'"):
        simcore.simulate("no-such-game", to="arrow")  # refused before the game is even looked up


def test_to_pandas_keeps_columns_values_and_dtypes():
    table = pl.DataFrame({
        "game": pl.Series([0, 1, 2], dtype=pl.UInt64),
        "score_0": pl.Series([-3, 0, 12], dtype=pl.Int16),
        "share_0": pl.Series([1.0, 0.5, 1 / 3], dtype=pl.Float32),
        "hand_0": pl.Series([2**63 + 5, 1, 0], dtype=pl.UInt64),
        "label": ["seat 1", "seat 2", "seat 3"],
    })
    for given in (table, table.lazy()):
        frame = to_pandas(given)
        assert isinstance(frame, pd.DataFrame) and list(frame.columns) == table.columns
        assert [str(frame[c].dtype) for c in ("game", "score_0", "share_0", "hand_0")] == \
            ["uint64", "int16", "float32", "uint64"]
        assert frame["hand_0"].tolist() == [2**63 + 5, 1, 0]  # a 64-bit hand bitmask survives exactly
        assert frame["score_0"].tolist() == [-3, 0, 12] and frame["label"].tolist() == ["seat 1", "seat 2", "seat 3"]
        assert np.array_equal(frame["share_0"].to_numpy(), np.array([1.0, 0.5, 1 / 3], dtype=np.float32))
        assert math.isclose(frame["share_0"].sum(), 1.0 + 0.5 + 1 / 3, rel_tol=1e-6)

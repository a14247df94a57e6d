"""storage.fileio.json_plain: the one converter of numpy / pandas values to JSON's own types."""

from __future__ import annotations


def test_json_plain_turns_numpy_and_pandas_values_into_json_types():
    import json

    import numpy as np
    import pandas as pd

    from n2o_core.storage.fileio import json_plain

    doc = {
        1: np.float32(0.5),
        "n": np.int64(3),
        "arr": np.array([[1.0, np.nan]]),
        "t": (np.bool_(True), pd.NA, None, "x"),
        "nan": float("nan"),
        "when": pd.Timestamp("2026-11-26"),
    }
    out = json_plain(doc)
    assert out["1"] == 0.5 and type(out["n"]) is int and out["t"] == [True, None, None, "x"]
    assert out["arr"][0][0] == 1.0 and np.isnan(out["arr"][0][1]) and np.isnan(out["nan"])
    assert out["when"] == "2026-11-26 00:00:00"
    strict = json_plain(doc, nan_as_none=True)
    assert strict["arr"] == [[1.0, None]] and strict["nan"] is None
    json.dumps(strict, allow_nan=False)  # no default needed, no NaN left

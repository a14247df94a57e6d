"""Pitfalls' rules (Eger et al. 2019), pure: correlations with human similarity (`sts.RESULT_COLUMNS`) ->
`Verdict`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from n2o_core.evaluation.findings.verdict import Verdict, fmt, unchecked

_STS_COLUMNS = ("pearson", "pearson_znorm", "spearman", "spearman_znorm")


def znorm_raises(results: pd.DataFrame, eid: str, scoring: str = "pearson") -> Verdict:
    """Correlation (`scoring`: "pearson" or "spearman") of cosine vs human scores, raw and z-normalized. ✓ when
    z-normalization raises it."""
    if results is None or results.empty or eid not in set(results["embedder"]):
        return unchecked(f"no correlations for {eid}")
    r = results.set_index("embedder").loc[eid]
    raw, zn = float(r[scoring]), float(r[f"{scoring}_znorm"])
    if not np.isfinite([raw, zn]).all():
        return unchecked("a correlation is undefined (constant cosines)")
    ok = zn > raw
    name = scoring.capitalize()
    return Verdict(
        ok,
        f"{eid}: {name} {fmt(raw)} → {fmt(zn)} with z-normalization ({zn - raw:+.3f})",
        {scoring: raw, f"{scoring}_znorm": zn, "change": zn - raw},
        results[results["embedder"] == eid][["embedder", "n", *_STS_COLUMNS]],
    )


def znorm_narrows_range(results: pd.DataFrame, eids: Sequence[str]) -> Verdict:
    """Range (max − min) of the embedders' Pearson correlations, raw vs z-normalized. ✓ when it shrinks."""
    if results is None or results.empty:
        return unchecked("no correlations")
    t = results[results["embedder"].isin(eids)][["embedder", "pearson", "pearson_znorm"]].reset_index(drop=True)
    t = t.dropna()
    if len(t) < 2:
        return unchecked("fewer than 2 embedders with correlations")
    raw = float(t["pearson"].max() - t["pearson"].min())
    zn = float(t["pearson_znorm"].max() - t["pearson_znorm"].min())
    ok = zn < raw
    worst = t.sort_values("pearson").iloc[0]
    return Verdict(
        ok,
        f"range of Pearson over {len(t)} embedders {fmt(raw)} → {fmt(zn)} with z-normalization "
        f"({'narrower' if ok else 'not narrower'}); the lowest, {worst['embedder']}, {fmt(worst['pearson'])} → "
        f"{fmt(worst['pearson_znorm'])}",
        {"range raw": raw, "range znorm": zn},
        t,
    )

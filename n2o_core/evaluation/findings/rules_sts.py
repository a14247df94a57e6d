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


#: Pitfalls §3: the range of the nine systems' scores "from 29% to 9%" with z-normalization.
PAPER_RANGE = (0.29, 0.09)


def znorm_narrows_range(
    results: pd.DataFrame, eids: Sequence[str], *, positive_only: bool = True, to_share: float | None = None
) -> Verdict:
    """Range (max − min) of the encoders' Pearson correlations, raw vs z-normalized, over the encoders whose raw
    correlation is above 0 (`positive_only`; an encoder that does not correlate at all is not a "worse" encoder
    catching up). ✓ when the range shrinks (no interval: the Lee pairs share documents); with `to_share`, when it
    shrinks to at most that share of the raw range (the paper's 29% → 9% is a share of 9/29). The paper's share is
    shown beside it."""
    if results is None or results.empty:
        return unchecked("no correlations")
    t = results[results["embedder"].isin(eids)][["embedder", "pearson", "pearson_znorm"]].reset_index(drop=True)
    t = t.dropna()
    left_out = sorted(t.loc[t["pearson"] <= 0, "embedder"]) if positive_only else []
    if positive_only:
        t = t[t["pearson"] > 0].reset_index(drop=True)
    if len(t) < 2:
        return unchecked(
            "fewer than 2 encoders with a correlation above 0" if positive_only else "fewer than 2 encoders"
        )
    raw = float(t["pearson"].max() - t["pearson"].min())
    zn = float(t["pearson_znorm"].max() - t["pearson_znorm"].min())
    share = zn / raw if raw > 0 else float("inf")
    paper = PAPER_RANGE[1] / PAPER_RANGE[0]
    ok = zn < raw if to_share is None else share <= to_share
    worst = t.sort_values("pearson").iloc[0]
    bar = "narrower" if to_share is None else f"≤ {to_share:.2f} of the raw range"
    return Verdict(
        bool(ok),
        f"range of Pearson over {len(t)} encoders {fmt(raw)} → {fmt(zn)} with z-normalization ({share:.2f} of the "
        f"raw range; the paper's 0.29 → 0.09 is {paper:.2f}): {bar if ok else 'not ' + bar}; the lowest, "
        f"{worst['embedder']}, {fmt(worst['pearson'])} → {fmt(worst['pearson_znorm'])}"
        + (f"; left out (raw r ≤ 0): {', '.join(left_out)}" if left_out else ""),
        {"range raw": raw, "range znorm": zn, "share": share, "paper share": paper},
        t,
    )

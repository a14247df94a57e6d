"""Readable Markdown of generated pairs (a sample per subset) for a person to check by hand."""

from __future__ import annotations

import pandas as pd

from n2o_core.evaluation.heros.subsets import ALL_SUBSETS


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def sample_pairs(pairs: pd.DataFrame, n: int = 30, seed: int = 0) -> pd.DataFrame:
    """Up to `n` pairs per subset; the same originals in every subset when the pairs are aligned."""
    originals = pairs["original"].drop_duplicates()
    chosen = set(originals.sample(min(n, len(originals)), random_state=seed))
    picked = pairs[pairs["original"].isin(chosen)]
    extra = [
        g.sample(min(n, len(g)), random_state=seed)
        for _, g in pairs.groupby("subset", sort=False)
        if (picked["subset"] == g["subset"].iloc[0]).sum() < min(n, len(g))
    ]
    if extra:  # unaligned pairs: sample each subset on its own
        picked = pd.concat([picked[~picked["subset"].isin([e["subset"].iloc[0] for e in extra])], *extra])
    order = {s: k for k, s in enumerate(ALL_SUBSETS)}
    return picked.sort_values("subset", key=lambda c: c.map(lambda s: order.get(s, 99)), kind="stable")


#: What a judge checks per subset (the issue's criteria), written above each table.
CRITERIA = {
    "synonym": "same sense, same part of speech and inflection, grammatical",
    "antonym": "an antonym in this sense, same part of speech and inflection, grammatical",
    "typo": "one plausible typo (one edit or a listed common misspelling) of the target",
    "random": "same part of speech and inflection, grammatical, not a synonym/antonym/near-synonym in context",
    "negation_main": "the main verb negated (or its not removed) correctly, grammatical",
    "negation_antonym": "the target negated in place (or its not removed), understandable",
}


def sample_markdown(pairs: pd.DataFrame, n: int = 100, seed: int = 0, title: str = "HEROS-style pairs") -> str:
    """Markdown with one table per subset for a judge: target -> replacement, original, variant, rule used and an
    empty "valid?" column (write y / n), with a "valid: _ / n" line per subset for the rate."""
    lines = [
        f"# {title}",
        "",
        f"{n} pairs per subset, drawn at random (seed {seed}). Judge each pair in its sentence: write y or n in",
        '"valid?", then the count under each table.',
        "",
    ]
    for sub, g in sample_pairs(pairs, n, seed).groupby("subset", sort=False):
        lines += [
            f"## {sub} ({len(g)})",
            "",
            f"Valid when: {CRITERIA.get(str(sub), 'the variant is what the subset promises')}.",
            "",
            "| # | target → changed | original | variant | rule | valid? |",
            "|---|---|---|---|---|---|",
        ]
        for k, r in enumerate(g.itertuples(index=False), 1):
            rep = getattr(r, "replacement", "")
            method = getattr(r, "method", "")
            lines.append(
                f"| {k} | {_cell(r.target)} → {_cell(rep)} | {_cell(r.original)} | {_cell(r.variant)} "
                f"| {_cell(method)} |  |"
            )
        lines += ["", f"valid: _ / {len(g)}", ""]
    return "\n".join(lines)

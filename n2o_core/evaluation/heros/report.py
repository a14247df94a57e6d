"""Readable Markdown (and a CSV) of generated pairs, a sample per subset, for a person to check by hand.

`sample_markdown(pairs, n, seed)`: one corpus. `draw_across(pairs_by_corpus, n, seed)`: about `n` originals in all,
shared out evenly over several corpora (each corpus's share aligned: the same originals in every subset), with a
`corpus` column; `sample_markdown` and `sample_csv` then name each pair's corpus."""

from __future__ import annotations

from collections.abc import Mapping

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


def draw_across(pairs_by_corpus: Mapping[str, pd.DataFrame], n: int, seed: int) -> pd.DataFrame:
    """About `n` originals in all from several corpora's pairs, shared out evenly (the first corpora get the
    remainder; a corpus with fewer gives what it has), each corpus's share aligned across subsets, with a `corpus`
    column first; in corpus order, then subset order."""
    names = [c for c, p in pairs_by_corpus.items() if not p.empty]
    share = {c: n // len(names) + (1 if k < n % len(names) else 0) for k, c in enumerate(names)} if names else {}
    frames = [sample_pairs(pairs_by_corpus[c], share[c], seed).assign(corpus=c) for c in names]
    if not frames:
        return pd.DataFrame(columns=["corpus"])
    out = pd.concat(frames, ignore_index=True)
    order = {s: k for k, s in enumerate(ALL_SUBSETS)}
    out = out.sort_values("subset", key=lambda c: c.map(lambda s: order.get(s, 99)), kind="stable")
    return out[["corpus", *[c for c in out.columns if c != "corpus"]]].reset_index(drop=True)


def sample_markdown(
    pairs: pd.DataFrame,
    n: int = 100,
    seed: int = 0,
    title: str = "HEROS-style pairs",
    *,
    drawn: bool = False,
    intro: str = "",
) -> str:
    """Markdown with one table per subset for a judge: (corpus,) target -> replacement, original, variant, rule used
    and an empty "valid?" column (write y / n), with a "valid: _ / n" line per subset for the rate. `drawn`: `pairs`
    is already the sample (`draw_across`), else `n` per subset are drawn here with `seed`; `intro`: Markdown put
    under the title."""
    sample = pairs if drawn else sample_pairs(pairs, n, seed)
    by_corpus = "corpus" in sample.columns
    lines = [
        f"# {title}",
        "",
        *([intro, ""] if intro else []),
        f"{n} pairs per subset, drawn at random (seed {seed}). Judge each pair in its sentence: write y or n in",
        '"valid?", then the count under each table.',
        "",
    ]
    for sub, g in sample.groupby("subset", sort=False):
        head = ["#", *(["corpus"] if by_corpus else []), "target → changed", "original", "variant", "rule", "valid?"]
        lines += [
            f"## {sub} ({len(g)})",
            "",
            f"Valid when: {CRITERIA.get(str(sub), 'the variant is what the subset promises')}.",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
        ]
        for k, r in enumerate(g.itertuples(index=False), 1):
            rep = getattr(r, "replacement", "")
            method = getattr(r, "method", "")
            where = f"{_cell(r.corpus)} | " if by_corpus else ""
            lines.append(
                f"| {k} | {where}{_cell(r.target)} → {_cell(rep)} | {_cell(r.original)} | {_cell(r.variant)} "
                f"| {_cell(method)} |  |"
            )
        lines += ["", f"valid: _ / {len(g)}", ""]
    return "\n".join(lines)


#: The judge's CSV: one row per pair, "valid" left empty.
SAMPLE_CSV_COLUMNS = ["subset", "number", "corpus", "target", "replacement", "original", "variant", "rule", "valid"]


def sample_csv(sample: pd.DataFrame) -> str:
    """The drawn sample as CSV (SAMPLE_CSV_COLUMNS), numbered per subset as in the Markdown, "valid" empty."""
    out = pd.DataFrame(
        {
            "subset": sample["subset"],
            "number": sample.groupby("subset", sort=False).cumcount() + 1,
            "corpus": sample["corpus"] if "corpus" in sample.columns else "",
            "target": sample["target"],
            "replacement": sample.get("replacement", ""),
            "original": sample["original"],
            "variant": sample["variant"],
            "rule": sample.get("method", ""),
            "valid": "",
        },
        columns=SAMPLE_CSV_COLUMNS,
    )
    return str(out.to_csv(index=False))

"""Loading the real Heros TSV layout (lenient header) and user long-format files."""

from __future__ import annotations

import pytest

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.load import load_heros, pairs_from_table

ROWS = [
    # Original, Synonym, Antonym, Negation, Random, Typo, Negation   (README order; which Negation is which?)
    [
        "And that is why it is illegal.",
        "And that is why it is illegitimate.",
        "And that is why it is legal.",
        "And that is not why it is illegal.",
        "And that is why it is here.",
        "And that is why it is illiegal.",
        "And that is why it is not illegal.",
    ],
    [
        "You do not know how much that boosted my self-esteem.",
        "You do not know how much that increased my self-esteem.",
        "You do not know how much that lowered my self-esteem.",
        "You do know how much that boosted my self-esteem.",
        "You do not know how much that affects my self-esteem.",
        "You do not know how much that booste my self-esteem.",
        "You do not know how much that did not boost my self-esteem.",
    ],
    [
        "The team played a great game last night.",
        "The team played a fine game last night.",
        "The team played a terrible game last night.",
        "The team did not play a great game last night.",
        "The team played a long game last night.",
        "The team played a graet game last night.",
        "The team played a not great game last night.",
    ],
]


def _write(path, header, rows, sep="\t"):
    path.write_text("\n".join(sep.join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return path


def test_real_readme_header_with_two_bare_negation_columns(tmp_path):
    header = ["Original", "Synonym", "Antonym", "Negation", "Random", "Typo", "Negation"]
    df = load_heros(_write(tmp_path / "heros.tsv", header, ROWS))
    assert sorted(df["subset"].unique()) == sorted(
        ["synonym", "antonym", "negation_main", "random", "typo", "negation_antonym"]
    )
    assert len(df) == 18
    main = df[df.subset == "negation_main"]["variant"].tolist()
    assert main[0] == "And that is not why it is illegal."
    neg_ant = df[df.subset == "negation_antonym"]["variant"].tolist()
    assert neg_ant[1] == "You do not know how much that did not boost my self-esteem."
    assert "by content" in df.attrs["negation_columns"]


def test_swapped_bare_negation_columns_are_detected(tmp_path):
    header = ["Original", "Synonym", "Antonym", "Negation", "Random", "Typo", "Negation"]
    swapped = [[*r[:3], r[6], *r[4:6], r[3]] for r in ROWS]
    df = load_heros(_write(tmp_path / "heros.tsv", header, swapped))
    assert df[df.subset == "negation_main"]["variant"].iloc[0] == "And that is not why it is illegal."


def test_explicit_lenient_header(tmp_path):
    header = [" original ", "SYNONYM", "antonym", "Negation (Main)", "Random MLM", "typo", "negation_antonym"]
    df = load_heros(_write(tmp_path / "h.csv", header, [[c.replace(",", ";") for c in r] for r in ROWS], sep=","))
    assert set(df.subset) == {"synonym", "antonym", "negation_main", "random", "typo", "negation_antonym"}
    assert "negation_columns" not in df.attrs


def test_user_long_format(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(
        "Original,Variant,Subset,target\n"
        "The shares rose.,The shares fell.,Antonym,rose\n"
        "The shares rose.,The shares climbed.,synonym,rose\n"
        "The shares rose.,The shares rose!,my rule,\n",
        encoding="utf-8",
    )
    df = load_heros(path)
    assert df["subset"].tolist() == ["antonym", "synonym", "my_rule"]
    assert df["target"].tolist() == ["rose", "rose", ""]


def test_missing_columns_and_files():
    with pytest.raises(N2OError, match="original"):
        pairs_from_table(["a", "b"], [["x", "y"]])
    with pytest.raises(N2OError, match="no subset columns"):
        pairs_from_table(["original", "foo"], [["x", "y"]])
    with pytest.raises(N2OError, match="does not exist"):
        load_heros("no/such/file.tsv")


def test_hub_name_offline_gives_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(N2OError, match="Hugging Face hub"):
        load_heros("dcml0714/Heros")


def test_pandas_style_duplicate_header_and_index_column(tmp_path):
    # a re-saved copy may carry an index column and pandas' "Negation.1" for the second bare Negation
    header = ["", "Original", "Synonym", "Antonym", "Negation", "Random", "Typo", "Negation.1"]
    rows = [[str(i), *r] for i, r in enumerate(ROWS)]
    df = load_heros(_write(tmp_path / "heros.tsv", header, rows))
    assert len(df) == 18
    assert df[df.subset == "negation_antonym"]["variant"].iloc[0] == "And that is why it is not illegal."
    assert not df["original"].str.fullmatch(r"\d+").any()

"""Pairs made against pairs asked, in words (the HEROS page's and the CLI's sentence)."""

from __future__ import annotations

from n2o_core.evaluation.heros.coverage import Coverage


def test_a_small_corpus_is_said_with_the_reasons():
    cov = Coverage(
        asked=50, made={"synonym": 7, "antonym": 7}, sentences=61, tried=61, skipped={"length": 38, "no_target": 16}
    )
    text = cov.sentence()
    assert cov.small_corpus and cov.exhausted
    assert text.startswith("HEROS made 7 of 50 asked per subset from all 61 sentences of the corpus; yield 11.5%")
    assert "too small for 50 per subset" in text
    assert text.index("38 are outside 8–25 words") < text.index("16 have no verb or adjective")  # most frequent first
    assert "Scores on 7 pairs per subset are rough" in text
    assert cov.to_json()["yield"] == {"synonym": 0.1148, "antonym": 0.1148}


def test_subsets_that_differ_are_each_named():
    cov = Coverage(asked=50, made={"synonym": 9, "antonym": 6}, sentences=61, tried=61, skipped={"question": 1})
    assert cov.made_text() == "made synonym 9, antonym 6 of 50 asked per subset"
    assert "of its sentences, 1 is a question." in cov.sentence()


def test_a_request_met_early_says_how_far_it_read():
    cov = Coverage(asked=500, made={"synonym": 500}, sentences=38_019, tried=8_312, skipped={"length": 3000})
    text = cov.sentence()
    assert not cov.small_corpus and not cov.short
    assert "made 500 of 500 asked per subset from the first 8,312 of 38,019 sentences" in text
    assert "too small" not in text and "rough" not in text

"""End-to-end generation on a small hand-written corpus."""

from __future__ import annotations

import pytest
from heros_sentences import SENTENCES

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.generate import ALL_SUBSETS, PAIR_COLUMNS, generate_pairs, sentence_filter
from n2o_core.evaluation.heros.lexicon import related_lemmas
from n2o_core.evaluation.heros.random_word import MaskedLMFiller
from n2o_core.evaluation.heros.typos import damerau_levenshtein

CORPUS = [
    *SENTENCES,  # the last one: boost has no antonym in WordNet
    "Did the firm boost its exports to China last year at all?",  # question
    "Too short to use.",  # length
]


@pytest.fixture(scope="module")
def pairset():
    return generate_pairs(CORPUS * 1, n_per_subset=5, seed=0)


def test_sentence_filter():
    assert sentence_filter("Did the firm boost its exports to China last year at all?") == "question"
    assert sentence_filter("Too short to use.") == "length"
    assert sentence_filter(" ".join(["word"] * 30) + ".") == "length"
    assert sentence_filter("the firm boosted its exports to China with a cheaper line") == "not_a_sentence"
    assert sentence_filter("The firm boosted its exports to China with a cheaper product line.") is None


def test_pairs_have_all_subsets_and_columns(pairset):
    df = pairset.pairs
    assert list(df.columns) == PAIR_COLUMNS
    counts = pairset.counts()
    assert set(counts) == set(ALL_SUBSETS)
    assert all(n == 5 for n in counts.values())
    # aligned: the same originals in every subset
    per = df.groupby("subset")["original"].apply(frozenset)
    assert len(set(per)) == 1
    assert (df["variant"] != df["original"]).all()
    # it stopped once every subset had 5: every sentence read before that is an original or skipped with a reason
    assert pairset.n_asked == 5 and pairset.n_sentences == len(CORPUS) and pairset.n_tried < len(CORPUS)
    assert pairset.n_originals + sum(pairset.skipped.values()) == pairset.n_tried
    assert not pairset.exhausted


def test_a_small_corpus_says_how_many_pairs_it_made_of_those_asked():
    """50 asked per subset from 12 sentences: every sentence is tried, each is accounted for, and the yield is
    the pairs made per sentence tried."""
    ps = generate_pairs(CORPUS, n_per_subset=50, seed=0)
    counts = ps.counts()
    assert ps.exhausted and ps.n_tried == ps.n_sentences == len(CORPUS) and ps.n_asked == 50
    assert set(counts.values()) == {ps.n_originals} and 0 < ps.n_originals < 50
    assert ps.skipped["question"] == 1 and ps.skipped["length"] == 1
    assert ps.n_originals + sum(ps.skipped.values()) == len(CORPUS)
    assert ps.yields() == {s: ps.n_originals / len(CORPUS) for s in ALL_SUBSETS}


def test_each_rule_changes_what_it_should(pairset):
    df = pairset.pairs
    for r in df.itertuples():
        o, v = r.original.split(), r.variant.split()
        if r.subset in ("synonym", "antonym", "random", "typo"):
            assert len(o) == len(v) and sum(a != b for a, b in zip(o, v)) == 1, r
        if r.subset == "typo" and r.method.startswith("edit_"):
            assert damerau_levenshtein(r.target.lower(), r.replacement.lower()) == 1
        if r.subset == "random":
            assert r.replacement.lower() not in related_lemmas(r.target.lower())
        if r.subset.startswith("negation"):
            assert ("not" in v) != ("not" in o) or ("n't" in r.original), r


def test_word_outside_the_vetted_lexicon_is_skipped():
    # "doubled" and "new" are not vetted targets: no pair, whatever WordNet knows of them
    ps = generate_pairs(["The firm doubled its exports to China and Japan in the new year."], 1)
    assert ps.pairs.empty
    assert ps.skipped == {"no_target": 1}
    assert ps.n_parsed == 1


def test_untargetable_word_is_passed_over_for_another():
    # "doubled" cannot be a target; the predicative "cheap" (antonym "expensive") is chosen instead
    ps = generate_pairs(["The firm doubled its exports to China because its phones were cheap."], 1)
    assert set(ps.pairs["target"]) == {"cheap"}
    assert set(ps.pairs["subset"]) == set(ALL_SUBSETS)
    by = ps.pairs.set_index("subset")["variant"]
    assert by["antonym"] == "The firm doubled its exports to China because its phones were expensive."
    assert by["negation_antonym"] == "The firm doubled its exports to China because its phones were not cheap."


def test_deterministic_given_seed(pairset):
    again = generate_pairs(CORPUS, n_per_subset=5, seed=0)
    assert again.pairs.equals(pairset.pairs)


def test_bad_arguments():
    with pytest.raises(N2OError, match="Unknown Heros subset"):
        generate_pairs(CORPUS, 1, subsets=["synonym", "paraphrase"])
    with pytest.raises(N2OError):
        generate_pairs(CORPUS, 0)


def test_missing_masked_lm_gives_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")

    def factory(*args, **kwargs):
        raise OSError("not found offline")

    with pytest.raises(N2OError, match="masked language model 'no-such/model'"):
        MaskedLMFiller("no-such/model", pipeline_factory=factory)


def test_attributive_adjectives_infinitive_verbs_and_nouns_are_not_targets():
    from n2o_core.evaluation.heros.generate import _is_candidate
    from n2o_core.evaluation.heros.nlp import load_nlp
    from n2o_core.evaluation.heros.vetted import match

    nlp = load_nlp()
    doc = nlp("The engineer continued to repair the hard disk because the old one was cheap.")
    cands = {t.text for t in doc if _is_candidate(t, doc)}
    assert "continued" not in cands  # "continue to": a synonym may not take "to"
    assert {t.text for t in doc if _is_candidate(t, doc) and match(t, doc)} == {"cheap"}  # "hard disk": no
    doc = nlp("The Olympic champion set a new personal best of 22.38 seconds this season.")
    assert "best" not in {t.text for t in doc if _is_candidate(t, doc)}  # "a personal best" is a noun


def test_synonym_is_never_an_inflection_or_a_word_already_there():
    ps = generate_pairs(
        ["Shares in the firm rose sharply in March after the results were published."],
        1,
        subsets=["synonym", "antonym"],
    )
    assert not ps.pairs.empty
    for r in ps.pairs.itertuples():
        assert r.replacement.lower() not in r.original.lower().split()
        assert not r.replacement.lower().startswith(r.target.lower())

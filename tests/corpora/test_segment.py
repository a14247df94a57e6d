"""Sentence segmentation: abbreviations, decimals, quotes, paragraphs, both backends."""

from __future__ import annotations

import pytest

from n2o_core.corpora import segment
from n2o_core.corpora.segment import backend_name, looks_like_paragraphs, split_many, split_sentences


def _backends() -> list[str]:
    out = ["spacy"]
    if segment._blingfire() is not None:
        out.insert(0, "blingfire")
    return out


BACKENDS = _backends()

CASES = [
    ("Mr. Smith went to Washington. He arrived on Friday.", ["Mr. Smith went to Washington.", "He arrived on Friday."]),
    (
        "The U.S. economy grew 3.6% last year. Analysts were pleased.",
        ["The U.S. economy grew 3.6% last year.", "Analysts were pleased."],
    ),
    (
        "Profits rose to $1.13bn (£600m). Shares fell 2.5 points.",
        ["Profits rose to $1.13bn (£600m).", "Shares fell 2.5 points."],
    ),
    (
        '"It feels a little bit like a defeat," admitted Kiely. "We will see."',
        ['"It feels a little bit like a defeat," admitted Kiely.', '"We will see."'],
    ),
    (
        'He asked: "If they cannot, what hope is there?" he said. Mr Bradshaw left.',
        ['He asked: "If they cannot, what hope is there?" he said.', "Mr Bradshaw left."],
    ),
    (
        "Prof. Brown and Dr. Green argued. (They disagreed.) Fine.",
        ["Prof. Brown and Dr. Green argued.", "(They disagreed.)", "Fine."],
    ),
    (
        "Use tools, e.g. hammers, i.e. heavy ones. Then rest.",
        ["Use tools, e.g. hammers, i.e. heavy ones.", "Then rest."],
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,expected", CASES)
def test_news_cases(backend, text, expected):
    assert split_sentences(text, backend=backend) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_paragraph_rules(backend):
    text = "First line\ncontinues here. Second one.\n\nA heading without a stop\n\n  Third.  \n"
    assert split_sentences(text, backend=backend) == [
        "First line continues here.",
        "Second one.",
        "A heading without a stop",
        "Third.",
    ]
    assert split_sentences("", backend=backend) == []
    assert split_sentences(" \n\n \t", backend=backend) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_many_matches_single(backend):
    texts = [c[0] for c in CASES] + ["", "It rained. We stayed in. Then it stopped."]
    many = split_many(texts, backend=backend)
    assert many == [split_sentences(t, backend=backend) for t in texts]
    assert many[-1] == ["It rained.", "We stayed in.", "Then it stopped."]


def test_backend_name():
    assert backend_name() in ("blingfire", "spacy")
    assert backend_name("spacy") == "spacy"
    with pytest.raises(ValueError):
        backend_name("nltk")


def test_looks_like_paragraphs():
    sentences = [f"Sentence number {i} is here." for i in range(50)]
    assert not looks_like_paragraphs(sentences)
    # a few multi-sentence lines (10%) stay below the 20% threshold
    mixed = sentences[:45] + [f"Line {i} has two. Yes it does." for i in range(5)]
    assert not looks_like_paragraphs(mixed)
    paragraphs = [f"Paragraph {i} starts here. It goes on. And ends." for i in range(10)]
    assert looks_like_paragraphs(paragraphs)
    assert not looks_like_paragraphs([])
    assert not looks_like_paragraphs(["", "  "])

"""Generated pairs in the disk cache: the same request reads them back; anything else makes them."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from heros_sentences import SENTENCES

from n2o_core.evaluation.heros import pair_cache
from n2o_core.evaluation.heros.generate import PairSet
from n2o_core.evaluation.heros.pair_cache import cached_generate_pairs, pairs_key
from n2o_core.storage.cache import Cache


def test_real_pairs_come_back_identical(tmp_path, monkeypatch):
    cache = Cache(tmp_path)
    made = cached_generate_pairs(cache, "fp-a", SENTENCES, 5, seed=0)
    assert len(made.pairs) > 0

    def boom(*a, **k):
        raise AssertionError("generated again")

    monkeypatch.setattr(pair_cache, "generate_pairs", boom)
    again = cached_generate_pairs(Cache(tmp_path), "fp-a", SENTENCES, 5, seed=0)
    pd.testing.assert_frame_equal(again.pairs, made.pairs)
    assert (again.dropped, again.skipped, again.n_originals, again.n_parsed) == (
        made.dropped,
        made.skipped,
        made.n_originals,
        made.n_parsed,
    )


@pytest.fixture
def fake(monkeypatch):
    calls = []

    def gen(texts, n, seed, subsets, **k):
        calls.append((n, seed))
        df = pd.DataFrame(
            [
                {
                    "subset": "typo",
                    "original": texts[0],
                    "variant": texts[0] + "x",
                    "target": "t",
                    "replacement": "tx",
                    "pos": "v",
                    "tag": "VBD",
                    "method": "swap",
                    "sense": None,
                }
            ]
        )
        return PairSet(df, {"typo": {"none": 1}}, {"length": 2}, 1, 3)

    monkeypatch.setattr(pair_cache, "generate_pairs", gen)
    return calls


def test_another_request_makes_new_pairs(tmp_path, fake):
    cache = Cache(tmp_path)
    for fp, n, seed in [("a", 5, 0), ("a", 5, 0), ("a", 6, 0), ("a", 5, 1), ("b", 5, 0)]:
        ps = cached_generate_pairs(cache, fp, ["One sentence here."], n, seed)
        assert ps.pairs.loc[0, "sense"] is None and ps.dropped == {"typo": {"none": 1}}
    assert fake == [(5, 0), (6, 0), (5, 1), (5, 0)]
    assert pairs_key("a", 5, 0) != pairs_key("a", 5, 0, subsets=["typo"])


@pytest.mark.parametrize("damage", ["garbage", "wrong-layout"])
def test_a_damaged_entry_is_made_again(tmp_path, fake, damage):
    cache = Cache(tmp_path)
    cached_generate_pairs(cache, "a", ["One sentence here."], 5, 0)
    (p,) = [q for q in (tmp_path / "heros").glob("pairs-*.json") if not q.name.endswith(".json.json")]
    if damage == "garbage":
        p.write_bytes(b"\x00\x01 not json")
    else:  # valid JSON with a valid sidecar, but not a pair set
        rel = str(p.relative_to(tmp_path))
        cache.save_json(rel, {"columns": ["subset"], "rows": []})
    ps = cached_generate_pairs(cache, "a", ["One sentence here."], 5, 0)
    assert len(fake) == 2 and len(ps.pairs) == 1
    assert json.loads(p.read_text())["n_parsed"] == 3  # rewritten


def test_pairs_cached_says_whether_a_request_is_on_disk(tmp_path, fake):
    from n2o_core.evaluation.heros.pair_cache import pairs_cached

    cache = Cache(tmp_path)
    assert not pairs_cached(cache, "a", 5, 0)
    cached_generate_pairs(cache, "a", ["One sentence here."], 5, 0)
    assert pairs_cached(cache, "a", 5, 0)
    assert not pairs_cached(cache, "a", 5, 1) and not pairs_cached(cache, "b", 5, 0)
    assert len(fake) == 1  # asking loads and makes nothing


def test_editing_a_rule_or_a_lexicon_row_makes_the_pairs_again(tmp_path, fake, monkeypatch):
    """The key holds the content of the rule modules and the vetted lexicon: pairs made before a rule changed are
    never served after it (the same request, the same corpus)."""
    cache = Cache(tmp_path)
    cached_generate_pairs(cache, "a", ["One sentence here."], 5, 0)
    before = pairs_key("a", 5, 0)
    real = pair_cache.resources.files

    class Edited:
        def __init__(self, root):
            self.root = root

        def joinpath(self, *parts):
            path = self.root.joinpath(*parts)
            if parts[-1] != "vetted_lexicon.csv":
                return path
            data = path.read_bytes() + b"edited,v,trans,x/x,y,z,,,trans\n"
            return type("P", (), {"read_bytes": lambda self: data})()

    monkeypatch.setattr(pair_cache.resources, "files", lambda pkg: Edited(real(pkg)))
    pair_cache.rules_digest.cache_clear()
    try:
        assert pairs_key("a", 5, 0) != before
        cached_generate_pairs(cache, "a", ["One sentence here."], 5, 0)
        assert len(fake) == 2  # made again under the edited rules
    finally:
        monkeypatch.undo()
        pair_cache.rules_digest.cache_clear()
    assert pairs_key("a", 5, 0) == before

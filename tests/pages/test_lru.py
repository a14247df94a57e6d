"""The process-wide memos are bounded: the least recently used entry goes first (ui.lru.LRU)."""

from __future__ import annotations

from ui.lru import LRU


def test_lru_keeps_the_most_recently_used():
    memo = LRU(3)
    for k in "abc":
        memo[k] = k.upper()
    assert memo["a"] == "A"  # a read marks "a" as used
    memo["d"] = "D"
    assert list(memo) == ["c", "a", "d"]  # "b", the least recently used, went
    for i in range(100):
        memo[i] = i
    assert len(memo) == 3 and list(memo) == [97, 98, 99]

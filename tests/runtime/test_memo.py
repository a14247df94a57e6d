"""The one process-wide memo (`n2o_core.runtime.memo.LRU`): bounded, the least recently used entry goes first,
safe to share between threads."""

from __future__ import annotations

import threading

import pytest

from n2o_core.runtime.memo import LRU


def test_lru_keeps_the_most_recently_used():
    memo = LRU(3)
    for k in "abc":
        memo[k] = k.upper()
    assert memo["a"] == "A"  # a read marks "a" as used
    memo["d"] = "D"
    assert list(memo) == ["c", "a", "d"]  # "b", the least recently used, went
    assert memo.get("c") == "C" and memo.get("b", "gone") == "gone"  # get marks too; a missing key gives the default
    assert list(memo) == ["a", "d", "c"]
    assert "a" in memo and list(memo) == ["a", "d", "c"]  # asking whether it holds a key marks nothing
    assert memo.snapshot() == [("a", "A"), ("d", "D"), ("c", "C")]  # oldest first, nothing marked
    for i in range(100):
        memo[i] = i
    assert len(memo) == 3 and list(memo) == [97, 98, 99]
    del memo[98]
    memo.clear()
    assert len(memo) == 0


def test_lru_refuses_a_bound_below_one():
    with pytest.raises(ValueError, match="at least one"):
        LRU(0)


def test_lru_stays_bounded_and_whole_under_threads():
    memo: LRU[int, int] = LRU(50)
    errors: list[BaseException] = []

    def work(start: int) -> None:
        try:
            for i in range(start, start + 2000):
                memo[i % 120] = i
                memo.get((i * 7) % 120)
                if (i % 120) in memo:
                    memo.snapshot()
                list(memo)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k * 1000,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(memo) == 50

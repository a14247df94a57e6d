"""A small, deterministic English corpus with the structures the ten probing tasks look for: singular and plural
subjects and objects, past and present main verbs, fronted adverbials, quotations, and two-clause
coordinations, 6 to 20 words each."""

from __future__ import annotations

import random

_SUBJ = [
    ("the company", "the companies"),
    ("the minister", "the ministers"),
    ("the player", "the players"),
    ("the bank", "the banks"),
    ("the teacher", "the teachers"),
    ("the farmer", "the farmers"),
    ("the singer", "the singers"),
    ("the driver", "the drivers"),
    ("the doctor", "the doctors"),
    ("the student", "the students"),
]
_OBJ = [
    ("a factory", "three factories"),
    ("a new plan", "two new plans"),
    ("the contract", "the contracts"),
    ("a small house", "several small houses"),
    ("the old car", "the old cars"),
    ("a letter", "many letters"),
    ("the report", "the reports"),
    ("a ticket", "some tickets"),
]
# (past, present singular, present plural)
_VERBS = [
    ("bought", "buys", "buy"),
    ("sold", "sells", "sell"),
    ("wanted", "wants", "want"),
    ("found", "finds", "find"),
    ("needed", "needs", "need"),
    ("built", "builds", "build"),
    ("opened", "opens", "open"),
    ("signed", "signs", "sign"),
]
_FRONT = ["Yesterday,", "In March,", "However,", "After the meeting,", "Last year", "On Monday"]
_TAIL = ["", " in the city", " for the first time", " after a long delay", " without any help", " last week"]


def _clause(rng: random.Random) -> str:
    plural = rng.random() < 0.5
    subj = _SUBJ[rng.randrange(len(_SUBJ))][plural]
    obj = _OBJ[rng.randrange(len(_OBJ))][rng.random() < 0.5]
    past, pres_sg, pres_pl = _VERBS[rng.randrange(len(_VERBS))]
    verb = past if rng.random() < 0.5 else (pres_pl if plural else pres_sg)
    return f"{subj} {verb} {obj}{rng.choice(_TAIL)}"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def sentences(n: int = 300, seed: int = 0) -> list[str]:
    """`n` distinct sentences (deterministic for a seed)."""
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        kind = rng.random()
        if kind < 0.45:
            s = _cap(_clause(rng)) + "."
        elif kind < 0.65:
            s = f"{rng.choice(_FRONT)} {_clause(rng)}."
        elif kind < 0.85:
            s = _cap(_clause(rng)) + rng.choice([", but ", " and ", ", and "]) + _clause(rng) + "."
        else:
            s = f'"{_cap(_clause(rng))}," {rng.choice(["he said", "she added", "the report said"])}.'
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out

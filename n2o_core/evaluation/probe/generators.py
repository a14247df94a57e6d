"""Each probing task's generator (`tasks_syntax`, `tasks_semantics`), by task name."""

from __future__ import annotations

from collections.abc import Callable

from n2o_core.evaluation.probe.tasks import Candidates
from n2o_core.evaluation.probe.tasks_semantics import coordinv, objnum, somo, subjnum, tense
from n2o_core.evaluation.probe.tasks_syntax import bshift, sentlen, topconst, treedepth, wc

GENERATORS: dict[str, Callable[..., Candidates]] = {
    "sentlen": sentlen,
    "wc": wc,
    "treedepth": treedepth,
    "topconst": topconst,
    "bshift": bshift,
    "tense": tense,
    "subjnum": subjnum,
    "objnum": objnum,
    "somo": somo,
    "coordinv": coordinv,
}

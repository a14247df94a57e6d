"""How HEROS scores averaged word vectors: stop words dropped (the default, as Heros) or every token.

Heros evaluated averaged GloVe as sentence-transformers builds it, which drops its default stop words ("not", "no",
"did" among them) before averaging; the N2O paper averaged every token. The CLI, the Python API and the dashboard
all take this one setting, so the same embedder id gives the same numbers in each.
"""

from __future__ import annotations

from n2o_core.embedders.infos import with_stop_words_dropped
from n2o_core.errors import N2OError

#: Averaging choices for averaged word vectors (`--averaging`, the HEROS page's `avg=`).
AVERAGING: dict[str, str] = {"nostop": "stop words dropped (as Heros)", "all": "all tokens (as N2O)"}
AVERAGING_DEFAULT = "nostop"


def scored_id(embedder_id: str, averaging: str = AVERAGING_DEFAULT) -> str:
    """The embedder id HEROS scores for `embedder_id`: its `-nostop` row under "nostop" when it has one."""
    if averaging not in AVERAGING:
        raise N2OError(f"Unknown averaging '{averaging}'; use one of {', '.join(AVERAGING)}.")
    return with_stop_words_dropped(embedder_id) if averaging == "nostop" else embedder_id

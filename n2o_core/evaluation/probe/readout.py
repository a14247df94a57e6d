"""Reading a probing task out of sentence vectors: logistic regression and an MLP (scikit-learn), plus the
majority-class and length-only baselines.

As in SentEval, a classifier is trained on the train split for every setting of a small grid, the setting with
the best dev accuracy is kept (ties: the first tried), and its test accuracy is reported. Features are
standardized with the train split's mean and standard deviation (sparse tf-idf: scaled, not centred, so it stays
sparse). Logistic regression: L2, C in {0.01, 0.1, 1, 10}. MLP: one hidden layer with the sigmoid nonlinearity
(as in the paper), hidden units in {50, 200} x L2 alpha in {0.001, 0.1}, trained like SentEval's MLP (Adam,
batches of 64, dev checked every 4 passes, stop after 5 checks without improvement; at most 100 passes), the
number of passes chosen on dev too. Deviations from the paper's appendix: scikit-learn's MLP has no dropout, so
dropout is not tuned; hidden size 100 is not tried (time); sparse tf-idf reaches the MLP through a 384-d truncated
SVD fit on the train split (`MLP_SPARSE_DIMS`). The length-only baseline is the paper's: logistic regression on
the length in words. Same seed, same numbers.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

CLASSIFIERS = ("lr", "mlp")
#: Bump when the readouts change what they compute.
READOUT_VERSION = "1"
#: Inverse L2 strength of logistic regression, strongest regularization first (each fit warm-starts the next).
LR_GRID: tuple[dict[str, Any], ...] = tuple({"C": c} for c in (0.01, 0.1, 1.0, 10.0))
#: Hidden units (the paper tries 50/100/200) x L2 strength; the number of epochs is chosen on dev as well.
MLP_GRID: tuple[dict[str, Any], ...] = tuple({"hidden": h, "alpha": a} for h in (50, 200) for a in (1e-3, 1e-1))
MLP_BATCH = 64  # SentEval's MLP: Adam, batches of 64,
MLP_LR = 0.01  # learning rate (scikit-learn's sigmoid MLP barely moves at Adam's usual 0.001),
MLP_EPOCH_SIZE = 4  # dev checked every 4 passes over train ("epoch_size"),
MLP_TENACITY = 5  # stop after 5 checks without a better dev accuracy ("tenacity"),
MLP_MAX_PASSES = 100  # and at most 100 passes (SentEval allows 800; cut for time).
#: Sparse features (tf-idf, |V| ~ 30k columns on BBC News) reach the MLP through a truncated SVD to this many dimensions
#: (the widest dense embedder's): an MLP over the raw columns has ~80x the weights of the others' MLPs and costs
#: correspondingly more time (measured: benchmarks/README.md, 'Measurements behind the code's choices'). Logistic
#: regression reads the sparse features themselves.
MLP_SPARSE_DIMS = 384


@dataclass(frozen=True)
class Readout:
    """Test accuracy of the dev-selected setting, its dev accuracy, the setting, and what scikit-learn warned
    while fitting (each distinct message once; convergence warnings left out: every pass is checked on dev)."""

    accuracy: float
    dev_accuracy: float
    params: dict[str, Any]
    n_test: int
    warnings: tuple[str, ...] = ()


def _standardize(X_train: Any, *others: Any) -> list[Any]:
    from sklearn.preprocessing import StandardScaler

    sparse = sp.issparse(X_train)
    scaler = StandardScaler(with_mean=not sparse)
    out = [scaler.fit_transform(X_train if sparse else np.asarray(X_train, np.float64))]
    for X in others:
        out.append(scaler.transform(X if sparse else np.asarray(X, np.float64)))
    return [x.astype(np.float32) for x in out]


def _reduce_sparse(Xtr: Any, Xdv: Any, Xte: Any, seed: int) -> list[Any]:
    """Scaled sparse features (tf-idf) -> MLP_SPARSE_DIMS dimensions by truncated SVD fit on the train split,
    standardized again."""
    from sklearn.decomposition import TruncatedSVD

    k = max(1, min(MLP_SPARSE_DIMS, Xtr.shape[1] - 1, Xtr.shape[0] - 1))
    svd = TruncatedSVD(n_components=k, random_state=seed).fit(Xtr)
    return _standardize(*(svd.transform(X) for X in (Xtr, Xdv, Xte)))


def spec(classifier: str) -> dict[str, Any]:
    """Everything that decides a readout's numbers besides the data and the seed (part of its cache key)."""
    out: dict[str, Any] = {"classifier": classifier, "grid": [dict(g) for g in grid(classifier)]}
    if classifier == "mlp":
        out.update(
            lr=MLP_LR,
            batch=MLP_BATCH,
            epoch_size=MLP_EPOCH_SIZE,
            tenacity=MLP_TENACITY,
            max_passes=MLP_MAX_PASSES,
            sparse_dims=MLP_SPARSE_DIMS,
        )
    return out


def readout_rel(key_parts: list[Any]) -> str:
    """The cache entry of one readout: key parts are the task's key, the embedder's key (or "length"), the seed
    and the classifier's `spec`."""
    from n2o_core.storage.cache import hash_key

    return f"probe/readout-{hash_key('probe-readout', READOUT_VERSION, *key_parts)}.json"


def grid(classifier: str) -> tuple[dict[str, Any], ...]:
    """The settings tried on dev for a classifier."""
    try:
        return {"lr": LR_GRID, "mlp": MLP_GRID}[classifier]
    except KeyError:
        raise ValueError(f"unknown classifier {classifier!r}") from None


def _lr_scores(
    Xtr: Any, ytr: np.ndarray, Xdv: Any, ydv: np.ndarray, Xte: Any, yte: np.ndarray, seed: int
) -> list[tuple[float, float, dict[str, Any]]]:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(max_iter=1000, warm_start=True, random_state=seed)
    out = []
    for params in LR_GRID:
        model.set_params(C=params["C"]).fit(Xtr, ytr)
        out.append((_acc(model, Xdv, ydv), _acc(model, Xte, yte), dict(params)))
    return out


def _mlp_scores(
    Xtr: Any, ytr: np.ndarray, Xdv: Any, ydv: np.ndarray, Xte: Any, yte: np.ndarray, seed: int
) -> list[tuple[float, float, dict[str, Any]]]:
    """One MLP per grid setting trained as SentEval trains its MLP (Adam, minibatches of 64, dev accuracy
    checked every 4 passes, stop after 5 checks without improvement); every check is a candidate, so the
    number of passes is chosen on dev like the other settings."""
    from sklearn.neural_network import MLPClassifier

    classes = np.unique(ytr)
    out = []
    for params in MLP_GRID:
        model = MLPClassifier(
            hidden_layer_sizes=(params["hidden"],),
            activation="logistic",
            alpha=params["alpha"],
            batch_size=min(MLP_BATCH, len(ytr)),
            learning_rate_init=MLP_LR,
            random_state=seed,
        )
        best, since, passes = -1.0, 0, 0
        while passes < MLP_MAX_PASSES and since < MLP_TENACITY:
            for _ in range(MLP_EPOCH_SIZE):
                model.partial_fit(Xtr, ytr, classes=classes)
            passes += MLP_EPOCH_SIZE
            dev = _acc(model, Xdv, ydv)
            out.append((dev, _acc(model, Xte, yte), dict(params, passes=passes)))
            best, since = (dev, 0) if dev > best else (best, since + 1)
    return out


def _acc(model: Any, X: Any, y: np.ndarray) -> float:
    return float(np.mean(model.predict(X) == y))


def read_out(
    X_train: Any,
    y_train: np.ndarray,
    X_dev: Any,
    y_dev: np.ndarray,
    X_test: Any,
    y_test: np.ndarray,
    classifier: str,
    seed: int = 0,
) -> Readout:
    """Train on train for each grid setting, pick the setting by dev accuracy (ties: the first tried), report its
    test accuracy. BLAS runs on one thread: these matrices are small, and on a shared machine more threads make
    scikit-learn's MLP many times slower. Warnings are kept in the Readout, never printed (a server's log would
    get one per fit)."""
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    scores = {"lr": _lr_scores, "mlp": _mlp_scores}
    if classifier not in scores:
        raise ValueError(f"unknown classifier {classifier!r}")
    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ConvergenceWarning)
        Xtr, Xdv, Xte = _standardize(X_train, X_dev, X_test)
        if classifier == "mlp" and sp.issparse(Xtr):
            Xtr, Xdv, Xte = _reduce_sparse(Xtr, Xdv, Xte, seed)
        classes = np.unique(np.concatenate([np.asarray(y).astype(str) for y in (y_train, y_dev, y_test)]))
        # integer codes: scikit-learn re-checks string labels on every partial_fit call, which dominates on small
        # data
        ytr, ydv, yte = (np.searchsorted(classes, np.asarray(y).astype(str)) for y in (y_train, y_dev, y_test))
        tried = scores[classifier](Xtr, ytr, Xdv, ydv, Xte, yte, seed)
    dev, test, params = max(tried, key=lambda r: r[0])  # max keeps the first of equal dev accuracies
    said = tuple(dict.fromkeys(f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught))
    return Readout(test, dev, params, len(yte), said)


def majority(y_train: np.ndarray, y_test: np.ndarray) -> float:
    """Test accuracy of always answering the most frequent train class (ties: the first in sorted order)."""
    vals, counts = np.unique(np.asarray(y_train), return_counts=True)
    top = vals[int(np.argmax(counts))]
    return float(np.mean(np.asarray(y_test) == top))


def length_features(n_words: Any) -> np.ndarray:
    """The length-only baseline's single feature: the sentence length in words."""
    return np.asarray(n_words, np.float64).reshape(-1, 1)

"""AppTest: the Variants page. Each section's figure and sentences must be what `n2o.variant_analysis` computes
for the same corpus and settings; nothing is computed before a section's button (which says how long it takes
here) unless the cache holds that section for the same settings; the download is the CLI's document; talk mode
draws the section's figure under the key talk mode enlarges; an embedder without layers gets one sentence in the
Layers section."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from app_checks import HOW_LONG, no_exception, plotly_specs, shown

import n2o_core as n2o
from ui import talk

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

GLOVE = "glove-6b-50d"
#: The app's query samples in these tests (conftest: N2O_DEFAULT_QUERIES / N2O_DEFAULT_SAMPLES) and its k.
SAMPLES = dict(k=10, queries=30, samples=3)


def open_variants(app, **params):
    app.query_params.update(params)
    app.run()
    app.switch_page("pages/variants.py").run(timeout=300)
    no_exception(app)
    return app


def api(part: str, embedder: str, other: str | None = None):
    """What the API computes for the app's corpus, cache and settings, `part` alone."""
    return n2o.variant_analysis(
        os.environ["N2O_DEFAULT_CORPUS"],
        embedder,
        other=other,
        layers=part == "layers",
        compression=part == "compression",
        index=part == "index",
        cache_dir=os.environ["N2O_CACHE_DIR"],
        **SAMPLES,
    )


def test_compression_is_the_cores_and_the_download_the_clis(app):
    from n2o_core.evaluation.variants.stored import combined
    from ui import variants_runs as vd

    open_variants(app, emb=f"tfidf,{GLOVE}", of=GLOVE, part="compression")
    assert "variants" not in plotly_specs(app)
    [button] = [b for b in app.main.button if re.fullmatch(rf"Compute the Compression \({HOW_LONG}\)", b.label)]
    assert any(re.search(rf"should take {HOW_LONG} \(", i.value) and "kept in the cache" in i.value for i in app.info)
    assert any("Only 151 sentences" in w.value for w in app.warning)  # the small corpus, said before the figure
    button.click().run(timeout=600)
    no_exception(app)
    assert app.query_params["of"] == GLOVE and app.query_params["part"] == "compression"

    want = api("compression", GLOVE).compression
    by = {p.variant: p for p in want.points}
    spec = plotly_specs(app)["variants"]
    curves = {t["name"]: t for t in spec["data"] if t.get("name") in {"dims", "pca", "int8", "binary"}}
    assert set(curves) == {"dims", "pca", "int8", "binary"}
    for fam, trace in curves.items():
        pts = sorted((p for p in want.points if p.family == fam), key=lambda p: p.bytes_per_vector)
        assert trace["x"] == [p.bytes_per_vector for p in pts]
        np.testing.assert_allclose(trace["y"], [p.n2o_with_original for p in pts], atol=1e-6)
    pca = by[f"{GLOVE}@pca=50"]
    assert any(f"has N2O {pca.n2o_with_original:.3f} with the original" in c.value for c in app.caption)
    if want.knee is not None:
        knee = by[want.knee]
        assert f"N2O **{knee.n2o_with_original:.3f}**" in shown(app.markdown)

    # the download: the kept part, as one document, is what the API (and the CLI's --json) gives
    [(key, got)] = [(k, v) for k, v in vd._memo().items() if k[2] == "compression" and k[1].embedder == GLOVE]
    doc = combined(_ws(), key[1], {"compression": got}).to_json()
    assert json.loads(json.dumps(doc)) == json.loads(json.dumps(api("compression", GLOVE, "tfidf").to_json()))
    assert any(b.label.startswith("Download the analysis (JSON") for b in app.get("download_button"))

    # talk mode: no button, the section's figure under the key talk mode makes the main figure
    from test_talk_mode import MAIN

    assert "variants" in talk.MAIN_FIGURES and MAIN["variants"][0].startswith(".st-key-variants ")
    app.query_params["talk"] = "1"
    app.run()
    no_exception(app)
    assert "variants" in plotly_specs(app) and not [b for b in app.main.button if b.label.startswith("Compute")]


def _ws():
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    cache = Cache(os.environ["N2O_CACHE_DIR"])
    return Workspace(load_corpus(os.environ["N2O_DEFAULT_CORPUS"], cache_dir=cache.root), cache=cache)


def test_an_embedder_without_layers_is_one_sentence(app):
    open_variants(app, emb=f"tfidf,{GLOVE}", of=GLOVE, part="layers")
    assert any("has no layers to compare" in i.value and "no hidden layers" in i.value for i in app.info)
    assert not [b for b in app.main.button if b.label.startswith("Compute")]


def test_a_bad_section_in_the_link_is_said(app):
    open_variants(app, emb=f"tfidf,{GLOVE}", of=GLOVE, part="everything")
    assert any("'part' in the link must be one of layers, compression, index" in w.value for w in app.warning)
    assert app.query_params["part"] == "compression"  # GloVe has no layers: the first view that shows something


@pytest.mark.slow  # MiniLM-L6's forward pass over every layer
def test_layers_are_the_cores(app):
    open_variants(app, emb=f"{GLOVE},minilm-l6-mean", of="minilm-l6-mean", other=GLOVE, part="layers")
    [button] = [b for b in app.main.button if re.fullmatch(rf"Compute the Layers \({HOW_LONG}\)", b.label)]
    button.click().run(timeout=900)
    no_exception(app)
    res = api("layers", "minilm-l6-mean", GLOVE)
    specs = plotly_specs(app)
    z = np.array(next(t for t in specs["variants"]["data"] if t["type"] == "heatmap")["z"], float)
    off = ~np.eye(len(res.layers.rows), dtype=bool)
    np.testing.assert_allclose(z[off], res.layers.n2o[off], atol=1e-6)
    between = res.between
    i = int(np.argmax(between.n2o[:, 0]))
    assert f"**layer {i}** of minilm-l6-mean agrees most with {GLOVE}: N2O **{between.n2o[i, 0]:.3f}**" in shown(
        app.markdown
    )
    assert "variants_between" in specs


@pytest.mark.slow  # warm's three sections, the index sweep's pynndescent builds among them
def test_opens_on_what_warm_kept(app, capsys):
    from n2o_core.cli.main import main

    assert main(["warm", "--seed", "4", "--no-check", "--variants"]) == 0
    out = capsys.readouterr().out
    assert "variants compression of word2vec: ready in" in out
    assert "variants layers of word2vec (against fasttext): not computed" in out
    open_variants(app, seed="4", part="compression")
    assert "variants" in plotly_specs(app)
    assert not [b for b in app.main.button if b.label.startswith("Compute")]
    assert any(c.value.startswith("Computed ") and "kept in the cache" in c.value for c in app.caption)

"""The self-contained HTML report: figures as embedded SVG, escaped tables and text, the view's settings and link."""

from __future__ import annotations

import base64
import re

import numpy as np
import pandas as pd

from n2o_core.export import report
from n2o_core.figures import n2o as figures

NAMES = ["tfidf", "glove-6b-50d", "word2vec"]
M = np.array([[1.0, 0.12, 0.2], [0.12, 1.0, 0.31], [0.2, 0.31, 1.0]])


def test_report_embeds_figures_and_escapes_text():
    table = pd.DataFrame({"sentence": ["<script>alert(1)</script> won", "plain"], "cosine": [0.123456, np.nan]})
    html = report.html_report(
        "N2O <heatmap>",
        [
            report.Figure(figures.n2o_heatmap(M, NAMES, chance=0.01, k=10), "k = 10", title="Matrix"),
            report.Table(table, "two rows", title="Neighbors"),
            report.Text("First paragraph.\n\nSecond & last."),
        ],
        meta={"corpus": "bbc-news", "k": 10},
        link="http://localhost:8501/heatmap?k=10&emb=tfidf",
    )
    assert html.startswith("<!DOCTYPE html>") and "<title>N2O &lt;heatmap&gt;</title>" in html
    assert "<script" not in html  # no script at all: corpus text is escaped, nothing is loaded
    assert "&lt;script&gt;alert(1)&lt;/script&gt; won" in html
    assert "<td>0.1235</td></tr>" in html and "<td>plain</td><td></td>" in html  # 4 decimals; NaN empty
    assert "<p>First paragraph.</p><p>Second &amp; last.</p>" in html
    assert '<a href="http://localhost:8501/heatmap?k=10&amp;emb=tfidf">' in html
    assert "<td>corpus</td><td>bbc-news</td>" in html
    assert not re.search(r"(src|href)=\"(https?:)?//(?!localhost)", html)  # self-contained: nothing fetched
    svg = base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html).group(1)).decode()
    assert svg.startswith("<svg") and all(n in svg for n in NAMES)
    assert len(html) < 200_000  # small enough to attach anywhere


def test_long_tables_are_cut_with_a_note():
    df = pd.DataFrame({"id": range(1000)})
    html = report.html_report("t", [report.Table(df, max_rows=50)])
    assert html.count("<tr>") == 51 and "The first 50 of 1,000 rows" in html
    indexed = pd.DataFrame({"synonym": [0.9]}, index=pd.Index(["glove"], name="embedder"))
    assert "<th>embedder</th><th>synonym</th>" in report.html_report("t", [report.Table(indexed, index=True)])

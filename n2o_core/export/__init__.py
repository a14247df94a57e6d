"""What users take away from a view: tables as CSV/JSON, figures as PNG/SVG, a self-contained HTML report, vectors.

    tables   matrix_csv (one row per embedder pair), neighbors_json / neighbors_frame / neighbors_csv (neighbors
             with their texts and cosines), table_csv / table_json (any frame), figure_image (PNG/SVG bytes)
    report   html_report: Figure, Table and Text blocks in one HTML file (no script, no network)
    findings_table  findings_markdown: the papers' findings (a `findings --json` document) as a Markdown table
    vectors  save_vectors: a corpus's vectors as a float32 .npy (`n2o embed ... --out`), MAX_DENSE_BYTES

    from n2o_core.export import html_report, Figure, Table     # or: import n2o_core.export.report as report
    html = html_report("N2O heatmap", [Figure(fig, "k = 10"), Table(pairs_df, "pairs")], meta={"corpus": "bbc"})

Names resolve lazily (module `__getattr__`): importing this package imports none of its modules; saving vectors
does not import pandas or plotly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "MAX_DENSE_BYTES",
    "Figure",
    "Table",
    "Text",
    "figure_image",
    "findings_markdown",
    "html_report",
    "matrix_csv",
    "neighbors_csv",
    "neighbors_frame",
    "neighbors_json",
    "save_vectors",
    "table_csv",
    "table_json",
]

if TYPE_CHECKING:
    from n2o_core.export.findings_table import findings_markdown
    from n2o_core.export.report import Figure, Table, Text, html_report
    from n2o_core.export.tables import (
        figure_image,
        matrix_csv,
        neighbors_csv,
        neighbors_frame,
        neighbors_json,
        table_csv,
        table_json,
    )
    from n2o_core.export.vectors import MAX_DENSE_BYTES, save_vectors

_LAZY = {
    "matrix_csv": "tables",
    "neighbors_json": "tables",
    "neighbors_frame": "tables",
    "neighbors_csv": "tables",
    "table_csv": "tables",
    "table_json": "tables",
    "figure_image": "tables",
    "findings_markdown": "findings_table",
    "Figure": "report",
    "Table": "report",
    "Text": "report",
    "html_report": "report",
    "MAX_DENSE_BYTES": "vectors",
    "save_vectors": "vectors",
}


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first use (keeps `import n2o_core.export` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)

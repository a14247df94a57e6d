"""The dashboard's pages, once: module in pages/ (also its URL path), navigation title, icon and the heading the
page draws. app.py builds st.navigation from it; the pages draw their heading from it; browser tests and
benchmarks tour it."""

from __future__ import annotations

from typing import NamedTuple


class NavPage(NamedTuple):
    """One page of the dashboard."""

    name: str
    title: str
    icon: str
    heading: str


PAGES: tuple[NavPage, ...] = (
    NavPage("heatmap", "N2O heatmap", ":material/grid_on:", "N2O heatmap"),
    NavPage("query", "Query explorer", ":material/manage_search:", "Query explorer"),
    NavPage("tokens", "Token overlap", ":material/abc:", "Token overlap"),
    NavPage("heros", "HEROS subsets", ":material/science:", "HEROS subsets"),
    NavPage("agreement", "Where embedders disagree", ":material/call_split:", "Where two embedders disagree"),
    NavPage("measures", "Similarity measures", ":material/compare_arrows:", "Similarity measures"),
    NavPage("needle", "Paraphrase needle", ":material/search:", "Paraphrase needle"),
    NavPage("sts", "Human similarity (STS)", ":material/groups:", "Human similarity (STS)"),
    NavPage("quality", "Quality vs agreement", ":material/scatter_plot:", "Quality beside agreement"),
    NavPage("findings", "Papers' findings", ":material/fact_check:", "The papers' findings, checked live"),
    NavPage("probe", "Probing tasks", ":material/biotech:", "Probing tasks"),
    NavPage("variants", "Variants", ":material/layers:", "Variants of one embedder"),
    NavPage("about", "About", ":material/info:", "About N2O Explorer"),
)

#: URL paths a page had before it was renamed (its old links still open it): old path -> page name.
OLD_PATHS: dict[str, str] = {"similarity": "sts"}

#: Every page's module name (URL path), in navigation order.
PAGE_NAMES: tuple[str, ...] = tuple(p.name for p in PAGES)


def title(name: str) -> str:
    """The navigation title of page `name`."""
    return next(p.title for p in PAGES if p.name == name)


def heading(name: str) -> str:
    """The heading page `name` draws."""
    return next(p.heading for p in PAGES if p.name == name)

"""Pure plotly figure builders: data in (the cores' arrays and frames), `go.Figure` out; no Streamlit, no I/O.

    style       the one look: PALETTE, FONT, base_layout, embedder_colors / colors_for (an embedder keeps its
                colour in every figure), heatmap_range, bump_chart (ranks across scorings or classifiers)
    n2o         the N2O heatmap (cluster_order, reorder), per-embedder box plot, robustness across k and query
                samples, sample-size curve, N2O vs k, token-overlap bars, recall of approximate search
    heros       HEROS minimal pairs: embedder x subset heatmap, grouped bars with CIs
    evaluation  paraphrase needle (MRR), human similarity (correlation bars, rank_bump), quality scatter
    probe       probing tasks: accuracy heatmap, ranking_bump across classifiers
    labels      label_positions: a text position per scatter point so that labels neither overlap nor leave the plot;
                place_labels: labels of a plot of known pixel geometry, clear of every marker (a rule)
    measures    similarity measures beyond N2O: a matrix per measure, measure agreement, embedder maps
    variants    one embedder's variants: layer x layer N2O and CKA, compression curves, index recall vs time
    maps        per-sentence agreement: linked WebGL maps, histogram, hover labels, downsampling

    from n2o_core.figures import n2o_heatmap            # or: import n2o_core.figures.n2o as figures
    fig = n2o_heatmap(mean, names, chance=0.02, k=10)

Names resolve lazily (module `__getattr__`): importing this package, or one figure module, imports only what that
needs; plotly is imported by the figure modules alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "BASELINE_LABELS",
    "CHANCE_EXTEND_MAX",
    "CLASSIFIER_LABELS",
    "COLORSCALE",
    "FAMILY_COLORS",
    "FONT",
    "HEROS_LABELS",
    "HOVER_CHARS",
    "HOVER_WIDTH",
    "MAX_POINTS",
    "NEUTRAL",
    "PALETTE",
    "SCORING_LABELS",
    "SYNTHETIC_TAG",
    "accuracy_heatmap",
    "agreement_histogram",
    "agreement_maps",
    "base_layout",
    "bump_chart",
    "cluster_order",
    "color_range",
    "colors_for",
    "correlation_bars",
    "downsample",
    "embedder_colors",
    "heatmap_range",
    "heros_bars",
    "heros_heatmap",
    "hover_label",
    "hover_labels",
    "n2o_boxplot",
    "n2o_heatmap",
    "n2o_vs_k",
    "needle_mrr",
    "nice_ticks",
    "quality_scatter",
    "rank_bump",
    "ranking_bump",
    "recall_bars",
    "reorder",
    "sample_size_curve",
    "samples_heatmap",
    "selected_points_ids",
    "spearman_heatmap",
    "token_overlap_bars",
]

if TYPE_CHECKING:
    from n2o_core.figures.evaluation import (
        SCORING_LABELS,
        SYNTHETIC_TAG,
        correlation_bars,
        needle_mrr,
        quality_scatter,
        rank_bump,
    )
    from n2o_core.figures.heros import HEROS_LABELS, heros_bars, heros_heatmap
    from n2o_core.figures.maps import (
        COLORSCALE,
        HOVER_CHARS,
        HOVER_WIDTH,
        MAX_POINTS,
        agreement_histogram,
        agreement_maps,
        color_range,
        downsample,
        hover_label,
        hover_labels,
        selected_points_ids,
    )
    from n2o_core.figures.n2o import (
        CHANCE_EXTEND_MAX,
        cluster_order,
        n2o_boxplot,
        n2o_heatmap,
        n2o_vs_k,
        nice_ticks,
        recall_bars,
        reorder,
        sample_size_curve,
        samples_heatmap,
        spearman_heatmap,
        token_overlap_bars,
    )
    from n2o_core.figures.probe import BASELINE_LABELS, CLASSIFIER_LABELS, accuracy_heatmap, ranking_bump
    from n2o_core.figures.style import (
        FAMILY_COLORS,
        FONT,
        NEUTRAL,
        PALETTE,
        base_layout,
        bump_chart,
        colors_for,
        embedder_colors,
        heatmap_range,
    )

_LAZY = {
    "PALETTE": "style",
    "FONT": "style",
    "NEUTRAL": "style",
    "FAMILY_COLORS": "style",
    "base_layout": "style",
    "embedder_colors": "style",
    "colors_for": "style",
    "heatmap_range": "style",
    "bump_chart": "style",
    "CHANCE_EXTEND_MAX": "n2o",
    "cluster_order": "n2o",
    "reorder": "n2o",
    "nice_ticks": "n2o",
    "n2o_heatmap": "n2o",
    "n2o_boxplot": "n2o",
    "spearman_heatmap": "n2o",
    "samples_heatmap": "n2o",
    "sample_size_curve": "n2o",
    "n2o_vs_k": "n2o",
    "token_overlap_bars": "n2o",
    "recall_bars": "n2o",
    "HEROS_LABELS": "heros",
    "heros_heatmap": "heros",
    "heros_bars": "heros",
    "SCORING_LABELS": "evaluation",
    "SYNTHETIC_TAG": "evaluation",
    "needle_mrr": "evaluation",
    "correlation_bars": "evaluation",
    "rank_bump": "evaluation",
    "quality_scatter": "evaluation",
    "CLASSIFIER_LABELS": "probe",
    "BASELINE_LABELS": "probe",
    "accuracy_heatmap": "probe",
    "ranking_bump": "probe",
    "COLORSCALE": "maps",
    "HOVER_CHARS": "maps",
    "HOVER_WIDTH": "maps",
    "MAX_POINTS": "maps",
    "agreement_maps": "maps",
    "agreement_histogram": "maps",
    "color_range": "maps",
    "downsample": "maps",
    "hover_label": "maps",
    "hover_labels": "maps",
    "selected_points_ids": "maps",
}


def __getattr__(name: str) -> Any:
    """Import the figure module that defines `name` on first use (keeps `import n2o_core.figures` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)

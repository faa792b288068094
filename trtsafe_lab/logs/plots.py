"""Views of the failure summary (matplotlib, imported lazily; never shown)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from trtsafe_lab.logs import columns as C
from trtsafe_lab.text import for_matplotlib, strip_ansi, wrap_name

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _axes(ax: Any, figsize: tuple[float, float]) -> tuple[Figure, Any]:
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize, layout="constrained")
    return figure, figure.add_subplot()


# trtexec / builder follow-up lines ("Engine could not be created", "Building engine failed",
# "Assertion engine != nullptr failed"): they repeat that a build failed, not why.
FOLLOW_UP_CATEGORIES = ("build-failed",)
_PHASE_COLOURS = {"parse": "#8e44ad", "build": "#2c3e50", "tactic": "#d35400", "runtime": "#16a085"}


def _integer_ticks(ax: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def plot_categories(
    summary: pd.DataFrame,
    ax: Any = None,
    title: str = "",
    hide: tuple[str, ...] = FOLLOW_UP_CATEGORIES,
) -> Figure:
    """Failure rows per category, fatal and non-fatal stacked (horizontal bars).

    Categories in ``hide`` (by default the build-failed follow-up lines) are left out and
    counted in the axis label.
    """
    figure, ax = _axes(ax, (7, 4))
    by_category = summary.groupby(C.CATEGORY)[[C.COUNT, C.FATAL_COUNT]].sum()
    hidden = int(by_category.loc[by_category.index.isin(hide), C.COUNT].sum())
    by_category = by_category[~by_category.index.isin(hide)].sort_values(C.COUNT)
    fatal = by_category[C.FATAL_COUNT]
    other = by_category[C.COUNT] - fatal
    labels = [for_matplotlib(c) for c in by_category.index]
    ax.barh(labels, fatal, color="#c0392b", label="fatal")
    ax.barh(labels, other, left=fatal, color="#95a5a6", label="not fatal")
    note = f" ({hidden} {'/'.join(hide)} follow-up rows not shown)" if hidden else ""
    ax.set_xlabel("failure rows" + note)
    ax.set_title(for_matplotlib(title) or "Failure rows by category")
    _integer_ticks(ax)
    if labels:
        ax.legend(loc="best")
    else:
        ax.text(0.5, 0.5, "no failures", ha="center", va="center", transform=ax.transAxes)
    return figure


LAYER_LABEL_CHARS = 40  # a layer label is wrapped at this width; names are never cut
def _top_layers(summary: pd.DataFrame, top: int) -> tuple[pd.DataFrame, list[str]]:
    """The ``top`` layers named most often (fewest first, for barh) and their wrapped labels."""
    named = summary[summary[C.LAYER] != ""]
    per_layer = named.groupby(C.LAYER).agg({C.COUNT: "sum", C.PHASE: "first"})
    per_layer = per_layer.sort_values(C.COUNT, ascending=False, kind="stable").head(top)
    per_layer = per_layer.iloc[::-1]
    labels = [for_matplotlib("\n".join(wrap_name(strip_ansi(name), LAYER_LABEL_CHARS)))
              for name in per_layer.index]
    return per_layer, labels


def _layers_height(labels: list[str]) -> float:
    """Inches of figure height that fit ``labels`` (wrapped lines at font size 8)."""
    return 0.2 * sum(label.count("\n") + 1 for label in labels) + 1.6


def plot_layers(summary: pd.DataFrame, ax: Any = None, top: int = 12, title: str = "") -> Figure:
    """The layers named most often, coloured by phase. Long names are wrapped onto several lines
    (:func:`trtsafe_lab.text.wrap_name`), never cut; without ``ax`` the figure grows to fit them."""
    from matplotlib.patches import Patch

    per_layer, labels = _top_layers(summary, top)
    figure, ax = _axes(ax, (7, max(4.0, _layers_height(labels))))
    ax.barh(
        range(len(per_layer)),
        per_layer[C.COUNT],
        color=[_PHASE_COLOURS.get(phase, "#7f8c8d") for phase in per_layer[C.PHASE]],
    )
    ax.set_yticks(range(len(per_layer)), labels, fontsize=8)
    ax.set_xlabel("failure rows naming the layer")
    named = summary.loc[summary[C.LAYER] != "", C.LAYER].nunique()
    ax.set_title(for_matplotlib(title) or f"Layers named most often ({len(per_layer)} of {named})")
    _integer_ticks(ax)
    handles = [
        Patch(color=colour, label=phase)
        for phase, colour in _PHASE_COLOURS.items()
        if (per_layer[C.PHASE] == phase).any()
    ]
    if handles:
        ax.legend(handles=handles, title="phase", loc="upper left", bbox_to_anchor=(1.01, 1))
    else:
        ax.text(0.5, 0.5, "no layer named", ha="center", va="center", transform=ax.transAxes)
    return figure


def plot_summary(summary: pd.DataFrame, ax: Any = None, title: str = "") -> Figure:
    """Categories and most-named layers side by side (or categories only on a given ``ax``)."""
    if ax is not None:
        return plot_categories(summary, ax=ax, title=title)
    from matplotlib.figure import Figure

    height = max(4.8, _layers_height(_top_layers(summary, 12)[1]))
    figure = Figure(figsize=(13, height), layout="constrained")
    left, right = figure.subplots(1, 2)
    plot_categories(summary, ax=left)
    plot_layers(summary, ax=right)
    if title:
        figure.suptitle(for_matplotlib(title))
    return figure


_CATEGORY_COLOURS = {
    "no-implementation": "#c0392b",
    "no-tactic": "#e74c3c",
    "parser-error": "#8e44ad",
    "parser-unsupported": "#d2b4de",  # light: parser-error is the dark purple
    "shape": "#2980b9",
    "tactic-out-of-memory": "#d35400",
    "out-of-memory": "#e67e22",
    "dla-fallback": "#16a085",
    "myelin": "#2c3e50",
    "other": "#7f8c8d",
}
# For any other category, in order of first appearance in a plot: distinct from the above.
_SPARE_COLOURS = ("#f1c40f", "#e84393", "#6c5ce7", "#a0522d", "#badc58", "#17becf", "#808000",
                  "#74b9ff", "#fab1a0", "#006400", "#ffd8b1", "#aaffc3")


def _category_colours(categories: list[str]) -> dict[str, str]:
    """A colour for each category: its own where it has one, else the next spare colour, so
    no two categories in one plot share a colour (up to 12 unlisted ones)."""
    spare = iter(c for c in _SPARE_COLOURS if c not in _CATEGORY_COLOURS.values())
    colours = {}
    for category in dict.fromkeys(categories):
        colours[category] = _CATEGORY_COLOURS.get(category) or next(spare, "#bdc3c7")
    return colours


SIGNATURE_LABEL_CHARS = 80  # a signature label is wrapped at this width; never cut
_SIGNATURE_FONT_PT = 7
_LINE_INCHES = 0.13  # one wrapped label line at 7 pt, with leading
_BAR_LINES = 1.6  # bar thickness, in label lines
_GAP_LINES = 0.9  # space between one bar's label and the next, in label lines


def _signature_labels(signatures: pd.Series) -> list[str]:
    """Each signature whole, wrapped at :data:`SIGNATURE_LABEL_CHARS` by
    :func:`trtsafe_lab.text.wrap_name` and escaped for matplotlib."""
    return [for_matplotlib("\n".join(wrap_name(strip_ansi(text), SIGNATURE_LABEL_CHARS)))
            for text in signatures]


def _label_slots(labels: list[str]) -> tuple[list[float], float]:
    """Y centres (in label lines, first label at the bottom) giving each label room for all of
    its lines, and the total height in label lines."""
    centres, top = [], 0.0
    for label in labels:
        slot = max(label.count("\n") + 1, _BAR_LINES) + _GAP_LINES
        centres.append(top + slot / 2)
        top += slot
    return centres, top


def plot_signatures(
    signatures: pd.DataFrame,
    ax: Any = None,
    top: int = 10,
    title: str = "",
    hide: tuple[str, ...] = FOLLOW_UP_CATEGORIES,
) -> Figure:
    """The most widespread failure signatures: logs each occurs in (bars), coloured by category.

    ``signatures`` is :func:`trtsafe_lab.logs.signatures.failure_signatures`' table. Each bar is
    labelled with its row count. Each signature is shown whole, wrapped onto as many lines as it
    needs (:func:`trtsafe_lab.text.wrap_name`), never cut; each bar gets the height of its label
    and, without ``ax``, the figure grows to fit them all (on a given ``ax``, make it tall
    enough). Categories in ``hide`` (build-failed follow-ups) are left out and counted in the
    axis label.
    """
    from matplotlib.patches import Patch

    shown = signatures[~signatures[C.CATEGORY].isin(hide)]
    hidden = len(signatures) - len(shown)
    shown = shown.sort_values(
        [C.LOG_COUNT, C.COUNT], ascending=False, kind="stable"
    ).head(top).iloc[::-1]
    labels = _signature_labels(shown[C.SIGNATURE])
    centres, height = _label_slots(labels)
    figure, ax = _axes(ax, (12, _LINE_INCHES * max(height, 8.0) + 1.6))
    colours = _category_colours(list(shown[C.CATEGORY][::-1]))  # legend order: most widespread
    bars = ax.barh(centres, shown[C.LOG_COUNT], height=_BAR_LINES,
                   color=[colours[c] for c in shown[C.CATEGORY]])
    ax.set_yticks(centres, labels, fontsize=_SIGNATURE_FONT_PT)
    ax.set_ylim(0, max(height, _BAR_LINES + _GAP_LINES))
    for bar, rows in zip(bars, shown[C.COUNT], strict=True):
        ax.annotate(f"{rows} row{'' if rows == 1 else 's'}",
                    (bar.get_width(), bar.get_y() + bar.get_height() / 2), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=7)
    note = f" ({hidden} {'/'.join(hide)} signatures not shown)" if hidden else ""
    ax.set_xlabel("logs the failure occurs in" + note)
    total = len(signatures) - hidden
    default = f"Most widespread failure signatures ({len(shown)} of {total} shown)"
    ax.set_title(for_matplotlib(title) if title else default)
    _integer_ticks(ax)
    ax.margins(x=0.08)  # room for the "N rows" note after the longest bar
    if colours:
        handles = [Patch(color=colour, label=for_matplotlib(c or "-"))
                   for c, colour in colours.items()]
        ax.legend(handles=handles, title="category", loc="upper left", bbox_to_anchor=(1.01, 1),
                  fontsize=7)
    else:
        ax.text(0.5, 0.5, "no failures", ha="center", va="center", transform=ax.transAxes)
    return figure

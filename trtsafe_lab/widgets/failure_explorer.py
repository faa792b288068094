"""The failure explorer: a filterable, sortable, paged failure table with a detail pane.

Built from :mod:`trtsafe_lab.widgets.tables`; only the current page is rendered, so a table of
10,000 findings stays as quick as one of ten. Construction never displays anything: show
``explorer`` (or ``explorer.ui``) as a cell's last expression.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import pandas as pd

from trtsafe_lab._optional import require
from trtsafe_lab.logs.explanations import explanation
from trtsafe_lab.text import for_html, strip_ansi
from trtsafe_lab.widgets.tables import (
    ALL,
    PATH_COLUMNS,
    TABLE_STYLE,
    Page,
    context_lines,
    display_value,
    filter_table,
    html_table,
    page_of,
    short_names,
    sort_table,
)

# Columns of the failure table (issue 2's contract) that get a filter control, when present.
FILTER_COLUMNS: tuple[str, ...] = ("log", "severity", "category", "phase")
# Filters shown as a drop-down (many values); the others are toggle buttons when few.
DROPDOWN_COLUMNS: tuple[str, ...] = ("log", "category")
# Columns shown in the table, in this order, when present (long text wraps, nothing is cut).
SHOWN_COLUMNS: tuple[str, ...] = (
    "log", "line", "severity", "fatal", "phase", "category", "error_code", "layer", "message",
)
# The detail pane wraps long lines (messages, log lines) instead of widening the output area.
DETAIL_STYLE = ("<style>.trtsafe-wrap{white-space:pre-wrap;overflow-wrap:anywhere}"
                ".trtsafe-detail-fields td,.trtsafe-detail-fields th{text-align:left;"
                "overflow-wrap:anywhere;padding:0 6px}</style>")
# A log's lines in order, or, for a table of several logs, each log's lines by its ``log`` name.
LogLines: TypeAlias = Sequence[str] | Mapping[str, Sequence[str]] | None


def _choices(table: pd.DataFrame, column: str) -> list[tuple[str, str]]:
    """``(label, value)`` options of a filter: every value of ``column``; paths by file name."""
    values = sorted({str(v) for v in table[column].dropna()}) if column in table else []
    names = short_names(values) if column in PATH_COLUMNS else {v: v for v in values}
    return [(ALL, ALL), *((strip_ansi(names[v]), v) for v in values)]


def render_page_html(page: Page, columns: Sequence[str] = SHOWN_COLUMNS) -> str:
    """The HTML table for one page, with a caption of the range: values escaped, long text
    wrapped (never cut), log paths as file names with the full path on hover."""
    shown = [c for c in columns if c in page.rows.columns]
    body = html_table(page.rows[shown])
    return f'{TABLE_STYLE}<div class="trtsafe-caption">{html.escape(page.label)}</div>{body}'


def lines_for(row: pd.Series, log_lines: LogLines) -> Sequence[str] | None:
    """The lines of the log a failure row came from (by its ``log`` column when several)."""
    if log_lines is None or isinstance(log_lines, Sequence):
        return log_lines
    return log_lines.get(str(row.get("log", "")))


def render_detail_html(row: pd.Series | None, log_lines: LogLines, context: int) -> str:
    """The detail pane for one failure row: its non-empty fields, the full message, the log
    around it."""
    if row is None:
        return "<i>No failure selected.</i>"
    fields = "".join(  # the fields that have a value (empty ones would only add height)
        f"<tr><th>{for_html(k)}</th><td>{for_html(display_value(v))}</td></tr>"
        for k, v in row.items()
        if k != "message" and display_value(v) != ""
    )
    parts = [
        f"<table class='trtsafe-detail-fields'>{fields}</table>",
        f"<b>Message</b><pre class='trtsafe-wrap'>{for_html(row.get('message', ''))}</pre>",
    ]
    known = explanation(str(row.get("explanation_id") or ""))
    if known is not None:  # what the failure means and what to try (logs/explanations.json)
        parts.append(f"<b>Explanation</b><pre class='trtsafe-wrap'>{for_html(known.text())}</pre>")
    line = row.get("line")
    lines = lines_for(row, log_lines)
    if lines is not None and line is not None and not pd.isna(line):
        around = context_lines(lines, int(line), context, context)
        text = "\n".join(
            f"{'>' if n == int(line) else ' '} {n:>7} | {for_html(t)}" for n, t in around
        )
        parts.append(f"<b>Log lines {around[0][0]}-{around[-1][0]}</b>"
                     f"<pre class='trtsafe-wrap'>{text}</pre>"
                     if around else f"<i>Line {int(line)} is not in the log given.</i>")
    return DETAIL_STYLE + "".join(parts)


class FailureExplorer:
    """Explore a failure table: filters (severity, category, phase, fatal, layer/message text),
    sort column and direction, pages of ``page_size`` rows, and a detail pane for the row chosen.

    ``failures`` is the failure table of :mod:`trtsafe_lab.logs` (columns ``layer``, ``severity``,
    ``fatal``, ``category``, ``phase``, ``line``, ``message``, ...); any subset works.
    ``log_lines`` (the log's lines, in order) gives the detail pane its context lines; for a
    table of several logs (a ``log`` column naming each row's log) pass ``{log: lines}``.
    """

    def __init__(
        self,
        failures: pd.DataFrame,
        log_lines: LogLines = None,
        *,
        page_size: int = 20,
        context: int = 3,
    ) -> None:
        w = require("ipywidgets", feature="The failure explorer")
        self.failures = failures.reset_index(drop=True)
        self._log_names = short_names(self.failures["log"].dropna()) if "log" in failures else {}
        self.log_lines = log_lines
        self.page_size = page_size
        self.context = context
        self.filters: dict[str, Any] = {}
        for column in FILTER_COLUMNS:
            if column not in self.failures:
                continue
            options = _choices(self.failures, column)
            control: Any
            if column in DROPDOWN_COLUMNS or len(options) > 6:
                control = w.Dropdown(options=options, value=ALL, description=column)
            else:
                control = w.ToggleButtons(options=options, value=ALL, description=column)
                control.style.button_width = "auto"
            control.add_class(f"trtsafe-filter-{column}")
            self.filters[column] = control
        self.fatal_only = w.Checkbox(value=False, description="fatal only", indent=False)
        self.text = w.Text(value="", placeholder="layer or message contains…", description="text")
        self.text.add_class("trtsafe-filter-text")
        sortable = [c for c in self.failures.columns if c not in ("members", "message")]
        self.sort_by = w.Dropdown(
            options=sortable, value="line" if "line" in sortable else None, description="sort by"
        )
        self.descending = w.Checkbox(value=False, description="descending", indent=False)
        self.prev_button = w.Button(description="◀ prev", layout=w.Layout(width="80px"))
        self.next_button = w.Button(description="next ▶", layout=w.Layout(width="80px"))
        self.table = w.HTML()
        self.table.add_class("trtsafe-failure-table")
        self.rows = w.Select(options=[], rows=6, description="detail",
                             layout=w.Layout(width="98%"))
        self.detail = w.HTML()
        self.detail.add_class("trtsafe-failure-detail")
        self._page_number = 0

        for control in [*self.filters.values(), self.fatal_only, self.text, self.sort_by,
                        self.descending]:
            control.observe(self._on_filter, names="value")
        self.prev_button.on_click(lambda _b: self.go_to_page(self._page_number - 1))
        self.next_button.on_click(lambda _b: self.go_to_page(self._page_number + 1))
        self.rows.observe(self._on_row, names="value")

        drops = [c for c in self.filters.values() if isinstance(c, w.Dropdown)]
        toggles = [c for c in self.filters.values() if not isinstance(c, w.Dropdown)]
        self.ui = w.VBox([
            w.HBox(drops, layout=w.Layout(flex_flow="row wrap")), *toggles,
            w.HBox([self.fatal_only, self.text]),
            w.HBox([self.sort_by, self.descending, self.prev_button, self.next_button],
                   layout=w.Layout(flex_flow="row wrap")),
            self.table,
            self.rows,
            self.detail,
        ])
        self.ui.add_class("trtsafe-failure-explorer")
        self._refresh()

    # -- state --------------------------------------------------------------------------------
    @property
    def view(self) -> pd.DataFrame:
        """The whole table after the current filters and sort (all pages)."""
        equals = {column: control.value for column, control in self.filters.items()}
        if self.fatal_only.value and "fatal" in self.failures:
            shown = self.failures[self.failures["fatal"].astype(bool)]
        else:
            shown = self.failures
        shown = filter_table(shown, equals, self.text.value)
        return sort_table(shown, self.sort_by.value, ascending=not self.descending.value)

    @property
    def page(self) -> Page:
        """The page now shown."""
        return page_of(self.view, self._page_number, self.page_size)

    @property
    def selected(self) -> pd.Series | None:
        """The failure row in the detail pane, or None."""
        index = self.rows.value
        return None if index is None else self.failures.loc[index]

    def go_to_page(self, number: int) -> None:
        """Show page ``number`` (0-based; clamped to the pages there are)."""
        self._page_number = number
        self._refresh()

    # -- events -------------------------------------------------------------------------------
    def _on_filter(self, _change: object) -> None:
        self._page_number = 0
        self._refresh()

    def _on_row(self, _change: object) -> None:
        self.detail.value = render_detail_html(self.selected, self.log_lines, self.context)

    def _refresh(self) -> None:
        page = self.page
        self._page_number = page.number
        self.table.value = render_page_html(page)
        self.prev_button.disabled = page.number == 0
        self.next_button.disabled = page.number >= page.count - 1
        self.rows.options = [(self._row_label(row), index) for index, row in page.rows.iterrows()]
        self.rows.value = page.rows.index[0] if len(page.rows) else None
        self._on_row(None)

    def _row_label(self, row: pd.Series) -> str:
        """The row's label in the detail chooser: where (log name and line), what, which layer
        (plain text: a ``<select>`` shows no markup; the whole name, never shortened)."""
        line = row.get("line", "")
        layer = str(row.get("layer", "") or "(no layer)")
        if "log" in row:
            log = str(row["log"])
            where = f"{self._log_names.get(log, log)}:{line}"
        else:
            where = f"line {line}"
        return strip_ansi(f"{where}: {row.get('severity', '')} {row.get('category', '')} {layer}")

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.ui._repr_mimebundle_(**kwargs)

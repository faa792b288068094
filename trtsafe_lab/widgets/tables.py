"""Table logic behind the widgets: filter, sort, page, context lines, file names, and the HTML of
one page (pandas only, no ipywidgets).

Kept apart from the widget modules so it can be tested and reused without a notebook, and so the
widgets stay thin: each control change calls one of these functions and re-renders one page.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

import pandas as pd

from trtsafe_lab.text import for_html

#: The choice in a filter control that means "do not filter on this column".
ALL = "(all)"
#: Columns that hold file paths: shown as file names, the full path on hover (``title``).
PATH_COLUMNS: tuple[str, ...] = ("log", "file", "path", "run_dir", "source_path")
#: CSS for the widgets' HTML tables (class ``trtsafe-table``): as wide as the output area and no
#: wider; text wraps at spaces and hyphens, headers after underscores (``<wbr>``), numbers stay on
#: one line, and cells of long text (``trtsafe-long``) break anywhere rather than widen the table.
TABLE_STYLE = (
    "<style>.trtsafe-table{border-collapse:collapse;font-size:12px;line-height:1.35;"
    "width:100%;max-width:100%;table-layout:auto}"
    ".trtsafe-table td,.trtsafe-table th{padding:2px 6px;text-align:left;vertical-align:top;"
    "white-space:normal;overflow-wrap:break-word;word-break:normal}"
    ".trtsafe-table td.trtsafe-num{white-space:nowrap}"
    ".trtsafe-table td.trtsafe-long{overflow-wrap:anywhere;min-width:5em}"
    ".trtsafe-table td.trtsafe-prose{overflow-wrap:anywhere;min-width:18em}"
    ".trtsafe-table.trtsafe-wide td{overflow-wrap:anywhere}"
    ".trtsafe-table.trtsafe-wide td.trtsafe-prose{min-width:10em}"
    ".trtsafe-table tbody tr:nth-child(odd){background:rgba(0,0,0,0.04)}</style>"
)
#: Text longer than this (characters) may break anywhere in a table cell.
LONG_TEXT = 24
#: Text longer than this is prose (a message, a fix): its cell gets room (``trtsafe-prose``).
PROSE_TEXT = 80
#: Tables with more columns than this are ``trtsafe-wide``: every cell may break anywhere and
#: prose gets less room, so that all columns fit the output area.
WIDE_TABLE = 9


def filter_table(
    table: pd.DataFrame,
    equals: Mapping[str, object] | None = None,
    text: str = "",
    text_columns: Iterable[str] = ("layer", "message"),
) -> pd.DataFrame:
    """Rows of ``table`` matching every filter.

    ``equals`` maps a column to the value it must have; a value of ``None`` or :data:`ALL` leaves
    that column unfiltered. ``text`` keeps rows where any of ``text_columns`` contains it
    (case-insensitive, plain substring, not a regex). Columns missing from the table are ignored
    in ``text_columns`` but are an error in ``equals`` (a filter on a column that is not there
    would silently keep everything).
    """
    mask = pd.Series(True, index=table.index)
    for column, value in (equals or {}).items():
        if value is None or value == ALL:
            continue
        if column not in table.columns:
            raise KeyError(f"cannot filter on '{column}': the table has columns {list(table)}")
        mask &= table[column].astype(str) == str(value)
    needle = text.strip().lower()
    if needle:
        hit = pd.Series(False, index=table.index)
        for column in text_columns:
            if column in table.columns:
                hit |= table[column].astype(str).str.lower().str.contains(needle, regex=False)
        mask &= hit
    return table[mask]


def sort_table(table: pd.DataFrame, by: str | None, ascending: bool = True) -> pd.DataFrame:
    """``table`` sorted by column ``by`` (stable; missing values last). ``None`` keeps the order."""
    if not by:
        return table
    if by not in table.columns:
        raise KeyError(f"cannot sort by '{by}': the table has columns {list(table)}")
    return table.sort_values(by, ascending=ascending, kind="stable", na_position="last")


@dataclass(frozen=True)
class Page:
    """One page of a table: ``rows`` for page ``number`` (0-based) of ``count`` pages."""

    rows: pd.DataFrame
    number: int
    count: int
    first: int  # 0-based position of the page's first row in the whole table
    total: int  # rows in the whole (filtered) table

    @property
    def label(self) -> str:
        if self.total == 0:
            return "no rows"
        last = self.first + len(self.rows)
        return f"rows {self.first + 1}-{last} of {self.total} (page {self.number + 1}/{self.count})"


def page_of(table: pd.DataFrame, number: int, size: int) -> Page:
    """Page ``number`` of ``table`` with ``size`` rows a page; ``number`` is clamped into range."""
    if size < 1:
        raise ValueError(f"page size must be at least 1, got {size}")
    total = len(table)
    count = max(1, -(-total // size))
    number = min(max(0, number), count - 1)
    first = number * size
    return Page(table.iloc[first : first + size], number, count, first, total)


def display_value(value: object) -> str:
    """A cell value as shown in a widget: missing values blank, name tuples comma-separated."""
    if isinstance(value, (tuple, list)):
        return ", ".join(str(v) for v in value)
    try:
        if pd.isna(value):
            return ""
    except (TypeError, ValueError):  # array-likes have no single truth value: show them
        pass
    return str(value)


def context_lines(
    lines: Sequence[str], line: int, before: int = 3, after: int = 3
) -> list[tuple[int, str]]:
    """The log lines around 1-based line number ``line``, as ``(line_number, text)`` pairs.

    An out-of-range ``line`` gives an empty list (a failure row may carry no line number).
    """
    if line < 1 or line > len(lines):
        return []
    start = max(1, line - before)
    stop = min(len(lines), line + after)
    return [(n, lines[n - 1]) for n in range(start, stop + 1)]


def short_names(paths: Iterable[object]) -> dict[str, str]:
    """Each distinct path → the shortest trailing part of it that no other path ends with.

    ``/a/x/build.log`` and ``/b/y/other.log`` give ``build.log`` and ``other.log``; two files
    named ``build.log`` keep their folders (``x/build.log``, ``y/build.log``). Values without a
    ``/`` (already names, ``<pasted>``) are kept as they are.
    """
    distinct = list(dict.fromkeys(str(p) for p in paths))
    parts = {p: PurePath(p).parts if "/" in p else (p,) for p in distinct}
    names: dict[str, str] = {}
    for path in distinct:
        own = parts[path]
        for depth in range(1, len(own) + 1):
            tail = own[-depth:]
            if all(other == path or parts[other][-depth:] != tail for other in distinct):
                break
        names[path] = "/".join(tail).replace("//", "/") if len(tail) < len(own) else path
    return names


def html_table(rows: pd.DataFrame, *, classes: str = "trtsafe-table",
               float_format: str = "{:.4g}") -> str:
    """``rows`` as an HTML table: every value escaped (:func:`trtsafe_lab.text.for_html`), missing
    values blank, path columns (:data:`PATH_COLUMNS`) as short names with the full path in the
    cell's ``title`` (shown on hover). Nothing is cut: long text wraps (:data:`TABLE_STYLE`)."""
    names = {c: short_names(rows[c].dropna()) for c in rows.columns if c in PATH_COLUMNS}
    head = "".join(f"<th>{for_html(c).replace('_', '_<wbr>')}</th>" for c in rows.columns)
    body = []
    for _index, row in rows.iterrows():
        cells = []
        for column, value in row.items():
            number = isinstance(value, numbers.Number) and not isinstance(value, bool)
            text = (float_format.format(value)
                    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)
                    and not pd.isna(value)
                    else display_value(value))
            if column in names and text:
                cells.append(f"<td title=\"{for_html(text)}\">"
                             f"{for_html(names[column].get(text, text))}</td>")
            else:
                kind = (" class='trtsafe-num'" if number
                        else " class='trtsafe-prose'" if len(text) > PROSE_TEXT
                        else " class='trtsafe-long'" if len(text) > LONG_TEXT else "")
                cells.append(f"<td{kind}>{for_html(text)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    if len(rows.columns) > WIDE_TABLE:
        classes += " trtsafe-wide"
    return (f"<table class=\"{classes}\"><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")

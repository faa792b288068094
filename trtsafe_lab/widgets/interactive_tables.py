"""Interactive tables in notebooks and HTML reports: sortable, searchable, paged, nothing cut.

Built on `itables <https://mwouts.github.io/itables/>`_ (DataTables) in its offline mode: the
JavaScript is embedded in the output of :func:`init_interactive_tables`, so the tables work with
no network, in JupyterLab and in the self-contained HTML of ``trtsafe-lab report``. Needs the
``notebook`` extra; itables is imported when a function here is called.

- :func:`init_interactive_tables`: call once at the top of a notebook; every DataFrame shown
  afterwards (a cell's last expression or ``display(df)``) goes through :func:`table_html`.
- :func:`show_table`: the same for one table, with a caption or DataTables options.

:func:`table_html` shows every value as text (escaped, terminal colour codes removed, so a layer
named ``<img src=x onerror=...>`` is shown, never rendered), file paths as file names with the
full path on hover, long text wrapped (never clipped or shortened with ``...``), the table as
wide as the output area.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from trtsafe_lab._optional import require
from trtsafe_lab.text import for_html
from trtsafe_lab.widgets.tables import (
    LONG_TEXT,
    PATH_COLUMNS,
    PROSE_TEXT,
    WIDE_TABLE,
    display_value,
    short_names,
)

#: CSS given with every table: as wide as the output area, cells wrap at spaces (and inside a
#: word only when it alone is wider than the cell), headers after underscores (``<wbr>``),
#: captions wrap, rows compact. Columns of
#: long text (class ``trtsafe-long``, set by :func:`show_table`) may break anywhere, so a long
#: layer name wraps rather than widen the table past the output area.
TABLE_CSS = (
    ".dt-container{max-width:100%}"
    ".dt-container table.dataTable{width:100%!important;max-width:100%}"
    ".dt-container table.dataTable td,.dt-container table.dataTable th{white-space:normal;"
    "overflow-wrap:break-word;word-break:normal;text-align:left;vertical-align:top;"
    "font-size:12px;line-height:1.35}"
    ".dt-container table.dataTable th{overflow-wrap:normal}"
    ".dt-container table.dataTable caption{white-space:normal;text-align:left;"
    "overflow-wrap:anywhere}"
    ".dt-container table.dataTable td.trtsafe-long{overflow-wrap:anywhere;min-width:5em}"
    ".dt-container table.dataTable td.trtsafe-prose{overflow-wrap:anywhere;min-width:18em}"
    ".dt-container table.dataTable.trtsafe-wide td{overflow-wrap:anywhere;padding:3px 4px}"
    ".dt-container table.dataTable.trtsafe-wide th{overflow-wrap:anywhere;padding:3px 16px 3px 4px}"
    ".dt-container table.dataTable.trtsafe-wide td.trtsafe-prose{min-width:10em}"
)

#: A table with more columns than this and fewer rows than columns is shown transposed (one row
#: per column), so that it fits the output area without breaking every header into syllables.
MAX_COLUMNS = 15
#: Rows a page offers (-1: all).
LENGTH_MENU: tuple[int, ...] = (10, 25, 50, 100, -1)


def _itables() -> Any:
    return require("itables", feature="Interactive tables")


def configure() -> None:
    """Set the table options this project uses (wrapping, full width, no logo, page sizes)."""
    options = _itables().options
    options.classes = "display compact"  # not itables' default "nowrap": long text wraps
    options.style = "table-layout:auto;width:100%;margin:0;caption-side:bottom"
    options.css = TABLE_CSS
    options.display_logo_when_loading = False
    options.lengthMenu = list(LENGTH_MENU)
    options.maxBytes = "2MB"  # a failure table of a few thousand rows, not downsampled


def init_interactive_tables() -> None:
    """Make every DataFrame shown in this notebook an interactive table (offline mode).

    Call once near the top of a notebook. Its output carries the DataTables code: keep it (a
    notebook saved without it shows "Loading..." in place of the tables). DataFrames are then
    rendered by :func:`table_html` (IPython's HTML formatter for ``pandas.DataFrame``).
    """
    configure()
    _itables().init_notebook_mode(all_interactive=False, connected=False)
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, table_html)


def table_for_display(table: pd.DataFrame,
                      path_columns: Sequence[str] = PATH_COLUMNS) -> pd.DataFrame:
    """``table`` with every value as escaped HTML text (:func:`trtsafe_lab.text.for_html`) and
    path columns as file names in a ``<span>`` whose ``title`` is the full path. A meaningful
    index (named, or not integers) becomes ordinary columns first; row numbers are dropped."""
    table = _plain_index(table)
    shown = pd.DataFrame(index=table.index)
    for column in table.columns:
        values = table[column]
        name = for_html(column).replace("_", "_<wbr>")  # long headers break after underscores
        if column in path_columns:
            names = short_names(values.dropna())
            shown[name] = [
                f'<span title="{for_html(v)}">{for_html(names.get(str(v), v))}</span>'
                if display_value(v) else "" for v in values]
        elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            shown[name] = values  # numbers stay numbers (they sort as numbers)
        else:
            shown[name] = [for_html(display_value(v)) for v in values]
    return shown


def _plain_index(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a named or non-integer index as columns, and row numbers dropped (a
    filtered table's 0, 3, 7... would read as data)."""
    if any(table.index.names) or not pd.api.types.is_integer_dtype(table.index):
        return table.reset_index()
    return table.reset_index(drop=True)


def _text_classes(table: pd.DataFrame, path_columns: Sequence[str]) -> list[dict[str, Any]]:
    """DataTables ``columnDefs`` giving columns of long text room and leave to break anywhere:
    ``trtsafe-prose`` (messages, fixes: over :data:`PROSE_TEXT` characters) and
    ``trtsafe-long`` (names over :data:`LONG_TEXT`)."""
    table = _plain_index(table)
    longest = {i: max((len(display_value(v)) for v in table[c]), default=0)
               for i, c in enumerate(table.columns) if c not in path_columns}
    prose = [i for i, n in longest.items() if n > PROSE_TEXT]
    long = [i for i, n in longest.items() if LONG_TEXT < n <= PROSE_TEXT]
    return ([{"targets": prose, "className": "trtsafe-prose"}] if prose else []) + (
        [{"targets": long, "className": "trtsafe-long"}] if long else [])


def transposed(table: pd.DataFrame, path_columns: Sequence[str] = PATH_COLUMNS
               ) -> pd.DataFrame:
    """``table`` turned on its side for display: a ``column`` column naming each of its
    columns, then one column per row (headed by the row's first text value, e.g. its log's
    file name, else its position)."""
    table = _plain_index(table)
    first = table.columns[0]
    if not pd.api.types.is_numeric_dtype(table[first]):
        names = short_names(table[first]) if first in path_columns else {}
        heads = [names.get(str(v), str(v)) for v in table[first]]
        body = table.drop(columns=[first])
    else:
        heads, body = [str(i) for i in range(len(table))], table
    heads = [f"{h} ({i})" if heads.count(h) > 1 else h for i, h in enumerate(heads)]
    shown = pd.DataFrame({"column": [str(c) for c in body.columns]})
    for head, (_index, row) in zip(heads, body.iterrows(), strict=True):
        shown[head] = [display_value(v) for v in row]
    return shown


def table_html(table: pd.DataFrame, *, caption: str | None = None,
               path_columns: Sequence[str] = PATH_COLUMNS, **options: Any) -> str:
    """The HTML of ``table`` as an interactive table (needs :func:`init_interactive_tables`'s
    output in the same page). ``options`` go to ``itables.to_html_datatable``. A table of more
    than :data:`MAX_COLUMNS` columns and fewer rows than columns is shown :func:`transposed`
    (and says so in its caption)."""
    configure()
    if len(table.columns) > MAX_COLUMNS and len(table) < len(table.columns):
        table = transposed(table, path_columns)
        note = f"shown transposed: one row per column ({len(table)} columns)"
        caption = f"{caption}; {note}" if caption else note
        options.setdefault("pageLength", -1 if len(table) <= 50 else 50)  # -1: all rows
    classes = _text_classes(table, path_columns)
    if classes and "columnDefs" not in options:
        options["columnDefs"] = classes
    if caption is not None:
        options["caption"] = for_html(caption)
    if len(table.columns) > WIDE_TABLE and "classes" not in options:
        options["classes"] = ["display", "compact", "trtsafe-wide"]
    return str(_itables().to_html_datatable(table_for_display(table, path_columns),
                                            allow_html=True, connected=False, **options))


def show_table(table: pd.DataFrame, *, caption: str | None = None,
               path_columns: Sequence[str] = PATH_COLUMNS, **options: Any) -> None:
    """Display ``table`` as an interactive table (:func:`table_html`); ``options`` go to
    ``itables.to_html_datatable`` (e.g. ``pageLength=25``, ``order=[]``)."""
    from IPython.display import HTML, display

    display(HTML(table_html(table, caption=caption, path_columns=path_columns, **options)))

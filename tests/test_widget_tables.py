"""Filter / sort / page / context logic behind the widgets, and the failure explorer's widget
state (no browser: controls are set in Python and the rendered table and detail are checked)."""

from __future__ import annotations

import pandas as pd
import pytest

from trtsafe_lab.widgets.tables import ALL, context_lines, filter_table, page_of, sort_table

SEVERITIES = ("error", "warning", "info")
CATEGORIES = ("no-implementation", "tactic-out-of-memory", "shape", "safety-scope", "myelin")
PHASES = ("parse", "build", "tactic", "runtime")


def synthetic_failures(n: int) -> pd.DataFrame:
    """A made-up failure table with issue 2's columns (a test fixture, not parser output)."""
    return pd.DataFrame(
        {
            "layer": [f"/backbone/conv{i}/Conv" if i % 7 else "" for i in range(n)],
            "members": ["" for _ in range(n)],
            "severity": [SEVERITIES[i % 3] for i in range(n)],
            "fatal": [i % 3 == 0 for i in range(n)],
            "category": [CATEGORIES[i % 5] for i in range(n)],
            "error_code": [10 if i % 3 == 0 else None for i in range(n)],
            "phase": [PHASES[i % 4] for i in range(n)],
            "line": [i + 1 for i in range(n)],
            "message": [f"message {i} <b>not html</b>" for i in range(n)],
        }
    )


def test_filter_equals_and_text() -> None:
    table = synthetic_failures(60)
    errors = filter_table(table, {"severity": "error", "phase": ALL})
    assert len(errors) == 20 and set(errors["severity"]) == {"error"}
    both = filter_table(table, {"severity": "error", "category": "shape"})
    assert list(both["line"]) == [i + 1 for i in range(60) if i % 3 == 0 and i % 5 == 2]
    text = filter_table(table, None, text="CONV12/")
    assert list(text["layer"]) == ["/backbone/conv12/Conv"]
    # the text is a plain substring, never a regex
    assert filter_table(table, None, text="conv1.").empty
    with pytest.raises(KeyError, match="nosuch"):
        filter_table(table, {"nosuch": "x"})


def test_sort_and_page() -> None:
    table = synthetic_failures(45)
    desc = sort_table(table, "line", ascending=False)
    assert desc["line"].iloc[0] == 45
    page = page_of(desc, 2, 20)
    assert (page.number, page.count, page.first, page.total) == (2, 3, 40, 45)
    assert list(page.rows["line"]) == [5, 4, 3, 2, 1]
    assert page.label == "rows 41-45 of 45 (page 3/3)"
    assert page_of(desc, 99, 20).number == 2  # clamped
    assert page_of(table.iloc[:0], 0, 20).label == "no rows"
    with pytest.raises(KeyError):
        sort_table(table, "nosuch")


def test_context_lines() -> None:
    lines = [f"l{i}" for i in range(1, 11)]
    assert context_lines(lines, 1, 2, 2) == [(1, "l1"), (2, "l2"), (3, "l3")]
    assert context_lines(lines, 10, 1, 3) == [(9, "l9"), (10, "l10")]
    assert context_lines(lines, 0) == [] and context_lines(lines, 11) == []


def test_failure_explorer_filters_sorts_pages_and_details() -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.widgets import FailureExplorer

    table = synthetic_failures(10_000)
    log_lines = [f"log line {i}" for i in range(1, 10_001)]
    explorer = FailureExplorer(table, log_lines, page_size=25)
    assert explorer.page.label == "rows 1-25 of 10000 (page 1/400)"
    assert explorer.table.value.count("<tr") == 26  # header + 25 rows: only the page renders
    assert "&lt;b&gt;not html" in explorer.table.value  # messages are escaped

    explorer.filters["severity"].value = "error"
    assert explorer.page.total == 3334 and set(explorer.view["severity"]) == {"error"}
    explorer.filters["category"].value = "shape"
    explorer.text.value = "conv1"
    assert all("conv1" in layer for layer in explorer.view["layer"])
    assert set(explorer.view["category"]) == {"shape"}

    explorer.filters["severity"].value = ALL
    explorer.filters["category"].value = ALL
    explorer.text.value = ""
    explorer.fatal_only.value = True
    assert explorer.view["fatal"].all() and explorer.page.total == 3334

    explorer.fatal_only.value = False
    explorer.sort_by.value = "line"
    explorer.descending.value = True
    assert explorer.page.rows["line"].iloc[0] == 10_000
    explorer.next_button.click()
    assert explorer.page.number == 1 and explorer.page.rows["line"].iloc[0] == 9_975
    explorer.prev_button.click()
    explorer.prev_button.click()  # clamped at the first page
    assert explorer.page.number == 0

    # the detail pane follows the chosen row: full message and the log lines around it
    chosen = explorer.rows.options[3][1]
    explorer.rows.value = chosen
    row = table.loc[chosen]
    assert explorer.selected is not None and explorer.selected["line"] == row["line"]
    assert f"message {chosen} &lt;b&gt;" in explorer.detail.value
    assert f"log line {row['line'] - 3}" in explorer.detail.value
    assert f"log line {row['line'] + 4}" not in explorer.detail.value

    # a filter that matches nothing leaves an empty page, not an error
    explorer.text.value = "no such layer anywhere"
    assert explorer.page.label == "no rows" and explorer.selected is None
    assert "No failure selected" in explorer.detail.value


def test_failure_explorer_without_optional_columns() -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.widgets import FailureExplorer

    table = pd.DataFrame({"layer": ["a", "b"], "message": ["x", "y"]})
    explorer = FailureExplorer(table)
    assert explorer.filters == {} and explorer.page.total == 2
    assert "Log lines" not in explorer.detail.value


def test_importing_the_widgets_package_does_not_import_ipywidgets() -> None:
    import json
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "import trtsafe_lab.widgets, trtsafe_lab.report\n"
        "print(json.dumps(sorted(m for m in sys.modules\n"
        "    if m.split('.')[0] in ('ipywidgets', 'matplotlib', 'nbclient', 'nbconvert'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert json.loads(result.stdout) == []


def test_failure_explorer_over_several_logs() -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.widgets import FailureExplorer

    a, b = synthetic_failures(30), synthetic_failures(10)
    a["log"], b["log"] = "a.log", "b.log"
    table = pd.concat([a, b], ignore_index=True)
    lines = {"a.log": [f"A{i}" for i in range(1, 41)], "b.log": [f"B{i}" for i in range(1, 41)]}
    explorer = FailureExplorer(table, lines)
    explorer.filters["log"].value = "b.log"
    assert explorer.page.total == 10 and set(explorer.view["log"]) == {"b.log"}
    explorer.rows.value = explorer.rows.options[4][1]
    assert "B5" in explorer.detail.value and "A5" not in explorer.detail.value
    assert explorer.rows.options[0][0].startswith("b.log:1:")


def test_missing_values_render_blank() -> None:
    from trtsafe_lab.widgets.failure_explorer import render_page_html

    table = pd.DataFrame({"line": [1, 2], "error_code": pd.array([10, None], dtype="Int64"),
                          "message": ["a", "b"]})
    page_html = render_page_html(page_of(table, 0, 10))
    assert "<NA>" not in page_html and "&lt;NA&gt;" not in page_html and "nan" not in page_html
    assert "<td class='trtsafe-num'>10</td>" in page_html


def test_display_value() -> None:
    from trtsafe_lab.widgets.tables import display_value

    assert display_value(pd.NA) == "" and display_value(float("nan")) == ""
    assert display_value(("a", "b")) == "a, b" and display_value(()) == ""
    assert display_value(10) == "10" and display_value("x") == "x"


def test_interactive_tables_show_paths_as_names_and_wide_tables_transposed() -> None:
    pytest.importorskip("itables")
    from trtsafe_lab.widgets.interactive_tables import MAX_COLUMNS, table_html, transposed
    from trtsafe_lab.widgets.tables import short_names

    assert short_names(["/a/x/build.log", "/b/y/other.log"]) == {
        "/a/x/build.log": "build.log", "/b/y/other.log": "other.log"}
    assert short_names(["/a/x/build.log", "/b/y/build.log", "<pasted>"]) == {
        "/a/x/build.log": "x/build.log", "/b/y/build.log": "y/build.log", "<pasted>": "<pasted>"}
    wide = pd.DataFrame({"log": ["/logs/a.log", "/logs/b.log"],
                         **{f"field_{i}": [i, None] for i in range(MAX_COLUMNS)}})
    side = transposed(wide)
    assert list(side.columns) == ["column", "a.log", "b.log"]
    assert list(side["column"]) == [f"field_{i}" for i in range(MAX_COLUMNS)]
    assert side.loc[3, "a.log"] == "3.0" and side.loc[3, "b.log"] == ""  # missing: blank
    page = table_html(wide)
    assert "shown transposed" in page and "field_14" in page
    narrow = table_html(wide.iloc[:, :5])
    assert "shown transposed" not in narrow
    assert '<span title="/logs/a.log">a.log</span>' in narrow  # full path on hover

"""The failure table's text view: the fast greedy wrapper gives textwrap's lines, and the rows
path (the CLI's, no pandas) prints what the DataFrame path prints."""

from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.text_views import _wrap_part, format_failures

WORDS = st.lists(
    st.one_of(
        st.text(alphabet="ab/._-[]():", min_size=0, max_size=30),
        st.text(alphabet=" ", min_size=1, max_size=4),
        st.text(alphabet="x", min_size=60, max_size=140),  # longer than a line
        st.text(min_size=1, max_size=5),  # anything, tabs and non-ASCII included
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(WORDS, st.integers(min_value=60, max_value=140), st.booleans())
def test_greedy_wrap_gives_textwraps_lines(words: list[str], width: int, first: bool) -> None:
    text = "".join(words)
    head = "    message:  " if first else " " * 14
    expected = textwrap.wrap(
        text,
        width=width,
        initial_indent=head,
        subsequent_indent=" " * 14,
        break_long_words=False,
        break_on_hyphens=False,
    )
    assert _wrap_part(text, head, " " * 14, width) == expected


def test_rows_and_table_print_the_same(corpus_dir: Path) -> None:
    cases = sorted((corpus_dir / "build-logs" / "cases").glob("*.log"))[:40]
    compared = 0
    for log in cases:
        table = analyze_log(log).failures
        rows = [dict(row) for row in table.to_dict(orient="records")]
        for row in rows:
            if str(row["error_code"]) == "<NA>":
                row["error_code"] = None
        assert format_failures(rows) == format_failures(table), log.name
        compared += bool(rows)
    assert compared > 20
    assert format_failures([]) == "no failures found\n"


def test_repeated_rows_explain_once(corpus_dir: Path) -> None:
    log = corpus_dir / "build-logs" / "cases" / "060.log"
    table = analyze_log(log).failures
    ids = {i for i in table["explanation_id"] if i}
    assert ids and len(table) > 1
    text = format_failures(table.to_dict(orient="records") * 3)  # cached blocks reused
    assert text.count("    means:") == len(ids)
    explained = int((table["explanation_id"] != "").sum())
    assert text.count("(explained above)") == 3 * explained - len(ids)
    named = table.loc[table["layer"] != "", "layer"].nunique()
    fatal = 3 * int(table["fatal"].sum())
    last = f"{3 * len(table)} failure rows, {fatal} fatal, {named} distinct layers named\n"
    assert text.endswith(last)


def test_pieces_join_to_the_whole_table(corpus_dir: Path) -> None:
    """The CLI prints the table in pieces joined as they fill (no 12 MB string at the end):
    any piece size gives the same text, pieces of about that size."""
    from trtsafe_lab.logs.text_views import failure_text

    log = corpus_dir / "build-logs" / "cases" / "060.log"
    rows = analyze_log(log).failures.to_dict(orient="records") * 7
    whole = format_failures(rows)
    for size in (1, 500, 3000, 1 << 30):
        pieces = list(failure_text(rows, piece_chars=size))
        assert "".join(pieces) == whole
        assert len(pieces) > 1 if size < len(whole) // 2 else len(pieces) == 1
        assert all(piece.endswith("\n") for piece in pieces)
    assert list(failure_text([], piece_chars=1)) == ["no failures found\n"]


def test_repeated_blocks_keep_each_rows_line_and_any_row_shape(corpus_dir: Path) -> None:
    """A repeated row's block is reused with its own line number; rows whose tensors are a
    list (not hashable) or that lack a column the block is keyed on print as the others."""
    log = corpus_dir / "build-logs" / "cases" / "060.log"
    rows = analyze_log(log).failures.to_dict(orient="records")
    moved = [{**row, "line": row["line"] + 1000} for row in rows]
    text = format_failures(rows + moved)
    for row in moved:
        assert f"line {row['line']}  " in text
    as_lists = [{**row, "tensors": list(row["tensors"])} for row in rows + moved]
    assert format_failures(as_lists) == text
    without_code = [{k: v for k, v in row.items() if k != "error_code"} for row in rows]
    assert format_failures(without_code) == format_failures(
        [{**row, "error_code": None} for row in rows]
    )

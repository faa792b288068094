"""Plain-text views of the failure tables, as the ``failures`` command prints them.

Names are printed whole (never shortened with ``...``); messages are wrapped, not cut.
:func:`format_failures` takes the failures table or its rows as dicts (the CLI's fast path
prints the streaming scan's rows without building a DataFrame); an error-dense log repeats the
same messages and names, so a row's wrapped lines are kept per distinct text.
"""

from __future__ import annotations

import operator
import shutil
import textwrap
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.explanations import explanation

if TYPE_CHECKING:
    import pandas as pd

INDENT = "    "
WRAP_CACHE_CHARS = 4 << 20  # characters of wrapped texts kept for reuse (then the cache restarts)
# What a failure block shows besides its line number (without --onnx): the header's fields, the
# layer, tensors, message and explanation.
_BLOCK_COLUMNS = (
    C.SEVERITY, C.FATAL, C.PHASE, C.CATEGORY, C.ERROR_CODE, C.LAYER, C.TENSORS, C.MESSAGE,
    C.EXPLANATION_ID,
)


def _width() -> int:
    return max(60, min(shutil.get_terminal_size((100, 24)).columns, 140))


def _missing(value: Any) -> bool:
    """None, NaN or pandas' <NA> (without importing pandas)."""
    return (
        value is None
        or (isinstance(value, float) and value != value)
        or type(value).__name__ == "NAType"
    )


def _wrap_part(part: str, head: str, indent: str, width: int) -> list[str]:
    """``textwrap.wrap(part, width, initial_indent=head, subsequent_indent=indent,
    break_long_words=False, break_on_hyphens=False)``: a greedy loop over the space-separated
    words for printable ASCII text (the common case, same lines), textwrap otherwise."""
    if not (part.isascii() and part.isprintable()):
        return textwrap.wrap(
            part,
            width=width,
            initial_indent=head,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
    if len(head) + len(part) <= width and not part.endswith(" "):
        return [head + part] if part else []
    # textwrap's chunks: words and runs of spaces, alternating.
    chunks = _chunks(part)
    chunks.reverse()
    lines: list[str] = []
    while chunks:
        prefix = indent if lines else head
        room = width - len(prefix)
        if lines and chunks[-1][0] == " ":
            chunks.pop()  # spaces at the start of a line (not the first) are dropped
            if not chunks:
                break
        line: list[str] = []
        used = 0
        while chunks and used + len(chunks[-1]) <= room:
            used += len(chunks[-1])
            line.append(chunks.pop())
        if chunks and len(chunks[-1]) > room and not line:
            line.append(chunks.pop())  # a word longer than the line stands alone
        if line and line[-1][0] == " ":
            line.pop()  # spaces at the end of a line are dropped
        if line:
            lines.append(prefix + "".join(line))
    return lines


def _chunks(part: str) -> list[str]:
    """``part`` as textwrap splits it: words and runs of spaces, in order."""
    chunks: list[str] = []
    run = 0
    for index, word in enumerate(part.split(" ")):
        if index:
            run += 1
        if word:
            if run:
                chunks.append(" " * run)
                run = 0
            chunks.append(word)
    if run:
        chunks.append(" " * run)
    return chunks


def _wrap(label: str, text: str, width: int) -> list[str]:
    """``label: text`` wrapped at ``width``; the text's own line breaks are kept."""
    head = f"{INDENT}{label:<9} "  # one space even after the 9-letter "signature"
    indent = " " * len(head)
    lines: list[str] = []
    for index, part in enumerate(str(text).split("\n") or [""]):
        wrapped = _wrap_part(part, head if index == 0 else indent, indent, width) or [
            head.rstrip() if index == 0 else ""
        ]
        lines.extend(wrapped)
    return lines


def _explanation_lines(explanation_id: str, shown: set[str], width: int) -> list[str]:
    entry = explanation(explanation_id) if explanation_id else None
    if entry is None:
        return []
    if explanation_id in shown:
        return _wrap("explains", f"{entry.title} [{entry.id}] (explained above)", width)
    shown.add(explanation_id)
    lines = _wrap("explains", f"{entry.title} [{entry.id}]", width)
    lines += _wrap("means:", entry.means, width)
    for cause in entry.causes:
        lines += _wrap("cause:", cause, width)
    for step in entry.try_:
        lines += _wrap("try:", step, width)
    return lines + _wrap("see:", entry.url, width)


def format_failures(
    failures: pd.DataFrame | Iterable[Mapping[str, Any]], *, onnx: bool = False
) -> str:
    """One block per failure row: a header line, the layer, tensors, message, explanation.

    ``failures``: the failures table, or its rows as dicts with the same keys (the table's
    columns; ``error_code`` None where the table has <NA>)."""
    return "".join(failure_text(failures, onnx=onnx))


PIECE_CHARS = 1 << 20


def failure_text(
    failures: pd.DataFrame | Iterable[Mapping[str, Any]],
    *,
    onnx: bool = False,
    piece_chars: int = PIECE_CHARS,
) -> Iterator[str]:
    """:func:`format_failures`'s text in pieces of about ``piece_chars`` characters, each
    joined as it fills: a caller that prints the whole table at the end writes the pieces (the
    error-dense log's 12 MB table joined, then encoded, at once took ~6,000 fresh pages after
    the scan)."""
    rows = failures.to_dict(orient="records") if hasattr(failures, "to_dict") else failures
    width = _width()
    out: list[str] = []
    shown: set[str] = set()
    bodies = _BodyCache()
    tails: dict[tuple[Any, ...], str] = {}  # the header after the line number, per its fields
    count = fatal = 0
    chars = 0  # in ``out``, about
    named: set[str] = set()
    # columns as locals: this loop runs once per row (34,000 on an error-dense log)
    fatal_, layer_, line_, log_, explanation_ = (
        C.FATAL, C.LAYER, C.LINE, C.LOG, C.EXPLANATION_ID
    )
    # A row's block after its line number, per the values it is made of (its line apart):
    # repeated rows (an error-dense log repeats its failing output) cost one look-up.
    blocks = _BodyCache()
    block_of = operator.itemgetter(*_BLOCK_COLUMNS) if not onnx else None
    for row in rows:
        count += 1
        fatal += bool(row[fatal_])
        layer = row[layer_]
        if layer:
            named.add(layer)
        explanation_id = row.get(explanation_, "")
        block_key: tuple[Any, ...] | None = None
        block = None
        if block_of is not None:
            try:
                block_key = (block_of(row), explanation_id in shown)
                block = blocks.get(block_key)
            except (KeyError, TypeError):  # a column missing, a list of tensors: no caching
                block_key = None
        if block is None:
            block = _block(row, onnx, shown, width, tails, bodies)
            if block_key is not None:
                blocks.put(block_key, block, len(block))
        elif explanation_id:
            shown.add(explanation_id)
        # the header line and the block after it (one list item: joined by newlines the same)
        if log_ in row:
            out.append(f"{row[log_]}  line {row[line_]}  {block}")
        else:
            out.append(f"line {row[line_]}  {block}")
        chars += len(block) + 20
        if chars >= piece_chars:
            out.append("")  # the newline after the piece's last block
            yield "\n".join(out)
            out, chars = [], 0
    if not count:
        yield "no failures found\n"
        return
    out.append(f"{count} failure rows, {fatal} fatal, {len(named)} distinct layers named")
    out.append("")  # the last newline (appending it to the joined text copied all of it again)
    yield "\n".join(out)


def _block(
    row: Mapping[str, Any],
    onnx: bool,
    shown: set[str],
    width: int,
    tails: dict[tuple[Any, ...], str],
    bodies: _BodyCache,
) -> str:
    """A failure block after its line number: the header's fields, then the block's lines
    (``tails`` and ``bodies`` keep those already made)."""
    is_fatal, code = row[C.FATAL], row.get(C.ERROR_CODE)
    fields = (row[C.SEVERITY], is_fatal, row[C.PHASE], row[C.CATEGORY], code)
    tail = tails.get(fields)
    if tail is None:
        header = [
            row[C.SEVERITY] or "untagged",
            "FATAL" if is_fatal else "not fatal",
            row[C.PHASE] or "-",
            row[C.CATEGORY] or "-",
        ]
        if not _missing(code):
            header.append(f"Error Code {code}")
        tail = tails[fields] = "  ".join(header)
    explanation_id = row.get(C.EXPLANATION_ID, "")
    tensors = row.get(C.TENSORS) or ()
    key = (
        row[C.LAYER],
        tensors if type(tensors) is tuple else tuple(tensors),
        (row.get(C.ONNX_OP), str(row.get(C.ONNX_INDEX))) if onnx and C.ONNX_OP in row else None,
        row[C.MESSAGE],
        explanation_id,
        explanation_id in shown,
    )
    body = bodies.get(key)
    if body is None:
        body = "\n".join([*_body(row, onnx, shown, width), ""])
        bodies.put(key, body)
    elif explanation_id:
        shown.add(explanation_id)
    return f"{tail}\n{body}"


def _body(row: Mapping[str, Any], onnx: bool, shown: set[str], width: int) -> list[str]:
    """The lines of one failure block after its header."""
    out = _wrap("layer:", row[C.LAYER] or "(none named)", width)
    tensors = row.get(C.TENSORS) or ()
    if tensors:
        out.extend(_wrap("tensors:", " | ".join(tensors), width))
    if onnx and C.ONNX_OP in row:
        index = row.get(C.ONNX_INDEX)
        op = row.get(C.ONNX_OP) or "-"
        shown_index = "-" if _missing(index) else str(index)
        out.extend(_wrap("onnx:", f"op {op}, node index {shown_index}", width))
    out.extend(_wrap("message:", row[C.MESSAGE], width))
    out.extend(_explanation_lines(row.get(C.EXPLANATION_ID, ""), shown, width))
    return out


class _BodyCache:
    """Failure blocks (without their header line) per distinct row text; at most
    :data:`WRAP_CACHE_CHARS` characters of messages, then it starts again."""

    def __init__(self) -> None:
        self._items: dict[tuple[Any, ...], str] = {}
        self._chars = 0

    def get(self, key: tuple[Any, ...]) -> str | None:
        return self._items.get(key)

    def put(self, key: tuple[Any, ...], body: str, size: int | None = None) -> None:
        """Keep ``body``; ``size``: the characters it counts for (default: its key's layer and
        message)."""
        if size is None:
            size = len(key[0]) + len(key[3])
        if self._chars + size > WRAP_CACHE_CHARS:
            self._items.clear()
            self._chars = 0
        self._items[key] = body
        self._chars += size


def format_signatures(signatures: pd.DataFrame, max_layers: int = 8) -> str:
    """One block per failure signature, most widespread first."""
    if signatures.empty:
        return "no failures found\n"
    width = _width()
    out: list[str] = []
    for row in signatures.to_dict(orient="records"):
        out.append(
            f"{row[C.LOG_COUNT]} log(s), {row[C.COUNT]} row(s)  {row[C.CATEGORY] or '-'}"
            + (f"  [{row[C.EXPLANATION_ID]}]" if row[C.EXPLANATION_ID] else "")
        )
        out.extend(_wrap("signature", row[C.SIGNATURE], width))
        layers: tuple[str, ...] = row[C.LAYERS]
        if layers:
            listed = " | ".join(layers[:max_layers])
            more = f" (and {len(layers) - max_layers} more)" if len(layers) > max_layers else ""
            out.extend(_wrap("layers:", listed + more, width))
        out.extend(_wrap("logs:", " | ".join(row[C.LOGS]), width))
        out.append("")
    out.append(f"{len(signatures)} signatures")
    return "\n".join(out) + "\n"


def format_build_summary(summary: pd.DataFrame) -> str:
    """Each log's build summary as ``column: value`` lines (values not printed are left out)."""
    import pandas as pd
    out: list[str] = []
    for row in summary.to_dict(orient="records"):
        out.append(str(row[C.LOG]))
        printed = 0
        for column in C.BUILD_SUMMARY_COLUMNS[1:]:
            value: Any = row[column]
            if value is None or (not isinstance(value, str) and pd.isna(value)):
                continue
            if column == C.MULTI_STREAM_DISABLED and not value:
                continue
            if column == C.MULTI_STREAM_DISABLED_REASON and not value:
                continue
            out.append(f"{INDENT}{column:<32}{value}")
            printed += 1
        if not printed:
            out.append(f"{INDENT}(no stream, memory or engine-size lines in this log)")
        out.append("")
    return "\n".join(out)

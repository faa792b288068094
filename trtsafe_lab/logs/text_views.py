"""Plain-text views of the failure tables, as the ``failures`` command prints them.

Names are printed whole (never shortened with ``...``); messages are wrapped, not cut.
"""

from __future__ import annotations

import shutil
import textwrap
from typing import Any

import pandas as pd

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.explanations import explanation

INDENT = "    "


def _width() -> int:
    return max(60, min(shutil.get_terminal_size((100, 24)).columns, 140))


def _wrap(label: str, text: str, width: int) -> list[str]:
    """``label: text`` wrapped at ``width``; the text's own line breaks are kept."""
    head = f"{INDENT}{label:<9} "  # one space even after the 9-letter "signature"
    lines: list[str] = []
    for index, part in enumerate(str(text).split("\n") or [""]):
        wrapped = textwrap.wrap(
            part,
            width=width,
            initial_indent=head if index == 0 else " " * len(head),
            subsequent_indent=" " * len(head),
            break_long_words=False,
            break_on_hyphens=False,
        ) or [head.rstrip() if index == 0 else ""]
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


def format_failures(failures: pd.DataFrame, *, onnx: bool = False) -> str:
    """One block per failure row: a header line, the layer, tensors, message, explanation."""
    if failures.empty:
        return "no failures found\n"
    width = _width()
    out: list[str] = []
    shown: set[str] = set()
    for row in failures.to_dict(orient="records"):
        code = row.get(C.ERROR_CODE)
        header = [
            f"line {row[C.LINE]}",
            row[C.SEVERITY] or "untagged",
            "FATAL" if row[C.FATAL] else "not fatal",
            row[C.PHASE] or "-",
            row[C.CATEGORY] or "-",
        ]
        if code is not None and not pd.isna(code):
            header.append(f"Error Code {code}")
        if C.LOG in row:
            header.insert(0, str(row[C.LOG]))
        out.append("  ".join(header))
        out.extend(_wrap("layer:", row[C.LAYER] or "(none named)", width))
        tensors = row.get(C.TENSORS) or ()
        if tensors:
            out.extend(_wrap("tensors:", " | ".join(tensors), width))
        if onnx and C.ONNX_OP in row:
            index = row.get(C.ONNX_INDEX)
            op = row.get(C.ONNX_OP) or "-"
            shown_index = "-" if index is None or pd.isna(index) else str(index)
            out.extend(_wrap("onnx:", f"op {op}, node index {shown_index}", width))
        out.extend(_wrap("message:", row[C.MESSAGE], width))
        out.extend(_explanation_lines(row.get(C.EXPLANATION_ID, ""), shown, width))
        out.append("")
    fatal = int(failures[C.FATAL].sum())
    named = failures.loc[failures[C.LAYER] != "", C.LAYER].nunique()
    out.append(f"{len(failures)} failure rows, {fatal} fatal, {named} distinct layers named")
    return "\n".join(out) + "\n"


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

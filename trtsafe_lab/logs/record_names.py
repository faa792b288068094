"""The layer names a record blames beyond its fixed phrases, one record at a time.

:func:`grammar_names` adds the names standing where TensorRT's grammar puts layers (see
:mod:`~trtsafe_lab.logs.name_grammar`), less tensors and members of names already found;
:func:`complete_cut_names` replaces a name cut off with its line by the earlier full name it
starts. Both read and update the carried :class:`~trtsafe_lab.logs.parse_state.ParseState`.
"""

from __future__ import annotations

from dataclasses import dataclass

from trtsafe_lab.logs.name_tokens import cut_short
from trtsafe_lab.logs.parse_state import ParseState
from trtsafe_lab.logs.records import Record


@dataclass
class LogFinding:
    """One layer name a record blames, with the category its wording implies."""

    layer: str
    line: int
    category: str = ""


MAX_RECENT_NAMES = 64


def complete_cut_names(
    record: Record, findings: list[LogFinding], state: ParseState
) -> list[LogFinding]:
    """Replace a name cut off with its line by the earlier full name it starts, if any.

    ``... Error Code 10: Internal Error (Could not find any implementation for node /model.22/p``
    (the rest of the line lost) after the same error printed whole names ``/model.22/proto/...``.
    """
    texts = dict(record.lines)
    out: list[LogFinding] = []
    names: set[str] = set()
    for finding in findings:
        if cut_short(texts.get(finding.line, ""), finding.layer):
            cut = finding.layer
            full = next((n for n in state.recent_names if n.startswith(cut) and n != cut), None)
            if full is not None:
                finding = LogFinding(full, finding.line, finding.category)
        if finding.layer not in names:
            names.add(finding.layer)
            out.append(finding)
    for finding in out:
        if finding.layer in state.recent_names:
            state.recent_names.remove(finding.layer)
        state.recent_names.insert(0, finding.layer)
    del state.recent_names[MAX_RECENT_NAMES:]
    return out


MAX_CONTAINING_CHARS = 1 << 16  # characters of a record's found names a candidate is sought in


def grammar_names(
    record: Record, findings: list[LogFinding], seen: set[str], state: ParseState
) -> list[str]:
    """Add the names standing where TensorRT's grammar puts layers; return tensor names.

    See :mod:`trtsafe_lab.logs.name_grammar`. A name also mentioned as a tensor here is a
    tensor, and so is a network input an earlier record named as a node ("UFFParser: Failed to
    parseInput for node input_1", one of the last :data:`MAX_RECENT_NAMES` such inputs).
    """
    tensors: list[str] = []
    tensor_set: set[str] = set()
    inputs: list[str] = []
    # A candidate inside a name already found (a member of a fused name the record prints whole)
    # is part of that name: one substring search in the found names joined by newlines (no name
    # holds one), not one per name; the joined text keeps the first MAX_CONTAINING_CHARS
    # characters, so each search is bounded (past it, only equal names are dropped).
    containing = "\n".join(sorted(seen))[:MAX_CONTAINING_CHARS]
    for line_no, text in record.lines:
        line_tensors, candidates, line_category = state.grammar_of(text)
        for tensor in line_tensors:
            if tensor not in tensor_set:
                tensor_set.add(tensor)
                tensors.append(tensor)
        if "Input for node" in text:
            inputs.extend(line_tensors)
        for name in candidates:
            if state.input_nodes and name in state.input_nodes:
                continue
            if name not in tensor_set and name not in seen and name not in containing:
                seen.add(name)
                if len(containing) < MAX_CONTAINING_CHARS:
                    containing = f"{containing}\n{name}"[:MAX_CONTAINING_CHARS]
                # the category its own line implies ("X: inputs must have the same shape")
                findings.append(LogFinding(name, line_no, line_category))
    for name in inputs:  # a new tuple (hashable: the record cache keys readings on it)
        if name not in state.input_nodes:
            state.input_nodes = (name, *state.input_nodes)[:MAX_RECENT_NAMES]
    return tensors

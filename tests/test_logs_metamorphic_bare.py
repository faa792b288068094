"""Metamorphic test: TensorRT's messages printed bare (no severity, no logger, no timestamp).

Applications print TensorRT's messages with ``print(msg)``, ``std::cout << msg`` or an exception's
text, without the severity tag or the logger prefix trtexec and the Python API add (train n496,
n864, n909 were such logs). A message of known grammar must name the same layers however it was
printed. Every train case of ``tests/data/logs`` (never a set-aside one) and every shared case
whose ground truth names layers is read again with every line on which the failure table starts
a finding stripped of its prefixes (timestamps, severity tags and words, logger tags; TensorRT's
own error number ``N: `` is part of the message the logger receives and stays): the table must
blame the same layer set.

Category and fatal flag are not compared: a bare line has no severity, and whether a finding
stops the tool is the severity's to say (an ERROR and a WARNING of one wording differ only there).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from corpus_cases import named_cases

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.records import parse_prefix

# Cases whose finding is a finding only because of its severity (documented, kept short):
# case id -> why the bare message names no layer (or another set).
NEEDS_SEVERITY: dict[str, str] = {
    # "[convBaseBuilder.cpp::createConvolution::200] Error Code 2: ..." bare after a verbose
    # line continues that line's record: the ONNX parser prints TensorRT's errors that way
    # inside its own error (shared 023), so only a tag (or the recorder's "N: ") starts one
    "data/n853.log": "a bare '[file.cpp::f::N] Error Code' line continues the record above",
}


def _layers_and_lines(text: str) -> tuple[set[str], set[int]]:
    failures: pd.DataFrame = analyze_log(text.encode("utf-8", "surrogateescape")).failures
    named = failures[failures["layer"] != ""]
    return set(named["layer"]), {int(line) for line in named["line"]}


def bare(text: str, lines: set[int]) -> str:
    """``text`` with the prefixes of the given 1-based lines stripped."""
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if number in lines:
            prefix, message = parse_prefix(line)
            if prefix.tagged and message.strip():
                code = f"{prefix.error_number}: " if prefix.error_number is not None else ""
                line = code + message
        out.append(line)
    return "\n".join(out)


def test_bare_messages_name_the_same_layers(corpus_dir: Path) -> None:
    failures = []
    gaps = set()
    changed = 0
    for case_id, path, _ in named_cases(corpus_dir):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        layers, lines = _layers_and_lines(text)
        stripped = bare(text, lines)
        if stripped == text:
            continue
        changed += 1
        after, _ = _layers_and_lines(stripped)
        if after != layers and case_id in NEEDS_SEVERITY:
            gaps.add(case_id)
        elif after != layers:
            failures.append(f"{case_id}: missing {sorted(layers - after)[:3]} "
                            f"extra {sorted(after - layers)[:3]}")
    assert changed >= 250, changed
    assert not failures, f"{len(failures)} cases\n" + "\n".join(failures)
    assert gaps == set(NEEDS_SEVERITY), gaps  # listed only while they need it


def test_the_bare_form_strips_prefixes_and_keeps_the_error_number() -> None:
    line = "[12/01/2026-10:00:00] [E] [TRT] 3: conv1: kernel weights has count 0 but 9 expected"
    assert bare(line, {1}) == "3: conv1: kernel weights has count 0 but 9 expected"
    assert bare(line, {2}) == line


def test_error_templates_printed_bare_name_the_same_nodes() -> None:
    """Every error / exception / critical template of the real sources (the committed table
    tests/fixtures/message_templates.tsv) read bare, names put in, blames what the template
    printed by its own tool blames (names in positions no train log has shown)."""
    from test_logs_message_templates import FAILING, SINGLE, _fill, _names, _render

    failures = []
    read = 0
    for row in SINGLE:
        if row["severity"] not in FAILING:
            continue
        for name in _names(row):
            tagged, printed_bare = _render(row, name), _fill(row["template"], name)
            before = {layer for layer in
                      analyze_log((tagged + "\n").encode()).failures["layer"] if layer}
            after = {layer for layer in
                     analyze_log((printed_bare + "\n").encode()).failures["layer"] if layer}
            read += 1
            if after != before:
                failures.append(f"{row['file']}:{row['line']} {name!r}: {before} -> {after}")
    assert read >= 400, read
    assert not failures, f"{len(failures)} readings\n" + "\n".join(failures[:20])

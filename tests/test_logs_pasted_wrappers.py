"""Metamorphic test of how logs are pasted: wrap every line, read the same failures.

Users paste logs into issues as markdown: every line quoted (``> ``), in bold (``**...**``), in
single backticks, indented four spaces (a code block without a fence), with Windows line ends or
trailing spaces, behind docker compose's service prefix, in terminal colours, double-spaced
(a blank line after each), behind a CI runner's or kubectl's timestamps, or the whole log
twice. Every train case of ``tests/data/logs`` (never a set-aside one) and every shared case
whose ground truth names layers is read wrapped
each way: the failure table must blame the same layers with the same category and fatal flag as
the log read as it was published.

Indented four spaces, a record's continuation lines lose the indentation its first line had:
deeper indentation stays, since it is how a record nests a data dump (``    stuffed_dims:
[8,16]`` under ``Tensor 0:`` in n215, never a ``NAME:`` clause).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_cases import named_cases, read_layers

WRAPPERS: dict[str, Callable[[str], str]] = {
    "quote": lambda line: "> " + line,
    "quote-no-space": lambda line: ">" + line,  # as published in n655
    "bold": lambda line: f"**{line}**" if line.strip() else line,
    "backticks": lambda line: f"`{line}`" if line.strip() else line,
    "indent": lambda line: "    " + line,
    "indent-8": lambda line: " " * 8 + line,  # a <details> block's indentation (n714)
    # a copy from a rendered web page keeps no-break spaces where the page indented
    "nbsp-indent": lambda line: "\u00a0\u00a0" + line if line.strip() else line,
    "crlf": lambda line: line + "\r",
    "trailing-spaces": lambda line: line + "   ",
    # docker compose prints each container line behind its service's name (Triton, DeepStream
    # and TensorRT-LLM deployments)
    "docker-compose": lambda line: "trt-builder-1  | " + line,
    # a CI runner's / container runtime's UTC time before every captured line, blank ones too
    # (Jenkins' timestamper, `kubectl logs --timestamps`, `docker logs -t`)
    "jenkins-timestamper": lambda line: f"[2024-01-01T10:00:00.123Z] {line}",
    "kubectl-timestamps": lambda line: f"2024-01-01T10:00:00.123456789Z {line}",
    # a terminal's colours kept (Polygraphy colours by severity; CI logs keep them), and their
    # text after a repr (n988: "['\\x1b[38;5;9m'][E] ...")
    "ansi-colour": lambda line: f"\x1b[38;5;9m{line}\x1b[0m" if line.strip() else line,
    "ansi-text": lambda line: f"['\\x1b[38;5;9m']{line}" if line.strip() else line,
}
# whole-text variants: a paste doubled, a log double-spaced
WHOLE: dict[str, Callable[[str], str]] = {
    "twice": lambda text: text + ("" if text.endswith("\n") else "\n") + text,
    "double-spaced": lambda text: "\n\n".join(text.split("\n")),
}
KNOWN_GAPS: set[tuple[str, str]] = set()


def _wrapped(wrapper: str, text: str) -> str:
    if wrapper in WHOLE:
        return WHOLE[wrapper](text)
    return "\n".join(WRAPPERS[wrapper](line) for line in text.split("\n"))


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS) + sorted(WHOLE))
def test_wrapped_lines_are_read_alike(corpus_dir: Path, wrapper: str) -> None:
    failures = []
    gaps = set()
    for case_id, path, _ in named_cases(corpus_dir):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        wrapped = _wrapped(wrapper, text)
        before, after = read_layers(text), read_layers(wrapped)
        if after == before:
            continue
        if (wrapper, case_id) in KNOWN_GAPS:
            gaps.add(case_id)
            continue
        failures.append(f"{case_id}: {sorted(before.items())[:2]} -> {sorted(after.items())[:2]}")
    assert not failures, f"{wrapper}: {len(failures)} cases\n" + "\n".join(failures)
    # the known gaps stay listed only while they are gaps
    assert gaps == {case for kind, case in KNOWN_GAPS if kind == wrapper}, gaps

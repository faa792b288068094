"""Which lines and branches of the failure-table rules only one case (or one thread) runs.

Runs every train case of tests/data/logs (set-aside rows are skipped unread, see
train_cases.py) and every shared-corpus case under coverage.py, one dynamic context per case
(``Coverage.switch_context``), through ``analyze_log`` and ``add_signatures`` (the signature
text rules). For each rules module it lists

- the statements executed by the cases of one source thread only (usually one case), and
- the branches (arcs between two lines, branch coverage) taken by one thread only, where the
  line they leave is run by several threads and the line they reach is not already listed.

Such a line is a rule that one published log alone supports: either a general grammar class
that happens to be rare, or a fit to that log. The table has a ``verdict`` column filled from
``benchmarks/results/rules_single_case_verdicts.tsv`` (module, source line text as shown, cases,
verdict), so a verdict follows its line when the line moves.

    python benchmarks/rules_single_case_lines.py [--out benchmarks/results/FILE.md]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from train_cases import REPO, StudyCase, shared_cases, train_cases

MODULES = (
    "triggers", "classify", "categories", "error_sites", "node_blocks", "parse_state",
    "name_grammar", "name_tokens", "names", "record_names", "layer_names", "signature_text",
)
PACKAGE = REPO / "trtsafe_lab" / "logs"
VERDICTS = REPO / "benchmarks" / "results" / "rules_single_case_verdicts.tsv"
NOTES = REPO / "benchmarks" / "results" / "rules_single_case_notes.md"  # hand-written, appended


def _verdicts() -> dict[tuple[str, str, str], str]:
    if not VERDICTS.is_file():
        return {}
    rows = VERDICTS.read_text(encoding="utf-8").splitlines()[1:]
    return {(module, source, cases): verdict
            for module, source, cases, verdict in (row.split("\t") for row in rows if row)}


def _shown(text: str, limit: int) -> str:
    """``text`` as the table shows it (cut at ``limit``, no pipes or backticks): the key the
    verdicts file uses."""
    shown = text if len(text) <= limit else text[: limit - 3] + "..."
    return shown.replace("|", "\\|").replace("`", "'")


def run(cases: list[StudyCase]) -> tuple[dict[str, dict[int, set[str]]],
                                          dict[str, dict[tuple[int, int], set[str]]]]:
    """(module -> line -> case ids, module -> arc -> case ids) over ``cases``."""
    import coverage

    files = {str(PACKAGE / f"{module}.py"): module for module in MODULES}
    cov = coverage.Coverage(data_file=None, branch=True, include=list(files))
    cov.start()
    from trtsafe_lab.logs import analyze_log
    from trtsafe_lab.logs.signatures import add_signatures

    for case in cases:
        cov.switch_context(case.case_id)
        add_signatures(analyze_log(case.path).failures)
    cov.stop()
    data = cov.get_data()
    lines: dict[str, dict[int, set[str]]] = {}
    arcs: dict[str, dict[tuple[int, int], set[str]]] = {}
    for path, module in files.items():
        by_line = data.contexts_by_lineno(path)
        lines[module] = {n: {c for c in ctx if c} for n, ctx in by_line.items()}
        arcs[module] = defaultdict(set)
    for case in cases:
        data.set_query_context(case.case_id)
        for path, module in files.items():
            for arc in data.arcs(path) or ():
                if arc[0] > 0 and arc[1] > 0:
                    arcs[module][arc].add(case.case_id)
    data.set_query_contexts(None)
    return lines, arcs


def _structure(pattern: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, group depth after it) of each character of a regular expression's
    text that is neither escaped nor inside a character class."""
    depth, index, in_class = 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith(("]", "^]"), index + 1):  # a "]" first is a member
                index += 2 if pattern[index + 1] == "]" else 3
                continue
        else:
            depth += {"(": 1, ")": -1}.get(char, 0)
            yield index, char, depth
        index += 1


def alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of a regular expression's text (a pattern that is one
    non-capturing group, ``(?:a|b)``, is opened first)."""
    while pattern.startswith("(?:") and next(
        (i for i, char, depth in _structure(pattern) if char == ")" and depth == 0), -1
    ) == len(pattern) - 1:
        pattern = pattern[3:-1]
    parts, last = [], 0
    for index, char, depth in _structure(pattern):
        if char == "|" and depth == 0:
            parts.append(pattern[last:index])
            last = index + 1
    parts.append(pattern[last:])
    return parts


def rule_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(module.NAME[index], pattern) of every compiled text pattern of the rules modules, the
    patterns held in tuples (CATEGORY_RULES, the DLA fallback forms) too, and the triggers
    (compiled from their bytes as text)."""
    import importlib

    found: list[tuple[str, re.Pattern[str]]] = []
    for module in MODULES:
        loaded = importlib.import_module(f"trtsafe_lab.logs.{module}")
        source = (PACKAGE / f"{module}.py").read_text(encoding="utf-8")
        for name, value in sorted(vars(loaded).items()):
            if not re.search(rf"^{re.escape(name)}\b[^=\n]*= ", source, re.MULTILINE):
                continue  # imported from the module that defines it
            items = value if isinstance(value, tuple) else (value,)
            for index, item in enumerate(items):
                label = f"{module}.{name}" + (f"[{index}]" if isinstance(value, tuple) else "")
                if isinstance(item, tuple) and len(item) >= 2:
                    item = item[1]  # (category, pattern), (first byte, pattern bytes)
                if isinstance(item, re.Pattern) and isinstance(item.pattern, str):
                    found.append((label, item))
                elif isinstance(item, bytes) and module == "triggers" and name == "TRIGGER_GROUPS":
                    found.append((label, re.compile(item.decode("latin-1"))))
    return found


_TEMPLATE_TEXTS: list[str] = []
TEMPLATES = REPO / "tests" / "fixtures" / "message_templates.tsv"


def _templates() -> list[str]:
    """The real sources' message templates, placeholders filled with a plain name."""
    with open(TEMPLATES, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [re.sub(r"\{\w+\}", "conv_1", row["template"]) for row in rows]


def alternative_cases(cases: list[StudyCase]) -> list[tuple[str, str, set[str]]]:
    """(pattern label, alternative, ids of the cases with a line it matches) of every
    alternative of every rule pattern (flags kept; one that does not compile alone skipped)."""
    global _TEMPLATE_TEXTS
    _TEMPLATE_TEXTS = _templates()
    texts = {c.case_id: c.path.read_bytes().decode("utf-8", "replace").splitlines()
             for c in cases}
    out = []
    for label, pattern in rule_patterns():
        parts = alternatives(pattern.pattern)
        if len(parts) < 2:
            continue
        for part in parts:
            try:
                alone = re.compile(part, pattern.flags)
            except re.error:
                continue
            ran = {cid for cid, lines in texts.items() if any(alone.search(t) for t in lines)}
            backed = any(alone.search(t) for t in _TEMPLATE_TEXTS)
            out.append((label, part, ran | ({"template"} if backed else set())))
    return out


def single_thread(cases: set[str], thread_of: dict[str, str]) -> bool:
    return bool(cases) and len({thread_of[c] for c in cases}) == 1


def table(cases: list[StudyCase]) -> tuple[str, dict[str, int]]:
    lines, arcs = run(cases)
    thread_of = {c.case_id: c.thread or c.case_id for c in cases}
    verdicts = _verdicts()
    rows: list[tuple[str, str, int, str, str, str]] = []
    counts: dict[str, int] = {}
    for module in MODULES:
        source = (PACKAGE / f"{module}.py").read_text(encoding="utf-8").splitlines()
        single = {n for n, c in lines[module].items() if single_thread(c, thread_of)}
        found = []
        for number in sorted(single):
            found.append(("line", number, lines[module][number]))
        for (start, end), ran in sorted(arcs[module].items()):
            if (single_thread(ran, thread_of) and start not in single and end not in single
                    and not single_thread(lines[module].get(start, set()), thread_of)):
                found.append((f"branch {start}->{end}", end, ran))
        counts[module] = len(found)
        for kind, number, ran in found:
            text = _shown(source[number - 1].strip(), 100)
            ran_by = ", ".join(sorted(ran))
            rows.append((module, kind, number, text, ran_by,
                         verdicts.get((module, text, ran_by), "")))
    out = ["| module | what | line | source | cases | verdict |",
           "| --- | --- | ---: | --- | --- | --- |"]
    for module, kind, number, text, ran, verdict in rows:
        out.append(f"| {module} | {kind} | {number} | `{text}` | {ran} | {verdict} |")
    alts = alternative_cases(cases)
    thread_of["template"] = "template"
    single_alts = [(label, part, ran - {"template"}, "template" in ran)
                   for label, part, ran in alts if single_thread(ran - {"template"}, thread_of)]
    unused = [(label, part) for label, part, ran in alts if not ran - {"template"}]
    counts["regex alternatives (one thread)"] = len(single_alts)
    out += ["", "## Regex alternatives whose text only one thread's lines hold", "",
            f"Top-level alternatives of the rules' patterns ({len(alts)} in all; one searched on "
            f"every line of every case): {len(single_alts)} match lines of one thread only, "
            f"{len(unused)} match no line of these cases (backed by message templates or by "
            "set-aside-blind reading of sources, not listed).", "",
            "`template`: a message template of the real sources "
            "(tests/fixtures/message_templates.tsv, names filled in) holds the alternative's text.",
            "", "| pattern | alternative | cases | template | verdict |",
            "| --- | --- | --- | --- | --- |"]
    for label, part, ran, backed in single_alts:
        shown = _shown(part, 90)
        verdict = verdicts.get((label, shown, ", ".join(sorted(ran))), "")
        out.append(f"| {label} | `{shown}` | {', '.join(sorted(ran))} | "
                   f"{'yes' if backed else ''} | {verdict} |")
    return "\n".join(out), counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results"
                        / f"rules_single_case_lines_{stamp}.md")
    args = parser.parse_args()
    cases = [*train_cases(), *shared_cases()]
    text, counts = table(cases)
    head = [
        f"# Rules lines/branches run by one thread only ({stamp})", "",
        f"Cases: {len(cases)} (train of tests/data/logs and the shared corpus; set-aside never "
        "read). Command: `python benchmarks/rules_single_case_lines.py`; git "
        f"{_git_head()}.", "",
        "| module | single-thread lines + branches |", "| --- | ---: |",
        *(f"| {m} | {n} |" for m, n in counts.items()),
        f"| all | {sum(counts.values())} |", "",
    ]
    notes = NOTES.read_text(encoding="utf-8") if NOTES.is_file() else ""
    args.out.write_text("\n".join(head) + "\n" + text + "\n\n" + notes, encoding="utf-8")
    print("\n".join(head))
    print(f"wrote {args.out}")
    return 0


def _git_head() -> str:
    import subprocess

    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True, check=False)
    return done.stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())

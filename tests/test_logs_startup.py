"""``trtsafe-lab failures`` starts light (issue 11's speed item): no pandas for the table and
JSON output, and that fast path prints exactly what the DataFrame path prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trtsafe_lab.logs import analyze_log

CODE = """
import sys
from trtsafe_lab.cli import main
try:
    code = main(sys.argv[1:])
finally:
    heavy = sorted(m for m in ('pandas', 'matplotlib', 'onnx', 'ipywidgets') if m in sys.modules)
    print('IMPORTED', heavy, file=sys.stderr)
sys.exit(code)
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CODE, "failures", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "100"},  # the table's width
    )


def _clean_log(corpus_dir: Path, tmp_path: Path) -> Path:
    verbose = next((corpus_dir / "build-logs" / "verbose").glob("*.log")).read_bytes()
    log = tmp_path / "clean.log"
    log.write_bytes(verbose[: 1 << 20])
    assert analyze_log(log).failures.empty
    return log


@pytest.mark.parametrize("form", ["table", "json"])
def test_a_clean_log_needs_no_pandas(corpus_dir: Path, tmp_path: Path, form: str) -> None:
    log = _clean_log(corpus_dir, tmp_path)
    result = _run(str(log), str(log), "--format", form)
    assert "IMPORTED []" in result.stderr
    if form == "json":
        assert json.loads(result.stdout) == {"failures": []}
    else:
        assert result.stdout == "no failures found\n"


@pytest.mark.parametrize("form", ["table", "json"])
def test_rows_print_what_the_table_path_prints_without_pandas(
    corpus_dir: Path, form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trtsafe_lab.logs.tables import to_records
    from trtsafe_lab.logs.text_views import format_failures

    log = corpus_dir / "build-logs" / "cases" / "060.log"
    result = _run(str(log), "--format", form)
    assert "IMPORTED []" in result.stderr
    monkeypatch.setenv("COLUMNS", "100")
    table = analyze_log(log).failures
    assert len(table) > 1
    if form == "json":
        assert json.loads(result.stdout) == {"failures": to_records(table)}
    else:
        assert result.stdout == format_failures(table)


def test_importing_the_logs_package_does_not_import_pandas() -> None:
    code = (
        "import sys, trtsafe_lab.logs\n"
        "from trtsafe_lab.logs import LogParser, LogReadError\n"
        "print('pandas' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


def test_only_the_process_command_line_freezes_the_collector(tmp_path: Path) -> None:
    """``main()`` run as the process's command (no ``argv``: the console script) moves its
    objects out of the collector's reach before the interpreter's exit collection; ``main(argv)``
    from a caller leaves the collector as it was."""
    log = tmp_path / "empty.log"
    log.write_bytes(b"")
    code = (
        "import gc, sys\n"
        "from trtsafe_lab.cli import main\n"
        f"assert main(['failures', {str(log)!r}]) == 0 and gc.get_freeze_count() == 0\n"
        f"sys.argv = ['trtsafe-lab', 'failures', {str(log)!r}]\n"
        "assert main() == 0\n"
        "print(gc.get_freeze_count() > 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().endswith("True"), result.stderr

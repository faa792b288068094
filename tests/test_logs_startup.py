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
    code = (
        "import gc, sys\n"
        "from trtsafe_lab.cli import main\n"
        f"assert main(['runs', '--runs', {str(tmp_path)!r}]) == 0 and gc.get_freeze_count() == 0\n"
        f"sys.argv = ['trtsafe-lab', 'runs', '--runs', {str(tmp_path)!r}]\n"
        "assert main() == 0\n"
        "print(gc.get_freeze_count() > 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().endswith("True"), result.stderr


def test_failures_process_ends_at_once_with_its_output_and_exit_code(tmp_path: Path) -> None:
    """``failures`` as the process's command ends the process in ``main()`` once its output is
    flushed (no interpreter teardown, no exit handlers: none of its own); the output and the
    exit code are those of ``main(argv)``, a refused log's message included."""
    log = tmp_path / "one.log"
    log.write_bytes(b"[E] Error Code 2: Internal Error (Assertion x failed.)\n")
    for args, expected in (([str(log)], 0), ([str(tmp_path / "missing.log")], 2)):
        code = (
            "import atexit, sys\n"
            "from trtsafe_lab.cli import main\n"
            "atexit.register(lambda: print('teardown'))\n"
            f"sys.argv = ['trtsafe-lab', 'failures', *{args!r}]\n"
            "main()\n"
            "print('returned')\n"
        )
        ended = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        call = f"from trtsafe_lab.cli import main; main(['failures', *{args!r}])"
        called = subprocess.run([sys.executable, "-c", call], capture_output=True, text=True)
        assert ended.returncode == expected, ended.stderr
        assert ended.stdout == called.stdout and ended.stderr == called.stderr
        assert "teardown" not in ended.stdout and "returned" not in ended.stdout
        assert (expected == 0) == ("failure rows" in ended.stdout)


def test_failures_process_on_a_closed_pipe_ends_quietly_with_141(tmp_path: Path) -> None:
    """A reader that goes away (``| head``) while ``failures`` still writes: the process that
    ends at once still ends as every command does on a closed pipe (141, nothing on stderr)."""
    log = tmp_path / "many.log"
    log.write_bytes(b"[E] Error Code 2: Internal Error (Assertion x failed.)\n" * 50_000)
    code = (
        "import sys\n"
        "from trtsafe_lab.cli import main\n"
        f"sys.argv = ['trtsafe-lab', 'failures', {str(log)!r}]\n"
        "main()\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(100)  # megabytes more than a pipe holds are still to come
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait() == 141 and err == b""

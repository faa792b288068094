"""The top-level command line: cheap --help/--version, help for every option, one message and
never a traceback for bad paths or a closed output pipe (issue 13 CLI hygiene, issue 15 #5)."""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from builds_support import build_shared_object

from trtsafe_lab.cli import COMMANDS, PATH_ARGUMENTS, build_parser, main
from trtsafe_lab.examples import example_path

HEAVY = ("pandas", "numpy", "matplotlib", "tensorrt", "cuda", "ipywidgets")
PROFILE_RUNS = example_path("profile", "runs")
EXAMPLE_LOG = example_path("logs", "trt11-safe-build-no-tactic.log")


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_nothing_heavy(flag: str) -> None:
    code = ("import json, sys\nfrom trtsafe_lab.cli import main\n"
            f"try:\n    main([{flag!r}])\nexcept SystemExit as e:\n    code = e.code\n"
            f"print(json.dumps([code, sorted(m for m in sys.modules "
            f"if m.split('.')[0] in {HEAVY!r})]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    code_, heavy = json.loads(out.stdout.splitlines()[-1])
    assert code_ == 0 and heavy == []
    command_modules = {m for m, _ in COMMANDS.values()}
    listed = subprocess.run([sys.executable, "-c", code.replace(
        "m.split('.')[0] in", f"m in {command_modules!r} or m.split('.')[0] in")],
        capture_output=True, text=True, check=True)
    assert json.loads(listed.stdout.splitlines()[-1])[1] == [], "a command module was imported"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)


def test_each_module_registers_its_command_with_the_listed_help() -> None:
    for name, (module, text) in COMMANDS.items():
        parser = argparse.ArgumentParser()
        subparsers = parser.add_subparsers()
        importlib.import_module(module).register(subparsers)
        registered = {a.dest: a.help for a in subparsers._choices_actions}
        assert registered == {name: text}, f"{module}: update COMMANDS in trtsafe_lab/cli.py"


def _walk(parser: argparse.ArgumentParser, prefix: str = ""
          ) -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _walk(sub, f"{prefix}{name} ")
        else:
            found.append((prefix.strip(), action))
    return found


def test_every_option_has_help_text() -> None:
    missing = [f"{cmd or 'trtsafe-lab'}: {a.option_strings or a.dest}"
               for cmd, a in _walk(build_parser()) if not a.help]
    assert missing == []


def test_path_table_names_real_arguments() -> None:
    dests: dict[tuple[str, str], set[str]] = {}
    for cmd, action in _walk(build_parser()):
        name, _, sub = cmd.partition(" ")
        dests.setdefault((name, sub), set()).add(action.dest)
    for key, checks in PATH_ARGUMENTS.items():
        assert key in dests, key
        assert set(checks) <= dests[key], (key, set(checks) - dests[key])
        from trtsafe_lab import paths

        assert all(callable(getattr(paths, c)) for c in checks.values())


# --- a closed output pipe ------------------------------------------------------------------

@pytest.fixture(scope="module")
def pair_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pair")
    engine = folder / "net.engine"
    engine.write_bytes(b"engine bytes")
    build_shared_object(folder / "net.engine.so")
    return engine


def closed_pipe_commands(tmp: Path, engine: Path) -> dict[str, list[str]]:
    runs = tmp / "runs"
    main(["build", "--trt-version", "11.4", "--dry-run", "--runs", str(runs), "--",
          "--onnx=m.onnx", "--safe", "--saveEngine=m.engine"])
    runs.mkdir(exist_ok=True)
    (runs / "empty-folder").mkdir()
    log = tmp / "given.log"
    log.write_text(EXAMPLE_LOG.read_text())
    return {
        "demo": ["demo", "--out", str(tmp / "demo")],
        "failures": ["failures", str(log)],
        "runs": ["runs", "--runs", str(runs), "--all"],
        "build": ["build", "--trt-version", "11.4", "--dry-run", "--", "--onnx=m.onnx",
                  "--safe", "--saveEngine=m.engine"],
        "verify-pair": ["verify-pair", str(engine)],
        "profile": ["profile", "compare", *map(str, sorted(PROFILE_RUNS.iterdir())[:2])],
        "runtime-demo": ["runtime-demo", "--cpu"],
        "migrate": ["migrate", str(example_path("migrate", "lidar_app_10x"))],
        "report": ["report", str(log), "-o", str(tmp / "r.html")],
    }


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_survives_a_closed_output_pipe(
    command: str, tmp_path: Path, pair_engine: Path
) -> None:
    argv = closed_pipe_commands(tmp_path, pair_engine)[command]
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will read: the first write gets EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "trtsafe_lab", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=300, check=False,
                              cwd=tmp_path, env={**os.environ, "MPLBACKEND": "Agg"})
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    # 141 (128 + SIGPIPE) from the top-level handler, for every command
    assert proc.returncode == 141, (proc.returncode,
                                                                       proc.stderr)


# --- bad paths ----------------------------------------------------------------------------

def make_path(kind: str, tmp: Path) -> str:
    """A path of ``kind`` under ``tmp`` (created as needed)."""
    base = tmp / "fixtures"
    base.mkdir(exist_ok=True)
    if kind == "missing":
        return str(base / "not-there")
    if kind == "dir":
        (base / "a-folder").mkdir(exist_ok=True)
        return str(base / "a-folder")
    if kind in ("file", "empty", "binary", "bad_utf8", "newline"):
        name = {"file": "text.log", "empty": "empty.log", "binary": "binary.log",
                "newline": "new\nline.log"}.get(kind)
        path = base / name if name else Path(os.fsdecode(bytes(base) + b"/bad-\xff-name.log"))
        path.write_bytes({"empty": b"", "binary": bytes(range(256)) * 64}.get(
            kind, EXAMPLE_LOG.read_bytes()))
        return str(path)
    if kind == "under_file":
        (base / "plain.txt").write_text("x")
        return str(base / "plain.txt" / "child")
    if kind == "fifo":
        os.mkfifo(base / "a-fifo")
        return str(base / "a-fifo")
    if kind == "devzero":
        return "/dev/zero"
    if kind == "name_max":
        return str(base / ("n" * (os.pathconf(base, "PC_NAME_MAX") + 1)))
    if kind == "loop":
        (base / "loop-a").symlink_to(base / "loop-b")
        (base / "loop-b").symlink_to(base / "loop-a")
        return str(base / "loop-a")
    if kind == "empty_string":
        return ""
    raise ValueError(kind)


KINDS = ("missing", "dir", "file", "empty", "binary", "bad_utf8", "newline", "under_file", "fifo",
         "devzero", "name_max", "loop", "empty_string")
# Which fixture kinds each role accepts (the command then runs; any other kind: exit 2).
ACCEPTS = {
    "input_file": {"file", "empty", "binary", "bad_utf8", "newline"},
    "input_dir": {"dir"},
    "input_path": {"dir", "file", "empty", "binary", "bad_utf8", "newline"},
    "output_dir": {"missing", "dir"},
    "output_file": {"missing", "file", "empty", "binary", "bad_utf8", "newline"},
}
# (command line with {} for the path, role, run accepted kinds too: False where that is slow)
SLOTS: dict[str, tuple[list[str], str, bool]] = {
    "demo --out": (["demo", "--out", "{}"], "output_dir", False),
    "failures LOG": (["failures", "{}"], "input_file", True),
    "failures --onnx": (["failures", str(EXAMPLE_LOG), "--onnx", "{}"], "input_file", True),
    "runs --runs": (["runs", "--runs", "{}"], "input_dir", True),
    "build --runs": (["build", "--dry-run", "--trt-version", "11.4", "--runs", "{}", "--",
                      "--onnx=m.onnx"], "output_dir", True),
    "verify-pair ENGINE": (["verify-pair", "{}"], "input_file", True),
    "verify-pair --manifest": (["verify-pair", "ENGINE", "--manifest", "{}"], "input_file",
                               True),
    "profile compare RUN": (["profile", "compare", "{}"], "input_path", True),
    "profile compare --plot": (["profile", "compare", "RUN", "--plot", "{}"], "output_file",
                               False),
    "profile engine ENGINE": (["profile", "engine", "{}"], "input_file", True),
    "profile reference --out": (["profile", "reference", "--out", "{}"], "output_dir", True),
    "runtime-demo --trace-csv": (["runtime-demo", "--cpu", "--trace-csv", "{}"],
                                 "output_file", True),
    "migrate PATH": (["migrate", "{}"], "input_path", True),
    "report INPUT": (["report", "{}"], "input_path", False),
    "report -o": (["report", str(EXAMPLE_LOG), "-o", "{}"], "output_file", False),
    "report --runs": (["report", str(EXAMPLE_LOG), "--runs", "{}"], "output_dir", False),
}
CASES = [(slot, kind) for slot, (_, role, run_ok) in SLOTS.items() for kind in KINDS
         if run_ok or kind not in ACCEPTS[role]]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("slot", "kind"), CASES, ids=[f"{s}-{k}" for s, k in CASES])
def test_bad_path_matrix(slot: str, kind: str, tmp_path: Path, pair_engine: Path,
                         capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    template, role, _ = SLOTS[slot]
    path = make_path(kind, tmp_path)
    run = str(sorted(PROFILE_RUNS.iterdir())[0])
    argv = [path if a == "{}" else str(pair_engine) if a == "ENGINE" else run if a == "RUN"
            else a for a in template]
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if kind in ACCEPTS[role]:
        assert code in (0, 1, 2), (code, err)
        if code == 2:  # refused for what the file holds, not for the path: said so
            assert (out + err).strip() and "unexpected error" not in err
    else:
        assert code == 2, (code, out, err)
        assert len(err.strip().splitlines()) == 1, err  # one message
        shown = repr(path) if ("\n" in path or "\udcff" in path) else path
        assert (shown or "empty path") in err, err


def test_migrate_refuses_an_empty_path(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 15: `migrate ""` silently scanned the current folder."""
    assert main(["migrate", ""]) == 2
    assert "empty path" in capsys.readouterr().err


def test_non_utf8_file_names_under_a_strict_utf8_stdout(tmp_path: Path) -> None:
    """Issue 15: `failures` and `migrate` crashed printing a file name that is not UTF-8."""
    folder = tmp_path / "project"
    folder.mkdir()
    bad = os.fsencode(folder) + b"/run-\xff\xfe.sh"
    with open(bad, "wb") as handle:
        handle.write(b"trtexec --onnx=m.onnx --safe --restricted\n")
    log = os.fsencode(tmp_path) + b"/log-\xff.log"
    with open(log, "wb") as handle:
        handle.write(EXAMPLE_LOG.read_bytes())
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C.UTF-8"}
    for argv in (["migrate", os.fsencode(folder)], ["failures", log]):
        proc = subprocess.run([os.fsencode(sys.executable), b"-m", b"trtsafe_lab",
                               *(a if isinstance(a, bytes) else a.encode() for a in argv)],
                              capture_output=True, env=env, timeout=120, check=False)
        assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
        assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
        if argv[0] == "migrate":  # findings name the file: escaped, not dropped
            assert (b"run-\\udcff\\udcfe.sh" in proc.stdout  # escaped by stdout, or by
                    or b"run-\\xff\\xfe.sh" in proc.stdout), proc.stdout  # migrate's name


def test_unexpected_error_is_one_line_and_debug_shows_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import trtsafe_lab.runtime.cli as runtime_cli

    def boom(_args: argparse.Namespace) -> int:
        raise KeyError("internal")

    real: Callable[[argparse._SubParsersAction], None] = runtime_cli.register

    def register(subparsers: argparse._SubParsersAction) -> None:
        real(subparsers)
        subparsers.choices["runtime-demo"].set_defaults(func=boom)

    monkeypatch.setattr(runtime_cli, "register", register)
    assert main(["runtime-demo", "--cpu"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unexpected error: KeyError" in err and "--debug" in err
    assert main(["--debug", "runtime-demo", "--cpu"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_os_errors_after_the_checks_name_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import trtsafe_lab.runtime.cli as runtime_cli

    def disk_full(_args: argparse.Namespace) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", "/data/trace.csv")

    real = runtime_cli.register

    def register(subparsers: argparse._SubParsersAction) -> None:
        real(subparsers)
        subparsers.choices["runtime-demo"].set_defaults(func=disk_full)

    monkeypatch.setattr(runtime_cli, "register", register)
    assert main(["runtime-demo", "--cpu"]) == 2
    assert "/data/trace.csv: No space left on device" in capsys.readouterr().err


@pytest.mark.parametrize("argv, usage, hint", [
    (["failures", "x.log", "--fromat", "json"], "trtsafe-lab failures", "did you mean --format?"),
    (["profile", "compare", "r", "--plto", "a.png"], "trtsafe-lab profile compare",
     "did you mean --plot?"),
    (["build", "--dry-run", "--trt-version", "11.4", "--onnx=m.onnx"], "trtsafe-lab build",
     "trtexec flags go after '--'"),
])
def test_unrecognized_options_are_reported_by_their_subcommand(
        argv: list[str], usage: str, hint: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in an option printed the top-level usage and no hint (qa: `failures LOG
    --fromat json`, `build --onnx=m.onnx` without '--')."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"usage: {usage}" in err and hint in err and "unrecognized arguments" in err, err


def test_an_unknown_command_names_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    """qa: `trtsafe-lab failure LOG` only listed the choices."""
    with pytest.raises(SystemExit) as exc:
        main(["failure", "x.log"])
    assert exc.value.code == 2
    assert "did you mean failures?" in capsys.readouterr().err

"""Output paths are checked before any work, and every subcommand has a description (new-user
test findings: --plot in a missing folder or with a .txt extension, --trace-csv under /proc,
help without a description or with RST backticks)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from trtsafe_lab.cli import PATH_ARGUMENTS, build_parser, main
from trtsafe_lab.examples import example_path

RUNS = [str(p) for p in sorted(example_path("profile", "runs").iterdir())[:2]]
# dests that name something the command writes; each must be checked up front
OUTPUT_DESTS = {"out", "plot", "output", "trace_csv"}


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def _walk(parser: argparse.ArgumentParser, prefix: str = ""
          ) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(prefix.strip(), parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _walk(sub, f"{prefix}{name} ")
    return found


def test_every_output_argument_is_checked_up_front() -> None:
    missing = []
    for cmd, parser in _walk(build_parser()):
        if not cmd:
            continue
        name, _, sub = cmd.partition(" ")
        checks = PATH_ARGUMENTS.get((name, sub), {})
        for action in parser._actions:
            if action.dest in OUTPUT_DESTS and action.dest not in checks:
                missing.append(f"{cmd} {action.dest}")
            if action.dest == "plot":
                assert checks.get("plot") == "figure_file", cmd
    assert missing == []


def test_every_subcommand_has_a_description_without_rst_markup() -> None:
    for cmd, parser in _walk(build_parser()):
        if not cmd:
            continue
        assert parser.description, cmd
        assert "``" not in parser.description and ":mod:" not in parser.description, cmd


@pytest.mark.parametrize("action", [["compare"], ["sweep", "runs"]])
def test_plot_in_a_missing_folder_is_refused_before_the_table(
    action: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "newdir" / "x.png"
    code = _exit_code(["profile", *action, *RUNS, "--plot", str(plot)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""  # refused before the table was printed
    assert "--plot" in captured.err and "does not exist" in captured.err
    assert not plot.parent.exists()


def test_plot_with_an_unsupported_extension_names_the_supported_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _exit_code(["profile", "compare", *RUNS, "--plot", str(tmp_path / "qa.txt")])
    err = capsys.readouterr().err
    assert code == 2
    assert ".txt is not a figure format" in err and ".png" in err and ".svg" in err
    assert "unexpected error" not in err


def test_plot_with_a_supported_extension_is_written(tmp_path: Path) -> None:
    plot = tmp_path / "x.svg"
    assert main(["profile", "compare", *RUNS, "--plot", str(plot)]) == 0
    assert plot.read_text().lstrip().startswith("<?xml")


def test_trace_csv_that_cannot_be_created_is_refused_before_the_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for target in (blocker / "sub" / "t.csv", Path("/proc/trtsafe-lab-no/t.csv")):
        code = _exit_code(["runtime-demo", "--cpu", "--trace-csv", str(target)])
        captured = capsys.readouterr()
        assert code == 2, target
        assert "--trace-csv" in captured.err, captured.err
        assert "executors:" not in captured.out  # the demo did not start


def test_trace_csv_folder_is_created(tmp_path: Path) -> None:
    target = tmp_path / "new" / "t.csv"
    assert main(["runtime-demo", "--cpu", "--trace-csv", str(target)]) == 0
    assert target.read_text().startswith("seq")


def test_runtime_demo_without_cuda_suggests_cpu() -> None:
    pytest.importorskip("trtsafe_lab.runtime.cli")
    try:
        import cuda.bindings.runtime  # noqa: F401
    except ImportError:  # the case this test is for: no cuda-python here
        pass
    else:
        pytest.skip("cuda.bindings is installed here")
    proc = subprocess.run([sys.executable, "-m", "trtsafe_lab", "runtime-demo"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "cuda.bindings" in proc.stderr and "--cpu" in proc.stderr


UNCREATABLE = Path("/proc/trtsafe-lab-no/runs")  # root may write /proc but mkdir there fails


def test_output_folders_that_cannot_be_created_are_refused_naming_the_argument(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from builds_support import install_double

    tool = install_double(tmp_path / "bin")  # never runs: the folder is refused first
    for argv, flag in ((["demo", "--out", str(UNCREATABLE / "demo")], "--out"),
                       (["profile", "trtexec", __file__, "--out", str(UNCREATABLE)], "--out"),
                       (["build", "--runs", str(UNCREATABLE), "--trt-version", "11.4",
                         "--tool", str(tool), "--", "--onnx=m.onnx"], "--runs")):
        code = _exit_code(argv)
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert f"{flag} {UNCREATABLE}" in err, err


def test_output_folders_are_created_with_their_parents(tmp_path: Path) -> None:
    from trtsafe_lab.paths import created_output_dir

    target = tmp_path / "a" / "b" / "c"
    assert created_output_dir(str(target), "--out") == target and target.is_dir()
    for (command, action), checks in PATH_ARGUMENTS.items():  # every folder a run writes into
        for dest, check in checks.items():
            if dest in ("out", "runs") and check.endswith("output_dir"):
                expected = "output_dir" if (command, dest) == ("build", "runs") else \
                    "created_output_dir"
                assert check == expected, (command, action, dest)


def test_a_dry_run_creates_no_runs_folder(tmp_path: Path) -> None:
    runs = tmp_path / "new" / "runs"
    assert main(["build", "--dry-run", "--runs", str(runs), "--trt-version", "11.4", "--",
                 "--onnx=m.onnx"]) == 0
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("command", [["profile", "reference"], ["profile", "sweep", "reference"],
                                     ["profile", "engine", "e.engine"]])
def test_a_negative_warmup_is_refused_naming_the_option(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """--warmup (one definition, profile/args_cli.py) is checked by the parser, before any GPU
    or TensorRT work: not as an unexpected error, nor blamed on --timing."""
    assert _exit_code([*command, "--warmup", "-1"]) == 2
    assert "argument --warmup: must be >= 0, got -1" in capsys.readouterr().err

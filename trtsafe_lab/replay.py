"""A REPLAY of a recorded trtexec log — NOT TensorRT.

Where no trtexec is installed (TensorRT cannot be installed on many machines), the bring-up
notebook still shows the whole build path — the runner, the live log and progress, Cancel, the
run directory and its failure table — by running this stand-in instead: it prints a recorded
log line by line (``[E]`` lines to stderr, like trtexec) and exits with the recorded outcome
(``&&&& PASSED`` → 0, ``&&&& FAILED`` → 1; without a banner, 1 if any ``[E]`` line). It builds
nothing and writes no file, so the run it makes always lists its engine as missing. The
installed script's folder name says REPLAY, and the run's environment.json records its path.

Before replaying, it parses the trtexec flags as the real trtexec of the recorded log's version
would (its ``&&&& RUNNING ... [TensorRT vN]`` banner; ``--trt-version`` else, default 11.4), with
the flag table derived from NVIDIA's ``sampleOptions.cpp``
(:func:`trtsafe_lab.trtexec.tool_parser.real_parse`): a command the real parser rejects is
rejected the same way (``[E] Unknown option: ...``, exit 1) and nothing is replayed. Like
trtexec (``trtexecMain`` in ``trtexec.cpp``: ``reportTestStart`` before ``parseArgs``) it first
prints the ``&&&& RUNNING TensorRT.trtexec [TensorRT vN] # <command>`` banner of that version;
for ``--help``/``-h`` (or no flags) ``parseArgs`` prints the options' help and exits 0, so
``trtexec --help`` version detection reads the replayed log's version. The help lines are the
flag table's (derived from ``sampleOptions.cpp``), headed by a line that says REPLAY.

    python -m trtsafe_lab.replay [--delay S] [--trt-version X.Y] [--argv0 NAME] LOG [trtexec flags]
"""

from __future__ import annotations

import argparse
import shlex
import stat
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trtsafe_lab.trtexec.version import TrtVersion

DEFAULT_DELAY_S = 0.02
# The version whose trtexec parser checks the flags when neither --trt-version nor the log says.
FALLBACK_TRT_VERSION = "11.4"
#: The log the build form and notebook 01 replay by default: an 11.4 --safe build failing in the
#: tactic phase (written by the project, not recorded from TensorRT: examples/logs/README.md).
DEFAULT_LOG_NAME = "trt11-safe-build-no-tactic.log"
#: The folder, inside a runs folder, that holds the REPLAY tool and its placeholder model.
REPLAY_FOLDER = ".replay-not-TensorRT"


def exit_code(lines: list[str]) -> int:
    """The recorded outcome of a log: its last ``&&&&`` banner, else 1 if it has ``[E]`` lines."""
    for line in reversed(lines):
        if "&&&& PASSED" in line:
            return 0
        if "&&&& FAILED" in line:
            return 1
    return 1 if any("[E]" in line for line in lines) else 0


def replay(log: Path, delay_s: float = DEFAULT_DELAY_S) -> int:
    """Print ``log`` line by line with ``delay_s`` between lines; return its exit code."""
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    for line in lines:
        stream = sys.stderr if "[E]" in line else sys.stdout
        stream.write(line + "\n")
        stream.flush()
        if delay_s:
            time.sleep(delay_s)
    return exit_code(lines)


def install_replay_tool(log: Path, folder: Path, delay_s: float = DEFAULT_DELAY_S) -> Path:
    """Write an executable ``trtexec`` into ``folder`` that replays ``log``; return its path.

    ``folder`` should say what it is (e.g. ``trtexec-REPLAY-not-TensorRT``): the run directory
    records the tool's path.
    """
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "trtexec"
    argv = [sys.executable, "-m", "trtsafe_lab.replay", "--delay", str(delay_s)]
    tool.write_text("#!/bin/sh\n# REPLAY of a recorded trtexec log, NOT TensorRT "
                    "(trtsafe_lab.replay)\n"
                    f'exec {shlex.join(argv)} --argv0 "$0" {shlex.quote(str(Path(log).resolve()))}'
                    ' "$@"\n', encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return tool


def default_log() -> Path:
    """The log the build form and notebook 01 replay by default (bundled example data)."""
    from trtsafe_lab.examples import example_path

    return example_path("logs", DEFAULT_LOG_NAME)


def replay_setup(runs_dir: Path, log: Path | None = None, delay_s: float = DEFAULT_DELAY_S
                 ) -> tuple[Path, Path]:
    """Install the REPLAY tool for ``log`` (default: :func:`default_log`) inside ``runs_dir``
    and return ``(tool, workdir)``.

    ``workdir`` (``runs_dir/.replay-not-TensorRT``) holds the tool's folder and a placeholder
    ``model.onnx`` (the replay never reads it; a build checks that its inputs exist): run the
    build with ``cwd=workdir``. Everything stays under ``runs_dir`` (nothing in /tmp to leak when
    a kernel restarts); calling it again rewrites the same two files.
    """
    workdir = Path(runs_dir) / REPLAY_FOLDER
    tool = install_replay_tool(log or default_log(), workdir / "trtexec-REPLAY-not-TensorRT",
                               delay_s)
    placeholder = workdir / "model.onnx"
    if not placeholder.is_file():
        placeholder.write_text("placeholder input: the REPLAY tool never reads it\n",
                               encoding="utf-8")
    return tool, workdir


def running_banner(log: Path, command: list[str], version: str | None = None) -> str:
    """The ``&&&& RUNNING`` line trtexec of the replayed version prints for ``command``: the
    log's own banner up to `` # `` (its tool, version and build tag), else (or with
    ``version``, which replaces the log's version and drops its build tag) the
    ``&&&& RUNNING TensorRT.trtexec [TensorRT vN]`` form; then `` # `` and the command line."""
    from trtsafe_lab.trtexec.version import BANNER_RE

    text = log.read_text(encoding="utf-8", errors="replace")[:65536]
    match = BANNER_RE.search(text)
    tool, tag = "trtexec", ""
    if match is not None:
        tool = match["tool"]
        tag = text[match.end():].split("\n", 1)[0].partition(" # ")[0].rstrip()
    code = _code(_version(log, version))
    if version:
        tag = ""
    return f"&&&& RUNNING TensorRT.{tool} [TensorRT v{code}]{tag} # {' '.join(command)}"


def _code(version: TrtVersion) -> int:
    """``NV_TENSORRT_VERSION`` as the banner prints it (11.4.0 -> 110400)."""
    return version.major * 10000 + version.minor * 100 + version.patch


def _version(log: Path, version: str | None) -> TrtVersion:
    from trtsafe_lab.trtexec.version import TrtVersion, find_banner

    banner = find_banner(log.read_text(encoding="utf-8", errors="replace")[:65536])
    return TrtVersion.parse(version) if version else (
        banner.version if banner else TrtVersion.parse(FALLBACK_TRT_VERSION))


def print_help(trt: TrtVersion) -> None:
    """What trtexec's ``AllOptions::help`` covers, from the flag table of ``trt`` (headed by a
    line saying this is the REPLAY, not trtexec)."""
    from trtsafe_lab.trtexec.flag_table import load_table

    table = load_table("trtexec", trt)
    print(f"REPLAY (NOT TensorRT): trtexec {trt} options, from the flag table derived from "
          f"{', '.join(table.derived_from)}")
    for key, spec in table.flags.items():
        if spec.accepted and spec.help:
            print(f"  {key:<30} {spec.help}")
    sys.stdout.flush()


def refuse_like_trtexec(log: Path, flags: list[str], version: str | None = None,
                        argv0: str = "trtexec") -> int | None:
    """The exit status when the real trtexec (of the log's version) rejects ``flags`` or prints
    its help (0), after printing its banner and lines; None when it accepts them (the replayed
    log then brings its own banner)."""
    from trtsafe_lab.trtexec.flag_table import load_table
    from trtsafe_lab.trtexec.tool_parser import real_parse

    trt = _version(log, version)
    parsed = real_parse(load_table("trtexec", trt), flags)
    if parsed.accepted:
        return None
    print(running_banner(log, [argv0, *flags], version), flush=True)
    if parsed.help:
        print_help(trt)
        return 0
    stamp = time.strftime("[%m/%d/%Y-%H:%M:%S] ")
    print(f"REPLAY (NOT TensorRT): the trtexec {trt} parser rejects this command; "
          "nothing is replayed", flush=True)
    for line in parsed.stderr_extra:  # written by the parser itself, before the [E] lines
        print(line, file=sys.stderr, flush=True)
    for message in parsed.errors:
        print(f"{stamp}[E] {message}", file=sys.stderr, flush=True)
    return parsed.exit_code if parsed.exit_code > 0 else 1


def _version_text(text: str) -> str:
    """An argparse type: ``text`` when it is a TensorRT version X.Y[.Z] (a bad one is a usage
    error, not a traceback)."""
    from trtsafe_lab.trtexec.version import TrtVersion

    try:
        TrtVersion.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err
    return text


def build_parser() -> argparse.ArgumentParser:
    """The REPLAY tool's own options; every other argument is a trtexec flag."""
    from trtsafe_lab.help_format import HelpParser

    # --help / -h are trtexec flags here (the REPLAY prints trtexec's banner and help for them);
    # this parser's own help is --replay-help.
    parser = HelpParser(prog="python -m trtsafe_lab.replay",
                        description="Replay a recorded trtexec log line by line (a TEST DOUBLE, "
                        "NOT TensorRT). The other arguments are trtexec flags, parsed as the real "
                        "trtexec of that version would: a command it rejects is rejected the same "
                        "way and nothing is replayed.",
                        allow_abbrev=False, add_help=False)
    parser.add_argument("--replay-help", action="help", help="show this help and exit")
    parser.add_argument("--delay", type=float, default=DEFAULT_DELAY_S,
                        help="seconds between replayed lines")
    parser.add_argument("--trt-version", metavar="VERSION", type=_version_text,
                        help="the trtexec version whose parser checks the flags (if omitted: "
                        f"the log's banner, else {FALLBACK_TRT_VERSION})")
    parser.add_argument("--argv0", default="trtexec",
                        help="the program name the banner's command line starts with")
    parser.add_argument("log", type=Path, help="the recorded trtexec log")
    return parser


def main(argv: list[str] | None = None) -> int:
    args, trtexec_flags = build_parser().parse_known_args(argv)
    refused = refuse_like_trtexec(args.log, trtexec_flags, args.trt_version, args.argv0)
    if refused is not None:
        return refused
    return replay(args.log, args.delay)


if __name__ == "__main__":
    sys.exit(main())

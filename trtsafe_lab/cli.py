"""The ``trtsafe-lab`` command line: one subcommand per job, each a thin layer over the library.

Each subcommand lives beside the code it drives, in a module exposing
``register(subparsers) -> None``; the parser it adds sets ``func`` to a callable taking the parsed
arguments and returning the exit code. :data:`COMMANDS` names the module and the one-line help of
each, so ``trtsafe-lab --help`` and ``--version`` import none of them (nor pandas, numpy or
matplotlib); only the chosen subcommand's module is imported.

Exit codes: 0 success, 1 the checked thing has problems (or an unexpected error, reported in one
line; ``--debug`` shows the traceback), 2 bad input (a path that is missing, of the wrong kind,
unreadable, too long or a symlink loop; a rule violation; bad arguments), 130 interrupted, 141
the output pipe was closed (``... | head``).
"""

from __future__ import annotations

import argparse
import difflib
import gc
import importlib
import os
import sys
from collections.abc import Sequence

from trtsafe_lab import __version__, paths
from trtsafe_lab._optional import MissingDependencyError
from trtsafe_lab.errors import UsageError
from trtsafe_lab.help_format import HelpParser

# subcommand -> (module that registers it, one-line help), in the order --help lists them.
# tests/test_cli.py checks that each module registers exactly this name with exactly this help.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("trtsafe_lab.demo",
             "run the main jobs on the bundled example data and write the outputs"),
    "failures": ("trtsafe_lab.logs.cli",
                 "layer-level failure table from TensorRT build / parse / runtime logs"),
    "runs": ("trtsafe_lab.runs_cli",
             "list the run directories of every kind under a folder (no TensorRT needed)"),
    "build": ("trtsafe_lab.trtexec.cli",
              "check a trtexec/trtexec_safe command against the 11.x rules and run it into a "
              "run directory"),
    "verify-pair": ("trtsafe_lab.artifacts_cli",
                    "check a safe engine and its companion .so (ELF type/machine, manifest "
                    "hashes)"),
    "profile": ("trtsafe_lab.profile.cli",
                "aux-stream versus single-stream profiling: compare runs, run the reference "
                "CUDA workload or a TensorRT engine"),
    "runtime-demo": ("trtsafe_lab.runtime.cli",
                     "run a prefill/decode pipeline through the safety-runtime lifecycle runner"),
    "migrate": ("trtsafe_lab.migrate.cli",
                "find 10.x-only code and build steps before moving to TensorRT 11.x safety"),
    "report": ("trtsafe_lab.report",
               "execute the matching notebook headless on runs or logs and write an HTML report"),
}

# Path arguments checked before a command runs: (command, action) -> {dest: check}, where check
# names a function of trtsafe_lab.paths (input_file, input_dir, input_path, output_dir,
# output_file, created_output_dir, created_output_file, figure_file); action is the chosen
# subcommand below command, words joined by spaces ("sweep runs"). A list argument is checked
# item by item; an unset optional one is skipped. The created_* checks make the missing folders
# (like mkdir -p) and run after the others, so a refused argument leaves nothing behind; build
# --runs is created only when the build runs (build.cli), not by --dry-run.
PATH_ARGUMENTS: dict[tuple[str, str], dict[str, str]] = {
    ("demo", ""): {"out": "created_output_dir"},
    ("failures", ""): {"logs": "input_file", "onnx": "input_file"},
    ("runs", ""): {"runs": "input_dir"},
    ("build", ""): {"runs": "output_dir"},
    ("verify-pair", ""): {"engine": "input_file", "so": "input_file", "manifest": "input_file"},
    ("profile", "compare"): {"runs": "input_path", "plot": "figure_file"},
    ("profile", "reference"): {"out": "created_output_dir"},
    ("profile", "sweep runs"): {"runs": "input_path", "plot": "figure_file"},
    ("profile", "sweep reference"): {"out": "created_output_dir", "plot": "figure_file"},
    ("profile", "sweep engines"): {"out": "created_output_dir", "plot": "figure_file"},
    ("profile", "engine"): {"engine": "input_file", "out": "created_output_dir"},
    ("profile", "trtexec"): {"engine": "input_file", "out": "created_output_dir",
                             "companion_so": "input_file"},
    ("runtime-demo", ""): {"trace_csv": "created_output_file"},
    ("migrate", ""): {"paths": "input_path"},
    ("report", ""): {"inputs": "input_path", "output": "created_output_file",
                     "runs": "created_output_dir"},
}
# Whatever an unexpected error is, the user gets one line and this hint.
DEBUG_HINT = "run again with --debug for the traceback, and report it if it is a bug"


def _top_parser(add_commands: bool = True) -> tuple[argparse.ArgumentParser,
                                                    argparse._SubParsersAction]:
    parser = HelpParser(
        prog="trtsafe-lab",
        description="TensorRT 11.x safety bring-up: builds, failure tables, aux-stream profiling.",
    )
    parser.add_argument("--version", action="version", version=f"trtsafe-lab {__version__}",
                        help="print the version and exit")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an unexpected error")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if add_commands:  # placeholders: the name and help only, no module imported
        for name, (_module, text) in COMMANDS.items():
            subparsers.add_parser(name, help=text, add_help=False)
    return parser, subparsers


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser with subcommand ``name`` fully registered (imports its module only)."""
    parser, subparsers = _top_parser(add_commands=False)
    importlib.import_module(COMMANDS[name][0]).register(subparsers)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The whole parser, every subcommand registered (imports every command module)."""
    parser, subparsers = _top_parser(add_commands=False)
    for module in dict.fromkeys(m for m, _ in COMMANDS.values()):
        importlib.import_module(module).register(subparsers)
    return parser


def _labels(parser: argparse.ArgumentParser, names: list[str]) -> dict[str, str]:
    """dest -> how the user wrote it (``--runs``, or a positional's metavar such as ``LOG``),
    for the subcommand reached through ``names`` (e.g. ["profile", "compare"])."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and names and names[0] in \
                action.choices:
            return _labels(action.choices[names[0]], names[1:])
    return {a.dest: (a.option_strings[-1] if a.option_strings
                     else str(a.metavar or a.dest.upper())) for a in parser._actions}


def _subparser(parser: argparse.ArgumentParser, names: list[str]) -> argparse.ArgumentParser:
    """The parser of the subcommand reached through ``names`` (e.g. ["profile", "compare"])."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and names and names[0] in \
                action.choices:
            return _subparser(action.choices[names[0]], names[1:])
    return parser


def _unknown_command(argv: list[str]) -> str | None:
    """The message for a first word that is no command (``failure`` -> did you mean
    ``failures``?), or None when the first word is a command, an option or missing."""
    word = next((a for a in argv if not a.startswith("-")), None)
    if word is None or word in COMMANDS:
        return None
    close = difflib.get_close_matches(word, list(COMMANDS), n=2)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return (f"{word!r} is not a trtsafe-lab command; {hint}"
            f"the commands are {', '.join(COMMANDS)} (trtsafe-lab --help)")


def _refuse_unrecognized(parser: argparse.ArgumentParser, args: argparse.Namespace,
                         rest: list[str]) -> None:
    """Report arguments the chosen subcommand does not know with that subcommand's usage,
    the closest real options, and (for ``build``) where trtexec flags go; exits 2."""
    action = getattr(args, f"{args.command.replace('-', '_')}_command", None) or ""
    names = [args.command, *([action] if action else [])]
    sub = _subparser(parser, names)
    options = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
    hints = []
    for item in rest:
        close = difflib.get_close_matches(item.split("=", 1)[0], options, n=2)
        if close:
            hints.append(f"{item}: did you mean {' or '.join(close)}?")
    if args.command == "build" and any(item.startswith("-") for item in rest):
        hints.append("trtexec flags go after '--': trtsafe-lab build [--dry-run] ... -- "
                     "--onnx=model.onnx --safe ...")
    hints.append(f"see trtsafe-lab {' '.join(names)} --help")
    sub.error(f"unrecognized arguments: {' '.join(rest)} ({'; '.join(hints)})")


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The subcommand words chosen below ``parser`` (``["sweep", "runs"]``), from ``args``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = getattr(args, action.dest, None) if action.dest != argparse.SUPPRESS else None
            if name in action.choices:
                return [name, *_chosen(action.choices[name], args)]
    return []


def check_paths(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Validate the path arguments of the chosen command (UsageError naming the bad one)."""
    from trtsafe_lab import paths

    names = _chosen(_subparser(parser, [args.command]), args)
    checks = PATH_ARGUMENTS.get((args.command, " ".join(names)), {})
    labels = _labels(parser, [args.command, *names])
    creating_last = sorted(checks.items(), key=lambda item: item[1].startswith("created_"))
    for dest, check in creating_last:
        value = getattr(args, dest, None)
        if value is None:
            continue
        for item in value if isinstance(value, list) else [value]:
            getattr(paths, check)(item, labels.get(dest, dest))


def _quiet_broken_pipe() -> int:
    """The reader of our output went away (``| head``): stop without a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout has no file descriptor (captured): nothing to flush
        pass
    return 141


def _print_traceback() -> None:
    import traceback

    traceback.print_exc()


def _reconfigure_streams() -> None:
    """Print any file name, even one that is not valid UTF-8, instead of crashing on it."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; when it fails, output folders it created up front and left empty are
    removed again (a refused or failed run leaves no empty folders behind)."""
    mark = paths.created_mark()  # a notebook in this process may have made some already
    code = 1
    try:
        code = _main(argv)
    finally:
        if code != 0:
            paths.remove_empty_created(mark)
        if argv is None:
            # The process's own command line (the console script, ``python -m``): it ends now.
            # Its objects are moved out of the collector's reach, so the full collection at
            # interpreter exit does not walk them all (~20 ms after an error-dense log's table,
            # ~7 ms after an empty one); a caller passing ``argv`` keeps a normal collector.
            gc.freeze()
    if argv is None and _command_word(sys.argv[1:]) in EXIT_AT_ONCE:
        _exit_at_once(code)
    return code


# Commands whose process, once its output is flushed, ends without the interpreter's teardown
# (freeing every object and module: ~7 ms after an error-dense log's table): they leave no
# temporary files, threads, child processes or exit handlers behind.
EXIT_AT_ONCE = frozenset({"failures"})


def _command_word(argv: list[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def _exit_at_once(code: int) -> None:
    """Flush the output and end the process with ``code`` now; when the output cannot be
    flushed (a closed pipe), return: the interpreter's exit reports it as it always does."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _reconfigure_streams()
    top, _ = _top_parser()
    unknown = _unknown_command(argv)
    if unknown:
        top.error(unknown)
    known, _rest = top.parse_known_args(argv)
    if known.command is None:
        top.print_help()
        return 2
    debug = known.debug
    where = f"trtsafe-lab {known.command}"
    try:
        parser = command_parser(known.command)
        args, rest = parser.parse_known_args(argv)
        if rest:
            _refuse_unrecognized(parser, args, rest)
        if not hasattr(args, "func"):
            top.print_help()
            return 2
        check_paths(args, parser)
        code = int(args.func(args))
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print(f"{where}: interrupted", file=sys.stderr)
        return 130
    except (UsageError, MissingDependencyError) as err:
        print(f"{where}: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # a file problem the checks above could not foresee
        from trtsafe_lab.paths import shown

        if debug:
            _print_traceback()
        name = f" {shown(err.filename)}" if err.filename is not None else ""
        print(f"{where}: error:{name}: {err.strerror or err}", file=sys.stderr)
        return 2
    except Exception as err:
        if debug:
            _print_traceback()
        text = str(err).splitlines()[0][:300] if str(err) else ""
        print(f"{where}: unexpected error: {type(err).__name__}: {text} ({DEBUG_HINT})",
              file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

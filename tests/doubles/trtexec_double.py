"""TEST DOUBLE for trtexec / trtexec_safe -- NOT TensorRT.

It first parses argv as the real tool would, with the flag table derived from NVIDIA's sources
(trtsafe_lab.trtexec.tool_parser.real_parse: trtexec's sampleOptions.cpp / trtexec.cpp
parseArgs, trtexec_safe's trtSafeExec.cpp parseSafeExecArgs) for the version it reports: what
the real parser rejects, it rejects with the same message ("Unknown option: --frobnicate ",
"stoi", "Invalid Argument: ...") and exit status (1), after the "&&&& RUNNING" banner and the
help text, and replays nothing.

It replays a real log from the shared corpus (build-logs/cases/NNN.log) line by line with the
real run's exit behaviour, and writes the artifacts the documented trtexec CLI writes:
``--saveEngine`` (a placeholder engine, marked as a double), for ``--safe`` builds the companion
``.so`` at ``--saveEngineSo`` or ``<saveEngine>.so`` (a copy of a real ELF shared object built
with the system ``cc``), and ``--timingCacheFile``. Lines with ``[E]`` go to stderr, the rest to
stdout. Installed into a temporary folder by the tests as ``trtexec`` / ``trtexec_safe``.

Environment (set by the tests):
  TRTEXEC_DOUBLE_CASE       the corpus log to replay (required except for --help)
  TRTEXEC_DOUBLE_SO         the ELF .so to copy as companion .so for --safe builds
  TRTEXEC_DOUBLE_VERSION    NV_TENSORRT_VERSION printed by --help (default 110400)
  TRTEXEC_DOUBLE_MODE       replay (default) | hang | crash | ignore_term
  TRTEXEC_DOUBLE_PIDFILE    hang/ignore_term: write "<own pid> <child pid>" here
  TRTEXEC_DOUBLE_DELAY      seconds between lines (default 0)
  TRTEXEC_DOUBLE_NO_SO      if set, a --safe build "forgets" its companion .so (a broken tool)
Exit code: 0/1 from the log's own '&&&& PASSED/FAILED' banner; without a banner, from the
outcome column of the corpus INDEX.tsv (build/inference succeeded or build_warning -> 0).
"""

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

SUCCESS_OUTCOMES = {"build_succeeded", "inference_succeeded", "build_warning"}


def flags(argv):
    out = {}
    for arg in argv:
        name, sep, value = arg.lstrip("-").partition("=")
        out[name] = value if sep else True
    return out


def exit_code_of(case: Path, lines) -> int:
    for line in reversed(lines):
        if "&&&& PASSED" in line:
            return 0
        if "&&&& FAILED" in line:
            return 1
    with (case.parent / "INDEX.tsv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["file"] == case.name:
                return 0 if row["outcome"] in SUCCESS_OUTCOMES else 1
    return 1


def emit(line: str) -> None:
    stream = sys.stderr if "[E]" in line else sys.stdout
    stream.write(line + "\n")
    stream.flush()


def write_artifacts(opts) -> None:
    engine = opts.get("saveEngine")
    if isinstance(engine, str):
        Path(engine).write_bytes(b"TRTSAFE-LAB TEST DOUBLE ENGINE (not a TensorRT engine)\n"
                                 + os.urandom(64))
        if opts.get("safe") and not os.environ.get("TRTEXEC_DOUBLE_NO_SO"):
            so = opts.get("saveEngineSo")
            so = so if isinstance(so, str) else engine + ".so"
            shutil.copyfile(os.environ["TRTEXEC_DOUBLE_SO"], so)
    cache = opts.get("timingCacheFile")
    if isinstance(cache, str):
        with open(cache, "ab") as handle:
            handle.write(b"double-timing-cache-entry\n")


def rejected_by_the_real_parser(tool: str, code: str) -> int | None:
    """Exit status when the real tool's parser rejects argv (messages printed), else None."""
    from trtsafe_lab.trtexec.flag_table import load_table
    from trtsafe_lab.trtexec.tool_parser import real_parse
    from trtsafe_lab.trtexec.version import TrtVersion

    kind = "trtexec_safe" if tool.startswith("trtexec_safe") else "trtexec"
    table = load_table(kind, TrtVersion.from_code(int(code)))
    parsed = real_parse(table, sys.argv[1:])
    if parsed.accepted or parsed.help:
        return None
    stamp = time.strftime("[%m/%d/%Y-%H:%M:%S] ")
    banner_stream = sys.stderr if kind == "trtexec_safe" else sys.stdout
    print(f"&&&& RUNNING TensorRT.{kind} [TensorRT v{code}] [b0] # {' '.join(sys.argv)}",
          file=banner_stream, flush=True)
    for line in parsed.stderr_extra:
        print(line, file=sys.stderr, flush=True)
    if parsed.exit_code < 0:
        os.abort()
    if parsed.print_help:
        print(f"TEST DOUBLE: {kind} help (flags of {', '.join(table.derived_from)})")
    for message in parsed.errors:
        print(f"{stamp}[E] {message}", file=sys.stderr, flush=True)
    if parsed.failed_banner:
        print(f"&&&& FAILED TensorRT.{kind} [TensorRT v{code}] [b0] # {' '.join(sys.argv)}",
              file=banner_stream, flush=True)
    return parsed.exit_code


def main() -> int:
    opts = flags(sys.argv[1:])
    tool = Path(sys.argv[0]).name
    code = os.environ.get("TRTEXEC_DOUBLE_VERSION", "110400")
    if "help" in opts or "h" in opts:
        print(f"&&&& RUNNING TensorRT.{tool} [TensorRT v{code}] # {tool} --help")
        print("=== Model Options ===")
        return 0
    refused = rejected_by_the_real_parser(tool, code)
    if refused is not None:
        return refused
    case = Path(os.environ["TRTEXEC_DOUBLE_CASE"])
    lines = case.read_text(encoding="utf-8", errors="replace").splitlines()
    mode = os.environ.get("TRTEXEC_DOUBLE_MODE", "replay")
    delay = float(os.environ.get("TRTEXEC_DOUBLE_DELAY", "0"))
    if mode in ("hang", "ignore_term"):
        if mode == "ignore_term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        Path(os.environ["TRTEXEC_DOUBLE_PIDFILE"]).write_text(f"{os.getpid()} {child.pid}")
        for line in lines[: len(lines) // 2]:
            emit(line)
        while True:
            time.sleep(1)
    if mode == "crash":
        for line in lines[: len(lines) // 2]:
            emit(line)
        os.kill(os.getpid(), signal.SIGSEGV)
    for line in lines:
        emit(line)
        if delay:
            time.sleep(delay)
    code = exit_code_of(case, lines)
    if code == 0:
        write_artifacts(opts)
    return code


if __name__ == "__main__":
    sys.exit(main())

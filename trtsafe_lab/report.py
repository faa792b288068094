"""Self-contained HTML reports: execute the right notebook headless on given inputs.

``trtsafe-lab report RUN_OR_LOG... -o report.html`` picks the notebook for the kind of input
(a log file → failure triage, a build run directory → bring-up build, profile runs or trtexec
export folders → aux-stream profiling), injects the inputs papermill-style (a cell after the one
tagged ``parameters``), executes it with nbclient in a python3 kernel, drops the interactive cells
(tagged ``interactive``: widgets need a live kernel) and writes one HTML file with every image
embedded, a table of contents, interactive tables (itables, offline) and no external scripts.
The reports of one call share one kernel (:class:`ReportKernel`), spoken to over IPC.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trtsafe_lab._optional import require
from trtsafe_lab.report_html import to_html
from trtsafe_lab.text import strip_ansi

#: Input kind -> notebook that reports on it.
NOTEBOOK_FOR_KIND: dict[str, str] = {
    "build": "01_bringup_build.ipynb",
    "log": "02_failure_triage.ipynb",
    "profile": "03_aux_stream_profiling.ipynb",
}
PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"
INTERACTIVE_TAG = "interactive"
# Cells a report leaves out: the interactive ones and the injected parameters.
HIDDEN_TAGS = frozenset({INTERACTIVE_TAG, INJECTED_TAG})
CELL_TIMEOUT_S = 600
# `trtsafe-lab report` writes here when given neither -o nor --runs.
DEFAULT_OUTPUT = "report.html"


class ReportError(RuntimeError):
    """A notebook failed while making a report (the message names the notebook and the cell)."""


def notebooks_dir() -> Path:
    """Where the notebooks are: ``TRTSAFE_NOTEBOOKS`` if set; else the copy an installed wheel
    carries (``trtsafe_lab/notebooks/``, put there by setup.py's build step); else the
    checkout's ``notebooks/`` beside the package (a source checkout or an editable install)."""
    configured = os.environ.get("TRTSAFE_NOTEBOOKS")
    if configured:
        candidates = [Path(configured)]
    else:
        package = Path(__file__).resolve().parent
        candidates = [package / "notebooks", package.parent / "notebooks"]
    for folder in candidates:
        if folder.is_dir() and any(folder.glob("*.ipynb")):
            return folder
    raise FileNotFoundError(
        f"no notebooks found (looked in {', '.join(str(c) for c in candidates)}): a wheel "
        "install carries them in trtsafe_lab/notebooks/ and a source checkout in notebooks/; "
        "reinstall trtsafe-lab or set TRTSAFE_NOTEBOOKS to the folder holding the notebooks"
    )


# Run kind (the run manifest's ``kind``) -> report input kind.
REPORT_KIND_OF_RUN: dict[str, str] = {"build": "build", "profile": "profile",
                                      "trtexec-profile": "profile"}


def input_kind(path: Path) -> str:
    """The kind of a report input: ``log``, ``build`` or ``profile``.

    A file is a log. A run directory is what its manifest's ``kind`` says (a build run ->
    ``build``; a profile or trtexec-profile run -> ``profile``; other kinds have no report). A
    folder without a run manifest is a profile input when it holds trtexec ``*.timing.json``
    exports, as :func:`trtsafe_lab.profile.loaders.load_profile_run` reads them.
    """
    from trtsafe_lab.errors import UsageError
    from trtsafe_lab.rundir import MANIFEST_NAME, RunDirError, read_run_manifest

    if path.is_file():
        return "log"
    if not path.is_dir():
        raise FileNotFoundError(f"report input not found: {path}")
    if (path / MANIFEST_NAME).is_file():
        try:
            kind = read_run_manifest(path)["kind"]
        except RunDirError as err:
            raise UsageError(f"{err}; give a log file, a run directory or a folder of trtexec "
                             "exports") from err
        if kind not in REPORT_KIND_OF_RUN:
            raise UsageError(f"{path} is a {kind} run: reports cover build runs, profile runs "
                             "and logs")
        return REPORT_KIND_OF_RUN[kind]
    if any(path.glob("*.timing.json")):
        return "profile"
    raise UsageError(
        f"{path} is a folder with neither a run manifest nor trtexec exports (*.timing.json); "
        "give a log file, a run directory or a folder of trtexec exports"
    )


def choose_notebook(inputs: Sequence[Path]) -> str:
    """The one notebook for all ``inputs``; mixing kinds is refused (make one report each)."""
    from trtsafe_lab.errors import UsageError

    if not inputs:
        raise UsageError("give at least one run directory or log file")
    kinds = {str(p): input_kind(p) for p in inputs}
    if len(set(kinds.values())) > 1:
        listing = ", ".join(f"{p} ({k})" for p, k in kinds.items())
        raise UsageError(f"inputs of different kinds cannot share one report: {listing}; "
                         "run `trtsafe-lab report` once per kind")
    return NOTEBOOK_FOR_KIND[next(iter(kinds.values()))]


def inject_parameters(nb: Any, parameters: Mapping[str, object]) -> Any:
    """Insert a code cell assigning ``parameters`` right after the cell tagged ``parameters``.

    Values must be literals (``repr`` round-trips them: str, int, float, bool, None, lists).
    A notebook without a parameters cell is an error: the values would be silently ignored.
    """
    nbformat = require("nbformat", feature="Notebook reports")
    tagged = [i for i, c in enumerate(nb.cells)
              if PARAMETERS_TAG in c.get("metadata", {}).get("tags", [])]
    if not tagged:
        raise ReportError(f"the notebook has no cell tagged '{PARAMETERS_TAG}' to inject after")
    position = tagged[0]
    source = "# Parameters injected by trtsafe-lab report\n" + "".join(
        f"{name} = {value!r}\n" for name, value in parameters.items()
    )
    injected = nbformat.v4.new_code_cell(source, metadata={"tags": [INJECTED_TAG]})
    nb.cells.insert(position + 1, injected)
    return nb


class ReportKernel:
    """One python3 kernel reused for every notebook of one call (a context manager).

    Starting a kernel and importing pandas/matplotlib in it is most of a small report's time,
    so the reports of one call share a kernel; before each notebook after the first its
    namespace is reset (``%reset -f``) and its figures closed. The kernel talks to this process
    over IPC sockets in a private temporary folder (removed on exit), not TCP: nothing else on
    the machine can connect, and ipykernel has no reason to warn about unencrypted TCP.
    """

    def __init__(self, cwd: Path, timeout_s: int = CELL_TIMEOUT_S) -> None:
        self.cwd = cwd
        self.timeout_s = timeout_s
        self._client: Any = None
        self._sockets: Any = None
        self.notebooks_run = 0

    def __enter__(self) -> ReportKernel:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Shut the kernel down and remove its socket folder (safe to call twice)."""
        client, self._client = self._client, None
        try:
            if client is not None and client.km is not None and client.km.has_kernel:
                client._cleanup_kernel()
        finally:
            if self._sockets is not None:
                self._sockets.cleanup()
                self._sockets = None

    def execute(self, nb: Any, name: str) -> Any:
        """Execute notebook node ``nb`` (``name`` for messages) in this kernel; return it."""
        nbclient = require("nbclient", feature="Notebook execution")
        nbformat = require("nbformat", feature="Notebook execution")
        traitlets_config = require("traitlets.config", feature="Notebook execution")
        if self.notebooks_run:
            reset = nbformat.v4.new_code_cell(_RESET, metadata={"tags": [INJECTED_TAG]})
            nb.cells.insert(0, reset)
        options: dict[str, Any] = {}
        if self._client is None:
            self._sockets = tempfile.TemporaryDirectory(prefix="trtsafe-report-kernel-")
            config = traitlets_config.Config()
            config.KernelManager.transport = "ipc"
            config.KernelManager.ip = str(Path(self._sockets.name) / "kernel")
            options = {"config": config}
        else:
            options = {"km": self._client.km}
        client = nbclient.NotebookClient(
            nb, timeout=self.timeout_s, kernel_name="python3",
            resources={"metadata": {"path": str(self.cwd)}}, store_widget_state=False,
            **options)
        if self._client is None:
            self._client = client
        else:
            client.kc = self._client.kc  # the running kernel's client (not a constructor trait)
        # Inline figures whatever backend the caller uses (tests set Agg, which would drop them).
        env = dict(os.environ, MPLBACKEND="module://matplotlib_inline.backend_inline")
        try:
            client.execute(env=env, cleanup_kc=False)
        except nbclient.exceptions.CellExecutionError as err:
            raise ReportError(f"{name} failed: {strip_ansi(str(err))}") from err
        finally:
            self.notebooks_run += 1
        return nb


# Run before each notebook after the first in a shared kernel: a clean namespace, no figures.
_RESET = ("get_ipython().run_line_magic('reset', '-f')\n"
          "import matplotlib.pyplot as _plt\n_plt.close('all')\ndel _plt\n")


def load_notebook(path: Path, parameters: Mapping[str, object] | None = None, *,
                  interactive: bool = True) -> Any:
    """The notebook at ``path`` with ``parameters`` injected; without the cells tagged
    ``interactive`` when ``interactive`` is false (a report drops their output anyway)."""
    nbformat = require("nbformat", feature="Notebook execution")
    nb = nbformat.read(path, as_version=4)
    if not interactive:
        nb.cells = [c for c in nb.cells
                    if INTERACTIVE_TAG not in c.get("metadata", {}).get("tags", [])]
    if parameters:
        inject_parameters(nb, parameters)
    return nb


def execute_notebook(
    path: Path, parameters: Mapping[str, object] | None = None, timeout_s: int = CELL_TIMEOUT_S
) -> Any:
    """Execute every cell of the notebook at ``path`` in a fresh python3 kernel (cwd: its folder).

    Returns the executed notebook. A failing cell raises :class:`ReportError` naming the notebook
    and quoting the error.
    """
    with ReportKernel(path.parent, timeout_s) as kernel:
        return kernel.execute(load_notebook(path, parameters), path.name)


def write_notebook_report(name: str, parameters: Mapping[str, object], out: Path,
                          title: str, kernel: ReportKernel | None = None) -> Path:
    """Execute notebook ``name`` (in :func:`notebooks_dir`) with ``parameters`` and write its
    HTML to ``out`` (written whole or not at all); return ``out``.

    ``kernel``: a :class:`ReportKernel` shared by the reports of one call (default: a new one).
    Cells tagged ``interactive`` are not run (a report has no live kernel to drive them).
    """
    path = notebooks_dir() / name
    nb = load_notebook(path, parameters, interactive=False)
    if kernel is None:
        with ReportKernel(path.parent) as own:
            own.execute(nb, name)
    else:
        kernel.execute(nb, name)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.write_text(to_html(nb, title, HIDDEN_TAGS), encoding="utf-8")
    partial.replace(out)
    return out


def write_report(inputs: Sequence[Path], out: Path, kernel: ReportKernel | None = None) -> Path:
    """Execute the notebook for ``inputs`` and write the HTML report to ``out``; return ``out``."""
    name = choose_notebook(inputs)
    title = f"trtsafe-lab report: {', '.join(p.name for p in inputs)}"
    return write_notebook_report(name, {"inputs": [str(p.resolve()) for p in inputs]}, out, title,
                                 kernel)


def record_report(inputs: Sequence[Path], runs_dir: Path, name: str | None = None) -> Path:
    """Write the report for ``inputs`` as a run directory of kind ``report`` under
    ``runs_dir`` (``report.html`` and a manifest naming the notebook and each input with its
    kind); return the run's path. ``name`` defaults to ``<UTC time>-report-<notebook>``."""
    from trtsafe_lab.rundir import staged_run_dir, write_run_manifest

    notebook = choose_notebook(inputs)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    name = name or f"{stamp}-report-{Path(notebook).stem}"
    title = f"trtsafe-lab report: {', '.join(p.name for p in inputs)}"
    with staged_run_dir(Path(runs_dir), name, "report") as staging:
        nb = load_notebook(notebooks_dir() / notebook,
                           {"inputs": [str(p.resolve()) for p in inputs]}, interactive=False)
        with ReportKernel(notebooks_dir()) as kernel:
            kernel.execute(nb, notebook)
        (staging / "report.html").write_text(to_html(nb, title, HIDDEN_TAGS), encoding="utf-8")
        write_run_manifest(staging, "report", name, {
            "notebook": notebook, "title": title,
            "inputs": [{"path": str(p.resolve()), "kind": input_kind(p)} for p in inputs]})
    return Path(runs_dir) / name


def _cli(args: argparse.Namespace) -> int:
    inputs = [Path(p) for p in args.inputs]
    try:
        path = (record_report(inputs, Path(args.runs)) if args.runs
                else write_report(inputs, Path(args.output or DEFAULT_OUTPUT)))
    except ReportError as err:
        print(f"trtsafe-lab report: {err}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="execute the matching notebook headless on runs or logs and write an HTML report",
        description="Pick the notebook for the inputs (a log file: failure triage; a build run "
        "directory: bring-up build; profile runs or trtexec export folders: aux-stream "
        "profiling), execute it headless with the inputs and write one self-contained HTML "
        "file (or a report run directory with --runs).",
    )
    parser.add_argument("inputs", nargs="+", metavar="RUN_OR_LOG",
                        help="log files, build run directories, or profile run directories "
                        "/ trtexec export folders (one kind per report)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="FILE.html",
                       help=f"HTML file to write (if omitted: {DEFAULT_OUTPUT})")
    where.add_argument("--runs", metavar="DIR",
                       help="write the report as a run directory (kind report) under DIR "
                       "instead of a loose HTML file")
    parser.set_defaults(func=_cli)

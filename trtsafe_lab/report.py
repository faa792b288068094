"""Self-contained HTML reports: execute the right notebook headless on given inputs.

``trtsafe-lab report RUN_OR_LOG... -o report.html`` picks the notebook for the kind of input
(a log file → failure triage, a build run directory → bring-up build, profile runs or trtexec
export folders → aux-stream profiling), injects the inputs papermill-style (a cell after the one
tagged ``parameters``), executes it with nbclient in a fresh kernel, drops the interactive cells
(tagged ``interactive``: widgets need a live kernel) and writes one HTML file with every image
embedded and no external scripts.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trtsafe_lab._optional import require

#: Input kind -> notebook that reports on it.
NOTEBOOK_FOR_KIND: dict[str, str] = {
    "build": "01_bringup_build.ipynb",
    "log": "02_failure_triage.ipynb",
    "profile": "03_aux_stream_profiling.ipynb",
}
PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"
INTERACTIVE_TAG = "interactive"
CELL_TIMEOUT_S = 600
# nbconvert's lab template minus every script it would fetch from a CDN (require.js, MathJax,
# mermaid): a report must open offline. Figures are PNG data URIs, so nothing else is fetched.
_TEMPLATE_NAME = "trtsafe_report.html.j2"
_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


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


def execute_notebook(
    path: Path, parameters: Mapping[str, object] | None = None, timeout_s: int = CELL_TIMEOUT_S
) -> Any:
    """Execute the notebook at ``path`` in a fresh python3 kernel (cwd: its folder).

    Returns the executed notebook. A failing cell raises :class:`ReportError` naming the notebook
    and quoting the error.
    """
    nbformat = require("nbformat", feature="Notebook execution")
    nbclient = require("nbclient", feature="Notebook execution")
    nb = nbformat.read(path, as_version=4)
    if parameters:
        inject_parameters(nb, parameters)
    client = nbclient.NotebookClient(
        nb,
        timeout=timeout_s,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=False,
    )
    # Inline figures whatever backend the caller uses (tests set Agg, which would drop them).
    env = dict(os.environ, MPLBACKEND="module://matplotlib_inline.backend_inline")
    try:
        client.execute(env=env)
    except nbclient.exceptions.CellExecutionError as err:
        plain = re.sub(r"\x1b\[[0-9;]*m", "", str(err))  # the traceback's terminal colours
        raise ReportError(f"{path.name} failed: {plain}") from err
    return nb


def to_html(nb: Any, title: str) -> str:
    """One self-contained HTML page for an executed notebook: interactive cells and widget views
    dropped, images embedded, no external scripts or stylesheets."""
    nbconvert = require("nbconvert", feature="HTML reports")
    traitlets_config = require("traitlets.config", feature="HTML reports")
    config = traitlets_config.Config()
    config.TagRemovePreprocessor.remove_cell_tags = {INTERACTIVE_TAG, INJECTED_TAG}
    config.TagRemovePreprocessor.enabled = True
    jinja2 = require("jinja2", feature="HTML reports")
    exporter = nbconvert.HTMLExporter(
        config=config,
        template_name="lab",
        template_file=_TEMPLATE_NAME,
        extra_loaders=[jinja2.DictLoader({_TEMPLATE_NAME: _TEMPLATE})],
    )
    exporter.embed_images = True
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop("application/vnd.jupyter.widget-view+json", None)
    body, _resources = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    return str(body)


def write_notebook_report(name: str, parameters: Mapping[str, object], out: Path,
                          title: str) -> Path:
    """Execute notebook ``name`` (in :func:`notebooks_dir`) with ``parameters`` and write its
    HTML to ``out`` (written whole or not at all); return ``out``."""
    nb = execute_notebook(notebooks_dir() / name, parameters)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.write_text(to_html(nb, title), encoding="utf-8")
    partial.replace(out)
    return out


def write_report(inputs: Sequence[Path], out: Path) -> Path:
    """Execute the notebook for ``inputs`` and write the HTML report to ``out``; return ``out``."""
    name = choose_notebook(inputs)
    title = f"trtsafe-lab report: {', '.join(p.name for p in inputs)}"
    return write_notebook_report(name, {"inputs": [str(p.resolve()) for p in inputs]}, out, title)


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
        nb = execute_notebook(notebooks_dir() / notebook,
                              {"inputs": [str(p.resolve()) for p in inputs]})
        (staging / "report.html").write_text(to_html(nb, title), encoding="utf-8")
        write_run_manifest(staging, "report", name, {
            "notebook": notebook, "title": title,
            "inputs": [{"path": str(p.resolve()), "kind": input_kind(p)} for p in inputs]})
    return Path(runs_dir) / name


def _cli(args: argparse.Namespace) -> int:
    inputs = [Path(p) for p in args.inputs]
    try:
        path = (record_report(inputs, Path(args.runs)) if args.runs
                else write_report(inputs, Path(args.output or "report.html")))
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
                        help="a build log, a build run directory or profile run folders")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("-o", "--output",
                       help="HTML file to write (default: report.html)")
    where.add_argument("--runs", metavar="DIR",
                       help="write the report as a run directory (kind report) under DIR "
                       "instead of a loose HTML file")
    parser.set_defaults(func=_cli)

"""The facade: ``analyze_log(source) -> LogAnalysis`` with events, failures and a summary."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pandas as pd

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.source import LogSource, iter_lines
from trtsafe_lab.logs.tables import failures_frame, summarize_failures

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class LogAnalysis:
    """Tables read from one log. Build it with :func:`analyze_log`.

    ``failures`` is computed up front (streaming, memory bounded for files); ``events`` (one row
    per record) is computed on first access, which for a multi-gigabyte verbose log means a
    DataFrame with millions of rows. See :mod:`trtsafe_lab.logs.tables` for the columns.
    """

    def __init__(
        self,
        source: LogSource,
        *,
        text: bool,
        failures: pd.DataFrame,
        events: pd.DataFrame | None = None,
        onnx_model: Any = None,
    ) -> None:
        self.source = source
        self._text = text
        self._failures = failures
        self._events = events
        self._onnx_model = onnx_model

    @property
    def name(self) -> str:
        """The path of the log, or ``"<text>"`` / ``"<bytes>"``."""
        if isinstance(self.source, bytes | bytearray):
            return "<bytes>"
        return "<text>" if self._text else os.fspath(self.source)

    @property
    def failures(self) -> pd.DataFrame:
        """One row per layer-level finding (columns: trtsafe_lab.logs.columns.FAILURE_COLUMNS)."""
        return self._failures

    @property
    def events(self) -> pd.DataFrame:
        """One row per log record (columns: trtsafe_lab.logs.columns.EVENT_COLUMNS)."""
        if self._events is None:
            parser = LogParser(keep_events=True)
            parser.feed_lines(iter_lines(self.source, text=self._text))
            parser.finish()
            self._events = parser.events_frame()
        return self._events

    def build_summary(self) -> pd.DataFrame:
        """One row: aux streams, memory totals, engine size and times the log prints.

        Columns and the lines they come from: :mod:`trtsafe_lab.logs.build_summary`. Reads the
        log again (streaming), so a large file costs one more pass.
        """
        from trtsafe_lab.logs.build_summary import build_summary_frame, summarize_build

        row = summarize_build(iter_lines(self.source, text=self._text))
        return build_summary_frame([{C.LOG: self.name, **row}])

    def summary(self) -> pd.DataFrame:
        """Failure rows counted by category, phase and layer (count, fatal_count)."""
        return summarize_failures(self._failures)

    @property
    def fatal(self) -> pd.DataFrame:
        """Only the fatal failure rows."""
        return self._failures[self._failures["fatal"]]

    def plot_summary(self, ax: Any = None) -> Figure:
        """Bar chart of the summary (matplotlib Figure; never shown)."""
        from trtsafe_lab.logs.plots import plot_summary

        return plot_summary(self.summary(), ax=ax, title=self.name)

    def __repr__(self) -> str:
        fatal = int(self._failures["fatal"].sum()) if len(self._failures) else 0
        return f"LogAnalysis({self.name!r}: {len(self._failures)} failure rows, {fatal} fatal)"


def analyze_log(
    source: str | os.PathLike[str] | bytes,
    *,
    onnx_model: Any = None,
    text: bool = False,
) -> LogAnalysis:
    """Read a TensorRT build / parse / runtime log into tables.

    ``source`` is a path (default), the log text itself with ``text=True``, or the log content
    as ``bytes``. Any bytes are accepted (invalid UTF-8 is replaced, NULs and CR are kept or
    dropped as documented in :mod:`trtsafe_lab.logs.records`). A missing or unreadable file
    raises :class:`~trtsafe_lab.logs.source.LogReadError` naming the path.

    ``onnx_model`` (a path or an ``onnx.ModelProto``; needs the ``onnx`` extra) adds the ONNX
    op type, node index and the nodes a ``{ForeignNode[a...b]}`` range spans.
    """
    if text or isinstance(source, bytes | bytearray):
        parser = LogParser(keep_events=True)
        parser.feed_lines(iter_lines(source, text=text))
        parser.finish()
        failures = parser.failures_frame()
        events: pd.DataFrame | None = parser.events_frame()
    else:
        from trtsafe_lab.logs.scan import scan_failures

        failures = failures_frame(scan_failures(source))
        events = None
    if onnx_model is not None:
        from trtsafe_lab.logs.onnx import enrich

        failures = enrich(failures, onnx_model)
    return LogAnalysis(
        source, text=text, failures=failures, events=events, onnx_model=onnx_model
    )

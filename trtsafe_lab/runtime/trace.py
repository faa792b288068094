"""The runner's trace: one row per call, accepted or refused, as a pandas table."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import pandas as pd

from trtsafe_lab.runtime.safe_api import real_calls_of
from trtsafe_lab.runtime.states import State
from trtsafe_lab.runtime.status import Status

# Columns of the trace table, defined once.
COL_SEQ = "seq"
COL_ELAPSED_MS = "elapsed_ms"
COL_CALL = "call"
COL_STAGE = "stage"
COL_SLOT = "slot"
COL_STATE_BEFORE = "state_before"
COL_STATE_AFTER = "state_after"
COL_OUTCOME = "outcome"
COL_CATEGORY = "category"
COL_FATAL = "fatal"
COL_DIAGNOSTIC = "diagnostic"
COL_DURATION_MS = "duration_ms"
COL_LEGAL_AFTER = "legal_after"
COL_REAL_CALLS = "real_calls"
TRACE_COLUMNS = (
    COL_SEQ, COL_ELAPSED_MS, COL_CALL, COL_STAGE, COL_SLOT, COL_STATE_BEFORE, COL_STATE_AFTER,
    COL_OUTCOME, COL_CATEGORY, COL_FATAL, COL_DIAGNOSTIC, COL_DURATION_MS, COL_LEGAL_AFTER,
    COL_REAL_CALLS,
)

# Values of the outcome column.
OUTCOME_OK = "ok"  # the call did what it was asked
OUTCOME_REFUSED = "refused"  # a rule refused it (non-fatal); nothing changed
OUTCOME_FATAL = "fatal"  # this call hit a CUDA/TensorRT/executor error: containment begins
OUTCOME_CONTAINED = "contained"  # refused with the retained fatal status
REAL_OUTCOMES = (OUTCOME_OK, OUTCOME_FATAL)  # calls that did (start) their real work


@dataclass
class Trace:
    """Collects rows; :meth:`table` returns them.

    Columns: ``seq`` (call number from 0), ``elapsed_ms`` (start of the call since the runner
    was created), ``call``, ``stage``/``slot`` (run_stage and complete_context; else empty /
    -1), ``state_before``/``state_after`` (:class:`State` values), ``outcome`` (ok, refused,
    fatal, contained), ``category`` (status category), ``fatal`` (bool: the runner is in
    containment after this call), ``diagnostic`` (bounded text), ``duration_ms`` (wall time
    of the call, host clock), ``legal_after`` (the calls legal once it returned, joined
    with ", ") and ``real_calls`` (the ``nvinfer2::safe`` / CUDA calls NVIDIA's 11.1 safety
    samples make for this step, see :mod:`trtsafe_lab.runtime.safe_api`; empty for a refused
    call, which stands for none).
    """

    _origin: float = field(default_factory=time.perf_counter)
    _rows: list[dict[str, object]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def now(self) -> float:
        return time.perf_counter()

    def record(self, *, call: str, started: float, before: State, after: State,
               status: Status, outcome: str, fatal_now: bool, legal_after: tuple[str, ...],
               stage: str = "", slot: int = -1) -> None:
        end = time.perf_counter()
        with self._lock:
            self._append(started, end, call, before, after, status, outcome, fatal_now,
                         legal_after, stage, slot)

    def _append(self, started: float, end: float, call: str, before: State, after: State,
                status: Status, outcome: str, fatal_now: bool, legal_after: tuple[str, ...],
                stage: str, slot: int) -> None:
        self._rows.append({
            COL_SEQ: len(self._rows),
            COL_ELAPSED_MS: (started - self._origin) * 1e3,
            COL_CALL: call,
            COL_STAGE: stage,
            COL_SLOT: slot,
            COL_STATE_BEFORE: before.value,
            COL_STATE_AFTER: after.value,
            COL_OUTCOME: outcome,
            COL_CATEGORY: status.category.value,
            COL_FATAL: fatal_now,
            COL_DIAGNOSTIC: status.diagnostic,
            COL_DURATION_MS: (end - started) * 1e3,
            COL_LEGAL_AFTER: ", ".join(legal_after),
            COL_REAL_CALLS: ", ".join(real_calls_of(call)) if outcome in REAL_OUTCOMES else "",
        })

    def __len__(self) -> int:
        return len(self._rows)

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self._rows, columns=list(TRACE_COLUMNS))

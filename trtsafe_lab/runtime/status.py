"""Status values returned by every call of the safety runner.

The Edge-LLM safety runtime never throws across its API: each call returns a status carrying a
category, a bounded diagnostic and a fatal flag. :class:`Status` mirrors that. Rule violations
(a call in the wrong lifecycle state, an unknown stage, a second concurrent request) are refused
with a non-fatal status; a CUDA or TensorRT error reported by an executor is fatal, and the runner
keeps the first one and refuses every later call with it (see :mod:`trtsafe_lab.runtime.lifecycle`).

:func:`raise_for_status` turns a status into an exception, for notebooks where raising is more
convenient.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: Longest diagnostic kept, in characters; longer text is cut and ends with "…" (the real API
#: writes diagnostics into a fixed-size buffer, so they are bounded too).
DIAGNOSTIC_MAX_CHARS = 240


class Category(str, enum.Enum):
    """Why a call did not succeed (``OK`` when it did)."""

    OK = "ok"
    INVALID_SPEC = "invalid_spec"  # initialize(): the init spec breaks a rule
    INVALID_STATE = "invalid_state"  # the call is not legal in the current lifecycle state
    INVALID_ARGUMENT = "invalid_argument"  # unknown stage/slot, wrong resources, bad outputs
    SEALED = "sealed"  # allocation or binding asked for after prepare() sealed the executors
    REQUEST_ACTIVE = "request_active"  # another call is in flight: refused, not queued
    CUDA_ERROR = "cuda_error"  # fatal: a CUDA driver/runtime call failed
    TENSORRT_ERROR = "tensorrt_error"  # fatal: TensorRT reported an error
    EXECUTOR_ERROR = "executor_error"  # fatal: an executor failed (e.g. the CPU test double)


#: Categories that always make a status fatal.
FATAL_CATEGORIES = frozenset(
    {Category.CUDA_ERROR, Category.TENSORRT_ERROR, Category.EXECUTOR_ERROR}
)


def bound_diagnostic(text: str, limit: int = DIAGNOSTIC_MAX_CHARS) -> str:
    """Collapse whitespace and cut ``text`` to at most ``limit`` characters.

    >>> bound_diagnostic("a  b\\n c")
    'a b c'
    >>> len(bound_diagnostic("x" * 1000))
    240
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class Status:
    """Outcome of one runner call: ``category`` (``OK`` on success), a bounded ``diagnostic``,
    ``fatal`` (True for CUDA/TensorRT/executor errors) and the ``call`` that produced it."""

    category: Category = Category.OK
    diagnostic: str = ""
    fatal: bool = False
    call: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "diagnostic", bound_diagnostic(self.diagnostic))
        if self.category in FATAL_CATEGORIES and not self.fatal:
            object.__setattr__(self, "fatal", True)
        if self.category is Category.OK and self.fatal:
            raise ValueError("an OK status cannot be fatal")

    @property
    def ok(self) -> bool:
        return self.category is Category.OK

    def __str__(self) -> str:
        if self.ok:
            return f"{self.call or 'call'}: ok"
        kind = "FATAL " if self.fatal else ""
        return f"{self.call or 'call'}: {kind}{self.category.value}: {self.diagnostic}"


def ok(call: str) -> Status:
    """The success status of ``call``."""
    return Status(Category.OK, "", False, call)


def refused(call: str, category: Category, diagnostic: str) -> Status:
    """A non-fatal refusal of ``call``."""
    return Status(category, diagnostic, False, call)


class SafetyRuntimeError(RuntimeError):
    """Raised by :func:`check` for a status that is not OK; ``.status`` holds it."""

    def __init__(self, status: Status) -> None:
        super().__init__(str(status))
        self.status = status


def raise_for_status(status: Status) -> Status:
    """Return ``status`` when it is OK, else raise :class:`SafetyRuntimeError` (notebook use).

    >>> raise_for_status(ok("prepare")).ok
    True
    """
    if not status.ok:
        raise SafetyRuntimeError(status)
    return status

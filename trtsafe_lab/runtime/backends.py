"""Where the runner gets streams and IO memory: a backend, with a ledger of every handle.

:class:`InProcessBackend` hands out host buffers and stream tokens (CPU, for tests and the
``--cpu`` demo); :class:`trtsafe_lab.runtime.cuda_backend.CudaBackend` creates real CUDA streams
and device memory. Both go through :class:`HandleLedger`, which records each creation and
destruction by handle and refuses new allocations once sealed, so a test can show that a run —
fatal or not — leaves no stream or buffer alive, and that nothing was allocated after seal.
"""

from __future__ import annotations

import ctypes
import itertools
from dataclasses import dataclass, field
from typing import Literal, Protocol

import pandas as pd

from trtsafe_lab.runtime.executors import Buffer

ResourceKind = Literal["stream", "buffer"]

# Columns of HandleLedger.table(), defined once.
COL_SEQ = "seq"
COL_KIND = "kind"
COL_HANDLE = "handle"
COL_ACTION = "action"
COL_NBYTES = "nbytes"
COL_LABEL = "label"
LEDGER_COLUMNS = (COL_SEQ, COL_KIND, COL_HANDLE, COL_ACTION, COL_NBYTES, COL_LABEL)


class SealedError(RuntimeError):
    """An allocation or stream creation was asked for after the runner sealed its resources."""


class Backend(Protocol):
    """Creates and destroys the runner's streams and IO buffers (raising DeviceError on a
    CUDA failure). ``on_gpu`` says whether handles are CUDA objects."""

    name: str
    on_gpu: bool

    def create_stream(self) -> int: ...

    def destroy_stream(self, handle: int) -> None: ...

    def synchronize(self, handle: int) -> None: ...

    def allocate(self, nbytes: int, label: str) -> Buffer: ...

    def free(self, buffer: Buffer) -> None: ...


@dataclass
class HandleLedger:
    """Every stream and buffer the runner created or destroyed, by handle.

    ``live(kind)`` lists handles alive now; ``destroyed(kind)`` those released; ``table()`` the
    history with columns seq, kind ("stream"/"buffer"), handle (int), action
    ("created"/"destroyed"), nbytes (buffers; 0 for streams) and label (what it is for).
    """

    sealed: bool = False
    _rows: list[tuple[int, str, int, str, int, str]] = field(default_factory=list)
    _live: dict[tuple[str, int], tuple[int, str]] = field(default_factory=dict)

    def created(self, kind: ResourceKind, handle: int, nbytes: int = 0, label: str = "") -> None:
        if (kind, handle) in self._live:
            raise RuntimeError(f"{kind} handle {handle:#x} created twice without a destroy")
        self._live[(kind, handle)] = (nbytes, label)
        self._rows.append((len(self._rows), kind, handle, "created", nbytes, label))

    def destroyed_now(self, kind: ResourceKind, handle: int) -> None:
        nbytes, label = self._live.pop((kind, handle))
        self._rows.append((len(self._rows), kind, handle, "destroyed", nbytes, label))

    def require_unsealed(self, what: str) -> None:
        if self.sealed:
            raise SealedError(f"{what} after prepare() sealed the runner: all streams and IO "
                              "are created in initialize(); nothing is allocated afterwards")

    def live(self, kind: ResourceKind) -> list[int]:
        return [h for (k, h) in self._live if k == kind]

    def destroyed(self, kind: ResourceKind) -> list[int]:
        return [h for (_, k, h, action, _, _) in self._rows if k == kind and action == "destroyed"]

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self._rows, columns=list(LEDGER_COLUMNS))


@dataclass
class InProcessBackend:
    """CPU backend for the in-process executor: stream tokens are plain counters (there is no
    stream; work runs in the calling thread) and buffers are zeroed host bytearrays."""

    name: str = "in-process CPU backend (no GPU)"
    on_gpu: bool = False
    _tokens: itertools.count[int] = field(default_factory=lambda: itertools.count(0x1000))
    _buffers: dict[int, bytearray] = field(default_factory=dict)

    def create_stream(self) -> int:
        return next(self._tokens)

    def destroy_stream(self, handle: int) -> None:
        return None

    def synchronize(self, handle: int) -> None:
        return None

    def allocate(self, nbytes: int, label: str) -> Buffer:
        host = bytearray(nbytes)
        # A stable host address; for an empty tensor, a unique token instead.
        address = (ctypes.addressof((ctypes.c_char * nbytes).from_buffer(host)) if nbytes
                   else next(self._tokens))
        self._buffers[address] = host
        return Buffer(address, nbytes, host, label)

    def free(self, buffer: Buffer) -> None:
        del self._buffers[buffer.address]

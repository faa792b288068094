"""The flags trtexec / trtexec_safe accept, per TensorRT version, as NVIDIA's sources define them.

The tables are derived from NVIDIA's TensorRT OSS sources by
``python -m trtsafe_lab.trtexec._tables.derive`` (trtexec: ``samples/common/sampleOptions.cpp``;
trtexec_safe: ``samples/trtSafeExec/trtSafeExec.cpp``; 10.16 and 11.1 from the sources, 11.3 and
11.4 = 11.1 plus the migration guide's companion-``.so`` flags) and shipped as package data. A
test re-derives them from ``../shared/reference`` and fails on drift.

:func:`load_table` picks the table for a tool and version; :meth:`FlagTable.frame` returns it as
a DataFrame with one row per flag: ``key`` (``--saveEngine``), ``takes_value``, ``value_kind``
(switch / int / int64 / size / float / float_size / string / choice / plugin_spec / spec),
``default`` (as the help prints it), ``status`` (active / deprecated / no-op / removed),
``repeatable``, ``max_count`` (reads of a non-repeatable flag), ``choices``, ``error`` and
``log_line`` (the messages of a rejected value), ``help``, ``source`` (file:line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from trtsafe_lab.trtexec.options import TOOLS
from trtsafe_lab.trtexec.version import TrtVersion

TABLE_VERSIONS = (TrtVersion(10, 16), TrtVersion(11, 1), TrtVersion(11, 3), TrtVersion(11, 4))


@dataclass
class FlagSpec:
    """One flag as the tool's parser reads it (one row of a table; treat as read-only).

    ``key`` is the argv text before ``=`` (``--saveEngine``, ``-h``); ``takes_value`` says whether
    the parser reads a value; ``value_kind`` is how it converts it: ``switch`` (no value; trtexec
    ignores any ``=value``, trtexec_safe rejects it), ``int`` (``std::stoi``), ``int64``
    (``std::stoll``), ``size`` (``stoi`` times a B/K/M/G suffix), ``float`` (``std::stof``),
    ``float_size`` (``std::stod`` times a suffix), ``string``, ``choice`` (a string compared
    with ``choices``; empty = unset), ``plugin_spec`` (``--safetyPlugins``:
    ``lib[ns::name,...]``, safeCommon.h ``parseSafetyPluginArgument``) or ``spec`` (a
    structured list checked by the tool).
    ``status``: ``active``, ``deprecated`` (works, warns), ``no-op`` (accepted, does nothing),
    ``removed`` (the parser no longer reads it: the tool rejects it). ``error``: the start of the
    message a bad ``choice`` gets (the value follows). ``repeatable``: read in a loop (each
    occurrence counts); otherwise the parser reads it ``max_count`` times and a further
    occurrence is left over (trtexec: ``Unknown option``). ``error``: also the start of the
    message a bad ``plugin_spec`` gets; ``log_line``: the line (no log prefix) its parser first
    writes to stderr, the value follows. ``source`` is ``<file>:<line>`` of the
    read; ``condition`` a preprocessor guard around it. Written by
    ``python -m trtsafe_lab.trtexec._tables.derive``.
    """

    key: str
    takes_value: bool
    value_kind: str
    default: str = ""
    help: str = ""
    status: str = "active"
    repeatable: bool = False
    max_count: int = 1
    choices: tuple[str, ...] | list[str] = ()
    choices_ignore_case: bool = False
    error: str = ""
    log_line: str = ""
    condition: str = ""
    source: str = ""
    note: str = ""

    @property
    def name(self) -> str:
        return self.key.lstrip("-")

    @property
    def accepted(self) -> bool:
        """The parser reads it (every status but ``removed``)."""
        return self.status != "removed"


@dataclass(frozen=True)
class FlagTable:
    """The flag table of one tool at one table version (``version`` may be the nearest one to
    the version asked for: ``requested``)."""

    tool: str
    version: TrtVersion
    requested: TrtVersion
    derived_from: tuple[str, ...]
    deltas: tuple[dict[str, Any], ...]
    flags: dict[str, FlagSpec] = field(repr=False)

    @property
    def exact(self) -> bool:
        """True when the table is for the requested major.minor."""
        return (self.version.major, self.version.minor) == (self.requested.major,
                                                           self.requested.minor)

    def get(self, key: str) -> FlagSpec | None:
        return self.flags.get(key)

    def accepted_keys(self) -> list[str]:
        return [k for k, spec in self.flags.items() if spec.accepted]

    def describe(self) -> str:
        """``trtexec 11.4 table (from ...)``: what a finding was checked against."""
        note = "" if self.exact else f"; nearest table to {self.requested}"
        sources = ", ".join(self.derived_from)
        if self.deltas:
            sources += f" + {len(self.deltas)} migration-guide change(s)"
        return f"{self.tool} {_short(self.version)} flag table ({sources}{note})"

    def frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame([vars(spec) for spec in self.flags.values()])


def _short(version: TrtVersion) -> str:
    return f"{version.major}.{version.minor}"


def table_version(version: TrtVersion) -> TrtVersion:
    """The table used for ``version``: the newest table at or below it, else the oldest."""
    key = (version.major, version.minor)
    below = [v for v in TABLE_VERSIONS if (v.major, v.minor) <= key]
    return below[-1] if below else TABLE_VERSIONS[0]


@lru_cache(maxsize=16)
def _read(tool: str, version: str) -> dict[str, Any]:
    name = f"{tool}-{version}.json"
    text = resources.files("trtsafe_lab.trtexec._tables").joinpath(name).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def load_table(tool: str, version: TrtVersion) -> FlagTable:
    """The flag table of ``tool`` (``trtexec`` or ``trtexec_safe``) for ``version``."""
    if tool not in TOOLS:
        raise ValueError(f"no flag table for tool {tool!r}; expected one of {TOOLS}")
    chosen = table_version(version)
    data = _read(tool, _short(chosen))
    flags = {}
    for row in data["flags"]:
        row = dict(row, choices=tuple(row.get("choices", ())))
        spec = FlagSpec(**row)
        flags[spec.key] = spec
    return FlagTable(tool, chosen, version, tuple(data["derived_from"]),
                     tuple(data.get("deltas", ())), flags)

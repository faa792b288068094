"""A recording TEST DOUBLE of the few ``tensorrt`` names the builder path uses -- NOT TensorRT.

It accepts the calls :mod:`trtsafe_lab.engine.builder` makes, records every config setting,
and during ``build_serialized_network`` drives the registered progress monitor and logger with
messages replayed from a real corpus log. Enough to check the wiring, nothing about TensorRT.
"""

from __future__ import annotations

import enum
from pathlib import Path
from types import SimpleNamespace
from typing import Any


class EngineCapability(enum.IntEnum):
    STANDARD = 0
    SAFETY = 1
    DLA_STANDALONE = 2


class ProfilingVerbosity(enum.IntEnum):
    LAYER_NAMES_ONLY = 0
    NONE = 1
    DETAILED = 2


class Severity(enum.IntEnum):
    INTERNAL_ERROR = 0
    ERROR = 1
    WARNING = 2
    INFO = 3
    VERBOSE = 4


class ILogger:
    def __init__(self) -> None:
        pass


class IProgressMonitor:
    def __init__(self) -> None:
        pass


class HostMemory(bytes):
    """Stands in for IHostMemory (buffer protocol)."""


class TimingCache:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def serialize(self) -> HostMemory:
        return HostMemory(self.data + b"+entry")


class Config:
    def __init__(self) -> None:
        self.settings: dict[str, Any] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "settings":
            self.settings[name] = value
        object.__setattr__(self, name, value)

    def create_timing_cache(self, data: bytes) -> TimingCache:
        self.settings["timing_cache_bytes_in"] = bytes(data)
        return TimingCache(bytes(data))

    def set_timing_cache(self, cache: TimingCache, ignore_mismatch: bool) -> bool:
        self.settings["timing_cache"] = cache
        return True


def make_double(log_lines: list[str], succeed: bool, steps: int = 4) -> SimpleNamespace:
    """A ``tensorrt`` stand-in replaying ``log_lines`` (severity from ``[E]``/``[W]``/...)."""
    state: dict[str, Any] = {}

    class Builder:
        def __init__(self, logger: ILogger) -> None:
            self.logger = logger
            state["builder"] = self

        def create_network(self, flags: int = 0) -> object:
            return object()

        def create_builder_config(self) -> Config:
            state["config"] = Config()
            return state["config"]

        def build_serialized_network(self, network: object, config: Config) -> HostMemory | None:
            monitor = config.progress_monitor
            monitor.phase_start("Building", None, steps)
            for step in range(steps):
                if not monitor.step_complete("Building", step):
                    return None
            monitor.phase_finish("Building")
            for line in log_lines:
                letter = next((c for c in "FEWIV" if f"[{c}]" in line), "I")
                self.logger.log(Severity("FEWIV".index(letter)), line.split(f"[{letter}] ", 1)[-1])
            return HostMemory(b"double engine bytes") if succeed else None

    class OnnxParser:
        def __init__(self, network: object, logger: ILogger) -> None:
            pass

        def parse_from_file(self, path: str) -> bool:
            state["parsed"] = Path(path)
            return True

    return SimpleNamespace(
        __version__="11.4.0.106-TEST-DOUBLE", Builder=Builder, OnnxParser=OnnxParser,
        ILogger=ILogger, IProgressMonitor=IProgressMonitor, EngineCapability=EngineCapability,
        ProfilingVerbosity=ProfilingVerbosity, state=state,
    )

"""trtexec / trtexec_safe commands as data: typed options in, argv out.

A command is the tool name plus an ordered list of :class:`Flag`. Typed
:class:`TrtexecOptions` cover the flags this toolkit reasons about; anything else passes
through ``extra`` (raw ``--name[=value]`` strings) untouched. The same flag list is what the
11.x rules in :mod:`trtsafe_lab.trtexec.rules` check, whether it came from typed options or
from a command line typed after ``trtsafe-lab build --``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from trtsafe_lab.trtexec.version import TrtVersion

TOOLS = ("trtexec", "trtexec_safe")

# Flags whose value is a file the tool writes (relative ones are placed in the run directory).
OUTPUT_PATH_FLAGS = (
    "saveEngine",
    "saveEngineSo",
    "exportTimes",
    "exportProfile",
    "exportLayerInfo",
    "exportOutput",
)
# Flags whose value is a file the tool reads (or reads and updates: the timing cache); relative
# ones are recorded resolved against the caller's cwd, where the tool runs.
INPUT_PATH_FLAGS = ("onnx", "loadEngine", "loadEngineSo", "timingCacheFile")


@dataclass(frozen=True)
class Flag:
    """One trtexec flag: ``--name`` (value None) or ``--name=value``."""

    name: str
    value: str | None = None

    def to_arg(self) -> str:
        return f"--{self.name}" if self.value is None else f"--{self.name}={self.value}"

    @classmethod
    def parse(cls, arg: str) -> Flag:
        """Parse ``--name`` or ``--name=value``; anything else is refused with the fix."""
        if not arg.startswith("--") or len(arg) < 3:
            raise ValueError(
                f"trtexec argument {arg!r} is not of the form --name or --name=value "
                "(trtexec takes values after '=', e.g. --saveEngine=model.engine)"
            )
        name, sep, value = arg[2:].partition("=")
        return cls(name, value if sep else None)


def tool_kind_of(tool: str) -> str:
    """``trtexec_safe`` when the file name of ``tool`` (a name on PATH or a path) starts with
    ``trtexec_safe``, else ``trtexec``."""
    return "trtexec_safe" if Path(tool).name.startswith("trtexec_safe") else "trtexec"


def parse_flags(args: Iterable[str]) -> list[Flag]:
    """Parse a trtexec command line (without the tool name) into flags, in order."""
    return [Flag.parse(arg) for arg in args]


@dataclass(frozen=True)
class TrtexecCommand:
    """What to run: ``tool`` (a name on PATH or a path), its flags and the TensorRT version."""

    tool: str
    flags: tuple[Flag, ...]
    version: TrtVersion

    @property
    def tool_kind(self) -> str:
        """``trtexec`` or ``trtexec_safe``, from the tool's file name (:func:`tool_kind_of`)."""
        return tool_kind_of(self.tool)

    def argv(self) -> list[str]:
        return [self.tool, *(flag.to_arg() for flag in self.flags)]

    def has(self, name: str) -> bool:
        return any(flag.name == name for flag in self.flags)

    def value(self, name: str) -> str | None:
        """The value of the last ``--name=value`` (trtexec keeps the last), or None."""
        values = [flag.value for flag in self.flags if flag.name == name]
        return values[-1] if values else None

    @property
    def is_safe(self) -> bool:
        """A safe build or run: ``--safe`` given, or the tool is trtexec_safe."""
        return self.tool_kind == "trtexec_safe" or self.has("safe")

    def replace_values(self, new_values: dict[str, str]) -> TrtexecCommand:
        """A copy with the values of the named flags replaced (all occurrences)."""
        flags = tuple(
            Flag(f.name, new_values[f.name]) if f.name in new_values else f for f in self.flags
        )
        return TrtexecCommand(self.tool, flags, self.version)


@dataclass
class TrtexecOptions:
    """Typed trtexec options for the flags this toolkit reasons about.

    Paths may be relative; :meth:`to_command` keeps them as given. ``max_aux_streams`` None
    leaves the builder heuristics in charge; 0 forces a single stream.
    """

    onnx: Path | None = None
    save_engine: Path | None = None
    save_engine_so: Path | None = None
    load_engine: Path | None = None
    load_engine_so: Path | None = None
    safe: bool = False
    timing_cache_file: Path | None = None
    max_aux_streams: int | None = None
    profiling_verbosity: str | None = None
    export_times: Path | None = None
    export_profile: Path | None = None
    export_layer_info: Path | None = None
    skip_inference: bool = False
    remote_auto_tuning_config: str | None = None
    cpu_only: bool = False
    verbose: bool = False
    extra: Sequence[str] = field(default_factory=tuple)

    def to_flags(self) -> list[Flag]:
        valued: list[tuple[str, object]] = [
            ("onnx", self.onnx),
            ("saveEngine", self.save_engine),
            ("saveEngineSo", self.save_engine_so),
            ("loadEngine", self.load_engine),
            ("loadEngineSo", self.load_engine_so),
            ("timingCacheFile", self.timing_cache_file),
            ("maxAuxStreams", self.max_aux_streams),
            ("profilingVerbosity", self.profiling_verbosity),
            ("exportTimes", self.export_times),
            ("exportProfile", self.export_profile),
            ("exportLayerInfo", self.export_layer_info),
            ("remoteAutoTuningConfig", self.remote_auto_tuning_config),
        ]
        switches = [
            ("safe", self.safe),
            ("skipInference", self.skip_inference),
            ("cpuOnly", self.cpu_only),
            ("verbose", self.verbose),
        ]
        flags = [Flag(name, str(value)) for name, value in valued if value is not None]
        flags += [Flag(name) for name, on in switches if on]
        return flags + parse_flags(self.extra)

    def to_command(self, version: TrtVersion, tool: str = "trtexec") -> TrtexecCommand:
        return TrtexecCommand(tool, tuple(self.to_flags()), version)

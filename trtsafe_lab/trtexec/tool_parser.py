"""What the real trtexec / trtexec_safe parsers do with an argv, from NVIDIA's sources.

:func:`real_parse` follows trtexec (``sampleOptions.cpp`` ``argsToArgumentsMap`` +
``AllOptions::parse``, driven by ``parseArgs`` in ``trtexec.cpp``) and trtexec_safe
(``parseSafeExecArgs`` in ``trtSafeExec.cpp``) over the source-derived flag tables
(:mod:`trtsafe_lab.trtexec.flag_table`): accepted or not, the exit status and the error lines.
The test doubles use it to fail exactly like the tools; :mod:`trtsafe_lab.trtexec.flag_check`
builds the toolkit's stricter check on the same pieces (``std::`` conversions, the
``--safetyPlugins`` grammar, choice matching).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from trtsafe_lab.trtexec.flag_table import FlagSpec, FlagTable

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
# std::map<char, ...> kUNIT_MULTIPLIERS in sampleOptions.cpp, in key order.
UNIT_SUFFIXES = "B (Bytes), G (Gibibytes), K (Kibibytes), M (Mebibytes)"


def split_arg(arg: str) -> tuple[str, str | None]:
    """``--name=value`` -> (``--name``, ``value``); no ``=`` -> (arg, None)."""
    key, sep, value = arg.partition("=")
    return key, (value if sep else None)


# --------------------------------------------------------------------------- std:: conversions

_STOI_RE = re.compile(r"\s*[+-]?\d+")
_STOF_RE = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.I)


class _ConversionError(Exception):
    """What a C++ std:: conversion throws: ``kind`` invalid_argument/out_of_range, ``what``."""

    def __init__(self, kind: str, what: str) -> None:
        super().__init__(what)
        self.kind = kind
        self.what = what


def _stoi(text: str, name: str = "stoi", bounds: tuple[int, int] = INT32) -> int:
    match = _STOI_RE.match(text)
    if match is None:
        raise _ConversionError("invalid_argument", name)
    value = int(match.group().strip())
    if not bounds[0] <= value <= bounds[1]:
        raise _ConversionError("out_of_range", name)
    return value


def _stof(text: str, name: str = "stof") -> None:
    """Raise as ``std::stof``/``std::stod`` would when ``text`` starts with no number (only the
    rejection is modelled: the parsed value is never used here)."""
    if _STOF_RE.match(text) is None:
        raise _ConversionError("invalid_argument", name)


def _unit(option: str) -> None:
    """sampleOptions.cpp ``getUnitMultiplier``: a non-digit last char must be B/K/M/G."""
    last = option[-1:]
    if last and not last.isdigit() and last.upper() not in "BKMG":
        raise _ConversionError(
            "invalid_argument",
            f"Error parsing \"{option}\": invalid unit specifier '{last.upper()}'. Valid base-2 "
            f"unit suffixes include: {UNIT_SUFFIXES}.")


def _trtexec_convert(spec: FlagSpec, value: str) -> None:
    """Raise :class:`_ConversionError` where trtexec's ``stringToValue`` would throw."""
    kind = spec.value_kind
    if kind == "int":
        _stoi(value)
    elif kind == "int64":
        _stoi(value, bounds=INT64)
    elif kind == "size":
        _stoi(value)
        _unit(value)
    elif kind == "float":
        _stof(value)
    elif kind == "float_size":
        _stof(value, "stod")
        _unit(value)
    elif kind == "choice" and value and not in_choices(spec, value):
        prefix = spec.error or f"Unknown {spec.name}: "
        raise _ConversionError("invalid_argument", prefix + value)
    elif kind == "plugin_spec" and safety_plugin_problem(value):
        raise _ConversionError("invalid_argument", spec.error + value)


def safety_plugin_problem(value: str) -> str:
    """Why ``parseSafetyPluginArgument`` (samples/common/safeCommon.h, both tools'
    ``--safetyPlugins``) rejects ``value``; '' when it accepts it. It needs a ``[`` and a ``]``
    (the first of each, ``[`` first) and a library name before the ``[``."""
    left, right = value.find("["), value.find("]")
    if left < 0 or right < 0:
        return f"no '[' ... ']' plugin list in {value!r}"
    if left > right:
        return f"the first ']' comes before the first '[' in {value!r}"
    if left == 0:
        return f"no library name before '[' in {value!r}"
    return ""


def safety_plugin_ignored(value: str) -> list[str]:
    """What ``parseSafetyPluginArgument`` silently drops from a value it accepts: text after
    the first ``]`` (a second library in the same value) and entries with no plugin name."""
    left, right = value.find("["), value.find("]")
    dropped = []
    if value[right + 1:]:
        dropped.append(f"the text after the first ']' ({value[right + 1:]!r})")
    # safeSplitString(',') then "ns::name" -> name; empty names are skipped.
    names = [entry.partition("::")[2] if "::" in entry else entry
             for entry in value[left + 1:right].split(",")]
    if not any(names):
        dropped.append("the plugin list, which names no plugin")
    elif not all(names):
        dropped.append("the empty plugin name(s) in the list")
    return dropped


def in_choices(spec: FlagSpec, value: str) -> bool:
    """``value`` is one of ``spec``'s choices (ignoring case where the tool does)."""
    if spec.choices_ignore_case:
        return value.lower() in {c.lower() for c in spec.choices}
    return value in spec.choices


# --------------------------------------------------------------------------- the real tools

@dataclass
class RealParse:
    """What the real tool does with an argv (before it touches a GPU).

    ``accepted``: parsing succeeded and the tool goes on to run; ``help``: it prints its help and
    exits 0; else it stops: ``exit_code`` (1, or ``-6`` for trtexec_safe's uncaught ``std::stoi``
    exception, which aborts) and ``errors``: the error lines without the log timestamp
    (``[E] Unknown option: --frobnicate ``); ``warnings`` likewise. ``failed_banner``: the tool
    prints ``&&&& FAILED`` (trtexec's uncaught exceptions). Modelled: unknown and left-over
    (repeated) options, value conversions, "Model missing", load+save together; not modelled:
    the other cross-flag checks of ``AllOptions::parse``. With several problems, trtexec reports
    the first in its parser's order, which may differ from the one reported here (argv order).
    """

    accepted: bool
    exit_code: int = 0
    help: bool = False
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    print_help: bool = False
    failed_banner: bool = False
    stderr_extra: list[str] = field(default_factory=list)


def real_parse(table: FlagTable, argv: Sequence[str]) -> RealParse:
    """Parse ``argv`` (without the program name) as the real ``table.tool`` would."""
    if table.tool == "trtexec_safe":
        return _real_trtexec_safe(table, argv)
    return _real_trtexec(table, argv)


def _real_trtexec(table: FlagTable, argv: Sequence[str]) -> RealParse:
    pairs = [split_arg(a) for a in argv]
    keys = [k for k, _ in pairs]
    if "--help" in keys or "-h" in keys:  # parseHelp() runs first
        return RealParse(False, 0, help=True, print_help=True)
    if not pairs:  # parseArgs: no arguments -> help, exit 0
        return RealParse(False, 0, help=True, print_help=True)
    warnings: list[str] = []
    used: dict[str, int] = {}
    leftover: list[tuple[str, str]] = []
    for key, value in pairs:
        spec = table.get(key)
        if spec is None or not spec.accepted:
            leftover.append((key, value or ""))
            continue
        used[key] = used.get(key, 0) + 1
        if not spec.repeatable and used[key] > spec.max_count:
            leftover.append((key, value or ""))
            continue
        if spec.takes_value:
            try:
                _trtexec_convert(spec, value or "")
            except _ConversionError as err:
                if err.kind == "out_of_range":  # not caught by parseArgs: trtexecMain's catch
                    return RealParse(False, 1, errors=[
                        f"Uncaught exception detected: {err.what}"], failed_banner=True)
                logged = ([spec.log_line + (value or "")]
                          if spec.value_kind == "plugin_spec" else [])
                return RealParse(False, 1, errors=[err.what], print_help=True,
                                 stderr_extra=logged)
        if spec.status in ("no-op", "deprecated") and spec.help:
            warnings.append(f"{key}: {spec.help}")
    present = set(used)
    if "--onnx" not in present and "--loadEngine" not in present:
        return RealParse(False, 1, errors=["Model missing or format not recognized"],
                         print_help=True, warnings=warnings)
    if "--saveEngine" in present and "--loadEngine" in present:
        return RealParse(False, 1, errors=["Incompatible load and save engine options selected"],
                         print_help=True, warnings=warnings)
    if leftover:
        return RealParse(False, 1, errors=[f"Unknown option: {k} {v}" for k, v in leftover],
                         print_help=True, warnings=warnings)
    return RealParse(True, 0, warnings=warnings)


def _real_trtexec_safe(table: FlagTable, argv: Sequence[str]) -> RealParse:
    warnings: list[str] = []
    engine = False
    wants_help = False
    for arg in argv:
        key, value = split_arg(arg)
        spec = table.get(key)
        ok = spec is not None and spec.accepted and (
            (spec.takes_value and value is not None) or (not spec.takes_value and value is None))
        if not ok or spec is None:
            return RealParse(False, 1, errors=[f"Invalid Argument: {arg}"], print_help=True,
                             warnings=warnings)
        if spec.takes_value and spec.value_kind in ("int", "int64", "float"):
            try:
                if spec.value_kind == "float":
                    _stof(value or "")
                else:
                    _stoi(value or "", "stoll" if spec.value_kind == "int64" else "stoi",
                          INT64 if spec.value_kind == "int64" else INT32)
            except _ConversionError as err:  # not caught in parseSafeExecArgs: std::terminate
                return RealParse(False, -6, stderr_extra=[
                    f"terminate called after throwing an instance of 'std::{err.kind}'",
                    f"  what():  {err.what}"])
        if spec.value_kind == "plugin_spec" and safety_plugin_problem(value or ""):
            # parseSafetyPluginLibrary logs and returns false; no later branch takes the arg
            return RealParse(False, 1, errors=[spec.error + (value or ""),
                                               f"Invalid Argument: {arg}"], print_help=True,
                             warnings=warnings, stderr_extra=[spec.log_line + (value or "")])
        if key == "--ioProfileId" and value is not None and _stoi(value, bounds=INT64) < 0:
            return RealParse(False, 1, errors=[f"Invalid ioProfileId (must be >= 0): {value}"],
                             print_help=True)
        if key == "--loadEngine":  # 10.16 counts any --loadEngine; 11.x needs a file name
            engine = not table.version.is_11x or bool(value)
        if key == "--loadInputs" and value and not any(":" in p for p in value.split(",")):
            # parseLoadInputs skips pairs without ':'; nothing left -> the parser fails
            return RealParse(False, 1, errors=[f"Invalid loadInputs format: {value}"],
                             print_help=True, warnings=warnings)
        if key in ("--help", "-h"):
            wants_help = True
        if spec.status in ("no-op", "deprecated") and spec.help:
            warnings.append(f"{key}: {spec.help}")
    if not engine and not wants_help:
        return RealParse(False, 1, errors=["Engine file is required."], print_help=True,
                         warnings=warnings)
    if wants_help:
        return RealParse(False, 0, help=True, print_help=True, warnings=warnings)
    return RealParse(True, 0, warnings=warnings)

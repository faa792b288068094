"""Command lines -> findings: the trtexec / trtexec_safe flag rules and ship (copy) steps.

Every front end (shell, Makefile, CMake, CI YAML, Python subprocess lists) turns its text into
argv lists of :class:`~trtsafe_lab.migrate.words.Word` and hands them to
:func:`analyse_command`. Copy / install / package steps are returned as :class:`ShipStep` so
that ``companion-so-not-shipped`` can be decided once the whole file (and the scan's safety
evidence) is known.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

from trtsafe_lab.migrate.rules import MigrationFinding, make_finding
from trtsafe_lab.migrate.words import Word
from trtsafe_lab.trtexec.rules import (
    COMPANION_SO_FLAGS,
    DEPRECATED_SAFE_FLAGS,
    REMOVED_PRECISION_FLAGS,
)

TRTEXEC = "trtexec"
TRTEXEC_SAFE = "trtexec_safe"
# One source of truth for the 11.x flag facts: the builds job's trtexec rules.
PRECISION_FLAGS = tuple(REMOVED_PRECISION_FLAGS)
SAFE_DEPRECATED_FLAGS = tuple(DEPRECATED_SAFE_FLAGS)
OVERLAY = "/nvidia_overlay"
ENGINE_SUFFIXES = (".engine", ".plan")
_SHIP_PROGRAMS = {"cp", "install", "rsync", "scp", "tar", "zip", "7z"}
_CMAKE_COPY = {"copy", "copy_if_different", "tar"}
_GENERATOR_TARGET = re.compile(r"\$<TARGET_FILE(?:_NAME)?:(?P<target>[^>]+)>")


@dataclass(frozen=True)
class ShipStep:
    """A copy / install / package step: the engines and .so files it ships."""

    line: int
    tool: str
    engines: tuple[Word, ...]
    libraries: tuple[Word, ...]


@dataclass(frozen=True)
class PartialParse:
    """A file tree-sitter parsed only in part: where the first error is and how many."""

    file: str
    line: int  # 1-based line of the first syntax error
    places: int  # number of error / missing nodes
    language: str  # "C++", "CUDA" or "CMake"


@dataclass
class CommandFacts:
    """What one file (or one command) showed: findings, ship steps, declared companion .so
    names and whether it uses the safety stack."""

    findings: list[MigrationFinding] = field(default_factory=list)
    ship_steps: list[ShipStep] = field(default_factory=list)
    companions: dict[str, str] = field(default_factory=dict)  # engine path -> companion .so
    safety: bool = False  # a safe build or safe runtime was seen
    # Files parsed only in part (tree-sitter recovered and checked the rest): a scan turns these
    # into one ``file-unparsable`` finding, not one per file.
    partial: list[PartialParse] = field(default_factory=list)

    def extend(self, other: CommandFacts) -> None:
        self.findings.extend(other.findings)
        self.partial.extend(other.partial)
        self.ship_steps.extend(other.ship_steps)
        self.companions.update(other.companions)
        self.safety = self.safety or other.safety


def program_name(word: Word) -> str:
    """``/opt/trt/bin/trtexec`` -> ``trtexec``; ``$<TARGET_FILE:trtexec>`` -> ``trtexec``."""
    text = word.text.strip("'\"")
    target = _GENERATOR_TARGET.fullmatch(text)
    if target:
        text = target.group("target")
    name = text.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


def is_engine_path(text: str) -> bool:
    return text.strip("'\"").lower().endswith(ENGINE_SUFFIXES)


def is_library_path(text: str) -> bool:
    return text.strip("'\"").endswith(".so")


def _options(argv: list[Word]) -> list[tuple[str, str | None, Word]]:
    out: list[tuple[str, str | None, Word]] = []
    for word in argv[1:]:
        text = word.text
        if text.startswith("--") and len(text) > 2:
            name, eq, value = text[2:].partition("=")
            out.append((name, value if eq else None, word))
    return out


def remote_paths_outside_overlay(config: str) -> list[str]:
    """``key=value`` pairs of a remoteAutoTuningConfig whose remote path is not in the overlay."""
    query = urlsplit(config).query if "://" in config else config.partition("?")[2]
    bad: list[str] = []
    for key, value in parse_qsl(query, keep_blank_values=True):
        if not key.endswith("_path") or "$" in value or not value:
            continue
        if value != OVERLAY and not value.startswith(OVERLAY + "/"):
            bad.append(f"{key}={value}")
    return bad


def _check_trtexec(argv: list[Word], name: str, file: str, facts: CommandFacts) -> None:
    options = _options(argv)
    names = {opt for opt, _, _ in options}
    safe = name == TRTEXEC_SAFE or "safe" in names
    facts.safety = facts.safety or safe
    for opt, value, word in options:
        if opt == "restricted":
            facts.findings.append(
                make_finding("restricted-removed-11x", file, word.line, "--restricted")
            )
        elif opt in PRECISION_FLAGS and (value is None or opt == "calib"):
            facts.findings.append(
                make_finding(
                    "precision-flags-removed-11x",
                    file,
                    word.line,
                    f"{name} --{opt} (11.x: {REMOVED_PRECISION_FLAGS[opt]})",
                )
            )
        elif opt in COMPANION_SO_FLAGS and name == TRTEXEC and "safe" not in names:
            facts.findings.append(
                make_finding(
                    "companion-so-needs-safe", file, word.line, f"trtexec --{opt} without --safe"
                )
            )
        elif opt in SAFE_DEPRECATED_FLAGS and name == TRTEXEC_SAFE:
            facts.findings.append(
                make_finding(
                    "no-op-flag",
                    file,
                    word.line,
                    f"trtexec_safe --{opt} ({DEPRECATED_SAFE_FLAGS[opt]})",
                )
            )
        elif opt == "remoteAutoTuningConfig" and value:
            bad = remote_paths_outside_overlay(value)
            if bad:
                facts.findings.append(
                    make_finding(
                        "remote-autotuning-overlay",
                        file,
                        word.line,
                        "remote path(s) " + ", ".join(bad) + f" not under {OVERLAY}",
                    )
                )
    values = {opt: value for opt, value, _ in options if value}
    if safe and "saveEngine" in values:
        engine = values["saveEngine"]
        facts.companions[engine] = values.get("saveEngineSo") or engine + ".so"


def _ship_step(argv: list[Word], name: str) -> ShipStep | None:
    operands = argv[1:]
    tool = name
    if name == "cmake":
        if len(argv) < 3 or argv[1].text != "-E" or argv[2].text not in _CMAKE_COPY:
            return None
        operands, tool = argv[3:], f"cmake -E {argv[2].text}"
    elif name == "adb":
        if len(argv) < 2 or argv[1].text != "push":
            return None
        operands, tool = argv[2:], "adb push"
    elif name == "docker":
        if len(argv) < 2 or argv[1].text != "cp":
            return None
        operands, tool = argv[2:], "docker cp"
    elif name not in _SHIP_PROGRAMS:
        return None
    if name == "tar" and not _tar_creates(operands):
        return None  # tar x / tar t: not packaging
    return make_ship_step(operands, tool)


def make_ship_step(words: list[Word], tool: str) -> ShipStep | None:
    """The engines and .so files among ``words`` as a ship step (None when it ships neither)."""
    engines = tuple(w for w in words if is_engine_path(w.text))
    libraries = tuple(w for w in words if is_library_path(w.text))
    if not engines and not libraries:
        return None
    return ShipStep((engines or libraries)[0].site, tool, engines, libraries)


def _tar_creates(operands: list[Word]) -> bool:
    if any(w.text == "--create" for w in operands):
        return True
    first = operands[0].text if operands else ""
    short = [w.text for w in operands if w.text.startswith("-") and not w.text.startswith("--")]
    return ("c" in first and not first.startswith("-")) or any("c" in flag for flag in short)


def analyse_command(argv: list[Word], file: str) -> CommandFacts:
    """Findings and facts for one command (``argv[0]`` is the program)."""
    facts = CommandFacts()
    if not argv:
        return facts
    name = program_name(argv[0])
    if name in (TRTEXEC, TRTEXEC_SAFE):
        _check_trtexec(argv, name, file, facts)
        return facts
    step = _ship_step(argv, name)
    if step:
        facts.ship_steps.append(step)
    return facts


def analyse_commands(commands: list[list[Word]], file: str) -> CommandFacts:
    """Findings and facts for several commands (each as in :func:`analyse_command`)."""
    facts = CommandFacts()
    for argv in commands:
        facts.extend(analyse_command(argv, file))
    return facts


def _basename(text: str) -> str:
    return text.strip("'\"").replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def companion_shipped(engine: Word, libraries: list[Word], companions: dict[str, str]) -> bool:
    """True when one of ``libraries`` is ``engine``'s companion .so (default or declared name)."""
    wanted = {_basename(engine.text) + ".so"}
    for built, companion in companions.items():
        if _basename(built) == _basename(engine.text) or fnmatch.fnmatch(
            _basename(built), _basename(engine.text)
        ):
            wanted.add(_basename(companion))
    for library in libraries:
        pattern = _basename(library.text)
        if any(name == pattern or fnmatch.fnmatch(name, pattern) for name in wanted):
            return True
    return False


def unshipped_companions(
    file: str, steps: list[ShipStep], companions: dict[str, str], safety: bool
) -> list[MigrationFinding]:
    """``companion-so-not-shipped`` for engines shipped in ``steps`` without their .so.

    An engine counts as a safe engine when ``safety`` is True (the scan saw a safe build or the
    safety runtime) or its name says so (contains "safe"). The companion may ship in any step of
    the same file.
    """
    libraries = [lib for step in steps for lib in step.libraries]
    out: list[MigrationFinding] = []
    for step in steps:
        for engine in step.engines:
            if not (safety or "safe" in _basename(engine.text).lower()):
                continue
            if not companion_shipped(engine, libraries, companions):
                out.append(
                    make_finding(
                        "companion-so-not-shipped",
                        file,
                        engine.site,
                        f"{step.tool} ships {engine.text} without {_basename(engine.text)}.so",
                    )
                )
    return out

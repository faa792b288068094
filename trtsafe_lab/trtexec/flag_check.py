"""Check trtexec / trtexec_safe flags against the source-derived flag tables before anything runs.

:func:`check_flags` is the toolkit's check (``build --dry-run``, the build form, every composed
command): unknown flags with the closest real ones, values of the wrong kind, repeats, removed /
no-op / deprecated flags. It is stricter than the tools (``12abc`` is refused although
``std::stoi`` would read 12), never looser; what the real tools do with an argv is
:func:`trtsafe_lab.trtexec.tool_parser.real_parse`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from trtsafe_lab.trtexec.flag_table import FlagSpec, FlagTable
from trtsafe_lab.trtexec.tool_parser import (
    INT32,
    INT64,
    in_choices,
    safety_plugin_ignored,
    safety_plugin_problem,
    split_arg,
)


@dataclass(frozen=True)
class FlagIssue:
    """One finding of :func:`check_flags`; ``severity`` is ``refusal`` or ``warning``."""

    rule: str
    flag: str
    severity: str
    message: str
    fix: str


def _strict_value_problem(spec: FlagSpec, value: str) -> str:
    """Why ``value`` is not a clean value of ``spec``'s kind ('' when it is)."""
    kind = spec.value_kind
    if value == "":
        return "an empty value"
    if kind in ("int", "int64"):
        bounds = INT64 if kind == "int64" else INT32
        if not re.fullmatch(r"[+-]?\d+", value):
            return f"{value!r}, not an integer"
        if not bounds[0] <= int(value) <= bounds[1]:
            return f"{value}, out of range"
    elif kind == "size":
        if not re.fullmatch(r"\d+[BKMGbkmg]?", value):
            return f"{value!r}, not a size (N with an optional B/K/M/G suffix)"
    elif kind in ("float", "float_size"):
        unit = "[BKMGbkmg]?" if kind == "float_size" else ""
        if not re.fullmatch(rf"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?{unit}", value):
            return f"{value!r}, not a number"
    elif kind == "choice" and not in_choices(spec, value):
        return f"{value!r}, not one of {', '.join(spec.choices)}"
    elif kind == "plugin_spec" and safety_plugin_problem(value):
        return (f"{safety_plugin_problem(value)}; the real tool stops with "
                f"'{spec.error}{value}'")
    return ""


def _example(spec: FlagSpec) -> str:
    kinds = {"int": "N", "int64": "N", "size": "N[B|K|M|G]", "float": "F",
             "float_size": "F[B|K|M|G]", "choice": "|".join(spec.choices),
             "plugin_spec": "LIB.so[NAMESPACE::PLUGIN,...]"}
    return f"{spec.key}={kinds.get(spec.value_kind, '<value>')}"


def closest(table: FlagTable, key: str, n: int = 3) -> list[str]:
    """The accepted flags nearest to ``key`` (difflib), best first."""
    keys = table.accepted_keys()
    lowered = {k.lower(): k for k in keys}
    hits = difflib.get_close_matches(key.lower(), list(lowered), n=n, cutoff=0.6)
    return [lowered[h] for h in hits]


def check_flags(table: FlagTable, args: Sequence[str],
                skip: frozenset[str] = frozenset()) -> list[FlagIssue]:
    """Every flag problem of ``args`` (``--name[=value]`` strings) against ``table``.

    Keys in ``skip`` are left to more specific rules (e.g. the 11.x precision-flag rule). Rules:
    ``unknown-flag``, ``removed-flag``, ``flag-needs-value``, ``switch-takes-no-value``,
    ``switch-value-ignored``, ``flag-value-kind``, ``plugin-spec-ignored``, ``repeated-flag``,
    ``no-op-flag``, ``deprecated-flag``.
    """
    tool = table.tool
    where = table.describe()
    found: list[FlagIssue] = []
    seen: dict[str, list[str | None]] = {}
    for arg in args:
        key, value = split_arg(arg)
        name = key.lstrip("-")
        if key in skip:
            continue
        spec = table.get(key)
        if spec is None:
            near = closest(table, key)
            hint = f"did you mean {' or '.join(near)}?" if near else "no similar flag exists"
            found.append(FlagIssue(
                "unknown-flag", name, "refusal",
                f"{tool} {table.version.major}.{table.version.minor} has no flag {key} "
                f"({hint}); the real {tool} stops with "
                + ("'Unknown option'" if tool == "trtexec" else "'Invalid Argument'")
                + f". Checked against the {where}.",
                f"replace {key} with the flag you meant ({', '.join(near)}) or remove it"
                if near else f"remove {key} (see '{tool} --help')"))
            continue
        if not spec.accepted:
            found.append(FlagIssue(
                "removed-flag", name, "refusal",
                f"{key} is not accepted by {tool} {table.version.major}.{table.version.minor}: "
                f"{spec.note}. Checked against the {where}.",
                f"remove {key}"))
            continue
        seen.setdefault(key, []).append(value)
        if spec.takes_value and value is None:
            found.append(FlagIssue(
                "flag-needs-value", name, "refusal",
                f"{key} takes a value ({spec.value_kind}) and {tool} reads it only after '='.",
                f"write {_example(spec)}"))
        elif not spec.takes_value and value is not None:
            if tool == "trtexec_safe":
                found.append(FlagIssue(
                    "switch-takes-no-value", name, "refusal",
                    f"{key} is a switch; trtexec_safe accepts only the bare '{key}' and stops "
                    f"with 'Invalid Argument: {arg}'.", f"write {key} (or leave it out)"))
            else:
                found.append(FlagIssue(
                    "switch-value-ignored", name, "warning",
                    f"{key} is a switch; trtexec ignores '={value}' and turns it ON "
                    f"(even '{key}=false').", f"write {key} to turn it on, or leave it out"))
        elif spec.takes_value and value is not None:
            problem = _strict_value_problem(spec, value)
            if problem:
                found.append(FlagIssue(
                    "flag-value-kind", name, "refusal",
                    f"{key} needs {'an' if spec.value_kind[:1] in 'aeiou' else 'a'} "
                    f"{spec.value_kind} value, got {problem}.",
                    f"write {_example(spec)}" + (f" (default {spec.default})"
                                                 if spec.default else "")))
            elif spec.value_kind == "plugin_spec" and safety_plugin_ignored(value):
                found.append(FlagIssue(
                    "plugin-spec-ignored", name, "warning",
                    f"{tool} accepts {arg} but ignores "
                    f"{' and '.join(safety_plugin_ignored(value))}: it reads one library and "
                    "the plugin names up to the first ']'.",
                    f"give each library its own {key}={_example(spec).partition('=')[2]}"))
        if spec.status in ("no-op", "deprecated"):
            found.append(FlagIssue(
                "no-op-flag" if spec.status == "no-op" else "deprecated-flag", name, "warning",
                f"{key} is {'a no-op' if spec.status == 'no-op' else 'deprecated'} in {tool} "
                f"{table.version.major}.{table.version.minor}: {spec.help or spec.note}",
                f"drop {key}"))
    for key, values in seen.items():
        spec = table.get(key)
        if spec is None or spec.repeatable or len(values) <= spec.max_count:
            continue
        shown = ", ".join(key if v is None else f"{key}={v}" for v in values)
        if tool == "trtexec":
            found.append(FlagIssue(
                "repeated-flag", key.lstrip("-"), "refusal",
                f"{key} is given {len(values)} times ({shown}); trtexec reads it once and stops "
                f"with 'Unknown option' for the other occurrence(s).",
                f"keep one {key}"))
        else:
            found.append(FlagIssue(
                "repeated-flag", key.lstrip("-"), "warning",
                f"{key} is given {len(values)} times ({shown}); {tool} keeps the last one.",
                f"keep one {key}"))
    return found

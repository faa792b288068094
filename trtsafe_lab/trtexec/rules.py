"""The TensorRT 11.x trtexec rules, checked before anything runs.

:func:`check_command` returns every refusal and warning for a :class:`TrtexecCommand`;
:func:`enforce` raises :class:`RuleViolation` listing all refusals. Each finding names the rule,
the flag and what to do instead. :func:`expected_artifacts` says which files a run should
produce or needs (engine, companion ``.so``, exports, timing cache).

Every flag is first checked against the flag table of the command's tool and version, derived
from NVIDIA's sources (:mod:`trtsafe_lab.trtexec.flag_check`: unknown flags with the closest real
ones, wrong value kinds, repeats, removed / no-op / deprecated flags). The rules here add the
safety workflow and migration advice: reference/tensorrt-facts.md (NVIDIA's 10.x -> 11.x safety
migration guide and the trtexec 11.x notes). Rules that are this toolkit's own inference, not
NVIDIA's words, say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trtsafe_lab.companion import companion_so_for
from trtsafe_lab.trtexec.flag_check import check_flags
from trtsafe_lab.trtexec.flag_table import load_table
from trtsafe_lab.trtexec.options import TrtexecCommand

# Precision flags removed in 11.x (networks are strongly typed) -> the 11.x way to get the same.
REMOVED_PRECISION_FLAGS: dict[str, str] = {
    "fp16": "export the ONNX model with FP16 tensors/casts where you want FP16",
    "bf16": "export the ONNX model with BF16 tensors/casts where you want BF16",
    "int8": "put explicit QuantizeLinear/DequantizeLinear (Q/DQ) nodes in the ONNX model",
    "fp8": "put explicit FP8 Q/DQ nodes in the ONNX model",
    "int4": "put explicit INT4 (weight-only) Q/DQ nodes in the ONNX model",
    "best": "set every tensor's type in the ONNX model (Q/DQ, casts); nothing is chosen for you",
    "calib": "replace the calibration cache with explicit Q/DQ nodes in the ONNX model "
    "(e.g. from NVIDIA ModelOpt)",
}
# trtexec_safe flags deprecated in 11.x but still accepted -> what they do now (used by the
# migration checker; the build rules read no-op/deprecated status from the flag tables).
DEPRECATED_SAFE_FLAGS: dict[str, str] = {
    "useCudaGraph": "CUDA graphs are on by default; use --noCudaGraph to turn them off",
    "separateProfileRun": "profiling always runs separately now",
}
# trtexec 11.x flags kept as no-ops for compatibility -> the opt-out that replaced them.
NO_OP_11X_FLAGS: dict[str, str] = {
    "useCudaGraph": "CUDA graphs are on by default; --noCudaGraph turns them off",
    "separateProfileRun": "profiling always runs separately",
    "noDataTransfers": "transfers are excluded by default; --includeDataTransfers includes them",
    "useSpinWait": "spin-wait is the default; --noSpinWait turns it off",
    "stronglyTyped": "every 11.x network is strongly typed",
}
SAFE_ONLY_FLAGS = ("remoteAutoTuningConfig", "cpuOnly")
COMPANION_SO_FLAGS = ("saveEngineSo", "loadEngineSo")


@dataclass(frozen=True)
class BuildRuleFinding:
    """One rule outcome: ``severity`` is ``refusal`` (the command will not run) or ``warning``."""

    rule: str
    flag: str
    severity: str
    message: str
    fix: str

    def __str__(self) -> str:
        return f"[{self.rule}] --{self.flag}: {self.message} Fix: {self.fix}"


@dataclass(frozen=True)
class ExpectedArtifact:
    """A file the run writes (``role='output'``), reads (``'input'``) or both (``'cache'``).

    ``kind`` is one of ``engine``, ``companion_so``, ``export``, ``timing_cache``;
    ``flag`` is the flag that names it (or whose default it follows).
    """

    kind: str
    path: Path
    role: str
    flag: str
    note: str = ""


class RuleViolation(ValueError):
    """A command breaks one or more rules; ``findings`` lists every refusal."""

    def __init__(self, findings: list[BuildRuleFinding]) -> None:
        self.findings = findings
        lines = "\n".join(f"  {finding}" for finding in findings)
        super().__init__(f"{len(findings)} trtexec rule violation(s):\n{lines}")


def _refuse(rule: str, flag: str, message: str, fix: str) -> BuildRuleFinding:
    return BuildRuleFinding(rule, flag, "refusal", message, fix)


def _warn(rule: str, flag: str, message: str, fix: str) -> BuildRuleFinding:
    return BuildRuleFinding(rule, flag, "warning", message, fix)


def _check_11x(cmd: TrtexecCommand) -> list[BuildRuleFinding]:
    found: list[BuildRuleFinding] = []
    v = cmd.version
    if cmd.has("restricted"):
        found.append(_refuse(
            "restricted-removed-11x", "restricted",
            f"--restricted was removed in TensorRT 11.x (this is {v}); trtexec exits with an "
            "error. Safety scope is now enforced by the safe build itself: layers outside it "
            "fail at build time as tactic failures ('No tactic available').",
            "remove --restricted and build with --safe (trtexec) to get the safety scope.",
        ))
    for name, instead in REMOVED_PRECISION_FLAGS.items():
        if cmd.has(name):
            found.append(_refuse(
                "precision-flags-removed-11x", name,
                f"--{name} was removed in TensorRT 11.x (this is {v}): networks are strongly "
                "typed, so precision comes from the model, not from builder flags.",
                f"remove --{name} and {instead}; or build with TensorRT 10.x, where it is valid.",
            ))
    return found


def _check_safety(cmd: TrtexecCommand) -> list[BuildRuleFinding]:
    found: list[BuildRuleFinding] = []
    v = cmd.version
    for name in COMPANION_SO_FLAGS:
        if not cmd.has(name):
            continue
        if cmd.tool_kind == "trtexec" and not cmd.has("safe"):
            found.append(_refuse(
                "companion-so-needs-safe", name,
                f"--{name} names a safe engine's companion .so, and trtexec accepts it only "
                "together with --safe.",
                f"add --safe for a safe build/run, or remove --{name}.",
            ))
        elif not v.has_companion_so:
            found.append(_refuse(
                "companion-so-needs-11.3", name,
                f"companion .so files exist from TensorRT 11.3 on; this is {v}. "
                "(Toolkit inference from the migration guide: the flag is not expected before.)",
                f"remove --{name}, or use TensorRT 11.3 or later.",
            ))
    if cmd.tool_kind == "trtexec" and not cmd.has("safe"):
        for name in SAFE_ONLY_FLAGS:
            if cmd.has(name):
                found.append(_refuse(
                    "safe-only-flag", name,
                    f"--{name} applies only to safe builds (EngineCapability SAFETY).",
                    f"add --safe, or remove --{name}.",
                ))
    if cmd.has("safe") and cmd.has("onnx") and not cmd.has("saveEngine"):
        found.append(_warn(
            "safe-build-not-saved", "safe",
            "a safe build without --saveEngine keeps neither the engine nor its companion .so."
            if v.has_companion_so else "a safe build without --saveEngine does not keep the "
            "engine.",
            "add --saveEngine=<file>.engine (the .so then defaults to <file>.engine.so)."
            if v.has_companion_so else "add --saveEngine=<file>.engine.",
        ))
    return found


def _specific_rule_flags(cmd: TrtexecCommand) -> frozenset[str]:
    """Flags whose problems a rule below explains better than the generic table check."""
    keys = {"--maxAuxStreams"}
    if cmd.version.is_11x and cmd.tool_kind == "trtexec":
        keys |= {f"--{name}" for name in (*REMOVED_PRECISION_FLAGS, "restricted")}
    if not cmd.version.has_companion_so or cmd.tool_kind == "trtexec":
        keys |= {f"--{name}" for name in COMPANION_SO_FLAGS}
    return frozenset(keys)


def check_table(cmd: TrtexecCommand) -> list[BuildRuleFinding]:
    """The flag-table findings for ``cmd`` (:func:`~trtsafe_lab.trtexec.flag_check.check_flags`)."""
    table = load_table(cmd.tool_kind, cmd.version)
    issues = check_flags(table, [f.to_arg() for f in cmd.flags], _specific_rule_flags(cmd))
    return [BuildRuleFinding(i.rule, i.flag, i.severity, i.message, i.fix) for i in issues]


def check_command(cmd: TrtexecCommand) -> list[BuildRuleFinding]:
    """Every refusal and warning for ``cmd``: the flag-table check, then the rules, in order."""
    found: list[BuildRuleFinding] = check_table(cmd)
    if cmd.has("maxAuxStreams"):
        raw = cmd.value("maxAuxStreams")
        try:
            ok = raw is not None and int(raw) >= 0
        except ValueError:
            ok = False
        if not ok:
            found.append(_refuse(
                "max-aux-streams-integer", "maxAuxStreams",
                f"--maxAuxStreams needs an integer >= 0, got {raw!r}.",
                "use --maxAuxStreams=N with N = 0 (single stream, least memory), 1, 2, ...; "
                "leave it out to let the builder choose.",
            ))
    if cmd.version.is_11x:
        found += _check_11x(cmd)
    found += _check_safety(cmd)
    return found


def refusals(findings: list[BuildRuleFinding]) -> list[BuildRuleFinding]:
    return [f for f in findings if f.severity == "refusal"]


def warnings_of(findings: list[BuildRuleFinding]) -> list[BuildRuleFinding]:
    return [f for f in findings if f.severity == "warning"]


def enforce(cmd: TrtexecCommand) -> list[BuildRuleFinding]:
    """Raise :class:`RuleViolation` if any rule refuses ``cmd``; else return its warnings."""
    found = check_command(cmd)
    if refusals(found):
        raise RuleViolation(refusals(found))
    return warnings_of(found)


def expected_artifacts(cmd: TrtexecCommand) -> list[ExpectedArtifact]:
    """The files ``cmd`` writes or needs, with paths as written in the command."""
    out: list[ExpectedArtifact] = []
    pairs = cmd.is_safe and cmd.version.has_companion_so
    # an engine written (built from --onnx) or read, each with its companion .so on 11.3+
    for flag, role, used in (("saveEngine", "output", cmd.has("onnx")),
                             ("loadEngine", "input", True)):
        engine = cmd.value(flag)
        if not (engine and used):
            continue
        out.append(ExpectedArtifact("engine", Path(engine), role, flag))
        if pairs:
            so = cmd.value(f"{flag}So")
            note = "" if so else f"default: <{flag}>.so"
            out.append(ExpectedArtifact(
                "companion_so", companion_so_for(engine, so), role, f"{flag}So", note
            ))
    for name in ("exportTimes", "exportProfile", "exportLayerInfo"):
        value = cmd.value(name)
        if value:
            out.append(ExpectedArtifact("export", Path(value), "output", name))
    cache = cmd.value("timingCacheFile")
    if cache:
        out.append(ExpectedArtifact("timing_cache", Path(cache), "cache", "timingCacheFile"))
    return out

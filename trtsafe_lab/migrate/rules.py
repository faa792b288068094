"""The migration rules (ids are part of the interface) and the finding record.

Every finding carries the rule's severity, a message that says what was found and why it breaks
on 11.x, and the fix. ``error`` findings make ``trtsafe-lab migrate`` exit 1; ``warning``
findings do not.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

ERROR = "error"
WARNING = "warning"

# Columns of the findings table, in order (also the keys of the JSON objects).
FINDING_COLUMNS: tuple[str, ...] = ("file", "line", "rule", "severity", "message", "fix")


@dataclass(frozen=True)
class Rule:
    """One migration rule: its id, severity, what it finds, and the fix."""

    id: str
    severity: str
    finds: str
    message: str
    fix: str


_RULE_LIST: tuple[Rule, ...] = (
    Rule(
        "companion-so-missing",
        ERROR,
        "`createTRTGraph` in the 10.x form, without a companion .so path",
        "createTRTGraph is called in the 10.x form (graph, buffer, size, recorder, ...) with no "
        "companion .so path; the 11.3+ safety runtime needs the generated companion library "
        "and graph creation fails without it.",
        "Pass the absolute path of the engine's companion .so as the 4th argument: "
        "createTRTGraph(graph, buf, size, companionSoPath, recorder, trtManagedScratch, "
        "allocator). trtexec writes it next to the engine as <engine>.so unless "
        "--saveEngineSo names it.",
    ),
    Rule(
        "companion-so-relative",
        ERROR,
        "a companion .so path that is not absolute (a literal, or a variable initialised with one)",
        "the companion .so path passed to createTRTGraph is not absolute; 11.x requires an "
        "absolute path (on QNX Safety the .so is executable content loaded from a trusted "
        "location).",
        "Resolve the path to an absolute one (e.g. std::filesystem::absolute, or a deployment "
        "constant such as /opt/app/engines/model.engine.so) before calling createTRTGraph.",
    ),
    Rule(
        "companion-so-not-shipped",
        ERROR,
        "a copy / install / package step that ships a safe engine without its companion .so",
        "this step ships a safe engine but not its companion .so; on 11.3+ the engine and its "
        ".so are a matched pair (a pairing token inside) and the engine cannot be loaded "
        "without it.",
        "Ship the companion .so in the same step (default name <engine>.so, e.g. "
        "model.engine -> model.engine.so, or the --saveEngineSo name), and version the pair "
        "together.",
    ),
    Rule(
        "restricted-removed-11x",
        ERROR,
        "`trtexec --restricted`",
        "trtexec --restricted was removed in 11.x: trtexec exits with an error.",
        "Drop --restricted; use --safe (safety scope is enforced at build time).",
    ),
    Rule(
        "companion-so-needs-safe",
        ERROR,
        "`--saveEngineSo` / `--loadEngineSo` on a trtexec command without `--safe`",
        "--saveEngineSo / --loadEngineSo require --safe on trtexec; without it trtexec rejects "
        "the command.",
        "Add --safe to the trtexec command (or drop the companion .so flag for a standard engine).",
    ),
    Rule(
        "precision-flags-removed-11x",
        ERROR,
        "`--fp16 --int8 --bf16 --fp8 --int4 --best --calib` on trtexec",
        "this precision flag was removed in 11.x (networks are strongly typed); trtexec exits "
        "with an error.",
        "Remove the flag and express precision in the network itself (cast / Q/DQ nodes in the "
        "ONNX model, or typed layers in the network definition).",
    ),
    Rule(
        "safe-build-api",
        ERROR,
        "`buildSerializedNetwork` / `build_serialized_network` on a config set to the SAFETY "
        "capability",
        "from TensorRT 11.3 buildSerializedNetwork (also its kernel-text form) returns an error "
        "for safe builds; a safe build produces a safe engine and a companion .so.",
        "C++: call buildSerializedSafeNetwork(network, config, emitKernelBlob) and save both "
        "getSerializedNetwork() and getCompanionSo(). Python (11.4 has no "
        "build_serialized_safe_network): run trtexec --safe --saveEngine=... --saveEngineSo=...",
    ),
    Rule(
        "safety-scope-noop",
        WARNING,
        "`kSAFETY_SCOPE` / `BuilderFlag.SAFETY_SCOPE` (ignored since 10.16)",
        "BuilderFlag kSAFETY_SCOPE is deprecated since 10.16 and ignored: it no longer checks "
        "anything.",
        "Remove the flag. Safety scope is enforced by the safe build itself (capability SAFETY "
        "/ trtexec --safe); failures show as tactic failures with a layer traceback.",
    ),
    Rule(
        "network-supported-not-a-gate",
        WARNING,
        "`isNetworkSupported()` used to decide whether a safety build will succeed",
        "isNetworkSupported() checks only architectural constraints (flag combinations, hybrid "
        "DLA/GPU); true does not mean the safety build will succeed.",
        "Use it only as an early reject (false => stop); treat the safe build's own result as "
        "the answer and report its tactic failures.",
    ),
    Rule(
        "no-op-flag",
        WARNING,
        "`trtexec_safe --useCudaGraph` / `--separateProfileRun` (no-ops in 11.x)",
        "this trtexec_safe flag is deprecated and a no-op in 11.x (trtSafeExec.cpp: CUDA graphs "
        "are on by default; the separate profile run always happens); it is still accepted "
        "with a warning.",
        "Drop the flag (use --noCudaGraph to turn CUDA graphs off).",
    ),
    Rule(
        "aux-streams-unregistered",
        ERROR,
        "`executeAsync` on a safety graph with no `getNbAuxStreams`/`setAuxStreams` and no "
        "evidence of `maxAuxStreams=0`",
        "executeAsync runs a safety graph but no auxiliary streams are registered first; when "
        "getNbAuxStreams(n) reports n > 0, setAuxStreams must be given exactly n distinct "
        "non-default streams before the first executeAsync.",
        "As NVIDIA's 11.1 samples do (samplesSafeCommon::setUpAuxStreamsOn): "
        "graph->getNbAuxStreams(n), create n streams with cudaStreamCreateWithFlags(&s, "
        "cudaStreamNonBlocking), graph->setAuxStreams(streams, n) before the first "
        "executeAsync; or build with maxAuxStreams=0 and check that n == 0.",
    ),
    Rule(
        "aux-streams-destroyed-early",
        ERROR,
        "aux streams destroyed before the final `sync()`",
        "an auxiliary stream given to setAuxStreams is destroyed before the graph's final "
        "sync(); work may still be queued on it.",
        "Destroy the aux streams only after the last graph->sync() (the application owns "
        "them until then).",
    ),
    Rule(
        "remote-autotuning-overlay",
        WARNING,
        "`--remoteAutoTuningConfig` whose remote paths are not under `/nvidia_overlay` (QNX "
        "Safety 11.0.1+)",
        "on QNX Safety 11.0.1+ the builder parts (timing_server) live in the debug overlay "
        "/nvidia_overlay; a remote path outside it will not find them.",
        "Point remote_exec_path / remote_lib_path under /nvidia_overlay (e.g. "
        "/nvidia_overlay/usr/bin).",
    ),
    # Diagnostics: the checker could not look at (part of) a file.
    Rule(
        "file-unreadable",
        ERROR,
        "a file that cannot be read as text (permissions, binary content, bad encoding)",
        "the file could not be read as text, so it was not checked.",
        "Fix the permissions or encoding, or leave the file out of the paths given.",
    ),
    Rule(
        "file-over-limit",
        ERROR,
        "a file over a resource limit: size, variable expansion, YAML aliases or nesting depth",
        "the file exceeds a limit of the checker (sizes, expansions and nesting far beyond real "
        "build files, as in a 'billion laughs' file), so it was not checked, or not completely.",
        "Check the file by hand or split it; if it is genuine, pass the generated output "
        "(e.g. the expanded commands) instead of the file that generates it.",
    ),
    Rule(
        "file-unparsable",
        WARNING,
        "a file whose syntax could not be parsed (findings for it may be incomplete)",
        "the file could not be parsed completely; findings for it may be incomplete.",
        "Check that the file is valid for its kind; pass preprocessed sources if macros hide "
        "the code.",
    ),
)

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULE_LIST}


@dataclass(frozen=True, order=True)
class MigrationFinding:
    """One finding: where (file, 1-based line), which rule, how bad, what and the fix."""

    file: str
    line: int
    rule: str
    severity: str
    message: str
    fix: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def make_finding(rule_id: str, file: str, line: int, detail: str = "") -> MigrationFinding:
    """A finding for ``rule_id`` at ``file:line``; ``detail`` (what exactly) leads the message."""
    rule = RULES[rule_id]
    message = f"{detail}: {rule.message}" if detail else rule.message
    return MigrationFinding(file, line, rule.id, rule.severity, message, rule.fix)


def rules_frame() -> pd.DataFrame:
    """The rule table: columns ``rule``, ``severity``, ``finds`` (what the rule looks for) and
    ``fix``."""
    import pandas as pd

    return pd.DataFrame(
        [(r.id, r.severity, r.finds, r.fix) for r in _RULE_LIST],
        columns=["rule", "severity", "finds", "fix"],
    )

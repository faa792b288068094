"""What a record says: the layers it blames, its category, phase, error code and fatality.

The rules read one :class:`~trtsafe_lab.logs.records.Record` at a time plus a little state
carried between records (:class:`~trtsafe_lab.logs.parse_state.ParseState`): the ONNX parser's
current node block (``While parsing node number N [Op -> "out"]`` header and NodeProto dump),
what the last
:data:`CONTEXT_RECORDS` records said (the node a verbose ``ModelImporter.cpp: X [Op] inputs:``
or ``Parsing node: X [Op]`` line names, the category of an error printed just before a node
header), and the phase (parse, build or runtime, from markers such as ``Start parsing network
model``, ``Local timing cache in use``, ``Engine built in`` and ``Starting inference``).

Context reaches :data:`CONTEXT_RECORDS` records back, whatever they are: the ONNX importer
prints a node's ``inputs:`` line, then up to two INFO lines of its own (``No importer registered
for op: X. Attempting to import as plugin.``, ``Searching for plugin: X, ...``) before the error
(onnx-tensorrt ModelImporter.cpp ``parseNode``, builtin plugin fallback). The streaming scan
feeds the same number of records before each trigger, so both read the same context.

The pieces it combines live apart: the category rules (:mod:`~trtsafe_lab.logs.categories`),
where an error comes from (:mod:`~trtsafe_lab.logs.error_sites`), the ONNX parser's node blocks
(:mod:`~trtsafe_lab.logs.node_blocks`), the carried state (:mod:`~trtsafe_lab.logs.parse_state`)
where a name can stand (:mod:`~trtsafe_lab.logs.name_grammar`,
:mod:`~trtsafe_lab.logs.layer_names`) and the names a record's grammar adds
(:mod:`~trtsafe_lab.logs.record_names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from trtsafe_lab.logs.categories import (
    NON_FATAL,
    PHASE_BY_CATEGORY,
    RUNTIME_CONTENT,
    TACTIC_CONTENT,
    UNTAGGED_ERROR,
    WARNING_CATEGORIES,
    wording_category,
)
from trtsafe_lab.logs.error_sites import error_code, location, source
from trtsafe_lab.logs.layer_names import BEST_TACTIC_ERROR
from trtsafe_lab.logs.name_grammar import REFUSAL
from trtsafe_lab.logs.node_blocks import (
    IMPORTER_LOCATION,
    IMPORTER_NODE,
    PARSER_ERROR,
    BlockFinding,
    dump_text,
    open_block,
    reset_block,
    search_header,
    update_block,
)
from trtsafe_lab.logs.parse_state import (
    ContextRecord,
    ParseState,
    recent_error_category,
    recent_importer_node,
    recent_timed_layer,
    recent_warned_layer,
)
from trtsafe_lab.logs.record_names import (
    LogFinding,
    complete_cut_names,
    grammar_names,
)
from trtsafe_lab.logs.records import Record
from trtsafe_lab.logs.triggers import BARE_MESSAGE

ERRORISH = frozenset({"error", "internal_error", "critical"})
REPORTED = ERRORISH | {"warning", ""}
CONTEXT_RECORDS = 3  # records before a trigger whose importer node / error category it may use

# A line that ends where a name should follow ("... implementation for node" + newline + name)
_WRAPPED_ENDINGS = ("node", "node:", "layer", "layer:", "-")
_WRAPPED_BEFORE_NAME = re.compile(
    r"\b(?:for|at|on) (?:node|layer):?\s{0,8}$|Invalid Node -\s{0,8}$"
)

# The builder's verbose "--------------- Timing Runner: X (Myelin)" names the layer it times; a
# process that then dies in an assertion (glibc's "prog: file.cpp:1059: f(): Assertion `0 &&
# "Unsupported type"' failed", "Segmentation fault") died on that layer.
# A reformat runner ("Timing Runner: Optimizer Reformat(a -> b) (Reformat)") times a tensor's
# format change, no layer.
_TIMING_RUNNER = re.compile(
    r"Timing Runner: (?P<name>[^\n]{1,4096}?) \((?!Reformat\))[\w\[\]]{1,60}\)\s*$"
)
_PROCESS_DIED = re.compile(r"Assertion `|^Segmentation fault|^Aborted \(core dumped\)")
# ... and so did a tactic runner's own failure (TensorRT's runner sources: "[convolutionRunner.cpp::
# executeConv::465] Error Code 1: Cudnn (CUDNN_STATUS_ALLOC_FAILED)", "cudaPluginV2DynamicExtRunner
# .cpp (108) - Cuda Error in ...::execute"): the tactic of the layer being timed failed.
# A layer builder's own assertion while the layer is costed counts alike ("[convBaseBuilder.cpp::
# createConvolution::200] Error Code 2: Internal Error (Assertion isOpConsistent(...) failed.)",
# decision D6; not the top-level "builder.cpp::buildSerializedNetwork").
_RUNNER_FAILED = re.compile(r"[a-z](?:Runner|Builder)\.cpp\b")
# A warning that announces a cost or a future change while the run does what was asked
# (decision D5: "X: IShuffleLayer with zeroIsPlaceHolder=true has reshape dimension at position 0
# that might or might not be zero. TensorRT resolves it at runtime, but this may cause ...",
# "... is deprecated", "... will be removed in a future release")
_ADVISORY = re.compile(
    r"\bresolves it at run ?time\b|\b[Dd]eprecated\b|\bwill be removed in (?:a )?future\b"
)
# The builder's verbose "=============== Computing costs for X" opens the timing of layer X
# (decision D6 reads it like "Timing Runner: X"); nothing after "for" names no layer.
_COMPUTING_COSTS = re.compile(r"Computing costs for (?P<name>\S[^\n]{0,4095}?)\s*$")
# A tactic error that names no layer (decision D6): a skipped tactic, a CUDA / cuDNN / cuBLAS
# status, an allocation failure raised while timing.
_NAMELESS_TACTIC_ERROR = re.compile(
    r"[Ss]kipping tactic|\b(?:CUDNN|CUBLAS|CUDA)_STATUS_\w|\bcuda(?:Error\w{0,40}| error)\b"
)


# --- phase markers ---------------------------------------------------------------------------
_RUNTIME_MARKER = re.compile(
    r"Engine built in|Engine deserialized in|Engine loaded in|Loaded engine size"
    r"|Starting inference|Loading bytes from \S+\.(?:engine|plan|trt)\b"
)
_BUILD_MARKER = re.compile(
    r"(?:Local|Global) timing cache in use|Finish(?:ed)? parsing network model"
)
_PARSE_MARKER = re.compile(r"Start parsing network model|Input filename:")


@dataclass
class LogFacts:
    """Everything the rules read from one record."""

    severity: str
    source: str
    error_code: int | None
    error_name: str
    location: str
    function: str
    category: str
    phase: str
    fatal: bool
    findings: list[LogFinding] = field(default_factory=list)
    tensors: list[str] = field(default_factory=list)  # tensor names the message mentions
    framing: bool = False  # an ONNX-parser node header or NodeProto dump, context for an error
    refusal: bool = False  # a framework's converter refused the named nodes (any severity)
    abandoned_block: BlockFinding | None = None  # an earlier node block no error followed


def _reportable_without_names(severity: str, category: str) -> bool:
    if severity in ERRORISH:
        return True
    return severity in ("warning", "") and category in WARNING_CATEGORIES


def _may_name_layers(severity: str, category: str) -> bool:
    """Is the record's grammar read for names? Reportable records, and warnings about a plugin
    ("X: legacy ONNX (11 plugin fields, missing do_sort). ... Using default"): such a warning
    is a finding only when it names the plugin's node."""
    return _reportable_without_names(severity, category) or (
        severity == "warning" and category == "plugin"
    )


MAX_FAILED_STRATEGIES = 16  # layers of skipped backend strategies kept until the build ends


def _backend_strategies(
    record: Record, severity: str, findings: list[LogFinding], state: ParseState
) -> list[LogFinding]:
    """TensorRT 10 builds with several backend strategies: one that fails is a warning
    ("Engine generation failed with backend strategy 2. Error message: ... Skipping this backend
    strategy."), until "Engine generation failed because all backend strategies failed" (an
    error) ends the build. The layers the skipped strategies named then stopped it: the error
    record names them again (their categories kept)."""
    message = record.message
    if severity == "warning" and "with backend strategy" in message and findings:
        kept = tuple((f.layer, f.category) for f in findings)
        state.failed_strategies = (*state.failed_strategies, *kept)[-MAX_FAILED_STRATEGIES:]
    elif "all backend strategies failed" in message and state.failed_strategies:
        seen = {f.layer for f in findings}
        for layer, category in state.failed_strategies:
            if layer not in seen:
                seen.add(layer)
                findings = [*findings, LogFinding(layer, record.line, category)]
        state.failed_strategies = ()
    return findings


def marker_phase(text: str) -> str:
    """The phase a marker line starts ("parse", "build", "runtime") or "" for other lines."""
    if _RUNTIME_MARKER.search(text):
        return "runtime"
    if _PARSE_MARKER.search(text):
        return "parse"
    return "build" if _BUILD_MARKER.search(text) else ""


def examine(record: Record, state: ParseState) -> LogFacts:
    """Read one record, update ``state`` and return what the record says."""
    message = record.message
    prefix = record.prefix
    # Only records that contain a trigger may change the state, so that the streaming scan,
    # which skips the others, reads the same state as a full parse.
    if record.hit:
        for _, text in record.lines:
            state.phase = marker_phase(text) or state.phase
    findings: list[LogFinding] = []
    seen: set[str] = set()
    abandoned: BlockFinding | None = None
    first = dump_text(record.lines[0][1]) if record.lines else ""
    framing = state.in_dump or search_header(first) is not None or first.strip() in (
        "--- Begin node ---",
        "--- End node ---",
    )
    before = open_block(state) if record.hit else None
    for index, (line_no, text) in enumerate(record.lines):
        if record.hit:
            update_block(state, dump_text(text) if index == 0 else text, line_no)
        named = state.names_of(text)
        if (
            not named
            and index + 1 < len(record.lines)
            and text.rstrip().endswith(_WRAPPED_ENDINGS)
            and _WRAPPED_BEFORE_NAME.search(text)
        ):
            # a hard-wrapped message: the name stands alone on the next line (the next one
            # that is not blank: a paste may double-space the log)
            following = next(
                (t for _, t in record.lines[index + 1 : index + 3] if t.strip()), ""
            )
            named = state.names_of(text.rstrip() + " " + following.strip())
        for name, category in named:
            if name not in seen:
                seen.add(name)
                findings.append(LogFinding(name, line_no, category))
    importer = None  # the last importer line of the record (a pasted log may lose its tags)
    for _, text in record.lines:
        if "] inputs: " in text or "arsing node: " in text:
            importer_at = IMPORTER_LOCATION.search(text)
            start = importer_at.end() if importer_at else 0
            importer = IMPORTER_NODE.match(text, start) or importer
    parser_error = record.hit and PARSER_ERROR.search(message) is not None
    if parser_error:
        if not findings:
            fallback = (
                state.dump_name
                or state.header_output
                or recent_importer_node(state)  # a header without output, no dump
            )
            if fallback:
                findings.append(LogFinding(fallback, record.line))
        reset_block(state)
    elif before is not None and (not framing or search_header(message)):
        # A node block that no parser error followed: the reason line was cut or lost.
        abandoned = before
        if not framing:
            reset_block(state)
    category = state.category_of(message)
    before_category = recent_error_category(state)  # the context records' latest error
    if before_category and category == "tactic-failure" and BEST_TACTIC_ERROR.search(message):
        # "Get cuda error during getBestTactic: X" reports the error printed just before it
        # (a plugin's execute failed: plugin; an allocation ran out of memory), on X's tactic
        category = before_category
    if parser_error and category not in ("parser-unsupported", "parser-error", "plugin"):
        category = "parser-error"  # (a plugin the parser found but could not create: plugin)
    if record.hit and "myelin" in message and _PROCESS_DIED.search(message):
        category = "myelin"  # an assertion in Myelin's own sources ("myelin/src/compiler/...")
    severity = prefix.severity
    if not severity and (parser_error or UNTAGGED_ERROR.search(message)):
        severity = "error"  # an application printing the ONNX parser's or TensorRT's errors
    importer_node = (importer.group("name") or importer.group("parsing")) if importer else ""
    # the category an error (or the importer's INFO "No importer registered for op: X.
    # Attempting to import as plugin.") gives a node block printed next
    error_category = (
        category
        if severity in ERRORISH
        or category == "parser-unsupported"
        # the importer's INFO "Successfully created plugin: X": the node is a plugin layer now
        or (category == "plugin" and "created plugin" in message)
        else ""
    )
    timer = _TIMING_RUNNER.search(message) if "Timing Runner: " in message else None
    if timer is None and "Computing costs for " in message:
        timer = _COMPUTING_COSTS.search(message)
    timed = timer.group("name") if timer else ""
    if state.recent or importer_node or error_category or parser_error or timed:
        aged = tuple(
            context._replace(age=context.age + 1)
            for context in state.recent
            if context.age + 1 < CONTEXT_RECORDS
        )
        if importer_node or error_category or parser_error or timed:
            # the message that made a node unsupported, for the node block printed next
            reason = message if error_category == "parser-unsupported" else ""
            context = ContextRecord(0, importer_node, error_category, parser_error, timed, reason)
            aged = (context, *aged)
        state.recent = aged
    if record.hit and not findings and (
        (severity in ERRORISH and (_PROCESS_DIED.search(message) or _RUNNER_FAILED.search(message)))
        # decision D6: a nameless tactic error inside a timing block is the timed layer's
        or (severity in REPORTED and _NAMELESS_TACTIC_ERROR.search(message))
    ):
        crashed = recent_timed_layer(state)  # the process died, or a tactic failed, timing it
        if crashed:
            # a tactic's error: the category of what it says, not of the runner that raised it
            # (D6); a dying process: the record's (myelin when Myelin's sources assert)
            said = "" if _PROCESS_DIED.search(message) else wording_category(message)
            findings.append(LogFinding(crashed, record.line, said))
    refusal = (
        record.hit
        and ("rejected node" in message or "PyTorch" in message or "TF-TRT cand" in message)
        and REFUSAL.search(message) is not None
    )
    # TensorRT's own layer message printed bare (no prefix: records start a record at it)
    bare = (
        record.hit
        and not severity
        and not prefix.tagged
        and BARE_MESSAGE.search(record.lines[0][1] if record.lines else "") is not None
    )
    if severity == "warning" and _ADVISORY.search(message):
        # decision D5: a warning that says this run still does what was asked (TensorRT
        # resolves a placeholder dimension at run time; a deprecated form that still works)
        findings, category = [], ""
    tensors: list[str] = []
    if record.hit and not framing and (
        refusal or bare or _may_name_layers(severity, category)
    ):
        tensors = grammar_names(record, findings, seen, state)
    if record.hit and not findings and severity in ERRORISH and category == "shape":
        # the shape checker's verdict on a condition a warning just blamed on a layer ("[W] X:
        # dimensions not compatible for elementwise." then "Error[4]: ... Shape Error
        # (inherently false condition)"): the build stops on that layer
        warned = recent_warned_layer(state)
        if warned:
            findings.append(LogFinding(warned, record.line))
    if record.hit and severity == "warning" and category == "shape" and len(findings) == 1:
        warning = ContextRecord(0, "", "", False, "", "", findings[0].layer)
        state.recent = (warning, *state.recent)
    if not category and findings and severity in ERRORISH:
        # the wording around a name glued to its reason ("Conv_221:kernel weights has count N
        # ...", n874) is read with the name masked: the finding's category is the record's.
        # An error that names a layer but states no reason, right after an error that does
        # (a converter's "Unable to create average pooling layer from node: X" thrown after
        # TensorRT's "Parameter check failed at: ...addPoolingNd"): that error's reason.
        category = next((f.category for f in findings if f.category), "") or before_category
    runtime_content = record.hit and RUNTIME_CONTENT.search(message) is not None
    phase = PHASE_BY_CATEGORY.get(category, "") or ("parse" if parser_error else "")
    if category == "tactic-out-of-memory" and (state.phase == "runtime" or runtime_content):
        phase = ""  # out of memory while deserializing or running, not while autotuning
    if not phase and TACTIC_CONTENT.search(message):
        phase = "tactic"
    if not phase and runtime_content:
        state.phase = "runtime"
    if not phase:
        phase = state.phase
    if category == "tactic-out-of-memory" and phase == "runtime":
        category = "out-of-memory"
    # (decision D6: a skipped tactic is tactic-failure whatever its exception says, "Autotuner:
    # no tactics to implement operation" too, unless it ran out of memory)
    skipped = "kipping tactic" in message and category not in ("tactic-out-of-memory", "")
    if skipped:
        # "Skipping tactic 0x0 due to exception ... In op 'X', expected shape ...": whatever the
        # exception says, the builder skipped a tactic of X and goes on
        category = "tactic-failure"
    code, code_name = error_code(record, message)
    # decision D1: TensorRT's code 3 (the logger's "3: ", "Error[3]:") is api-usage whatever the
    # wording says (the finding's own category too); the vocabulary's safety-scope names the
    # API usage error the safety build raises for a layer outside its scope
    api_usage = (
        code == 3
        and severity in ERRORISH
        and bool(category or findings)
        and category != "safety-scope"
    )
    if api_usage:
        category = "api-usage"
    where, function = location(message)
    fatal = (
        severity in ERRORISH
        and bool(category)
        and category not in NON_FATAL
        and "kipping tactic" not in message
        # ONNX Runtime's TensorRT EP: a node the parser rejects goes to another provider
        and not (prefix.source == "onnxruntime" and category.startswith("parser-"))
    )
    if record.hit and severity in ERRORISH:
        state.last_error_category = category
    if record.hit and findings:
        findings = complete_cut_names(record, findings, state)
    for finding in findings:
        finding.category = category if skipped or api_usage else finding.category or category
    if record.hit:
        findings = _backend_strategies(record, severity, findings, state)
    return LogFacts(
        severity=severity,
        source=source(prefix.source, message),
        error_code=code,
        error_name=code_name,
        location=where,
        function=function,
        category=category,
        phase=phase,
        fatal=fatal,
        findings=findings,
        tensors=tensors,
        framing=framing and not parser_error,
        refusal=refusal,
        abandoned_block=abandoned,
    )


def is_reported(facts: LogFacts) -> bool:
    """Does this record become failure rows? (names, or an error, or a known warning)."""
    if facts.refusal and facts.findings:
        return True  # reported at DEBUG level, yet it decides what runs outside TensorRT
    if facts.severity not in REPORTED:
        return False
    if facts.findings:
        return True
    if facts.framing:
        return False
    if facts.severity in ERRORISH:
        return True
    return facts.severity == "warning" and facts.category in WARNING_CATEGORIES

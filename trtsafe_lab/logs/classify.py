"""What a record says: the layers it blames, its category, phase, error code and fatality.

The rules read one :class:`~trtsafe_lab.logs.records.Record` at a time plus a little state
carried between records (:class:`ParseState`): the ONNX parser's current node block (``While
parsing node number N [Op -> "out"]`` header and NodeProto dump), the node named by the record
just before (verbose ``ModelImporter.cpp: X [Op] inputs:`` lines), and the phase (parse, build
or runtime, from markers such as ``Start parsing network model``, ``Local timing cache in use``,
``Engine built in`` and ``Starting inference``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from trtsafe_lab.logs.layer_names import SAFETY, line_names
from trtsafe_lab.logs.records import Record

ERRORISH = frozenset({"error", "internal_error", "critical"})
REPORTED = ERRORISH | {"warning", ""}

# --- ONNX parser blocks ----------------------------------------------------------------------
_PARSE_HEADER = re.compile(
    r"While parsing node number (?P<index>-?\d+) \[(?P<op>[^\]\s]*)(?: -> \"(?P<out>.*)\")?\]"
)
_DUMP_NAME = re.compile(r'^name: "(?P<name>.*)"\s*$')
_IMPORTER_NODE = re.compile(
    r"ModelImporter\.cpp:\d+: (?P<name>.{1,1024}?) \[(?P<op>\w+)\] inputs: "
)
_PARSER_ERROR = re.compile(
    r"ERROR: \S*(?:ModelImporter|importers?|onnxOpCheckers|onnx2trt\w*)\.cpp:\d+ In function \w+:"
    r"|(?:^|\s)In function import\w+:|In node -?\d+ \(\w+\): [A-Z_]+:|INVALID_NODE|UNSUPPORTED_NODE"
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

_TACTIC_CONTENT = re.compile(r"Autotuner|[Ss]kipping tactic|computeCosts|getBestTactic")
_RUNTIME_CONTENT = re.compile(
    r"[Dd]eserializ|Inference set up failed|Got invalid engine|enqueue\w* failed"
    r"|execution context"
)

# --- categories, first match wins --------------------------------------------------------------
CATEGORY_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("safety-scope", SAFETY),
    ("no-tactic", re.compile(r"No tactic available|no tactics to implement")),
    ("no-implementation", re.compile(r"[Cc]ould not find any implementation")),
    (
        "parser-unsupported",
        re.compile(
            r"UNSUPPORTED_NODE|No importer registered|Plugin not found|could not find plugin"
            r"|In function check\w+:"
        ),
    ),
    (
        "parser-error",
        re.compile(
            r"While parsing node|In function (?:import|parse)\w*:|INVALID_NODE|Invalid Node"
            r"|[Ff]ailed to parse|Parsing model failed|Fail(?:ed)? parsing|Parsing File Failed"
            r"|Failed to load ONNX"
        ),
    ),
    (
        "shape",
        re.compile(
            r"IShuffleLayer applied|broadcast dimensions|dimensions not compatible|Shape Error"
            r"|reshape would change volume|reshaping failed"
        ),
    ),
    (
        "dla-fallback",
        re.compile(
            r"falling back to GPU|Switching (?:this layer's device type )?to GPU|GPU fallback"
        ),
    ),
    ("myelin", re.compile(r"[Mm]yelin")),
    (
        "tactic-out-of-memory",
        re.compile(
            r"insuf+icient (?:memory|workspace)|oom error|Requested amount of GPU memory"
            r"|Tactic Device request|Device memory is insufficient|OutOfMemory|out of memory"
            r"|allocator error"
        ),
    ),
    (
        "tactic-failure",
        re.compile(r"[Ss]kipping tactic|getBestTactic|timeReformat|backend strategy"),
    ),
    ("dla", re.compile(r"\bDLA\b|NVMEDIA_DLA|kDLA")),
    ("plugin", re.compile(r"[Pp]lugin")),
    ("api-usage", re.compile(r"API Usage Error|Parameter check failed")),
    ("runtime-failed", _RUNTIME_CONTENT),
    (
        "build-failed",
        re.compile(
            r"Engine could not be created|Building engine failed|Engine set up failed"
            r"|Failed to create engine|Engine creation failed|[Bb]uild serialized network failed"
            r"|buildSerializedNetwork|buildEngine|&&&& FAILED"
        ),
    ),
    ("internal-error", re.compile(r"Internal Error|Assertion|[Aa]ssert")),
)
NON_FATAL = frozenset({"tactic-out-of-memory", "tactic-failure", "dla-fallback"})
# Warnings become failure rows only for these categories (a warning that merely mentions a
# plugin or Myelin is not a finding).
WARNING_CATEGORIES = frozenset(
    {
        "safety-scope",
        "no-tactic",
        "no-implementation",
        "parser-unsupported",
        "parser-error",
        "shape",
        "dla-fallback",
        "tactic-out-of-memory",
        "tactic-failure",
        "out-of-memory",
    }
)
_PHASE_BY_CATEGORY = {
    "no-tactic": "tactic",
    "no-implementation": "tactic",
    "tactic-out-of-memory": "tactic",
    "tactic-failure": "tactic",
    "parser-unsupported": "parse",
    "parser-error": "parse",
    "runtime-failed": "runtime",
}

# --- error codes and locations ---------------------------------------------------------------
_ERROR_CODE = re.compile(
    r"Error Code:? (?P<code>\d{1,9}): (?:(?P<name>[A-Za-z][\w ]{0,60}?) \(|(?=Skipping))"
    r"|Error\[(?P<bracket>\d+)\]: "
)
_LOCATIONS = (
    re.compile(r"ERROR: (?P<loc>\S{1,300}\.(?:cpp|cc|hpp|h):\d+) In function (?P<func>\w{1,200}):"),
    re.compile(
        r"\[(?P<loc>[\w./\\-]{1,300}\.(?:cpp|cc|cu|h|hpp)::(?P<func>[\w:~]{1,300})::\d+)\]"
    ),
    re.compile(r"\[(?P<loc>[\w./\\-]{1,300}\.(?:cpp|cc|h|hpp):(?P<func>\w{1,200}):\d+)\]"),
    re.compile(r"In (?P<func>[\w:~]{1,300}) at (?P<loc>\S{1,300}:\d+)"),
)
# A bare "file.cpp:NN" / "file.cpp (NN)" location: found from its extension, then walked back.
_EXTENSION = re.compile(r"\.(?:cpp|cc|h|hpp)(?::\d+| \(\d+\))(?:[: ]+In function (\w{1,200}))?")
_PATH_TAIL = re.compile(r"[\w./\\:-]{1,300}$")
_API = re.compile(r"(?P<func>I[A-Z]\w{0,80}::\w{1,80}): ")


@dataclass
class ParseState:
    """State carried from one record to the next."""

    phase: str = "build"
    header_output: str = ""
    header_seen: bool = False
    dump_name: str = ""
    in_dump: bool = False
    dump_depth: int = 0
    previous_importer_node: str = ""


@dataclass
class LogFinding:
    """One layer name a record blames, with the category its wording implies."""

    layer: str
    line: int
    category: str = ""


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
    framing: bool = False  # an ONNX-parser node header or NodeProto dump, context for an error


def _category(message: str) -> str:
    for name, pattern in CATEGORY_RULES:
        if pattern.search(message):
            return name
    return ""


def _error_code(record: Record, message: str) -> tuple[int | None, str]:
    match = _ERROR_CODE.search(message)
    if match is not None:
        code = match.group("code") or match.group("bracket")
        name = match.group("name") or ""
        if match.group("bracket") and not name:
            inner = _ERROR_CODE.search(message, match.end())
            if inner is not None and inner.group("name"):
                name = inner.group("name")
        return int(code), name.strip()
    return record.prefix.error_number, ""


def _location(message: str) -> tuple[str, str]:
    for pattern in _LOCATIONS:
        match = pattern.search(message)
        if match is not None:
            return match.group("loc"), match.group("func") or ""
    extension = _EXTENSION.search(message)
    if extension is not None:
        head = _PATH_TAIL.search(message, max(0, extension.start() - 300), extension.start())
        if head is not None:
            location = message[head.start() : extension.end()]
            function = extension.group(1) or ""
            if function:
                location = location[: location.rfind(" In function")].rstrip(": ")
            return location, function
    api = _API.search(message)
    return ("", api.group("func")) if api else ("", "")


def _update_block(state: ParseState, text: str) -> None:
    header = _PARSE_HEADER.search(text)
    if header is not None:
        state.header_seen = True
        state.header_output = header.group("out") or ""
        state.dump_name = ""
        state.in_dump = False
        return
    stripped = text.strip()
    if stripped.endswith("--- Begin node ---"):
        state.in_dump = True
        state.dump_depth = 0
        state.dump_name = ""
        return
    if stripped.endswith("--- End node ---"):
        state.in_dump = False
        return
    if state.in_dump:
        if state.dump_depth == 0 and not state.dump_name:
            dump = _DUMP_NAME.match(stripped)
            if dump is not None:
                state.dump_name = dump.group("name")
        state.dump_depth += stripped.count("{") - stripped.count("}")
        state.dump_depth = max(state.dump_depth, 0)


def _reset_block(state: ParseState) -> None:
    state.header_seen = False
    state.header_output = ""
    state.dump_name = ""
    state.in_dump = False


def _dump_text(text: str) -> str:
    """The NodeProto text on an ``ModelImporter.cpp:NNN: input: "x"`` head line."""
    head, sep, rest = text.partition(".cpp:")
    if sep and "ModelImporter" in head:
        _, _, after = rest.partition(": ")
        return after
    return text


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
    first = _dump_text(record.lines[0][1]) if record.lines else ""
    framing = state.in_dump or _PARSE_HEADER.search(first) is not None or first.strip() in (
        "--- Begin node ---",
        "--- End node ---",
    )
    for index, (line_no, text) in enumerate(record.lines):
        if record.hit:
            _update_block(state, _dump_text(text) if index == 0 else text)
        for name, category in line_names(text):
            if name not in seen:
                seen.add(name)
                findings.append(LogFinding(name, line_no, category))
    importer = _IMPORTER_NODE.search(record.lines[0][1]) if record.lines else None
    parser_error = record.hit and _PARSER_ERROR.search(message) is not None
    if parser_error:
        if not findings:
            fallback = (
                state.dump_name
                or state.header_output
                or ("" if state.header_seen else state.previous_importer_node)
            )
            if fallback:
                findings.append(LogFinding(fallback, record.line))
        _reset_block(state)
    state.previous_importer_node = importer.group("name") if importer else ""

    category = _category(message)
    if parser_error and category not in ("parser-unsupported", "parser-error"):
        category = "parser-error"
    runtime_content = record.hit and _RUNTIME_CONTENT.search(message) is not None
    phase = _PHASE_BY_CATEGORY.get(category, "")
    if category == "tactic-out-of-memory" and (state.phase == "runtime" or runtime_content):
        phase = ""  # out of memory while deserializing or running, not while autotuning
    if not phase and _TACTIC_CONTENT.search(message):
        phase = "tactic"
    if not phase and runtime_content:
        state.phase = "runtime"
    if not phase:
        phase = state.phase
    if category == "tactic-out-of-memory" and phase == "runtime":
        category = "out-of-memory"
    severity = prefix.severity
    if not severity and parser_error:
        severity = "error"  # an application printing the ONNX parser's errors, untagged
    code, code_name = _error_code(record, message)
    location, function = _location(message)
    fatal = (
        severity in ERRORISH
        and bool(category)
        and category not in NON_FATAL
        and "kipping tactic" not in message
    )
    for finding in findings:
        finding.category = finding.category or category
    return LogFacts(
        severity=severity,
        source=_source(prefix.source, message),
        error_code=code,
        error_name=code_name,
        location=location,
        function=function,
        category=category,
        phase=phase,
        fatal=fatal,
        findings=findings,
        framing=framing and not parser_error,
    )


_PARSER_SOURCE = re.compile(
    r"ModelImporter|builtin_op_importers|onnxOpCheckers|onnx2trt|While parsing node|In node -?\d"
)


def _source(source: str, message: str) -> str:
    if _PARSER_SOURCE.search(message):
        return "onnx-parser"
    if message.startswith("Error[") and source in ("", "polygraphy"):
        return "trtexec"  # trtexec's "Error[N]:" on a line whose timestamp was cut off
    return source


def is_reported(facts: LogFacts) -> bool:
    """Does this record become failure rows? (names, or an error, or a known warning)."""
    if facts.severity not in REPORTED:
        return False
    if facts.findings:
        return True
    if facts.framing:
        return False
    if facts.severity in ERRORISH:
        return True
    return facts.severity == "warning" and facts.category in WARNING_CATEGORIES


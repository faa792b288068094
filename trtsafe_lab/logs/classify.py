"""What a record says: the layers it blames, its category, phase, error code and fatality.

The rules read one :class:`~trtsafe_lab.logs.records.Record` at a time plus a little state
carried between records (:class:`ParseState`): the ONNX parser's current node block (``While
parsing node number N [Op -> "out"]`` header and NodeProto dump), the node named by the record
just before (verbose ``ModelImporter.cpp: X [Op] inputs:`` lines), and the phase (build or
runtime, from markers such as ``Engine built in`` and ``Starting inference``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from trtsafe_lab.logs.names import name_at, strip_interface
from trtsafe_lab.logs.records import Record

MAX_NAME_CHARS = 4096  # longer "names" are not names
MAX_MATCHES = 64  # findings of one kind read from one line
ERRORISH = frozenset({"error", "internal_error", "critical"})
REPORTED = ERRORISH | {"warning", ""}

# --- names -------------------------------------------------------------------------------
_NO_IMPL = re.compile(r"[Cc]ould not find any implementation for node ")
_NO_TACTIC = re.compile(r"No tactic available for (?:node|layer) ")
_AUTOTUNER_LAYERS = re.compile(r"no tactics to implement operation.*?layers=(?=\[)", re.DOTALL)
_ONNX_LAYER = re.compile(r"ONNX Layer: ")
_SHAPE_PHRASE = re.compile(
    r": (?:IShuffleLayer applied to shape tensor|dimensions not compatible for elementwise"
    r"|reshaping failed for tensor|broadcast dimensions must be conformable)"
)
_ERROR_CODE_OPEN = re.compile(r"Error Code \d+: [^(]{0,200}\(")
_LEADING_LOCATION = re.compile(r"^(?:\d{1,2}: )?(?:\[[^\]]*::[^\]]*\] )?")
_DLA_FALLBACK = (
    re.compile(
        r"Default DLA is enabled but layer (?P<name>.{1,1024}?) is not (?:supported|running) "
        r"on DLA, falling back to GPU"
    ),
    re.compile(r"Layer '(?P<name>[^']{1,4096})' \([\w ]{1,40}\): Unsupported on DLA"),
    re.compile(r"Validation failed for DLA layer: (?P<name>.{1,1024}?)\. Switching to GPU"),
)
_GET_BEST_TACTIC = re.compile(r"(?:GPU|[Cc]uda) error during getBestTactic: (?P<rest>.+)$")
_INVALID_NODE = re.compile(r"Invalid Node - (?P<name>.+?)\s*$")
_IN_NODE_NAMED = re.compile(r"In node -?\d{1,9} with name: (?P<name>.{1,1024}?) and operator: ")
_NODE_NAME_CALL = re.compile(r"error\.node_name\(\) = '(?P<name>.+)'\s*$")
_SAFETY = re.compile(r"[Ss]afety[ -]scope|kSAFETY|[Ss]afety[ -]certified|EngineCapability::kSAFETY")
_QUOTED_LAYER = re.compile(r"[Ll]ayer '(?P<name>[^']{1,4096})'")

# --- ONNX parser blocks ----------------------------------------------------------------------
_PARSE_HEADER = re.compile(
    r"While parsing node number (?P<index>-?\d+) \[(?P<op>[^\]\s]*)(?: -> \"(?P<out>.*)\")?\]"
)
_DUMP_NAME = re.compile(r'^name: "(?P<name>.*)"\s*$')
_IMPORTER_NODE = re.compile(r"ModelImporter\.cpp:\d+: (?P<name>.+?) \[(?P<op>\w+)\] inputs: ")
_PARSER_ERROR = re.compile(
    r"ERROR: \S*(?:ModelImporter|importers?|onnxOpCheckers|onnx2trt\w*)\.cpp:\d+ In function \w+:"
    r"|(?:^|\s)In function import\w+:|In node -?\d+ \(\w+\): [A-Z_]+:|INVALID_NODE|UNSUPPORTED_NODE"
)

# --- phase markers ---------------------------------------------------------------------------
_RUNTIME_MARKER = re.compile(
    r"Engine built in|Engine deserialized in|Engine loaded in|Loaded engine size"
    r"|Starting inference|Loading bytes from \S+\.(?:engine|plan|trt)\b"
)
_BUILD_MARKER = re.compile(r"(?:Local|Global) timing cache in use")

_TACTIC_CONTENT = re.compile(r"Autotuner|[Ss]kipping tactic|computeCosts|getBestTactic")
_RUNTIME_CONTENT = re.compile(
    r"[Dd]eserializ|Inference set up failed|Got invalid engine|enqueue\w* failed"
    r"|execution context"
)

# --- categories, first match wins --------------------------------------------------------------
CATEGORY_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("safety-scope", _SAFETY),
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
class Finding:
    """One layer name a record blames, with the category its wording implies."""

    layer: str
    line: int
    category: str = ""


@dataclass
class Facts:
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
    findings: list[Finding] = field(default_factory=list)
    framing: bool = False  # an ONNX-parser node header or NodeProto dump, context for an error


def _shape_names(text: str) -> list[str]:
    found = []
    for match in itertools.islice(_SHAPE_PHRASE.finditer(text), MAX_MATCHES):
        before = text[max(0, match.start() - MAX_NAME_CHARS) : match.start()]
        starts = [opened.end() for opened in _ERROR_CODE_OPEN.finditer(before)]
        start = starts[-1] if starts else 0
        candidate = _LEADING_LOCATION.sub("", before[start:]).strip()
        if candidate.startswith("(") and candidate.count("(") > candidate.count(")"):
            candidate = candidate[1:]
        candidate = strip_interface(candidate)
        if candidate:
            found.append(candidate)
    return found


def _autotuner_names(text: str) -> list[str]:
    match = _AUTOTUNER_LAYERS.search(text)
    if match is None:
        return []
    start = match.end()
    depth = 0
    end = len(text)
    for index in range(start, len(text)):
        if text[index] in "[(":
            depth += 1
        elif text[index] in "])":
            depth -= 1
            if depth == 0:
                end = index
                break
    body = text[start + 1 : end]
    names = []
    for item in _ONNX_LAYER.split(body)[1:]:
        name = item.strip().strip("\x1e").strip()
        name = name.rstrip(",;").strip()
        if name:
            names.append(name)
    return names


def _best_tactic_name(rest: str) -> str:
    name, sep, _ = rest.rpartition(" : ")
    return (name if sep else rest).strip()


def line_names(text: str) -> list[tuple[str, str]]:
    """(name, category) pairs one line of a message blames; empty when it names no layer."""
    out: list[tuple[str, str]] = []
    if "mplementation for node" in text:
        for match in itertools.islice(_NO_IMPL.finditer(text), MAX_MATCHES):
            out.append((name_at(text, match.end()), "no-implementation"))
    if "No tactic available" in text:
        for match in itertools.islice(_NO_TACTIC.finditer(text), MAX_MATCHES):
            out.append((name_at(text, match.end()), "no-tactic"))
    if "layers=[" in text:
        out.extend((name, "no-tactic") for name in _autotuner_names(text))
    if ": " in text:
        out.extend((name, "shape") for name in _shape_names(text))
    if "DLA" in text:
        for pattern in _DLA_FALLBACK:
            for match in itertools.islice(pattern.finditer(text), MAX_MATCHES):
                out.append((match.group("name"), "dla-fallback"))
    if "getBestTactic: " in text:
        tactic = _GET_BEST_TACTIC.search(text)
        if tactic:
            out.append((_best_tactic_name(tactic.group("rest")), "tactic-failure"))
    if "Invalid Node - " in text:
        invalid = _INVALID_NODE.search(text)
        if invalid:
            out.append((invalid.group("name"), "parser-error"))
    if "with name: " in text:
        unsupported = "UNSUPPORTED" in text or "not found" in text
        for match in itertools.islice(_IN_NODE_NAMED.finditer(text), MAX_MATCHES):
            category = "parser-unsupported" if unsupported else "parser-error"
            out.append((match.group("name"), category))
    if "node_name()" in text:
        called = _NODE_NAME_CALL.search(text)
        if called:
            out.append((called.group("name"), "parser-error"))
    if _SAFETY.search(text):
        quoted = itertools.islice(_QUOTED_LAYER.finditer(text), MAX_MATCHES)
        out.extend((m.group("name"), "safety-scope") for m in quoted)
    return [(name, category) for name, category in out if name and len(name) <= MAX_NAME_CHARS]


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
    """The phase a marker line starts ("runtime", "build") or "" for other lines."""
    if _RUNTIME_MARKER.search(text):
        return "runtime"
    return "build" if _BUILD_MARKER.search(text) else ""


def examine(record: Record, state: ParseState) -> Facts:
    """Read one record, update ``state`` and return what the record says."""
    message = record.message
    prefix = record.prefix
    # Only records that contain a trigger may change the state, so that the streaming scan,
    # which skips the others, reads the same state as a full parse.
    if record.hit:
        for _, text in record.lines:
            state.phase = marker_phase(text) or state.phase
    findings: list[Finding] = []
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
                findings.append(Finding(name, line_no, category))
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
                findings.append(Finding(fallback, record.line))
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
    return Facts(
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
    return source


def is_reported(facts: Facts) -> bool:
    """Does this record become failure rows? (names, or an error, or a known warning)."""
    if facts.severity not in REPORTED:
        return False
    if facts.findings:
        return True
    if facts.framing:
        return False
    if facts.severity in ERRORISH:
        return True
    return facts.severity == "warning" and bool(facts.category)


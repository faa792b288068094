"""Which layer names one line of a log blames, and for what.

:func:`line_names` reads one line (prefixes already stripped) and returns ``(name, category)``
pairs: ``Could not find any implementation for node X`` (no-implementation), the 11.x safety
forms ``No tactic available for node X`` and ``Autotuner: no tactics to implement operation:
... layers=[ONNX Layer: X, ...]`` (no-tactic), ``X: IShuffleLayer applied to shape tensor ...``
and the other shape errors (shape), DLA fallback lists (dla-fallback), ``getBestTactic: X``
(tactic-failure), the ONNX parser's ``Invalid Node - X`` / ``Exception occurred in - X`` /
``In node N with name: X`` forms
(parser-*), and quoted layers in safety-scope rejections (safety-scope). Every pattern is
bounded, so a 10 MB line costs linear time.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from trtsafe_lab.logs.name_tokens import (
    ERROR_CODE_OPEN,
    MAX_MATCHES,
    MAX_NAME_CHARS,
    closing_quote,
    spaced_name_token,
)
from trtsafe_lab.logs.names import name_at, strip_interface

_NO_IMPL = re.compile(r"[Cc]ould not find any implementation for node ")
_NO_TACTIC = re.compile(r"No tactic available for (?:node|layer) ")
# strict mode: "No implementation of layer 417 obeys the requested constraints in strict mode."
# (the label says a layer follows: a numeric name counts)
_NOT_OBEYED = re.compile(r"No implementation of layer ")
# the optimizer's format assertion: "Assertion ... failed. No supported formats for X" (the
# name ends the message; its category is the record's)
_NO_FORMATS = re.compile(r"No supported formats for ")
# ONNX Runtime's TensorRT EP: "TensorRT EP could not build engine for fused node: X" (X: the
# graph node ONNX Runtime handed to TensorRT, a node of the user's graph: decision D12)
_FUSED_NODE = re.compile(r"could not build [Ee]ngine for fused node: ")
# network validation: "Repeated layer name: reshape (layers must have distinct names)" (the
# label says it is a layer name, so a plain word counts)
_REPEATED_NAME = re.compile(r"Repeated layer name: ")
# the UFF parser's validator: "UffParser: Validator error: Cast: Unsupported operation _Cast"
# (the node whose op has no importer; the label says a node's clause follows, so a plain word
# counts)
_VALIDATOR = re.compile(r"Validator error: ")
_ONNX_LAYER = re.compile(r"ONNX Layer: ")
_SHAPE_PHRASE = re.compile(
    r": (?:IShuffleLayer applied to shape tensor|dimensions not compatible for elementwise"
    r"|reshaping failed for tensor|broadcast dimensions must be conformable)"
)
# Predicates that follow the layer they are about ("Assertion !layerImpls.empty() failed.
# /motion_head/Atan has no runners that implement it"): the name is the clause before them.
_NO_RUNNERS = re.compile(r" has no runners that implement it")
_LEADING_LOCATION = re.compile(r"^(?:\d{1,2}: )?(?:\[[^\]]{0,300}::[^\]]{0,300}\] )?")
_NAME = f"(?P<name>.{{1,{MAX_NAME_CHARS}}}?)"  # a name that the words after it end
_DLA_FALLBACK = (
    re.compile(
        rf"Default DLA is enabled but layer {_NAME} is not (?:supported|running) "
        r"on DLA, falling back to GPU"
    ),
    re.compile(rf"Layer '{_NAME}' \([\w ]{{1,40}}\): Unsupported on DLA"),
    re.compile(rf"Validation failed for DLA layer: {_NAME}\. Switching to GPU"),
    re.compile(rf"Switching (?!this layer){_NAME} device type to GPU"),
)
# Network validation names the layer it rejects ("Layer concatenate_1 failed validation",
# "Layer xxx failed DriveOS 6.0 safety scope validation")
_FAILED_VALIDATION = re.compile(
    rf"\bLayer (?P<name>.{{1,{MAX_NAME_CHARS}}}?) failed (?:[\w. ]{{1,60}} )?validation\b"
)
# TF-TRT names the TensorRT engine op it could not build ("Engine creation for TRTEngineOp_0_0
# failed. The native segment will be used instead.", tensorflow's trt_engine_op.cc).
_TF_TRT_ENGINE_OP = re.compile(
    rf"(?:Engine creation|[Bb]uilding engine) for (?P<name>\S{{1,{MAX_NAME_CHARS}}}?) failed"
    # TF 1.x convert_graph.cc: "TensorRT node X added for segment 0 consisting of 9 nodes
    # failed: ... Fallback to TF..."
    rf"|TensorRT node (?P<added>\S{{1,{MAX_NAME_CHARS}}}) added for segment \d{{1,9}} consisting"
    r" of \d{1,9} nodes failed"
)
# At run time TF-TRT runs the TensorFlow segment instead of the engine ("Running native segment
# forPartitionedCall/TRTEngineOp_0_1 due to failure in verifying input shapes: ..." - newer
# trt_engine_op.cc prints no space after "for" -, "Failed to execute engine, retrying with native
# segment for X", "Failed to enqueue batch for TRT engine: X").
_TF_TRT_NATIVE = re.compile(
    rf"(?:Running|retrying with) native segment for ?(?P<name>[^\s:]{{1,{MAX_NAME_CHARS}}}?)"
    r"(?: due to |:|\s*$)"
    rf"|enqueue batch for TRT engine: (?P<engine>[^\s:]{{1,{MAX_NAME_CHARS}}})"
)
_RUNTIME_SHAPE = re.compile(r"\b(?:input |output )?(?:shapes?|dimensions?)\b")
# The engine op a TF-TRT status names after "for" / ", at" ("Input shapes are empty, for X",
# "Input node TensorRTInputPH_0 not found, at X"): TF-TRT names its ops TRTEngineOp_N_M, under
# the scope of the function that holds them.
_TF_TRT_OP_NAMED = re.compile(
    r"(?:\bfor|, at) (?P<name>(?:[\w.-]{1,200}/){0,32}TRTEngineOp_\w{1,200})(?=[:,.]?(?:\s|$))"
)
# TF-TRT's converters end a refusal with the node it was converting: TensorFlow's status text
# "Unimplemented: Operation: GatherV2 does not support tensor input as indices, at: X"
# (tensorflow/contrib/tensorrt/convert/convert_nodes.cc)
_TF_STATUS_AT = re.compile(
    r"\b(?:Unimplemented|Invalid argument|Unavailable|Internal): [^\n\"]{0,2000}?, at: "
)
# the status is quoted in convert_graph.cc's "due to: \"...\" SKIPPING": its closing quote (or
# the line's end) ends the node's name, which may hold spaces and quotes
_STATUS_END = '" SKIPPING'


def _status_node(text: str, start: int) -> str:
    """The node a TF status names from ``start`` (after its ", at: ") to its closing quote."""
    end = text.find(_STATUS_END, start, start + MAX_NAME_CHARS + len(_STATUS_END))
    if end >= 0:
        return text[start:end]
    rest = text[start : start + MAX_NAME_CHARS].rstrip()
    return rest[:-1] if rest.endswith('"') else rest
# The builder's report of an error raised while it timed a layer's tactics ("Get cuda error
# during getBestTactic: X", "GPU error during getBestTactic: X : invalid argument", "GPU memory
# allocation error during getBestTactic: X"): X is the layer; the error itself was printed just
# before (classify reads its category). One pattern for every module that reads it.
BEST_TACTIC_ERROR = re.compile(r"\berror during getBestTactic: ")
_INVALID_NODE = re.compile(r"(?:Invalid Node|Exception occurred in) - ")
_WRAPPER_LOCATION = re.compile(r" at [\w./\\-]{1,300}:\d{1,9} \(\w{1,200}\)\.?$")
_IN_NODE_NAMED = re.compile(
    rf"In node -?\d{{1,9}} with name: {_NAME} and operator: "
)
_NO_IMPORTER_CODE = re.compile(r"UNSUPPORTED_(?:NODE|GRAPH)(?!_)")
_NODE_NAME_CALL = re.compile(r"error\.node_name\(\) = '")
SAFETY = re.compile(r"[Ss]afety[ -]scope|kSAFETY|[Ss]afety[ -]certified|EngineCapability::kSAFETY")
_QUOTED_LAYER = re.compile(r"[Ll]ayer '")


def _shape_names(text: str, phrase: re.Pattern[str] = _SHAPE_PHRASE) -> list[str]:
    """The names standing before each match of ``phrase``: the last clause (after ``": "`` or
    a sentence end) of the text between the reason's opening and the phrase."""
    found = []
    for match in itertools.islice(phrase.finditer(text), MAX_MATCHES):
        before = text[max(0, match.start() - MAX_NAME_CHARS) : match.start()]
        starts = [opened.end() for opened in ERROR_CODE_OPEN.finditer(before)]
        start = starts[-1] if starts else 0
        candidate = _LEADING_LOCATION.sub("", before[start:]).strip()
        if candidate.startswith("(") and candidate.count("(") > candidate.count(")"):
            candidate = candidate[1:]
        candidate = strip_interface(_last_clause(candidate))
        if candidate:
            found.append(candidate)
    return found


def _last_clause(text: str) -> str:
    """What follows the last ``": "`` or sentence end ``". "`` outside brackets: ``kOPT values for
    profile 0 violate shape constraints: IShuffleLayer Reshape_552`` -> ``IShuffleLayer
    Reshape_552`` (``... would change volume. IShuffleLayer Reshape_4296`` likewise)."""
    depth = 0
    cut = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif (
            char in ":."
            and depth == 0
            and text.startswith(" ", index + 1)
            and index > 0
            # not TorchScript's "%46481 : Tensor = aten::add(...)", not a "..." range
            and text[index - 1] != (" " if char == ":" else ".")
        ):
            cut = index + 2
    return text[cut:].strip()


def _autotuner_names(text: str) -> list[str]:
    # Literal searches, not ".*?layers=": that regex re-scanned the line from every repeat of
    # the phrase (quadratic time).
    phrase = text.find("no tactics to implement operation")
    layers = text.find("layers=[", phrase) if phrase != -1 else -1
    if layers == -1:
        return []
    start = layers + len("layers=")
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


def _clause_subject(text: str, start: int) -> str:
    """The ``X`` of an ``X: reason`` clause that starts at ``start`` ("" when no ``:`` follows)."""
    name = spaced_name_token(text, start)
    return name if text.startswith(":", start + len(name)) else ""


def _best_tactic_name(rest: str) -> str:
    name, sep, _ = rest.rpartition(" : ")
    return (name if sep else rest).strip()


# (literal the line must hold, pattern, reader of the name after it, category ("" = the
# record's)): the forms whose name follows a fixed phrase
_NAME_AFTER: tuple[tuple[str, re.Pattern[str], Callable[[str, int], str], str], ...] = (
    ("mplementation for node", _NO_IMPL, name_at, "no-implementation"),
    ("No tactic available", _NO_TACTIC, name_at, "no-tactic"),
    ("mplementation of layer ", _NOT_OBEYED, spaced_name_token, ""),
    ("supported formats for ", _NO_FORMATS, name_at, ""),
    ("for fused node: ", _FUSED_NODE, name_at, "build-failed"),
    ("layer name: ", _REPEATED_NAME, spaced_name_token, "api-usage"),
    ("Validator error: ", _VALIDATOR, _clause_subject, ""),
)


def line_names(text: str) -> list[tuple[str, str]]:
    """(name, category) pairs one line of a message blames; empty when it names no layer."""
    out: list[tuple[str, str]] = []
    for hint, pattern, read, category in _NAME_AFTER:
        if hint in text:
            for match in itertools.islice(pattern.finditer(text), MAX_MATCHES):
                out.append((read(text, match.end()), category))
    if "layers=[" in text:
        out.extend((name, "no-tactic") for name in _autotuner_names(text))
    if ": " in text:
        out.extend((name, "shape") for name in _shape_names(text))
    if "has no runners" in text:
        out.extend((name, "no-tactic") for name in _shape_names(text, _NO_RUNNERS))
    if "DLA" in text:
        for pattern in _DLA_FALLBACK:
            for match in itertools.islice(pattern.finditer(text), MAX_MATCHES):
                out.append((match.group("name"), "dla-fallback"))
    if "validation" in text and "Layer " in text:
        for match in itertools.islice(_FAILED_VALIDATION.finditer(text), MAX_MATCHES):
            out.append((match.group("name"), ""))
    if "ngine creation for" in text or "uilding engine for" in text or "for segment" in text:
        for match in itertools.islice(_TF_TRT_ENGINE_OP.finditer(text), MAX_MATCHES):
            out.append((match.group("name") or match.group("added"), "build-failed"))
    if "native segment for" in text or "batch for TRT engine" in text:
        for match in itertools.islice(_TF_TRT_NATIVE.finditer(text), MAX_MATCHES):
            # trt_engine_op.cc: "Engine retrieval for input shapes: S failed. Running native
            # segment for X": no engine could be built for these shapes (a build failure);
            # otherwise the engine failed while running
            built = "Engine retrieval for" in text[: match.start()]
            name = match.group("name") or match.group("engine")
            # at run time the reason after "due to" says how it failed (decision D2: "failure
            # in verifying input shapes: ..." is shape); runtime-failed when it says nothing more
            reason = _RUNTIME_SHAPE.search(text, match.end()) if "due to" in match.group() else None
            out.append((name, "build-failed" if built else "shape" if reason else "runtime-failed"))
    if "TRTEngineOp_" in text:
        for match in itertools.islice(_TF_TRT_OP_NAMED.finditer(text), MAX_MATCHES):
            out.append((match.group("name"), ""))
    if ", at: " in text:
        for match in itertools.islice(_TF_STATUS_AT.finditer(text), MAX_MATCHES):
            out.append((_status_node(text, match.end()), ""))
    if "getBestTactic: " in text:
        tactic = BEST_TACTIC_ERROR.search(text)
        if tactic and tactic.end() < len(text):
            out.append((_best_tactic_name(text[tactic.end() :]), ""))  # the record's
    if "Invalid Node - " in text or "occurred in - " in text:
        invalid = _INVALID_NODE.search(text)
        if invalid:  # the rest of the line (was ".+?\s*$": quadratic on a run of spaces)
            node = text[invalid.end() :].rstrip().rstrip("*`")
            # the ONNXIFI backend's "Parsing error: Invalid Node - X at FILE:LINE (FUNC)."
            where = _WRAPPER_LOCATION.search(node)
            out.append((node[: where.start()] if where else node, "parser-error"))
    if "with name: " in text:
        # UNSUPPORTED_NODE: no importer for the op; UNSUPPORTED_NODE_ATTR and the other
        # UNSUPPORTED_NODE_* codes: its importer refused it (parser-error, decision D3)
        unsupported = _NO_IMPORTER_CODE.search(text) is not None or "not found" in text
        for match in itertools.islice(_IN_NODE_NAMED.finditer(text), MAX_MATCHES):
            category = "parser-unsupported" if unsupported else "parser-error"
            out.append((match.group("name"), category))
    if "node_name()" in text:
        called = _NODE_NAME_CALL.search(text)
        call_rest = text[called.end() :].rstrip() if called else ""
        if call_rest.endswith("'") and len(call_rest) > 1:  # was ".+'\s*$" (quadratic)
            out.append((call_rest[:-1], "parser-error"))
    if SAFETY.search(text):
        for match in itertools.islice(_QUOTED_LAYER.finditer(text), MAX_MATCHES):
            close = closing_quote(text, match.end() - 1)
            if close > 0:
                out.append((text[match.end() : close], "safety-scope"))
    # no name starts with ">": that is a markdown quote mark a paste glued to the name (n655:
    # "Error Code 4: Internal Error (Layer >conv3_up.0:1:CONVOLUTION:GPU failed validation)")
    out = [(name.lstrip(">"), category) for name, category in out]
    return [(name, category) for name, category in out if name and len(name) <= MAX_NAME_CHARS]

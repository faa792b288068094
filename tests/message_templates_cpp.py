"""Message templates of C++ sources: log calls, thrown errors and stream writes (a build-time
reader for ``tests/message_templates.py``, test data).

Read without compiling: ``LOG_VERBOSE/INFO/WARNING/ERROR(... << ...)`` (onnx-tensorrt,
Torch-TensorRT), ``sample::gLogError/Warning/Info/Verbose << ...`` (trtexec),
``TORCHTRT_CHECK(cond, ...)`` / ``TORCHTRT_THROW_ERROR(...)``, consecutive ``std::cerr << ...``
statements up to ``endl`` (onnx2trt's ``main.cpp``), the first statement written to an
``std::ostringstream``, ``"..." + x + "..."`` string sums (pyOnnx); TensorFlow's
``LOG(ERROR|WARNING|INFO) << ...`` / ``VLOG(n) << ...`` / ``LOG_WARNING_WITH_PREFIX << ...``,
``errors::Kind("...", x, ...)`` statuses and ``StrCat(...)`` messages logged through a variable
(TF-TRT); TensorRT-LLM's printf-style ``TLLM_LOG_*("...%s...", x)``, ``TLLM_THROW(...)`` and
``TLLM_CHECK_WITH_INFO(cond, "...", x)``. A value's placeholder comes from the expression and
the literal just before it (:func:`_cpp_role`), or from a source's own ``roles`` table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

_CPP_CALL = re.compile(
    r"\b(?P<macro>LOG_(?:VERBOSE|INFO|WARNING|ERROR|DEBUG|GRAPH)|TORCHTRT_CHECK"
    r"|TORCHTRT_THROW_ERROR)\s*\("
)
_CPP_SEVERITY = {
    "LOG_VERBOSE": "verbose", "LOG_DEBUG": "verbose", "LOG_GRAPH": "verbose", "LOG_INFO": "info",
    "LOG_WARNING": "warning", "LOG_ERROR": "error", "TORCHTRT_CHECK": "exception",
    "TORCHTRT_THROW_ERROR": "exception",
}
_CERR = re.compile(r"(?<![\w:])(?:std::)?cerr\s*<<")
# trtexec and the samples: sample::gLogError << ... << std::endl;
_SAMPLE_LOG = re.compile(r"\bsample::gLog(?P<level>Error|Warning|Info|Verbose)\s*<<")
_OSTREAM_DECL = re.compile(r"std::(?:o?stringstream)\s+(?P<var>\w+)\s*(?:\{\s*\})?\s*;")
_STRING_SUM = re.compile(r'"(?:[^"\\\n]|\\.)*"\s*\+|\+\s*"(?:[^"\\\n]|\\.)*"')
_VALUE_EXPR = re.compile(
    r"to_string|->node\(\)|nodeIdx|\.size\(\)|->line\(\)|->file\(\)|->func\(\)|nbDims"
    r"|getDimensions|shape\(\)|getType\(\)|->code\(\)|static_cast|Str\(|\.str\(\)|what\(\)"
    r"|\bshape\b|\bdims\b|std::endl|\bendl\b"
)
_DESC_EXPR = re.compile(r"(?:->|\.)desc\(\)")  # a parser error's description, inside a wrapper


def _cpp_role(expr: str, before: str, roles: Mapping[str, str] | None = None) -> str:
    """The placeholder for one inserted C++ expression (``before``: the literal text before;
    ``roles``: the source's own table of variables)."""
    e = expr.strip()
    if roles and e in roles:
        return roles[e]
    tail = before.rstrip().lower()
    if _DESC_EXPR.search(e):
        return "desc"
    if _VALUE_EXPR.search(e):
        return "value"
    if re.search(r"op_type|nodeType|nodeOperator|opType|pluginName|schema", e):
        return "op"
    if re.search(r"node_info|nodeName|getNodeName|\bnode\.name\(\)|\bnode\.name\b", e):
        return "node"
    if re.fullmatch(r"(?:this->)?name\(\)", e):
        return "node"  # TensorFlow's OpKernel::name(): the op's node name (TF-TRT's engine op)
    if re.search(r"layer\w*->getName\(\)", e) or e == "layerName":
        return "layer"
    if re.fullmatch(r"\w*(?:Idx|Index|_idx|_index)", e):
        return "value"  # an index ("Set output " << outputIdx << " of layer " << layerName)
    if re.search(
        r"\.output\(\d+\)|\.input\(\d+\)|inputName|outputName|\binput_name\b|\boutput_name\b"
        r"|tensorName|\binput\.name\(\)"
        r"|\boutput\.name\(\)|\w*[Tt]ensor\w*->getName\(\)|initializer\.name\(\)", e
    ):
        return "tensor"
    tail = tail.rstrip("\"' ")
    if re.fullmatch(r"[ijk]", e):
        return "value"  # a loop index ("... encountered in input ", i)
    if re.fullmatch(r"\w+(?:\.first|\[\w+\])?", e):
        if tail.endswith(("tensor", "tensor with name", "input", "output")):
            return "tensor"
        if tail.endswith("layer:"):
            return "layer"
        if tail.endswith(("node:", "node")):
            return "node"
        if tail.endswith(("tensor:", "tensor", "input:", "output:")):
            return "tensor"
    return "value"


def _cpp_literal(token: str) -> str:
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _literal_end(text: str, index: int, stops: str) -> int:
    """Index just past the string / char literal opening at ``text[index]`` (escapes skipped;
    it also ends at any character of ``stops``)."""
    close = index + 1
    while close < len(text) and text[close] != text[index] and text[close] not in stops:
        close += 2 if text[close] == "\\" else 1
    return close + 1


def _code(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, bracket depth before it) of the characters outside literals."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index = _literal_end(text, index, "")
            continue
        yield index, char, depth
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        index += 1


def _split_top(text: str, separators: tuple[str, ...]) -> list[str]:
    """Split ``text`` at the separators where no bracket or string is open."""
    parts: list[str] = []
    start = 0
    for index, _, depth in _code(text):
        if depth == 0 and index >= start:
            separator = next((s for s in separators if text.startswith(s, index)), "")
            if separator:
                parts.append(text[start:index])
                start = index + len(separator)
    parts.append(text[start:])
    return [part.strip() for part in parts]


def _balanced_args(text: str, open_at: int) -> tuple[str, int]:
    """The text inside the parentheses opening at ``text[open_at]`` and the index after them."""
    for index, char, depth in _code(text, open_at):
        if char in ")]}" and depth == 1:
            return text[open_at + 1 : index], index + 1
    return text[open_at + 1 :], len(text)


def _cpp_template(parts: list[str], roles: Mapping[str, str] | None = None) -> str:
    """A ``<<`` / ``+`` / argument chain -> template text (adjacent literals joined)."""
    out: list[str] = []
    for part in parts:
        literals = re.findall(r'"(?:[^"\\\n]|\\.)*"', part)
        if literals and re.fullmatch(r'(?:\s*"(?:[^"\\\n]|\\.)*"\s*)+', part):
            out.append("".join(_cpp_literal(token) for token in literals))
        elif part:
            role = _cpp_role(part, "".join(out), roles)
            out.append("{" + role + "}")
    return "".join(out)


def _statement_end(text: str, start: int) -> int:
    """Index of the ``;`` ending the statement that starts at ``start`` (strings skipped)."""
    for index, char, depth in _code(text, start):
        if char == ";" and depth <= 0:
            return index
    return len(text)


def _strip_comments(text: str) -> str:
    """C++ comments blanked out (line structure kept), strings left alone."""
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            close = _literal_end(text, index, "\n")
            out.append(text[index:close])
            index = close
        elif text.startswith("//", index):
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
            index = end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = len(text) if end < 0 else end + 2
            out.append("\n" * text.count("\n", index, end))
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def cpp_templates(
    text: str, roles: Mapping[str, str] | None = None
) -> Iterator[tuple[int, str, str]]:
    """(line, severity, template) of every message statement of one C++ file."""
    text = _strip_comments(text)

    def line_of(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    for call in _CPP_CALL.finditer(text):
        args, _ = _balanced_args(text, call.end() - 1)
        macro = call.group("macro")
        pieces = _split_top(args, (",",))
        # the message is the argument with a literal (LOG_X(ctx->logger, msg), CHECK(cond, msg))
        message = next((p for p in pieces if '"' in p), "")
        if macro == "TORCHTRT_CHECK" and len(pieces) > 1:
            message = ",".join(pieces[1:])
        if message:
            template = _cpp_template(_split_top(message, ("<<",)), roles)
            if macro == "TORCHTRT_CHECK":  # core/util/macros.h
                template = "Expected {value} to be true but got false\n" + template
            yield line_of(call.start()), _CPP_SEVERITY[macro], template
    for log in _SAMPLE_LOG.finditer(text):
        end = _statement_end(text, log.end())
        chain = [p for p in _split_top(text[log.end() : end], ("<<",))
                 if p not in ("endl", "std::endl", "std::flush")]
        yield line_of(log.start()), log.group("level").lower(), _cpp_template(chain, roles)
    # consecutive std::cerr statements up to the one that ends the line
    pending: list[str] = []
    first_line = 0
    for cerr in _CERR.finditer(text):
        end = _statement_end(text, cerr.end())
        chain = _split_top(text[cerr.end() : end], ("<<",))
        if not pending:
            first_line = line_of(cerr.start())
        pending.extend(chain)
        if any(p in ("endl", "std::endl") or p.endswith('\\n"') for p in chain):
            template = _cpp_template([p for p in pending if p not in ("endl", "std::endl")], roles)
            pending = []
            # a parser error printed whole (onnx_trt_backend.cpp: "Parsing error: " << desc())
            yield first_line, "wrapper" if "{desc}" in template else "error", template
    # the first statement written to each std::ostringstream
    for decl in _OSTREAM_DECL.finditer(text):
        var = decl.group("var")
        write = re.compile(r"\b" + re.escape(var) + r"\s*<<").search(text, decl.end())
        if write is None or write.start() - decl.end() > 400:
            continue
        end = _statement_end(text, write.end())
        template = _cpp_template(_split_top(text[write.end() : end], ("<<",)), roles)
        logged = re.compile(
            r"LOG_(VERBOSE|INFO|WARNING|ERROR)\(\s*" + re.escape(var) + r"\.str\(\)"
        ).search(text, end, end + 4000)
        if _safe_logged(text, var, end):
            continue  # read whole by _safety_templates
        thrown = re.compile(r"throw\s+[\w:]+\(\s*" + re.escape(var) + r"\.str\(\)\s*\)").search(
            text, end, end + 400
        )
        severity = logged.group(1).lower() if logged else "exception" if thrown else "desc"
        if severity == "desc" and template.startswith("{"):
            continue  # a name being built ("{node}_meshgrid_reshape_"), not a message
        yield line_of(write.start()), severity, template
    # "literal" + expr + "literal" sums (how pyOnnx prints a parser error); a sum stored in a
    # variable is put in where a later sum uses the variable
    sums: dict[str, str] = {}
    found: list[tuple[int, str, str]] = []
    used: set[str] = set()
    for statement in re.finditer(
        r"(?:\breturn\b|(?P<var>\w+)\s*=(?!=))\s*(?P<sum>[^;{}]{1,2000});", text
    ):
        body = statement.group("sum").strip()
        if body.endswith(".c_str()"):
            body = body[: -len(".c_str()")].strip()
        if body.startswith("(") and body.endswith(")") and "+" in body:
            body = body[1:-1]
        parts = _split_top(body, ("+",))
        if "<<" in body or len(parts) < 2:
            continue
        if not _STRING_SUM.search(body) and not all(p in sums for p in parts):
            continue
        out = []
        for part in parts:
            if part in sums:
                out.append(sums[part])
                used.add(part)
            else:
                inner = part[len("std::string(") : -1] if part.startswith("std::string(") else part
                out.append(_cpp_template([inner], roles))
        template = "".join(out)
        if statement.group("var"):
            sums[statement.group("var")] = template
        if "{desc}" in template:
            found.append((line_of(statement.start()), statement.group("var") or "", template))
    for line, var, template in found:
        if var not in used:  # a part of a longer sum is printed only within it
            yield line, "wrapper", template
    yield from _tensorflow_templates(text, line_of, roles)
    yield from _tensorrt_llm_templates(text, line_of, roles)
    yield from _safety_templates(text, line_of, roles)


# --- TensorFlow (TF-TRT) ---------------------------------------------------------------------
_TF_LOG = re.compile(
    r"\b(?:LOG\((?P<level>ERROR|WARNING|INFO)\)|(?P<vlog>VLOG)\(\d\)"
    r"|(?P<prefixed>LOG_WARNING_WITH_PREFIX))\s*<<"
)
_TF_STATUS = re.compile(r"\berrors::[A-Z]\w{0,40}\(")
_TF_STRCAT_VAR = re.compile(r"(?:const\s+)?(?:std::)?string\s+(?P<var>\w+)\s*=\s*StrCat\(")
_ENDS = ("endl", "std::endl", "std::flush")


def _tensorflow_templates(
    text: str, line_of: Callable[[int], int], roles: Mapping[str, str] | None
) -> Iterator[tuple[int, str, str]]:
    """``LOG(LEVEL) << ...`` / ``VLOG(n) << ...`` (verbose) / ``LOG_WARNING_WITH_PREFIX << ...``
    (printed after "TF-TRT Warning: "), ``errors::Kind(...)`` statuses (exception) and
    ``string msg = StrCat(...)`` logged by a ``LOG(LEVEL) << msg`` (or ``<< msg << ...``)
    that follows."""
    strcats = [(m.start(), m.group("var"), _balanced_args(text, m.end() - 1)[0])
               for m in _TF_STRCAT_VAR.finditer(text)]
    for log in _TF_LOG.finditer(text):
        end = _statement_end(text, log.end())
        chain = [p for p in _split_top(text[log.end() : end], ("<<",)) if p not in _ENDS]
        template = _cpp_template(chain, roles)
        if len(chain) > 1 and re.fullmatch(r"\w+", chain[0]):
            # LOG(WARNING) << msg << " failed: " << status, msg = StrCat(...) just before
            # (convert_graph.cc); a lone ``<< msg;`` is read below
            made = [args for at, var, args in strcats
                    if var == chain[0] and log.start() - 2000 < at < log.start()]
            if made:
                template = (_cpp_template(_split_top(made[-1], (",",)), roles)
                            + _cpp_template(chain[1:], roles))
        if log.group("prefixed"):
            template = "TF-TRT Warning: " + template
        level = "verbose" if log.group("vlog") else (log.group("level") or "WARNING").lower()
        yield line_of(log.start()), level, template
    for status in _TF_STATUS.finditer(text):
        args, _ = _balanced_args(text, status.end() - 1)
        yield line_of(status.start()), "exception", _cpp_template(_split_top(args, (",",)), roles)
    for assigned in _TF_STRCAT_VAR.finditer(text):
        args, after = _balanced_args(text, assigned.end() - 1)
        logged = re.compile(
            r"LOG\((ERROR|WARNING|INFO)\)\s*<<\s*" + re.escape(assigned.group("var")) + r"\s*;"
        ).search(text, after, after + 400)
        if logged is not None:
            template = _cpp_template(_split_top(args, (",",)), roles)
            yield line_of(assigned.start()), logged.group(1).lower(), template


# --- TensorRT-LLM ----------------------------------------------------------------------------
_TLLM_CALL = re.compile(
    r"\bTLLM_(?:LOG_(?P<level>ERROR|WARNING|INFO|DEBUG|TRACE)|(?P<throw>THROW)"
    r"|(?P<check>CHECK_WITH_INFO))\s*\("
)
_PRINTF = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXfeEgGcsp%]")
_TLLM_LEVEL = {"ERROR": "error", "WARNING": "warning", "INFO": "info", "DEBUG": "verbose",
               "TRACE": "verbose"}
# throwRuntimeError (tllmException.h): what TLLM_CHECK_WITH_INFO's message is put in
_TLLM_ASSERTION = "[TensorRT-LLM][ERROR] Assertion failed: "


def _printf_template(fmt: str, values: list[str], roles: Mapping[str, str] | None) -> str:
    """A printf format (the literal text of ``fmt``) with its conversions as placeholders."""
    literals = re.findall(r'"(?:[^"\\\n]|\\.)*"', fmt)
    if not literals or not re.fullmatch(r'(?:\s*"(?:[^"\\\n]|\\.)*"\s*)+', fmt):
        # a string sum: std::string("Invalid data for tensor: ") + name
        parts = [p[len("std::string(") : -1] if p.startswith("std::string(") else p
                 for p in _split_top(fmt, ("+",))]
        return _cpp_template(parts, roles)
    text = "".join(_cpp_literal(token) for token in literals)
    out: list[str] = []
    position = 0
    pending = iter(values)
    for conversion in _PRINTF.finditer(text):
        out.append(text[position : conversion.start()])
        position = conversion.end()
        if conversion.group() == "%%":
            out.append("%")
            continue
        value = next(pending, "")
        out.append("{" + _cpp_role(value, "".join(out), roles) + "}")
    out.append(text[position:])
    return "".join(out)


def _tensorrt_llm_templates(
    text: str, line_of: Callable[[int], int], roles: Mapping[str, str] | None
) -> Iterator[tuple[int, str, str]]:
    """``TLLM_LOG_LEVEL(fmt, ...)`` (logged), ``TLLM_THROW(fmt, ...)`` and
    ``TLLM_CHECK_WITH_INFO(cond, fmt, ...)`` (thrown: exception; a check's message is put in
    "[TensorRT-LLM][ERROR] Assertion failed: ...")."""
    for call in _TLLM_CALL.finditer(text):
        args = _split_top(_balanced_args(text, call.end() - 1)[0], (",",))
        if call.group("check"):
            if len(args) < 2:
                continue
            template = _TLLM_ASSERTION + _printf_template(args[1], args[2:], roles)
            yield line_of(call.start()), "exception", template
        elif args:
            severity = "exception" if call.group("throw") else _TLLM_LEVEL[call.group("level")]
            yield line_of(call.start()), severity, _printf_template(args[0], args[1:], roles)


# --- TensorRT's safety samples (trtexec_safe, sampleSafeMNIST) ------------------------------
# samples/common/safeCommon.h: safeLogX(recorder, desc) prints "[MM/DD/YYYY-hh:mm:ss] [E] desc"
# through the ISafeRecorder (Debug prints "[D]"; no TensorRT tool prints that letter elsewhere,
# and none of its messages name anything, so it is read as verbose)
_SAFE_LOG = re.compile(r"\bsafeLog(?P<level>Error|Warning|Info|Verbose|Debug)\s*\(")
_SAFE_LEVEL = {"Error": "error", "Warning": "warning", "Info": "info", "Verbose": "verbose",
               "Debug": "verbose"}
_MANIPULATOR = re.compile(r"std::(?:hex|dec|fixed|boolalpha|set\w+\(.*\))")


def _safe_logged(text: str, var: str, after: int) -> bool:
    """Whether a ``safeLogX(recorder, var.str())`` follows the write ending at ``after``."""
    return re.compile(
        r"safeLog\w+\(\s*[\w*]+\s*,\s*" + re.escape(var) + r"\.str\(\)"
    ).search(text, after, after + 400) is not None


def _stream_writes(text: str, var: str, before: int) -> list[str]:
    """The ``<<`` chain written to stream ``var`` since it was declared, emptied
    (``var.str("")``) or last logged (the branch that logged it returned: trtSafeExec.cpp's
    setUpTensor) up to ``before``, manipulators (std::hex, std::setw(n)) left out."""
    start = 0
    name = re.escape(var)
    for reset in re.finditer(
        r"stringstream\s+" + name + r"\b|\b" + name + r'\.str\(""\)'
        r"|safeLog\w+\(\s*[\w*]+\s*,\s*" + name + r"\.str\(\)\s*\)",
        text[:before],
    ):
        start = reset.end()
    chain: list[str] = []
    for write in re.compile(r"\b" + re.escape(var) + r"\s*<<").finditer(text, start, before):
        end = _statement_end(text, write.end())
        chain.extend(p for p in _split_top(text[write.end() : end], ("<<",))
                     if not _MANIPULATOR.fullmatch(p) and p not in _ENDS)
    return chain


def _safety_templates(
    text: str, line_of: Callable[[int], int], roles: Mapping[str, str] | None
) -> Iterator[tuple[int, str, str]]:
    """``safeLogError/Warning/Info/Verbose/Debug(recorder, message)``: a literal, a
    ``"..." + x`` sum, or ``ss.str()`` (what was written to ``ss`` since it was emptied)."""
    for call in _SAFE_LOG.finditer(text):
        args = _split_top(_balanced_args(text, call.end() - 1)[0], (",",))
        if len(args) < 2:
            continue
        stream = re.fullmatch(r"(\w+)\.str\(\)", args[1])
        if stream:
            parts = _stream_writes(text, stream.group(1), call.start())
        else:
            parts = [p[len("std::string(") : -1] if p.startswith("std::string(") else p
                     for p in _split_top(args[1], ("+",))]
        yield line_of(call.start()), _SAFE_LEVEL[call.group("level")], _cpp_template(parts, roles)

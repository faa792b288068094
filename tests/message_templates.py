"""Derive the table of message templates that name a node, layer or tensor (test data).

    python tests/message_templates.py [--mirrors DIR] [--out FILE] [--check]
    # rewrites tests/fixtures/message_templates.tsv

The table is test data: ``tests/test_logs_message_templates.py`` checks the name grammar against
every template; the package never reads it, so neither this script nor the table ships in it.

It reads real sources with ``git show COMMIT:PATH`` from local clones (``DIR/owner+name/repo``,
default ``/work/.mirror``), without compiling anything. The sources and commits are
:data:`SOURCES`: onnx/onnx-tensorrt at four releases (7.2.1, 8.2, 8.6.1, 10.1), NVIDIA/TensorRT's
Python parser bindings (``python/src/parsers/pyOnnx.cpp``: how a parser error is printed, old and
new) and trtexec's ``samples/common`` (its own ``sample::gLogError << ...`` messages), and
pytorch/TensorRT (Torch-TensorRT's TorchScript converters and its dynamo partitioner).
TensorRT's own builder messages are not in any public source; the corpora cover them. TF-TRT
(tensorflow/tensorflow) and TensorRT-LLM could not be cloned here (2.4 and 2.5 GB snapshots,
over the 0.5 GB the fetch allows), so they are not in the table.

A *template* is one printed message with its inserted values replaced by placeholders:
``{node}`` (an ONNX node / FX node / TorchScript statement name), ``{layer}`` (a TensorRT layer
name), ``{tensor}`` (a tensor name), ``{op}`` (an operator type, plugin or creator) and
``{value}`` (anything else: numbers, shapes, file names, error texts). Extracted:

- C++: ``LOG_VERBOSE/INFO/WARNING/ERROR(... << ...)`` (onnx-tensorrt, Torch-TensorRT),
  ``sample::gLogError/Warning/Info/Verbose << ...`` (trtexec),
  ``TORCHTRT_CHECK(cond, ...)`` / ``TORCHTRT_THROW_ERROR(...)`` (exceptions), consecutive
  ``std::cerr << ...`` statements up to ``endl`` (onnx2trt's ``main.cpp``, the legacy
  ``While parsing node number`` header), the first statement written to an
  ``std::ostringstream`` (``Invalid Node - X``, ``X [Op] inputs: ``), and ``"..." + x + "..."``
  string sums (pyOnnx's ``In node N with name: X and operator: Op (func): CODE: desc``).
- Python: ``logger.debug/info/warning/error(f"...")`` (also ``"%s" % args`` style) and
  ``raise E(f"...")`` in Torch-TensorRT's dynamo package.

A value's placeholder comes from the expression and the literal just before it (rules in
:func:`_cpp_role` / :func:`_py_role`). Only templates with a ``{node}``, ``{layer}`` or ``{tensor}``
are kept. Columns of ``message_templates.tsv`` (one row per distinct repo+severity+template,
the first file/line where it occurs):

    repo, commit, file, line     where the template was read
    severity                     error, warning, info, verbose (the log call), exception
                                 (thrown; the caller prints it as an error), desc (an ONNX
                                 parser error description, printed inside a parser-error
                                 wrapper), wrapper (how a parser error is printed: has {desc})
    template                     the message; ``\\n`` and ``\\t`` escaped

The derive step needs these clones and network access to make them, so it cannot run in CI; the
test suite reads the committed table (``tests/test_logs_message_templates.py``). ``--check``
re-derives and exits 1 when the committed table differs.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "fixtures" / "message_templates.tsv"
COLUMNS = ("repo", "commit", "file", "line", "severity", "template")


@dataclass(frozen=True)
class Source:
    """Files of one repository at one commit (paths: exact names or ``prefix*.suffix``)."""

    repo: str
    commit: str
    release: str
    paths: tuple[str, ...]


_ONNX_TRT_FILES = (
    "ModelImporter.cpp", "ImporterContext.cpp", "ImporterContext.hpp", "importerUtils.cpp",
    "onnx2trt_utils.cpp", "onnxOpCheckers.cpp", "onnxOpImporters.cpp", "builtin_op_importers.cpp",
    "ConditionalHelpers.cpp", "LoopHelpers.cpp", "main.cpp",
)
SOURCES: tuple[Source, ...] = (
    Source("onnx/onnx-tensorrt", "eb559b6cdd1ec2169d64c0112fab9b564d8d503b", "7.2.1",
           _ONNX_TRT_FILES),
    Source("onnx/onnx-tensorrt", "85e79f629fb546a75d61e3027fb259a9529144fe", "8.2",
           _ONNX_TRT_FILES),
    Source("onnx/onnx-tensorrt", "6ba67d3428e05f690145373ca87fb8d32f98df45", "8.6.1",
           _ONNX_TRT_FILES),
    Source("onnx/onnx-tensorrt", "96e781103cfc4adf4a6bb557e94bac8e693f6f4c", "10.1",
           _ONNX_TRT_FILES),
    Source("NVIDIA/TensorRT", "052281f0ab795b6c1a19047dc8a449cd397995a9", "8.x",
           ("python/src/parsers/pyOnnx.cpp",)),
    Source("NVIDIA/TensorRT", "a892d22267d9cd2dedc1a0893e6892ac901f6d3d", "11.x",
           ("python/src/parsers/pyOnnx.cpp", "samples/common/*.cpp", "samples/trtexec/*.cpp")),
    Source("pytorch/TensorRT", "d7f2062810df37e4bbcfc9065b5f44f09aca7156", "main 2026-08",
           ("core/conversion/*.cpp", "core/partitioning/*.cpp",
            "py/torch_tensorrt/dynamo/*.py")),
)

# --- C++ -------------------------------------------------------------------------------------
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


def _cpp_role(expr: str, before: str) -> str:
    """The placeholder for one inserted C++ expression (``before``: the literal text before)."""
    e = expr.strip()
    tail = before.rstrip().lower()
    if _DESC_EXPR.search(e):
        return "desc"
    if _VALUE_EXPR.search(e):
        return "value"
    if re.search(r"op_type|nodeType|nodeOperator|opType|pluginName|schema", e):
        return "op"
    if re.search(r"node_info|nodeName|getNodeName|\bnode\.name\(\)|\bnode\.name\b", e):
        return "node"
    if re.search(r"layer\w*->getName\(\)", e):
        return "layer"
    if re.search(
        r"\.output\(\d+\)|\.input\(\d+\)|inputName|outputName|tensorName|\binput\.name\(\)"
        r"|\boutput\.name\(\)|\w*[Tt]ensor\w*->getName\(\)|initializer\.name\(\)", e
    ):
        return "tensor"
    tail = tail.rstrip("\"' ")
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


def _cpp_template(parts: list[str]) -> str:
    """A ``<<`` / ``+`` chain -> template text (adjacent literals joined)."""
    out: list[str] = []
    for part in parts:
        literals = re.findall(r'"(?:[^"\\\n]|\\.)*"', part)
        if literals and re.fullmatch(r'(?:\s*"(?:[^"\\\n]|\\.)*"\s*)+', part):
            out.append("".join(_cpp_literal(token) for token in literals))
        elif part:
            role = _cpp_role(part, "".join(out))
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


def cpp_templates(text: str) -> Iterator[tuple[int, str, str]]:
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
            template = _cpp_template(_split_top(message, ("<<",)))
            if macro == "TORCHTRT_CHECK":  # core/util/macros.h
                template = "Expected {value} to be true but got false\n" + template
            yield line_of(call.start()), _CPP_SEVERITY[macro], template
    for log in _SAMPLE_LOG.finditer(text):
        end = _statement_end(text, log.end())
        chain = [p for p in _split_top(text[log.end() : end], ("<<",))
                 if p not in ("endl", "std::endl", "std::flush")]
        yield line_of(log.start()), log.group("level").lower(), _cpp_template(chain)
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
            template = _cpp_template([p for p in pending if p not in ("endl", "std::endl")])
            pending = []
            yield first_line, "error", template
    # the first statement written to each std::ostringstream
    for decl in _OSTREAM_DECL.finditer(text):
        var = decl.group("var")
        write = re.compile(r"\b" + re.escape(var) + r"\s*<<").search(text, decl.end())
        if write is None or write.start() - decl.end() > 400:
            continue
        end = _statement_end(text, write.end())
        template = _cpp_template(_split_top(text[write.end() : end], ("<<",)))
        logged = re.compile(
            r"LOG_(VERBOSE|INFO|WARNING|ERROR)\(\s*" + re.escape(var) + r"\.str\(\)"
        ).search(text, end, end + 4000)
        severity = logged.group(1).lower() if logged else "desc"
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
                out.append(_cpp_template([inner]))
        template = "".join(out)
        if statement.group("var"):
            sums[statement.group("var")] = template
        if "{desc}" in template:
            found.append((line_of(statement.start()), statement.group("var") or "", template))
    for line, var, template in found:
        if var not in used:  # a part of a longer sum is printed only within it
            yield line, "wrapper", template


# --- Python ----------------------------------------------------------------------------------
_PY_LEVELS = {"debug": "verbose", "info": "info", "warning": "warning", "warn": "warning",
              "error": "error", "critical": "error", "exception": "error"}


def _py_role(expr: str) -> str:
    if re.search(r"\.target\b|\bop\b|op_name|opname", expr):
        return "op"
    if re.fullmatch(r"\w*node(?:_\w+)?(?:\.name)?", expr) and not expr.endswith("nodes"):
        return "node"
    return "value"


def _py_template(node: ast.expr, args: list[ast.expr]) -> str | None:
    if isinstance(node, ast.JoinedStr):
        out = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                out.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                out.append("{" + _py_role(ast.unparse(value.value)) + "}")
        return "".join(out)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        roles = iter(_py_role(ast.unparse(arg)) for arg in args)
        return re.sub(r"%[sdrf]", lambda _: "{" + next(roles, "value") + "}", text)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _py_template(node.left, [])
        right = _py_template(node.right, [])
        if left is not None and right is not None:
            return left + right
    return None


def py_templates(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, severity, template) of every logger call and raised message of one Python file."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            level = _PY_LEVELS.get(node.func.attr)
            owner = ast.unparse(node.func.value)
            if level and re.search(r"(?i)log", owner) and node.args:
                template = _py_template(node.args[0], list(node.args[1:]))
                if template is not None:
                    yield node.lineno, level, template
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            template = _py_template(node.exc.args[0], [])
            if template is not None:
                yield node.lineno, "exception", template


# --- driver ----------------------------------------------------------------------------------
def _git(mirror: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "--git-dir", str(mirror), *args], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(
            f"git {' '.join(args)} failed in {mirror}: {result.stderr.strip()}\n"
            "Make the clone first (the fetch tool, or git clone --mirror) and pass --mirrors."
        )
    return result.stdout


def _matches(path: str, pattern: str) -> bool:
    if "*" not in pattern:
        return path == pattern
    head, _, suffix = pattern.partition("*")
    return path.startswith(head) and path.endswith(suffix)


def derive(mirrors: Path) -> list[dict[str, str]]:
    """The table's rows from the clones under ``mirrors``."""
    rows: list[dict[str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for source in SOURCES:
        mirror = mirrors / source.repo.replace("/", "+") / "repo"
        files = _git(mirror, "ls-tree", "-r", "--name-only", source.commit).splitlines()
        for path in sorted(p for p in files if any(_matches(p, q) for q in source.paths)):
            text = _git(mirror, "show", f"{source.commit}:{path}")
            reader = py_templates if path.endswith(".py") else cpp_templates
            for line, severity, template in reader(text):
                if not re.search(r"\{(?:node|layer|tensor|desc)\}", template):
                    continue
                if len(re.sub(r"\{\w+\}", "", template).strip()) < 3:
                    continue  # no words of its own ("{node}")
                key = (source.repo, severity, template)
                if key in seen:
                    continue
                seen.add(key)
                rows.append({"repo": source.repo, "commit": source.commit, "file": path,
                             "line": str(line), "severity": severity,
                             "template": template.replace("\t", "\\t").replace("\n", "\\n")})
    return rows


def render(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, delimiter="\t", lineterminator="\n",
                            quoting=csv.QUOTE_MINIMAL)
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=TABLE)
    parser.add_argument("--check", action="store_true", help="compare, exit 1 on drift")
    args = parser.parse_args(argv)
    text = render(derive(args.mirrors))
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print("templates table is up to date" if same else f"{args.out} differs from the sources")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({text.count(chr(10)) - 1} templates)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Message templates of Python sources: ``logger.debug/info/warning/error(f"...")`` (also
``"%s" % args`` style) and ``raise E(f"...")`` (Torch-TensorRT's dynamo package), and
Polygraphy's ``G_LOGGER.verbose/info/start/finish/warning/error/critical(f"...")`` (a build-time
reader for ``tests/message_templates.py``, test data).

A value's placeholder comes from a source's ``roles`` table (a variable whose meaning the code
around it fixes), from the expression (``node.name``, ``tensor.name``, ``op``), or, for ``name``,
``x_name`` (not ``attr_name``, ``file_name``, ...) or ``x.name``, from the words just before it
(``Tensor: {name}``, ``for input: {name}``, ``Layer: {context.name}``): :func:`_py_role`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping

# logging's levels; Polygraphy's Logger (tools/Polygraphy/polygraphy/logger/logger.py) adds
# start / finish (printed as "[I]") and critical (printed as "[!]", then raised). Its
# extra/super/ultra_verbose levels ("[X]", "[S]", "[U]") and internal_error (only with
# INTERNAL_CORRECTNESS_CHECKS) are not read.
_PY_LEVELS = {"debug": "verbose", "verbose": "verbose", "info": "info", "start": "info",
              "finish": "info", "warning": "warning", "warn": "warning", "error": "error",
              "critical": "critical", "exception": "error"}
# x.name where x is a tensor / a node (ONNX-GraphSurgeon's Variable/Constant and Node)
_TENSOR_ATTR = re.compile(
    r"(?:\w*tensor|inp|out|initializer)\.name|(?:\w*tensor|input|output)_name"
)


# names of things that are not graph nodes, layers or tensors
_OTHER_NAME = re.compile(r"(?:\w*_)?(?:attr|func|file|class|module|model|type|cap|install|runner"
                         r"|plugin|dir|path|user_type|key)_name$")


def _py_role(expr: str, before: str = "", roles: Mapping[str, str] | None = None) -> str:
    if roles and expr in roles:
        return roles[expr]
    if re.search(r"\.target\b|\bop\b|op_name|opname", expr):
        return "op"
    if re.fullmatch(r"\w*node(?:_\w+)?(?:\.name)?", expr) and not re.search(
        r"(?:nodes|_id|_idx|_index)$", expr
    ):
        return "node"
    if _TENSOR_ATTR.fullmatch(expr):
        return "tensor"
    if re.fullmatch(r"(?:\w+_)?name|\w+\.name", expr) and not _OTHER_NAME.match(expr):
        tail = before.rstrip(" `'\"").lower()
        if tail.endswith(("tensor:", "tensor", "input:", "output:")):
            return "tensor"
        if tail.endswith("layer:"):
            return "layer"
        if tail.endswith(("node:", " node")):
            return "node"
    return "value"


def _py_template(
    node: ast.expr, args: list[ast.expr], roles: Mapping[str, str] | None = None
) -> str | None:
    if isinstance(node, ast.JoinedStr):
        out: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                out.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                out.append("{" + _py_role(ast.unparse(value.value), "".join(out), roles) + "}")
        return "".join(out)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        values = iter(args)

        def placeholder(match: re.Match[str]) -> str:
            arg = next(values, None)
            before = text[: match.start()]
            return "{" + (_py_role(ast.unparse(arg), before, roles) if arg else "value") + "}"

        return re.sub(r"%[sdrf]", placeholder, text)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _py_template(node.left, [], roles)
        right = _py_template(node.right, [], roles)
        if left is not None and right is not None:
            return left + right
    return None


def py_templates(
    text: str, roles: Mapping[str, str] | None = None
) -> Iterator[tuple[int, str, str]]:
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
                template = _py_template(node.args[0], list(node.args[1:]), roles)
                if template is not None:
                    yield node.lineno, level, template
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            template = _py_template(node.exc.args[0], [], roles)
            if template is not None:
                yield node.lineno, "exception", template

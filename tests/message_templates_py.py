"""Message templates of Python sources: ``logger.debug/info/warning/error(f"...")`` (also
``"%s" % args`` style) and ``raise E(f"...")`` (a build-time reader for
``tests/message_templates.py``, test data)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

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

"""Python sources -> findings, from the :mod:`ast` (no TensorRT import needed).

- ``trt.BuilderFlag.SAFETY_SCOPE`` anywhere -> ``safety-scope-noop``.
- ``builder.build_serialized_network(network, config)`` where ``config.engine_capability`` was
  set to ``EngineCapability.SAFETY`` in the same scope -> ``safe-build-api``.
- ``builder.is_network_supported(...)`` whose result is returned, or with no checked build after
  it -> ``network-supported-not-a-gate``.
- ``subprocess.run/call/check_call/check_output/Popen`` and ``os.exec*`` argv lists (literals,
  names bound to lists or strings, ``+`` concatenation, ``*`` unpacking, ``.append``/``.extend``,
  f-strings, ``shlex.split("...")``) are checked as command lines; ``shutil.copy*`` of an engine
  is a ship step.
"""

from __future__ import annotations

import ast

from trtsafe_lab.migrate.commands import (
    OVERLAY,
    CommandFacts,
    analyse_command,
    make_ship_step,
    remote_paths_outside_overlay,
)
from trtsafe_lab.migrate.limits import MAX_VARIABLE_WORDS, ExpansionBudget
from trtsafe_lab.migrate.rules import make_finding
from trtsafe_lab.migrate.shell import parse_shell
from trtsafe_lab.migrate.words import Word

_RUNNERS = {"run", "call", "check_call", "check_output", "Popen", "execv", "execvp", "spawnv"}
_COPIERS = {"copy", "copy2", "copyfile"}
_BUILD_CALLS = {"build_serialized_network", "build_engine_with_config"}

Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _own_nodes(scope: Scope) -> list[ast.AST]:
    """Nodes of ``scope`` not inside a nested function (module level: outside all functions)."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(reversed(scope.body))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return out


class _Scope:
    """Names bound in one function (or the module) to string/list values, in source order."""

    def __init__(self, scope: Scope, parent: _Scope | None, budget: ExpansionBudget) -> None:
        self.nodes = _own_nodes(scope)
        self.parent = parent
        self.lists: dict[str, list[Word]] = {}
        self.budget = budget  # shared by the file's scopes: bounds the work of resolving
        self._bound: dict[tuple[str, int], list[Word] | None] = {}

    def resolve(self, node: ast.AST, before: int) -> list[Word] | None:
        """Words of a string / list expression, or None when unknown (or over the budget)."""
        words = self._resolve(node, before)
        if words is None or len(words) <= 1:
            return words
        line = getattr(node, "lineno", 0)
        if len(words) > MAX_VARIABLE_WORDS:
            self.budget.stop(f"a list would hold over {MAX_VARIABLE_WORDS:,} words", line)
            return None
        return words if self.budget.charge(len(words), line) else None

    def _resolve(self, node: ast.AST, before: int) -> list[Word] | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [Word(node.value, node.lineno)]
        if isinstance(node, ast.JoinedStr):
            parts = [
                str(v.value) if isinstance(v, ast.Constant) else "{" + ast.unparse(v) + "}"
                for v in node.values
            ]
            return [Word("".join(parts), node.lineno)]
        if isinstance(node, ast.List | ast.Tuple):
            words: list[Word] = []
            for item in node.elts:
                inner = item.value if isinstance(item, ast.Starred) else item
                got = self.resolve(inner, before)
                words.extend(got if got is not None else [Word("{?}", item.lineno)])
            return words
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.resolve(node.left, before), self.resolve(node.right, before)
            if left is not None and right is not None:
                return left + right
            return None
        if isinstance(node, ast.Call) and _name(node.func) == "split" and node.args:
            text = node.args[0]
            if isinstance(text, ast.Constant) and isinstance(text.value, str):
                commands = parse_shell(text.value, node.lineno)
                return commands[0] if commands else []
        if isinstance(node, ast.Name):
            return self.binding(node.id, before)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            right = self.resolve(node.right, before)
            if right is not None and len(right) == 1:
                left = self.resolve(node.left, before)
                base = (
                    left[0].text if left and len(left) == 1 else "{" + ast.unparse(node.left) + "}"
                )
                return [Word(f"{base}/{right[0].text}", node.lineno)]
        return None

    def binding(self, name: str, before: int) -> list[Word] | None:
        """The words last bound to ``name`` before line ``before`` (remembered per name/line)."""
        key = (name, before)
        if key not in self._bound:
            self._bound[key] = (
                self._binding(name, before) if self.budget.charge(len(self.nodes), before) else None
            )
        return self._bound[key]

    def _binding(self, name: str, before: int) -> list[Word] | None:
        value: list[Word] | None = None
        for node in self.nodes:
            if getattr(node, "lineno", 0) >= before:
                continue
            if isinstance(node, ast.Assign) and any(_name(t) == name for t in node.targets):
                value = self.resolve(node.value, node.lineno)
            elif isinstance(node, ast.AugAssign) and _name(node.target) == name and value:
                value = value + (self.resolve(node.value, node.lineno) or [])
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and _name(node.func.value) == name
                and node.func.attr in ("append", "extend")
                and node.args
                and value is not None
            ):
                added = self.resolve(node.args[0], node.lineno) or []
                value = value + added
        if value is None and self.parent is not None:
            return self.parent.binding(name, before)
        return value


def _safety_configs(scope: _Scope) -> set[str]:
    names: set[str] = set()
    for node in scope.nodes:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "SAFETY"
            and _name(node.value.value) == "EngineCapability"
        ):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "engine_capability":
                    names.add(_name(target.value))
    return names


def _calls(scope: _Scope, *names: str) -> list[ast.Call]:
    return [n for n in scope.nodes if isinstance(n, ast.Call) and _name(n.func) in names]


def _checked(scope: _Scope, call: ast.Call) -> bool:
    """The build's result is tested in an ``if``/``assert``/``while`` of the same scope."""
    for node in scope.nodes:
        if isinstance(node, ast.If | ast.While | ast.Assert | ast.IfExp):
            test = node.test
            if any(sub is call for sub in ast.walk(test)):
                return True
            targets = {
                _name(t)
                for a in scope.nodes
                if isinstance(a, ast.Assign) and any(s is call for s in ast.walk(a.value))
                for t in a.targets
            }
            if targets & {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}:
                return True
    return False


def _early_reject(scope: _Scope, call: ast.Call) -> bool:
    """``if not builder.is_network_supported(...): return/raise``: false => stop, which is fine."""
    for node in scope.nodes:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.UnaryOp)
            and isinstance(node.test.op, ast.Not)
            and node.test.operand is call
        ):
            return any(
                isinstance(n, ast.Return | ast.Raise) for b in node.body for n in ast.walk(b)
            )
    return False


def _remote_config(scope: _Scope, path: str, facts: CommandFacts) -> None:
    """``config.remote_auto_tuning_config = "ssh://...?remote_exec_path=..."``."""
    for node in scope.nodes:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "remote_auto_tuning_config"
            for t in node.targets
        ):
            value = scope.resolve(node.value, node.lineno)
            bad = remote_paths_outside_overlay(value[0].text) if value and len(value) == 1 else []
            if bad and value:
                detail = "remote path(s) " + ", ".join(bad) + f" not under {OVERLAY}"
                facts.findings.append(
                    make_finding("remote-autotuning-overlay", path, value[0].line, detail)
                )


def _scope_rules(scope: _Scope, path: str, facts: CommandFacts) -> None:
    _remote_config(scope, path, facts)
    configs = _safety_configs(scope)
    for call in _calls(scope, "build_serialized_network"):
        config = _name(call.args[1]) if len(call.args) > 1 else ""
        if configs and (config in configs or not config):
            facts.findings.append(
                make_finding(
                    "safe-build-api",
                    path,
                    call.lineno,
                    f"build_serialized_network on '{config}' with EngineCapability.SAFETY",
                )
            )
    builds = _calls(scope, *_BUILD_CALLS)
    returned = {
        id(sub)
        for node in scope.nodes
        if isinstance(node, ast.Return) and node.value is not None
        for sub in ast.walk(node.value)
    }
    for call in _calls(scope, "is_network_supported"):
        reason = ""
        if _early_reject(scope, call):
            continue
        if id(call) in returned:
            reason = "its result is returned as the answer"
        elif not builds:
            reason = "no build follows it in this function"
        elif not any(_checked(scope, b) for b in builds):
            reason = "the build's own result is never checked"
        if reason:
            facts.findings.append(
                make_finding(
                    "network-supported-not-a-gate",
                    path,
                    call.lineno,
                    f"is_network_supported() decides the outcome ({reason})",
                )
            )
    for call in _calls(scope, *_RUNNERS):
        if not call.args:
            continue
        argv = scope.resolve(call.args[0], call.lineno)
        if argv is None:
            continue
        if len(argv) == 1 and " " in argv[0].text:  # a command string (shell=True or split)
            for command in parse_shell(argv[0].text, argv[0].line):
                facts.extend(analyse_command(command, path))
        else:
            facts.extend(analyse_command(argv, path))
    for call in _calls(scope, *_COPIERS):
        words = [
            w
            for a in call.args
            for w in (
                scope.resolve(a, call.lineno) or [Word("{" + ast.unparse(a) + "}", call.lineno)]
            )
        ]
        step = make_ship_step([Word(w.text, w.line, call.lineno) for w in words], "shutil.copy")
        if step:
            facts.ship_steps.append(step)


def analyse_python(text: str, path: str) -> CommandFacts:
    """Findings for one Python file (raises :class:`SyntaxError` when it does not parse)."""
    tree = ast.parse(text, filename=path)
    facts = CommandFacts()
    budget = ExpansionBudget()
    module = _Scope(tree, None, budget)
    scopes = [module] + [
        _Scope(node, module, budget)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "SAFETY_SCOPE":
            facts.findings.append(
                make_finding("safety-scope-noop", path, node.lineno, "BuilderFlag.SAFETY_SCOPE")
            )
        if isinstance(node, ast.Attribute) and node.attr == "SAFETY":
            facts.safety = facts.safety or _name(node.value) == "EngineCapability"
    for scope in scopes:
        _scope_rules(scope, path, facts)
    facts.findings.extend(budget.findings(path))
    return facts

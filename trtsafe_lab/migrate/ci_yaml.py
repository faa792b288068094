"""CI YAML (GitHub Actions, GitLab CI, Azure Pipelines, CircleCI and the like) -> findings.

Reads the YAML node tree (PyYAML's composer, which keeps line numbers) and checks the shell in
``run:`` / ``script:`` / ``before_script:`` / ``after_script:`` / ``bash:`` blocks and CircleCI's
``run: {command: ...}``, with ``env:`` /
``variables:`` mappings as shell variables. Packaging steps: GitLab ``artifacts: paths:`` and
GitHub ``actions/upload-artifact`` ``with: path:`` are ship steps.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from trtsafe_lab._optional import require
from trtsafe_lab.migrate.commands import CommandFacts, analyse_commands, make_ship_step
from trtsafe_lab.migrate.limits import (
    MAX_NESTING,
    MAX_YAML_ALIASES,
    MAX_YAML_NODES,
    ExpansionBudget,
    InputLimitError,
)
from trtsafe_lab.migrate.shell import parse_shell
from trtsafe_lab.migrate.words import Variables, Word, split_value

SCRIPT_KEYS = ("run", "script", "before_script", "after_script", "bash", "command")
VARIABLE_KEYS = ("env", "variables")
FEATURE = "Checking CI YAML for 10.x -> 11.x migration"


@lru_cache(maxsize=1)
def _yaml() -> Any:
    """PyYAML, imported once (the node walks below ask for it per node)."""
    return require("yaml", feature=FEATURE)


Node = Any  # yaml.Node


class YamlSyntaxError(ValueError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _scalar_lines(node: Node) -> tuple[str, int]:
    """A scalar's text and the 1-based line its first content line is on."""
    first = node.start_mark.line + 1
    if node.style in ("|", ">"):
        first += 1  # content starts on the line after the block indicator
    return str(node.value), first


def _mapping(node: Node) -> dict[str, Node]:
    yaml = _yaml()
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(k.value): v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def _variables(mapping: dict[str, Node], inherited: Variables) -> Variables:
    yaml = _yaml()
    variables = inherited.copy()
    for key in VARIABLE_KEYS:
        for name, value in _mapping(mapping.get(key)).items():
            if isinstance(value, yaml.ScalarNode):
                variables.set(name, split_value(str(value.value), value.start_mark.line + 1))
    return variables


def _script_texts(node: Node) -> list[tuple[str, int]]:
    yaml = _yaml()
    if isinstance(node, yaml.ScalarNode):
        return [_scalar_lines(node)]
    if isinstance(node, yaml.SequenceNode):
        return [_scalar_lines(item) for item in node.value if isinstance(item, yaml.ScalarNode)]
    return []


def _path_words(node: Node) -> list[Word]:
    words: list[Word] = []
    for text, first in _script_texts(node):
        for offset, part in enumerate(text.split("\n")):
            words.extend(Word(w, first + offset) for w in part.split() if not w.startswith("#"))
    return words


def _visit(node: Node, variables: Variables, path: str, facts: CommandFacts) -> None:
    yaml = _yaml()
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _visit(item, variables, path, facts)
        return
    mapping = _mapping(node)
    if not mapping:
        return
    variables = _variables(mapping, variables)
    job_vars = variables.copy()  # assignments in one job's scripts carry to its later lines
    for key in SCRIPT_KEYS:
        for text, first in _script_texts(mapping.get(key)):
            facts.extend(analyse_commands(parse_shell(text, first, job_vars), path))
    artifacts = _mapping(mapping.get("artifacts"))
    if "paths" in artifacts:
        step = make_ship_step(_path_words(artifacts["paths"]), "CI artifacts")
        if step:
            facts.ship_steps.append(step)
    uses = mapping.get("uses")
    if isinstance(uses, yaml.ScalarNode) and str(uses.value).startswith("actions/upload-artifact"):
        step = make_ship_step(
            _path_words(_mapping(mapping.get("with")).get("path")), "upload-artifact"
        )
        if step:
            facts.ship_steps.append(step)
    for key, value in mapping.items():
        if key not in VARIABLE_KEYS:  # script scalars visit to nothing; mappings (CircleCI) do not
            _visit(value, variables, path, facts)


def _check_events(text: str) -> None:
    """Refuse, before composing, YAML nested deeper than MAX_NESTING or with more than
    MAX_YAML_ALIASES alias references (PyYAML's event parser is iterative; its composer is not)."""
    yaml = _yaml()
    depth = aliases = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        line = event.start_mark.line + 1
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                raise InputLimitError(f"YAML collections nested over {MAX_NESTING} deep", line)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_YAML_ALIASES:
                raise InputLimitError(f"over {MAX_YAML_ALIASES:,} YAML alias references", line)


def _children(node: Node) -> list[Node]:
    yaml = _yaml()
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def check_expansion(root: Node) -> None:
    """Refuse a composed document whose aliases, expanded, give more than MAX_YAML_NODES nodes
    or nesting deeper than MAX_NESTING (a "billion laughs"), or that refers to itself.

    Counts without expanding: each node's expanded size and depth are computed once (by
    identity), bottom up, without recursion.
    """
    sizes: dict[int, tuple[int, int]] = {}  # id -> (expanded nodes, depth)
    open_: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        line = node.start_mark.line + 1
        if done:
            open_.discard(key)
            parts = [sizes[id(child)] for child in _children(node)]
            total = 1 + sum(size for size, _ in parts)
            depth = 1 + max((d for _, d in parts), default=0)
            if total > MAX_YAML_NODES:
                detail = f"YAML aliases expand to over {MAX_YAML_NODES:,} nodes"
                raise InputLimitError(detail, line)
            if depth > MAX_NESTING:
                raise InputLimitError(f"YAML aliases nest over {MAX_NESTING} deep", line)
            sizes[key] = (total, depth)
            continue
        if key in sizes:
            continue
        open_.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_:
                raise InputLimitError("a YAML alias refers to its own anchor (a cycle)", line)
            if id(child) not in sizes:
                stack.append((child, False))


def analyse_yaml(text: str, path: str) -> CommandFacts:
    """Findings for a CI YAML file (raises :class:`YamlSyntaxError` when it is not YAML and
    :class:`~trtsafe_lab.migrate.limits.InputLimitError` when it is over a limit)."""
    yaml = _yaml()
    facts = CommandFacts()
    try:
        _check_events(text)
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
        for document in documents:
            if document is not None:
                check_expansion(document)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        what = ", ".join(
            str(part)
            for part in (getattr(err, "context", None), getattr(err, "problem", None))
            if part
        )
        raise YamlSyntaxError(what or str(err), mark.line + 1 if mark else 1) from err
    budget = ExpansionBudget()
    for document in documents:
        if document is not None:
            _visit(document, Variables(budget=budget), path, facts)
    facts.findings.extend(budget.findings(path))
    return facts

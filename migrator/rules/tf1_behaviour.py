"""TF 1's behaviour switched on where a program written for TF 1 starts.

TF 1.x ran every program with what ``tf.compat.v1.disable_v2_behavior()`` switches
on in TF 2 (docs/tf1_behaviour.md lists each switch). A program written for TF 1
(``migrator.names.program``) gets that call in each of its entry points, after the
imports, so it trains with the numbers TF 1.15 gave; a program with no entry point
(a library of model code) gets a warning in each file that builds an Estimator.
"""

from __future__ import annotations

import ast

import libcst as cst

from estimator_revival.migrator.data.diagnostics import Diagnostic
from estimator_revival.migrator.names.program import DECISION, DECISION_MARK, Program
from estimator_revival.migrator.rules.module_edits import after_last_import

RULE = "MIG204"
NO_ENTRY_POINT = "MIG109"
_TENSORFLOW = "tensorflow"
_V1 = "tensorflow.compat.v1"
# what builds an Estimator (or runs one): Estimator(...), TPUEstimator(...),
# NPUEstimator(...), train_and_evaluate(...), under any module path
_BUILDERS = {"Estimator", "TPUEstimator", "NPUEstimator", "train_and_evaluate"}


def switch_on(code: str, program: Program) -> str:
    """``code`` (an entry point of ``program``) with the switch after its imports."""
    module = cst.parse_module(code)
    body = list(module.body)
    call = _switch_call(body)
    line = cst.parse_statement(f"{call}  {DECISION_MARK} ({program.reason})\n")
    line = line.with_changes(leading_lines=[cst.EmptyLine()])
    imported = _names_tensorflow(body) or _names_v1(body)
    added = [] if imported else [cst.parse_statement(f"import {_TENSORFLOW}\n")]
    position = after_last_import(body)
    body[position:position] = [*added, line]
    return module.with_changes(body=body).code


def mark(code: str, program: Program) -> str:
    """``code`` (a file of ``program`` that builds its Estimator, in a program with no
    entry point) with the decision after its imports, once."""
    if DECISION.search(code):
        return code
    module = cst.parse_module(code)
    body = list(module.body)
    comment = cst.EmptyLine(
        comment=cst.Comment(
            f"{DECISION_MARK} ({program.reason}): call tf.compat.v1.disable_v2_behavior() where it starts"
        )
    )
    position = after_last_import(body)
    if position == len(body):
        footer = [cst.EmptyLine(), comment, *module.footer]
        return module.with_changes(footer=footer).code
    statement = body[position]
    leading = [cst.EmptyLine(), comment, *statement.leading_lines]
    body[position] = statement.with_changes(leading_lines=leading)
    return module.with_changes(body=body).code


def no_entry_point(path: str, tree: ast.Module, program: Program) -> Diagnostic | None:
    """The error where ``tree`` (a file of ``program``, which has no entry point)
    builds an Estimator; None if it builds none."""
    built = _first_estimator_built(tree)
    if built is None:
        return None
    line, column = built
    return Diagnostic(
        path,
        line,
        column,
        NO_ENTRY_POINT,
        f"a program written for TF 1 ({program.reason}), with no entry point "
        '(`if __name__ == "__main__":` or a script) to switch TF 1\'s behaviour on in: it '
        "would train with TF 2's (other initial weights, other seeds)",
        "call tf.compat.v1.disable_v2_behavior() where the program starts",
    )


def _first_estimator_built(tree: ast.Module) -> tuple[int, int] | None:
    """``(line, column)`` of the first call that builds an Estimator (not one a
    docstring or comment shows)."""
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called_name(node.func) in _BUILDERS
    ]
    if not calls:
        return None
    first = min(calls, key=lambda call: (call.lineno, call.col_offset))
    return first.lineno, first.col_offset + 1


def _called_name(function: ast.expr) -> str:
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def _switch_call(body) -> str:
    v1 = _names_v1(body)
    if v1:
        return f"{v1}.disable_v2_behavior()"
    return f"{_names_tensorflow(body) or _TENSORFLOW}.compat.v1.disable_v2_behavior()"


def _names_tensorflow(body) -> str:
    """The name a top-level ``import tensorflow [as tf]`` binds ("" if none)."""
    return _binding(body, _TENSORFLOW)


def _names_v1(body) -> str:
    """The name a top-level ``import tensorflow.compat.v1 as tf`` binds."""
    return _binding(body, _V1)


def _binding(body, module: str) -> str:
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.ImportFrom) and not small.relative and small.module:
                found = _from_binding(small, module)
                if found:
                    return found
            if not isinstance(small, cst.Import):
                continue
            for alias in small.names:
                name = cst.helpers.get_full_name_for_node(alias.name)
                if name != module:
                    continue
                if alias.asname:
                    return cst.helpers.get_full_name_for_node(alias.asname.name)
                if "." not in module:
                    return module
    return ""


def _from_binding(node: cst.ImportFrom, module: str) -> str:
    """``from tensorflow.compat import v1 as tf`` binds ``tf`` to ``module``."""
    if isinstance(node.names, cst.ImportStar):
        return ""
    parent = cst.helpers.get_full_name_for_node(node.module)
    for alias in node.names:
        if f"{parent}.{cst.helpers.get_full_name_for_node(alias.name)}" == module:
            return cst.helpers.get_full_name_for_node((alias.asname or alias).name)
    return ""

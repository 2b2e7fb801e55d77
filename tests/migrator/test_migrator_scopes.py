"""``estimator_revival.migrator.names.scopes`` runs libcst's scope analysis without the MetadataWrapper;
these tests hold it to what the wrapper's ScopeProvider gives, node for node, on
every Python source of the fixtures (the codemod's pairs and the whole projects).
``estimator_revival.migrator.names.import_scopes`` answers from the imports alone: held to the full
analysis, question for question, on the fixtures and on generated programs."""

import ast
from pathlib import Path
from unittest import mock

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from libcst.metadata import MetadataWrapper, ScopeProvider

from estimator_revival.migrator.migrate import migrate_code
from estimator_revival.migrator.names.import_scopes import import_scopes
from estimator_revival.migrator.names.scopes import FullScopes, NeedsFullScopes, module_scopes
from helpers.program_strategies import programs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SOURCES = sorted(
    [*FIXTURES.glob("migrator/*.in.py"), *FIXTURES.glob("projects/**/*.py")],
)


def scope_signature(scope) -> tuple:
    """What the migrator reads of a scope, comparable across two analyses."""
    if scope is None:
        return (None,)
    return (
        type(scope).__name__,
        sorted((a.name, type(a.node).__name__, len(a.references)) for a in scope.assignments),
        sorted(
            (access.node.value, len(access.referents))
            for access in scope.accesses
            if isinstance(access.node, cst.Name)
        ),
    )


def qualified_names(scope, node) -> set:
    if scope is None or not isinstance(node, (cst.Name, cst.Attribute)):
        return set()
    return {(q.name, q.source) for q in scope.get_qualified_names_for(node)}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_scopes_match_the_metadata_wrappers(path):
    module = cst.parse_module(path.read_text())
    ours = module_scopes(module)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    assert set(ours) == set(theirs)
    for node, scope in theirs.items():
        assert scope_signature(ours[node]) == scope_signature(scope), node
        assert qualified_names(ours[node], node) == qualified_names(scope, node), node


def test_sources_cover_imports_and_nested_scopes():
    """The comparison above means something only if the sources have what varies."""
    kinds = set()
    for path in SOURCES:
        for scope in module_scopes(cst.parse_module(path.read_text())).values():
            kinds.add(type(scope).__name__)
    assert {"GlobalScope", "FunctionScope", "ClassScope", "ComprehensionScope"} <= kinds
    assert len(SOURCES) > 80


# ------------------------------------------- the import-only answers (import_scopes)
def answers(scopes, module: cst.Module) -> dict:
    """Everything the migration asks of ``scopes`` about ``module``; a question the
    scopes decline (NeedsFullScopes) is answered ``"declined"``."""

    def ask(question, *args):
        try:
            return question(*args)
        except NeedsFullScopes:
            return "declined"

    # the expressions the migration resolves: attributes, and the names they start at
    chains = [node for node in _nodes(module) if isinstance(node, cst.Attribute)]
    nodes = [*chains, *(chain.value for chain in chains if isinstance(chain.value, cst.Name))]
    imports = [node for node in _nodes(module) if isinstance(node, (cst.Import, cst.ImportFrom))]
    names = {node.value for node in _nodes(module) if isinstance(node, cst.Name)}
    return {
        "qualified": [scopes.qualified(node) for node in nodes],
        "at module level": [scopes.at_module_level(node) for node in imports],
        "import bindings": {
            name: (qualified, id(node))
            for name, (qualified, node) in scopes.import_bindings().items()
        },
        "binds": {name: ask(scopes.binds, name) for name in sorted(names)},
        "uses": {name: ask(scopes.uses, name) for name in sorted(names)},
    }


def _nodes(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _nodes(child)


def assert_import_scopes_agree(code: str) -> bool:
    """The import-only answers equal the full analysis' wherever they give one;
    returns whether the import-only path applied."""
    module = cst.parse_module(code)
    fast = import_scopes(module, ast.parse(code))
    if fast is None:
        return False
    ours, theirs = answers(fast, module), answers(FullScopes(module), module)
    for question, answer in ours.items():
        if isinstance(answer, dict):
            for key, value in answer.items():
                if value != "declined":
                    assert value == theirs[question][key], (question, key)
        else:
            assert answer == theirs[question], question
    return True


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_import_only_answers_equal_the_full_analysis(path):
    assert_import_scopes_agree(path.read_text())


def test_most_fixtures_take_the_import_only_path():
    """The comparison above means something only if the path applies to most."""
    applied = [assert_import_scopes_agree(path.read_text()) for path in SOURCES]
    assert sum(applied) > 0.8 * len(applied)
    assert not all(applied)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_import_only_answers_equal_the_full_analysis_on_generated_programs(program):
    assert_import_scopes_agree(program)


# Files whose names an import-only reading would resolve differently (each comment
# says how); they take libcst's full analysis.
NEEDS_THE_FULL_ANALYSIS = {
    "a local rebinding": "import tensorflow as tf\ndef f(tf):\n    return tf.layers.dense\n",
    "an import in a function": "def f():\n    import tensorflow as tf\n    return tf.layers\n",
    "a use before the import": "x = tf.layers.dense\nimport tensorflow as tf\n",
    "a wildcard import": "from tensorflow import *\nimport tensorflow as tf\n",
    "a global declaration": "import tensorflow as tf\ndef f():\n    global tf\n",
    "an except name": "import tensorflow as tf\ntry:\n    pass\nexcept E as tf:\n    pass\n",
    "a match statement": "import tensorflow as tf\nmatch x:\n    case P(tf=1):\n        pass\n",
}


@pytest.mark.parametrize("code", NEEDS_THE_FULL_ANALYSIS.values(), ids=NEEDS_THE_FULL_ANALYSIS)
def test_files_the_imports_alone_cannot_resolve_take_the_full_analysis(code):
    assert import_scopes(cst.parse_module(code), ast.parse(code)) is None


def test_questions_beyond_the_imports_are_declined():
    code = (
        "from typing import List\nfrom tensorflow.contrib import learn\n"
        "def f(x: 'learn.Estimator'):\n    tf_estimator = learn\n"
    )
    scopes = import_scopes(cst.parse_module(code), ast.parse(code))
    with pytest.raises(NeedsFullScopes):
        scopes.uses("learn")  # the string annotation is a use to libcst
    with pytest.raises(NeedsFullScopes):
        scopes.binds("tf_estimator")  # bound in a function: the module's? no
    assert scopes.binds("learn") and scopes.binds("len") and not scopes.binds("other")


def test_a_declined_question_migrates_with_the_full_analysis():
    """``slim`` is used twice (once in a string annotation): its import stays where
    the one other use is rewritten; without the annotation, it goes."""
    code = (
        "import typing\nfrom tensorflow.contrib import slim\n"
        "def f(x{annotation}):\n    return slim.conv2d(x)\n"
    )
    annotated = migrate_code(code.format(annotation=": 'slim.Thing'")).migrated
    assert "from tensorflow.contrib import slim\n" in annotated
    assert "tf_slim.conv2d(x)" in annotated
    plain = migrate_code(code.format(annotation="")).migrated
    assert "from tensorflow.contrib import slim\n" not in plain
    assert "tf_slim.conv2d(x)" in plain


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_migration_is_the_same_with_the_full_analysis_only(program):
    """Whole migrations (text, diagnostics, reported names) on generated programs."""
    with_imports_only = migrate_code(program)
    with mock.patch("estimator_revival.migrator.rules.transform.import_scopes", return_value=None):
        with_full_analysis = migrate_code(program)
    assert with_imports_only == with_full_analysis

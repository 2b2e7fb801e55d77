"""``migrator.scopes`` runs libcst's scope analysis without the MetadataWrapper;
these tests hold it to what the wrapper's ScopeProvider gives, node for node, on
every Python source of the fixtures (the codemod's pairs and the whole projects)."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ScopeProvider

from migrator.scopes import module_scopes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
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

"""The names a (migrated) module reaches in TensorFlow, the runtime and the other
packages ``migrate --verify`` checks: every outermost dotted reference whose import
resolves there, and every import statement from there, with its position.

A name reached in the body of a ``try`` whose handlers catch a failed lookup
(``ImportError``, ``AttributeError``, ``Exception``, a bare ``except``) is not
checked: the program falls back where it is missing, as real TF 1 code did across
TensorFlow versions (``try: from tensorflow.python.ops.rnn_cell_impl import _Linear``
``except ImportError: ...``)."""

from __future__ import annotations

import dataclasses

import libcst as cst
from libcst.helpers import get_full_name_for_node

from estimator_revival.migrator.data import symbols
from estimator_revival.migrator.names.import_scopes import import_scopes
from estimator_revival.migrator.names.scopes import FullScopes, Scopes
from estimator_revival.migrator.source.parsing import parse_with_libcst
from estimator_revival.migrator.source.positions import Locator, attribute_key

# The exceptions a missing module or attribute raises, and their bases.
_LOOKUP_ERRORS = frozenset(
    {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"}
)

CHECKED_ROOTS = frozenset(
    {"tensorflow", symbols.PACKAGE, "tf_keras", "npu_bridge", "tensorflow_estimator"}
)


@dataclasses.dataclass(frozen=True)
class Reference:
    name: str  # fully qualified, e.g. tensorflow.compat.v1.flags.FLAGS
    line: int
    column: int


def references(code: str, first_party: frozenset[str] = frozenset()) -> list[Reference]:
    """Raises ``migrator.source.parsing.UnparsableSource`` if ``code`` does not parse.
    ``first_party``: the program's own top-level modules, which are not checked."""
    module = parse_with_libcst(code)
    locator = Locator(code)
    scopes = import_scopes(module, locator.tree, first_party=first_party)
    collector = _Collector(scopes or FullScopes(module, first_party=first_party))
    module.visit(collector)
    return [Reference(name, *locator.locate(*where)) for name, where in collector.found]


class _Collector(cst.CSTVisitor):
    def __init__(self, scopes: Scopes) -> None:
        super().__init__()
        self._scopes = scopes
        self._inner: set[int] = set()
        self._seen: dict[tuple, int] = {}
        self._guards: list[bool] = []  # per enclosing try body: whether it catches a lookup
        self.found: list[tuple[str, tuple]] = []

    def visit_Try_body(self, node: cst.Try) -> None:
        self._guards.append(any(_catches_lookup_errors(h) for h in node.handlers))

    def leave_Try_body(self, node: cst.Try) -> None:
        self._guards.pop()

    def _add(self, name: str, where: tuple) -> None:
        if not any(self._guards):
            self.found.append((name, where))

    def _occurrence(self, key: tuple) -> tuple:
        self._seen[key] = self._seen.get(key, 0) + 1
        return key, self._seen[key] - 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Attribute):
            self._inner.add(id(node.value))
        if id(node) in self._inner:
            return
        where = self._occurrence(attribute_key(node))
        name = self._scopes.qualified(node)
        if name is not None and name.split(".")[0] in CHECKED_ROOTS:
            self._add(name, where)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = get_full_name_for_node(node.module) if node.module else ""
        where = self._occurrence(("from", "." * len(node.relative) + module))
        if node.relative or not self._checked(module):
            return
        if isinstance(node.names, cst.ImportStar):
            self._add(module, where)
            return
        for alias in node.names:
            self._add(f"{module}.{get_full_name_for_node(alias.name)}", where)

    def visit_Import(self, node: cst.Import) -> None:
        names = [get_full_name_for_node(alias.name) for alias in node.names]
        where = self._occurrence(("import", ",".join(names)))
        for name in names:
            if self._checked(name):
                self._add(name, where)

    def _checked(self, module: str) -> bool:
        return module.split(".")[0] in CHECKED_ROOTS and self._scopes.resolves(module)


def _catches_lookup_errors(handler: cst.ExceptHandler) -> bool:
    """Whether ``except ...:`` catches an ImportError or an AttributeError."""
    if handler.type is None:
        return True
    caught = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    for element in caught:
        value = element.value if isinstance(element, cst.Element) else element
        name = get_full_name_for_node(value) or ""
        if name.rsplit(".", 1)[-1] in _LOOKUP_ERRORS:
            return True
    return False

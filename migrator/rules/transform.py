"""The codemod: one pass over a module that resolves every name through its
imports and rewrites what it can.

* Estimator API (rule MIG201): ``tf.estimator.X`` becomes ``tf_estimator.X`` with
  ``from estimator_revival import estimator as tf_estimator`` added; ``from
  tensorflow.estimator import X`` becomes ``from estimator_revival.estimator import X``
  (and code migrated under the runtime's former name, ``from runtime import
  estimator``, is converted the same way).
* TF1-only symbols (MIG202): ``tf.layers.dense`` becomes
  ``tf.compat.v1.layers.dense`` (table generated from tf_upgrade_v2's data).
* ``est.export_savedmodel(...)`` becomes ``est.export_saved_model(...)`` (MIG203).

Whatever cannot be converted is reported with a stable code and left exactly
as it was.

Only the names' resolution is prepared up front (from the imports alone where
that is exact, ``migrator.names.import_scopes``; else libcst's scope analysis,
``migrator.names.scopes``): qualified names are asked for the few nodes that need them,
positions are resolved only when a diagnostic is reported, and imports are added
in the same pass. (The generic libcst helpers, QualifiedNameProvider +
AddImportsVisitor, cost about 3x more per file.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from estimator_revival.migrator.data import symbols
from estimator_revival.migrator.data.diagnostics import Diagnostic
from estimator_revival.migrator.names import dialect
from estimator_revival.migrator.names.import_scopes import import_scopes
from estimator_revival.migrator.names.scopes import FullScopes, NeedsFullScopes, Scopes
from estimator_revival.migrator.rules.module_edits import (
    ModuleEdits,
    NeededImport,
    bound_name,
    dotted,
    removable_import_binding,
)
from estimator_revival.migrator.source.positions import Locator, attribute_key, dotted_name


@dataclasses.dataclass(frozen=True)
class Part:
    """Which part of a module a pass migrates (a whole module unless
    ``migrator.rules.chunked`` splits a large file): the order key of each module-level
    statement, and whether this pass applies the module-level edits (with those of
    the earlier passes). Added imports go before the first statement whose comment
    is ``imports_before``, if one is given (a notebook's first Python cell). The
    ``dialect`` is ``migrator.names.dialect``'s reading of the whole file; names
    resolve to the program's own modules before TensorFlow's or the runtime's
    (``first_party``: ``migrator.names.program``)."""

    statement_keys: Sequence[int] | None = None
    finishes: bool = True
    earlier_edits: ModuleEdits = dataclasses.field(default_factory=ModuleEdits)
    imports_before: str | None = None
    dialect: str = dialect.UNKNOWN  # the TensorFlow the whole file was written for
    first_party: frozenset[str] = frozenset()  # the program's own top-level modules


class MigrateTransformer(cst.CSTTransformer):
    """Rewrites one module; what it could not convert collects in ``diagnostics``.
    ``rewrote`` says whether the result differs from the module at all (its text
    is then the source's, without generating it).

    A plain transformer rather than a libcst codemod command: the codemod's
    matcher machinery costs more than the whole rewrite here.
    """

    def __init__(
        self,
        locator: Locator,
        scopes: Scopes,
        *,
        path: str,
        enabled: frozenset[str],
        part: Part | None = None,
    ) -> None:
        super().__init__()
        self._scopes = scopes
        self._locator = locator
        self._part = part or Part()
        self._seen: dict[tuple, int] = {}  # position keys visited so far
        self.path = path
        self.enabled = enabled
        self.diagnostics: list[Diagnostic] = []
        self.rewrote = False
        self.reported_names: set[str] = set()  # qualified names the diagnostics are about
        self._reported_nodes: set[int] = set()
        self.edits = ModuleEdits()
        # runtime module -> the name this file binds it to (from a rewritten import)
        self._bound: dict[str, str] = {}
        # (scope, name) bound by a function-local import rewritten where it stands:
        # chains through the name stay as they are
        self._local_runtime_modules: set[tuple[int, str]] = set()
        self._inner_attributes: set[int] = set()  # ids of attributes inside a longer chain
        self._calls_by_callee: dict[int, cst.Call] = {}
        self._occurrence: dict[int, tuple] = {}
        self._global_imports: dict[str, tuple[str, int]] | None = None  # see _global_modules
        self._import_statement_keys: dict[int, int] = {}  # id of an import -> its statement
        self._top_level: dict[int, int] = {}  # id of a module statement -> its order key
        self._statement_key = 0  # order key of the module statement being visited
        self.body_keys: list[int] = []  # the order key of each statement of the result
        self._visits = self._handlers("visit_")
        self._leaves = self._handlers("leave_")

    def _handlers(self, prefix: str) -> dict[type, object]:
        """This class's own ``<prefix><Node>`` methods, by node class (libcst's base
        class has a no-op one for every node)."""
        return {
            getattr(cst, name.removeprefix(prefix)): getattr(self, name)
            for name in vars(MigrateTransformer)
            if name.startswith(prefix) and "_" not in name.removeprefix(prefix)
        }

    # libcst looks each node's visit_<Node> and leave_<Node> up by name (a formatted
    # string and a getattr per node, most of them misses): a table instead.
    def on_visit(self, node: cst.CSTNode) -> bool:
        visit = self._visits.get(type(node))
        return visit is None or visit(node) is not False

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        leave = self._leaves.get(type(original_node))
        if leave is None:
            return updated_node
        result = leave(original_node, updated_node)
        self.rewrote |= result is not updated_node
        return result

    # This class has no visit_<Node>_<attribute> methods: skip libcst's lookup of
    # them for every child attribute of every node (a fifth of the pass).
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass

    def _enter_statement(self, node: cst.BaseStatement) -> None:
        """Notes which module-level statement is being visited (the order key of the
        imports it needs)."""
        key = self._top_level.get(id(node))
        if key is not None:
            self._statement_key = key

    visit_SimpleStatementLine = visit_FunctionDef = visit_ClassDef = _enter_statement
    visit_If = visit_For = visit_While = visit_With = visit_Try = _enter_statement
    visit_TryStar = visit_Match = _enter_statement

    def visit_Module(self, node: cst.Module) -> None:
        keys = self._part.statement_keys or range(len(node.body))
        self._top_level = {
            id(statement): key for statement, key in zip(node.body, keys, strict=True)
        }
        # imports of top-level statements: leave_Module reports those left from gone
        # packages once it knows which are removed; nested ones are reported at once
        self._top_level_imports = {
            id(small)
            for statement in node.body
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
        }

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if id(node) not in self._inner_attributes:
            self._count(node)
        if isinstance(node.value, cst.Attribute):
            self._inner_attributes.add(id(node.value))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._count(node)
        self._import_statement_keys[id(node)] = self._statement_key

    def visit_Import(self, node: cst.Import) -> None:
        self._count(node)
        self._import_statement_keys[id(node)] = self._statement_key

    def visit_Call(self, node: cst.Call) -> None:
        self._calls_by_callee[id(node.func)] = node

    # ------------------------------------------------------------ references
    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        if id(original) in self._inner_attributes:
            return updated
        qualified = self._scopes.qualified(original)
        if qualified is None:
            if original.attr.value == "export_savedmodel" and "MIG203" in self.enabled:
                return updated.with_changes(attr=cst.Name("export_saved_model"))
            if original.attr.value == "value" and isinstance(original.value, cst.Subscript):
                return self._dimension_value(original, updated)
            return updated
        if symbols.in_runtime(qualified):
            self._check_runtime_name(original, qualified)
            return updated
        if symbols.current_name(qualified) is not None:  # its import is renamed instead
            self._check_runtime_name(original, symbols.current_name(qualified))
            return updated
        estimator_api = symbols.estimator_api(qualified)
        if estimator_api is not None:
            return self._estimator_reference(original, updated, *estimator_api)
        return self._tf1_reference(original, updated, qualified)

    def _check_runtime_name(self, node, qualified: str) -> None:
        """Code already migrated: its runtime names must exist, on every run."""
        canonical = symbols.runtime_path(qualified)
        if not symbols.available(canonical):
            self._report(
                node,
                "MIG101",
                f"{qualified} is not in the bundled runtime",
                "use the TensorFlow 2 API instead, or remove it",
                names=(qualified,),
            )
        self._report_order_left_open(node, canonical)

    def _report_order_left_open(self, node, canonical: str) -> None:
        """A runtime name whose TF 1 computation ran in an order TF 1 did not fix
        (on every run, as the name stays in the code)."""
        if canonical in symbols.ORDER_LEFT_OPEN:
            why, instead = symbols.ORDER_LEFT_OPEN[canonical]
            self._report(node, "MIG111", f"{canonical.rpartition('.')[2]}: {why}", instead)

    def _estimator_reference(self, original, updated, qualified: str, canonical: str):
        in_tf2 = symbols.contrib_in_tf2(qualified)
        if not symbols.available(canonical) and in_tf2 is not None:
            if "MIG202" not in self.enabled:
                return updated
            return self._tensorflow_reference(original, updated, qualified, in_tf2)
        canonical = self._flavour_meant(qualified, canonical)
        if not self._runtime_has(original, qualified, canonical):
            return updated
        if "MIG201" not in self.enabled:
            return updated
        if symbols.is_tf1_flavour(canonical):
            return self._runtime_member(original, updated, canonical)
        return self._replace_namespace(original, updated)

    def _runtime_has(self, node, qualified: str, canonical: str) -> bool:
        """Whether the runtime has what ``qualified`` meant here; if not, says so."""
        if not symbols.available(canonical):
            self._report_not_in_runtime(node, qualified, canonical)
            return False
        self._report_order_left_open(node, canonical)
        return True

    def _flavour_meant(self, qualified: str, canonical: str) -> str:
        """``estimator.v1.X`` where ``qualified`` means TF 1's flavour of a canned
        estimator TensorFlow shipped in two: it is spelled so
        (``tf.compat.v1.estimator.X``), or it is ``tf.estimator.X`` in TF 1 code,
        where it was the v1 class; else ``canonical``."""
        if canonical not in symbols.TWO_FLAVOURS:
            return canonical
        if not symbols.tf1_flavour(qualified) and self._part.dialect != dialect.TF1:
            return canonical
        return symbols.tf1_flavour_of(canonical)

    def _report_not_in_runtime(self, node, qualified: str, canonical: str) -> None:
        self._report(
            node,
            "MIG101",
            f"{_short(qualified)} has no equivalent in the bundled runtime yet; left unchanged",
            symbols.instead(canonical) or "",
            names=(qualified, symbols.runtime_module(canonical)),
        )

    def _replace_namespace(self, original, updated):
        """Swaps the ``tf.estimator`` part of a chain for the runtime alias."""
        if isinstance(original, cst.Name):
            return updated  # a name bound by an import, which is rewritten instead
        qualified = self._scopes.qualified(original)
        estimator_api = symbols.estimator_api(qualified) if qualified is not None else None
        replacement = estimator_api and symbols.RUNTIME_REPLACEMENTS.get(estimator_api[0])
        if replacement is not None:
            return self._runtime_member(original, updated, replacement)
        if qualified is not None and symbols.namespace(qualified) is not None:
            self._count_rewritten_root(original)
            return _keeping_parentheses(
                updated, cst.Name(self._runtime_name(symbols.namespace(qualified)))
            )
        if isinstance(original, cst.Attribute):
            return updated.with_changes(
                value=self._replace_namespace(original.value, updated.value)
            )
        return updated

    def _runtime_member(self, original, updated, runtime_name: str):
        """The chain replaced by ``runtime_name`` (``estimator.v1.DNNClassifier``)
        through its module's runtime alias."""
        if isinstance(original, cst.Name) or self._through_local_runtime_module(original):
            return updated  # a name bound by an import, which is rewritten instead
        self._count_rewritten_root(original)
        namespace, _, member = runtime_name.rpartition(".")
        return _keeping_parentheses(updated, dotted(f"{self._runtime_name(namespace)}.{member}"))

    def _through_local_runtime_module(self, original: cst.BaseExpression) -> bool:
        """Whether a chain starts at a name a function-local import binds to a
        runtime module (rewritten where it stands: ``_local_runtime_import``)."""
        root = _root(original)
        return isinstance(root, cst.Name) and (
            (id(self._scopes.scope_of(root)), root.value) in self._local_runtime_modules
        )

    def _count_rewritten_root(self, original: cst.BaseExpression) -> None:
        """A rewritten chain that starts at a name a legacy package's import bound
        (``import tensorflow_estimator as tfe``, ``from tensorflow.contrib import
        learn``): the import is removed once none of its uses is left."""
        root = _root(original)
        root_qualified = self._scopes.qualified(root) if isinstance(root, cst.Name) else None
        if root_qualified is not None and symbols.gone(root_qualified) is not None:
            self.edits.rewritten_roots[root.value] += 1

    def _runtime_name(self, namespace: str) -> str:
        """The name that refers to the runtime's ``namespace`` here, importing it once."""
        if namespace not in self._bound:
            already = self._bound_to(symbols.runtime_module(namespace))
            if already is not None:
                self._bound[namespace] = already
                return already
            alias = symbols.RUNTIME_ALIASES[namespace]
            if self._scopes.binds(alias):
                alias = "runtime_" + namespace.replace(".", "_")
            module, _, name = symbols.runtime_module(namespace).rpartition(".")
            self._need_import((module, name, None if alias == name else alias))
            self._bound[namespace] = alias
        return self._bound[namespace]

    def _dimension_value(self, original: cst.Attribute, updated: cst.Attribute):
        """``x.shape[i].value``: TF 1's ``Dimension.value``. TF 2's shapes hold ints
        (or None), which have no ``.value``; ``tf.compat.v1.dimension_value`` gives
        the same number for both. Rewritten where the subscripted value is a shape
        (``.shape``, ``.get_shape()``, ``.dims``, a name ending in ``shape``);
        reported in TF 1 code where it might be one."""
        if not _is_shape(original.value.value):
            if self._part.dialect == dialect.TF1:
                self._report(
                    original,
                    "MIG107",
                    "`.value` of a subscript: TF 1's Dimension.value if this is a "
                    "TensorShape, which TF 2's shapes no longer have; left unchanged",
                    "if it is a shape, use tf.compat.v1.dimension_value(...)",
                )
            return updated
        if "MIG202" not in self.enabled:
            return updated
        function = self._from_global_tensorflow("tensorflow.compat.v1.dimension_value")
        if function is None:
            self._report(
                original,
                "MIG104",
                "Dimension.value does not exist in TensorFlow 2, and this file has no "
                "`import tensorflow` to reach tf.compat.v1.dimension_value through; "
                "left unchanged",
                "add `import tensorflow as tf` and run migrate again",
            )
            return updated
        call = cst.Call(func=function, args=[cst.Arg(updated.value)])
        return _keeping_parentheses(updated, call)

    def _tf1_reference(self, original, updated, qualified: str):
        if not qualified.startswith("tensorflow."):
            return updated
        if symbols.queue_input(qualified):
            self._report(
                original,
                "MIG112",
                f"{_short(qualified)} is TF 1's queue-based input, whose QueueRunner threads "
                "the Estimator's session started; the runtime runs tf.data pipelines and "
                "iterators every step, not queues",
                "docs/runtime.md, 'What the runtime refuses'",
                names=(qualified,),
            )
        if qualified.startswith("tensorflow.python."):
            return self._private_reference(original, updated, qualified)
        first_use = self.edits.first_v1_layers_use is None
        if qualified.startswith(symbols.V1_LAYERS) and "MIG202" in self.enabled and first_use:
            self.edits.first_v1_layers_use = self._statement_key
        replacement = symbols.tf1_replacement(qualified)
        namesake = symbols.namesake(qualified)
        if namesake is not None and not self._means_tf1(original, qualified, namesake):
            replacement = None
        if replacement is not None:
            if "MIG202" not in self.enabled:
                return updated
            replacement = symbols.stable_spelling(replacement)
            return self._tensorflow_reference(original, updated, qualified, replacement)
        if qualified in symbols.CONTRIB_CALL_RENAMES:
            return self._contrib_call_rename(original, updated, qualified)
        slim = symbols.slim_replacement(qualified)
        if slim is not None:
            if "MIG202" not in self.enabled:
                return updated
            return self._slim_reference(original, updated, slim)
        removed = symbols.removed_in_tf2(qualified)
        if removed is not None:
            self._report(
                original,
                "MIG104",
                f"{removed}; left unchanged",
                "rewrite it by hand",
                names=(qualified,),
            )
        elif qualified.startswith("tensorflow.contrib."):
            self._report(
                original,
                "MIG102",
                f"{_short(qualified)} has no TensorFlow 2 equivalent; left unchanged",
                symbols.instead(qualified) or "rewrite it by hand",
                names=(qualified,),
            )
        return updated

    def _private_reference(self, original, updated, qualified: str):
        """A name of TensorFlow's private API: its public twin where TF 2 moved it,
        reported where TF removed it, else left to ``--verify`` (warned once, at
        the chain's ``tensorflow`` root; an import of a private module is warned
        at the import)."""
        twin = symbols.PRIVATE_TWINS.get(qualified)
        if twin is not None:
            if "MIG202" not in self.enabled:
                return updated
            return self._tensorflow_reference(original, updated, qualified, twin)
        removal = symbols.private_removal(qualified)
        if removal is not None:
            why, instead = removal
            self._report(
                original,
                "MIG104",
                f"{_short(qualified)} was {why}; left unchanged",
                instead,
                names=(qualified,),
            )
            return updated
        if self._scopes.qualified(_root(original)) == "tensorflow":
            self._report(
                original,
                "MIG108",
                f"{_short(qualified)} is TensorFlow's private API, which changes between releases",
                "prefer the public API; `migrate --verify` checks it exists in your TensorFlow",
            )
        return updated

    def _tensorflow_reference(self, original, updated, qualified: str, replacement: str):
        """``replacement`` written from this file's ``tensorflow`` name: the chain's
        own root, or the module's ``import tensorflow[.compat.v1] as tf`` when the
        chain starts at a legacy module import (``from tensorflow.contrib import
        summary``), which is then removed once none of its uses is left; or, where
        the file binds neither (a TF 2 name in a file that imports only
        ``tensorflow.compat.v1``), through an added ``import tensorflow``."""
        root = _root(original)
        if not isinstance(root, cst.Name):
            return updated  # a chain on a call's result; the call's own chain is rewritten
        root_qualified = self._scopes.qualified(root)
        if root_qualified is None or not self._resolves_through(original, root_qualified):
            # a name used before a function-local import rebinds it: scope analysis
            # resolves the chain through the import and its root through another
            # binding (or none); Python raises UnboundLocalError there either way
            return updated
        if root_qualified == "tensorflow":
            return _keeping_parentheses(
                updated, dotted(root.value + replacement[len("tensorflow") :])
            )
        expression = self._from_global_tensorflow(replacement)
        if expression is None and not self._scopes.binds("tensorflow"):
            self._need_import(("", "tensorflow", None))
            expression = dotted(replacement)
        if expression is None:
            self._report(
                original,
                "MIG102",
                f"{_short(qualified)} is {_short(replacement)} in TensorFlow 2, but this file "
                "has no `import tensorflow` to refer to it through; left unchanged",
                "add `import tensorflow as tf` and run migrate again",
            )
            return updated
        self.edits.rewritten_roots[root.value] += 1
        return _keeping_parentheses(updated, expression)

    def _resolves_through(self, chain, root_qualified: str) -> bool:
        """Whether ``chain``'s qualified name is its root's with the chain's
        attributes (scope analysis resolves both through the same binding)."""
        attributes = dotted_name(chain).partition(".")[2]
        through_root = f"{root_qualified}.{attributes}" if attributes else root_qualified
        return self._scopes.qualified(chain) == symbols.public_name(through_root)

    def _contrib_call_rename(self, original, updated, qualified: str):
        """A tf.contrib class TF 2 kept with fewer arguments: renamed where the call
        passes only arguments TF 2's takes, reported otherwise."""
        target, positional, keywords = symbols.CONTRIB_CALL_RENAMES[qualified]
        call = self._calls_by_callee.get(id(original))
        fits = call is not None and not any(arg.star for arg in call.args)
        if fits:
            passed = [arg.keyword.value for arg in call.args if arg.keyword is not None]
            fits = sum(arg.keyword is None for arg in call.args) <= len(positional) and all(
                keyword in keywords for keyword in passed
            )
        if not fits:
            accepted = f"{', '.join(positional)} by position"
            if keywords:
                accepted += f" and {', '.join(sorted(keywords))} by keyword"
            self._report(
                original,
                "MIG102",
                f"{_short(qualified)} is {_short(target)} in TensorFlow 2, which takes only "
                f"{accepted}; left unchanged",
                f"call {_short(target)} with those arguments",
                names=(qualified,),
            )
            return updated
        if "MIG202" not in self.enabled:
            return updated
        return self._tensorflow_reference(original, updated, qualified, target)

    def _slim_reference(self, original, updated, target: str):
        """A tf.contrib name whose code the tf_slim package keeps: ``tf_slim.<name>``,
        with ``import tf_slim`` added."""
        root = _root(original)
        if not isinstance(root, cst.Name):
            return updated  # a chain on a call's result; the call's own chain is rewritten
        self._count_rewritten_root(original)
        self._need_import(("", "tf_slim", None))
        return _keeping_parentheses(updated, dotted(target))

    def _from_global_tensorflow(self, replacement: str) -> cst.BaseExpression | None:
        """``replacement`` through a global name bound to ``tensorflow``, or to
        ``tensorflow.compat.v1`` for replacements under ``tensorflow.compat``
        (whose other names would mean the v1 symbol there); only a name whose import
        the module runs before the statement being migrated."""
        bound_here = {
            name: bound
            for name, (bound, statement_key) in self._global_modules().items()
            if statement_key is not None and statement_key <= self._statement_key
        }
        for name, bound in bound_here.items():
            if bound == "tensorflow":
                return dotted(name + replacement[len("tensorflow") :])
        for name, bound in bound_here.items():
            if bound == "tensorflow.compat.v1" and replacement.startswith("tensorflow.compat."):
                if replacement.startswith(bound + "."):
                    return dotted(name + replacement[len(bound) :])
                return dotted(name + replacement[len("tensorflow") :])
        return None

    def _bound_to(self, module: str) -> str | None:
        """A global name an import above the current statement binds to ``module``
        (a second run reuses the runtime import the first one added; one below
        would bind the name only after its use)."""
        for name, (qualified, order) in self._global_modules().items():
            if qualified == module and order is not None:
                return name
        return None

    def _global_modules(self) -> dict[str, tuple[str, int | None]]:
        """Global names bound by an import: the one qualified name each has, and the
        order key of the module statement holding the import (None: not visited yet,
        so after the current one)."""
        if self._global_imports is None:
            self._global_imports = {
                name: (qualified, id(node))
                for name, (qualified, node) in self._scopes.import_bindings().items()
            }
        return {
            name: (bound, self._import_statement_keys.get(node_id))
            for name, (bound, node_id) in self._global_imports.items()
        }

    # --------------------------------------------------------------- imports
    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if self._first_party(original):
            return updated
        if original.module is not None and not original.relative:
            current = symbols.current_name(get_full_name_for_node(original.module))
            if current is not None:
                return self._from_former_package(original, updated, current)
        updated, only_twins = self._import_public_twins(original, updated)
        if only_twins:
            return updated
        self._report_private_import(original)
        new = self._rewrite_import_from(original, updated)
        if id(original) not in self._top_level_imports:
            self._report_gone_import(original, new)
        return new

    def _from_former_package(self, original: cst.ImportFrom, updated: cst.ImportFrom, module: str):
        """``from runtime.contrib import rnn`` (the runtime's former name) imports from
        ``estimator_revival.contrib`` instead; its names are checked as the
        runtime's own."""
        if isinstance(original.names, cst.ImportStar):
            namespace = symbols.runtime_path(module)
            if namespace in symbols.WILDCARD_NAMESPACES:
                self._report_missing_wildcard_names(original, namespace)
        else:
            for alias in original.names:
                self._check_runtime_name(original, f"{module}.{get_full_name_for_node(alias.name)}")
        if "MIG201" not in self.enabled:
            return updated
        return updated.with_changes(module=dotted(module))

    def _import_public_twins(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        """``from tensorflow.python.keras.layers import LSTM, Layer``: each private
        name with a public twin (symbols.PRIVATE_TWINS) imported from the twin's
        module instead, bound as before (``from tensorflow.compat.v1.keras.layers
        import LSTM``), the others left. Returns ``(statement, only_twins)``: the
        statement rewritten to import twins, or the one left to convert."""
        if original.relative or original.module is None or "MIG202" not in self.enabled:
            return updated, False
        if isinstance(updated.names, cst.ImportStar):
            return updated, False
        module = get_full_name_for_node(original.module)
        twins, kept = [], []
        for alias in updated.names:
            twin = symbols.PRIVATE_TWINS.get(f"{module}.{get_full_name_for_node(alias.name)}")
            if twin is None:
                kept.append(alias)
            else:
                twin_module, _, name = twin.rpartition(".")
                twins.append((alias, (twin_module, name)))
        if not twins:
            return updated, False
        return self._moved_out_of(updated, twins, kept), not kept

    def _moved_out_of(self, statement: cst.ImportFrom, moved: list, kept: list) -> cst.ImportFrom:
        """``statement`` without the ``moved`` names (``(alias, (module, name))``),
        each imported from its new module, bound as before. With nothing ``kept``,
        the statement itself imports from the first new module (names from any
        other get an import statement of their own)."""
        if kept:
            self._need_imports(moved)
            return statement.with_changes(names=_last_without_comma(kept))
        first_module = moved[0][1][0]
        self._need_imports([(a, t) for a, t in moved if t[0] != first_module])
        names = [
            alias.with_changes(name=cst.Name(name), asname=_asname(alias, name))
            for alias, (module, name) in moved
            if module == first_module
        ]
        return statement.with_changes(module=dotted(first_module), names=_last_without_comma(names))

    def _rewrite_import_from(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        module = get_full_name_for_node(original.module) if original.module else None
        if module is None or original.relative:
            return updated
        if isinstance(original.names, cst.ImportStar):
            return self._wildcard_import(original, updated, module)
        moved, kept = [], []
        for alias in updated.names:
            target = self._runtime_target(original, module, alias)
            if target is None and not self._scopes.at_module_level(original):
                target = self._local_runtime_import(original, module, alias)
            (moved if target else kept).append((alias, target))
        if not moved or "MIG201" not in self.enabled:
            return updated
        if self._scopes.at_module_level(original):
            for alias, (target_module, name) in moved:
                bound = bound_name(alias)
                self._bound.setdefault(symbols.runtime_path(f"{target_module}.{name}"), bound)
        return self._moved_out_of(updated, moved, [alias for alias, _ in kept])

    def _local_runtime_import(self, node: cst.ImportFrom, module: str, alias: cst.ImportAlias):
        """``from tensorflow.contrib import opt as contrib_opt`` inside a function
        imports the runtime's module where it stands (a module-level import would be
        shadowed by this one); the chains through the name then stay. The target, or
        None where the legacy module has no runtime home."""
        home = symbols.runtime_namespace(f"{module}.{get_full_name_for_node(alias.name)}")
        if home is None or "MIG201" not in self.enabled:
            return None
        self._local_runtime_modules.add((id(self._scopes.scope_of(node)), bound_name(alias)))
        return symbols.runtime_module(home).rpartition(".")[::2]

    def _need_imports(self, moved) -> None:
        """Adds an import for each ``(alias, (runtime module, name))`` split from an
        import statement, bound as before."""
        for alias, (target_module, name) in moved:
            bound = bound_name(alias)
            key = (target_module, name, None if bound == name else bound)
            self._need_import(key, after_its_statement=True)

    def _need_import(self, key, *, after_its_statement: bool = False) -> None:
        order = (self._statement_key, len(self.edits.needed_imports))
        self.edits.needed_imports.append(NeededImport(order, key, after_its_statement))

    def _wildcard_import(self, original, updated, module: str):
        """``from npu_bridge.npu_init import *`` (the usual Ascend preamble) becomes
        ``from estimator_revival.npu import *``; names the file takes from it that the
        runtime lacks are reported, on every run (also once it is rewritten).
        Other legacy wildcard imports stay as they are."""
        runtime_namespace = symbols.runtime_path(module)
        if symbols.in_runtime(module) and runtime_namespace in symbols.WILDCARD_NAMESPACES:
            self._report_missing_wildcard_names(original, runtime_namespace)
            return updated
        namespace = symbols.canonical(module)
        if namespace is None:
            return updated
        if namespace not in symbols.WILDCARD_NAMESPACES:
            if symbols.gone(module) is None:  # else reported as an import that fails
                self._report(
                    original,
                    "MIG103",
                    f"wildcard import from {module}: its names cannot be resolved; left unchanged",
                    "import the names you use explicitly",
                    names=(module,),
                )
            return updated
        self._report_missing_wildcard_names(original, namespace)
        if "MIG201" not in self.enabled:
            return updated
        return updated.with_changes(module=dotted(symbols.runtime_module(namespace)))

    def _report_missing_wildcard_names(self, node: cst.ImportFrom, namespace: str) -> None:
        provided = symbols.members(namespace)
        missing = sorted({name for name in self._scopes.unresolved_names() if name not in provided})
        if missing:
            self._report(
                node,
                "MIG101",
                f"names this file uses from a wildcard import of {namespace} are not in "
                f"the bundled runtime: {', '.join(missing)}",
                "import them from where TensorFlow 2 has them, or remove their uses",
            )

    def _runtime_target(self, node, module: str, alias: cst.ImportAlias):
        qualified = symbols.public_name(f"{module}.{get_full_name_for_node(alias.name)}")
        if symbols.in_runtime(qualified):
            self._check_runtime_name(node, qualified)
            return None
        estimator_api = symbols.estimator_api(qualified)
        if estimator_api is None:
            return None
        qualified, canonical = estimator_api
        canonical = self._flavour_meant(qualified, canonical)
        if not self._runtime_has(node, qualified, canonical):
            return None
        target_module, _, name = symbols.runtime_module(canonical).rpartition(".")
        return target_module, name

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        if self._first_party(original):
            return updated
        updated = self._renamed_former_package(original, updated)
        self._report_private_import(original)
        for alias in original.names:
            name = get_full_name_for_node(alias.name)
            canonical = symbols.canonical(name)
            if canonical is not None and not alias.asname:
                self._report(
                    original,
                    "MIG101",
                    f"import {name}: refer to it as {symbols.runtime_module(canonical)} "
                    "instead; left unchanged",
                    names=(name,),
                )
        if id(original) not in self._top_level_imports:
            self._report_gone_import(original, updated)
        return updated

    def _renamed_former_package(self, original: cst.Import, statement: cst.Import) -> cst.Import:
        """``import runtime`` (the runtime's former name; migrate wrote it to select
        tf-keras) becomes ``import estimator_revival``, bound to the name it had
        where the module uses that name; ``import runtime.x as y``, ``import
        estimator_revival.x as y``. (``import runtime.x`` binds ``runtime``, which
        no import of the new name can: reported.)"""
        current = [symbols.current_name(get_full_name_for_node(a.name)) for a in statement.names]
        if "MIG201" not in self.enabled or not any(current):
            return statement
        names = []
        for alias, name in zip(statement.names, current, strict=True):
            if name == symbols.PACKAGE:
                keeps_binding = alias.asname is None and self._scopes.uses(symbols.FORMER_PACKAGE)
                asname = cst.AsName(name=cst.Name(symbols.FORMER_PACKAGE))
                alias = alias.with_changes(
                    name=cst.Name(name), asname=asname if keeps_binding else alias.asname
                )
            elif name is not None and alias.asname is not None:
                alias = alias.with_changes(name=dotted(name))
            elif name is not None:
                self._report(
                    original,
                    "MIG101",
                    f"import {get_full_name_for_node(alias.name)}: the runtime's former "
                    "name; left unchanged",
                    f"import {name} as a name of its own and refer to it by that name",
                )
            names.append(alias)
        return statement.with_changes(names=names)

    # ----------------------------------------------------------- the module
    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        for statement in updated.body:
            bound = removable_import_binding(statement)
            if bound is not None:
                self.edits.root_uses[bound] += self._scopes.uses(bound)
        if not self._part.finishes:
            self.body_keys = [self._top_level[id(statement)] for statement in original.body]
            return updated
        edits = self._part.earlier_edits.merged(self.edits)
        keys = [self._top_level[id(statement)] for statement in original.body]
        body, self.body_keys, orphans = edits.apply(
            list(updated.body), keys, imports_before=self._part.imports_before
        )
        survivors = {id(statement) for statement in body}
        for before, after in zip(original.body, updated.body, strict=True):
            if id(after) in survivors and isinstance(after, cst.SimpleStatementLine):
                for old, new in zip(before.body, after.body, strict=True):
                    self._report_gone_import(old, new)
        unchanged = len(body) == len(updated.body) and all(
            new is old for new, old in zip(body, updated.body, strict=True)
        )
        if unchanged and not orphans:
            return updated  # nothing added, removed or moved
        return updated.with_changes(body=body, footer=[*orphans, *updated.footer])

    def _report_private_import(self, node) -> None:
        """TensorFlow's private API, imported: it changes between releases; a name
        TensorFlow removed is reported as such."""
        private = [
            m
            for m in _imported_names(node)
            if (m == "tensorflow.python" or m.startswith("tensorflow.python."))
            and symbols.canonical(m) is None  # the Estimator's private paths are converted
            and m not in symbols.PRIVATE_TWINS  # imported from the twin's module now
        ]
        removed = [(m, symbols.private_removal(m)) for m in private]
        for name, (why, instead) in [(m, r) for m, r in removed if r is not None]:
            self._report(
                node, "MIG104", f"{_short(name)} was {why}; left unchanged", instead, names=(name,)
            )
        private = [m for m, removal in removed if removal is None]
        if private:
            self._report(
                node,
                "MIG108",
                f"{private[0]} is TensorFlow's private API, which changes between releases",
                "prefer the public API; `migrate --verify` checks it exists in your TensorFlow",
            )

    def _report_gone_import(self, original, updated) -> None:
        """An import statement left from a package TF 2 stacks do not have: the file
        cannot be imported (reported once per statement, unless already reported)."""
        if id(original) in self._reported_nodes or self._first_party(updated):
            return
        for module in _imported_modules(updated):
            verdict = symbols.gone(module)
            if verdict is not None:
                code, why = verdict
                self._report(
                    original,
                    code,
                    f"import of {_short(module)}: {why}, so this file cannot be imported; "
                    "left unchanged",
                    symbols.instead(module) or "remove the import once its uses are converted",
                    names=(module,),
                )
                return

    # ---------------------------------------------------------------- helpers
    def _first_party(self, node: cst.Import | cst.ImportFrom) -> bool:
        """Whether an import statement imports the program's own modules (a
        ``runtime`` package of its own is not the bundled runtime's former name)."""
        return not all(self._scopes.resolves(module) for module in _imported_modules(node))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """Turns TF 1's dataset iterator methods into functions."""
        if "MIG202" not in self.enabled or not isinstance(original.func, cst.Attribute):
            return updated
        if (
            original.func.attr.value in _ITERATOR_METHODS
            and self._scopes.qualified(original.func) is None
        ):
            return self._iterator_function(original, updated)
        return updated

    def _means_tf1(self, node: cst.Attribute, qualified: str, namesake: dict) -> bool:
        """Whether a use of a function TF 2 kept under its name but changed means
        TF 1's (it then goes to tf.compat.v1): a call that binds only TF 1's
        parameters always does, one that binds only TF 2's never does; otherwise
        the file's dialect decides, unless the call means the same in both."""
        call = self._calls_by_callee.get(id(node))
        arguments = None
        if call is not None and not any(arg.star for arg in call.args):
            keywords = [arg.keyword.value for arg in call.args if arg.keyword is not None]
            arguments = (sum(arg.keyword is None for arg in call.args), keywords)
            in_v1 = symbols.binds(namesake["v1"], *arguments)
            in_v2 = symbols.binds(namesake["v2"], *arguments)
            if in_v1 != in_v2:
                return in_v1
            if symbols.same_meaning(namesake, *arguments):
                return False
        if self._part.dialect == dialect.TF1:
            return True
        if self._part.dialect == dialect.UNKNOWN:
            self._report(
                node,
                "MIG106",
                f"{_short(qualified)} means something else in TensorFlow 2 than in TensorFlow "
                "1, and nothing in this file says which it was written for; left as "
                "TensorFlow 2's",
                f"if this is TF 1 code, use tf.compat.v1{qualified[len('tensorflow') :]}",
            )
        return False

    def _iterator_function(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """``dataset.make_one_shot_iterator()`` -> ``tf.compat.v1.data.
        make_one_shot_iterator(dataset)`` (TF 2's datasets lost the methods; the
        functions take TF 1's and TF 2's datasets alike)."""
        method = original.func.attr.value
        function = self._from_global_tensorflow(f"tensorflow.compat.v1.data.{method}")
        if function is None:
            self._report(
                original.func,
                "MIG104",
                f"Dataset.{method}() does not exist in TensorFlow 2, and this file has no "
                f"`import tensorflow` to reach tf.compat.v1.data.{method} through; left unchanged",
                "add `import tensorflow as tf` and run migrate again",
            )
            return updated
        dataset = cst.Arg(
            updated.func.value,
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            if updated.args
            else cst.MaybeSentinel.DEFAULT,
        )
        return updated.with_changes(func=function, args=[dataset, *updated.args])

    def _count(self, node) -> None:
        """Numbers dotted names and imports in source order, for :meth:`_report`."""
        key = _position_key(node)
        if key is not None:
            self._seen[key] = self._seen.get(key, 0) + 1
            self._occurrence[id(node)] = (key, self._seen[key] - 1)

    def _report(
        self, node, code: str, message: str, suggestion: str = "", *, names: tuple = ()
    ) -> None:
        """A diagnostic at ``node``; ``names`` are the qualified names it is about
        (``migrate --verify`` does not report them again)."""
        self.reported_names.update(names)
        self._reported_nodes.add(id(node))
        if code not in self.enabled:
            return
        line, column = self._locator.locate(*self._occurrence[id(node)])
        self.diagnostics.append(Diagnostic(self.path, line, column, code, message, suggestion))


# TF 1 Dataset methods that TF 2 has as tf.compat.v1.data functions.
_ITERATOR_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})


def _is_shape(node: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.get_shape()``, ``<shape>.dims``, or a name ending in ``shape``."""
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Attribute) and node.func.attr.value == "get_shape"
    if isinstance(node, cst.Attribute):
        if node.attr.value == "dims":
            return _is_shape(node.value)
        return node.attr.value == "shape" or node.attr.value.endswith("_shape")
    return isinstance(node, cst.Name) and (node.value == "shape" or node.value.endswith("_shape"))


def _short(qualified: str) -> str:
    if qualified.startswith("tensorflow."):
        return "tf" + qualified[len("tensorflow") :]
    return qualified


def _root(node: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node


def _asname(alias: cst.ImportAlias, new_name: str) -> cst.AsName | None:
    bound = bound_name(alias)
    if bound == new_name:
        return None
    return alias.asname or cst.AsName(name=cst.Name(bound))


def _keeping_parentheses(old: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """``new`` in the parentheses ``old`` had (their comments and line breaks kept)."""
    return new.with_changes(lpar=old.lpar, rpar=old.rpar)


def _last_without_comma(names: list[cst.ImportAlias]) -> list[cst.ImportAlias]:
    return [*names[:-1], names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]


def _position_key(node) -> tuple | None:
    if isinstance(node, cst.Attribute):
        return attribute_key(node)
    if isinstance(node, cst.ImportFrom):
        module = get_full_name_for_node(node.module) if node.module else ""
        return ("from", "." * len(node.relative) + module)
    if isinstance(node, cst.Import):
        return ("import", ",".join(get_full_name_for_node(a.name) for a in node.names))
    return None


def migrate_module(
    module: cst.Module,
    *,
    locator: Locator,
    path: str,
    enabled: frozenset[str],
    part: Part | None = None,
) -> tuple[cst.Module, MigrateTransformer]:
    """Returns the new module and the transformer that made it (its ``diagnostics``
    and ``edits``); ``module`` itself is left as it was.

    Names resolve through the module's imports alone where that is exact
    (``migrator.names.import_scopes``), else through libcst's full scope analysis.
    """
    first_party = (part or Part()).first_party
    scopes = import_scopes(module, locator.tree, first_party=first_party)
    if scopes is not None:
        transformer = MigrateTransformer(locator, scopes, path=path, enabled=enabled, part=part)
        try:
            return module.visit(transformer), transformer
        except NeedsFullScopes:
            pass
    scopes = FullScopes(module, first_party=first_party)
    transformer = MigrateTransformer(locator, scopes, path=path, enabled=enabled, part=part)
    return module.visit(transformer), transformer


def _imported_names(node: cst.CSTNode) -> list[str]:
    """What an import statement binds, absolute (``module.name`` of a from-import)."""
    if isinstance(node, cst.ImportFrom) and isinstance(node.names, Sequence):
        return [
            f"{module}.{get_full_name_for_node(alias.name)}"
            for module in _imported_modules(node)
            for alias in node.names
        ]
    return _imported_modules(node)


def _imported_modules(node: cst.CSTNode) -> list[str]:
    """The absolute modules an import statement names (none for a relative import)."""
    if isinstance(node, cst.ImportFrom) and node.module and not node.relative:
        return [get_full_name_for_node(node.module)]
    if isinstance(node, cst.Import):
        return [get_full_name_for_node(alias.name) for alias in node.names]
    return []

"""libcst's scope analysis for one module, in two traversals instead of four.

``MetadataWrapper.resolve(ScopeProvider)`` runs ScopeProvider and the
ExpressionContextProvider it depends on as batched providers: each one's
``visit_Module`` walks the tree with its own visitor, and then the batch walks
the whole tree again for nothing. Calling the two providers' ``visit_Module``
directly gives the same scopes from their own two walks: the migrator's time
per Estimator file halves (``bench/migrator``). ``tests/test_migrator_scopes.py``
holds the result to the wrapper's, node for node.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.metadata import ExpressionContextProvider, Scope, ScopeProvider


def module_scopes(module: cst.Module) -> Mapping[cst.CSTNode, Scope]:
    """The scope ScopeProvider gives each node of ``module`` (nodes it has none for are absent)."""
    contexts = ExpressionContextProvider()
    contexts.visit_Module(module)
    scopes = ScopeProvider()
    scopes.metadata = {ExpressionContextProvider: contexts._computed}
    scopes.visit_Module(module)
    return scopes._computed

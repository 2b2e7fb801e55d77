"""migrator/ and runtime/ are layered (docs/architecture.md): each package
imports only from its own layer or those below it, so no arrow runs back up and
no cycle forms between packages."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# lowest first; packages in one tuple share a layer
LAYERS = {
    # the tables and codes; source text; names; rules; one source's migration
    # (migrate.py); the command and its I/O
    "migrator": ["data", "source", "names", "rules", "migrate", "command"],
    # where steps run; calling the user's code; TF 1 graph semantics; disk; the
    # Estimator's calls; the canned estimators; the public mirrors
    "runtime": [
        "distribute",
        "calls",
        "tf1",
        "saving",
        "engine",
        "canned",
        ("estimator", "contrib", "npu"),
    ],
}


def _layer_of(package: str, name: str) -> int | None:
    for index, layer in enumerate(LAYERS[package]):
        if name == layer or (isinstance(layer, tuple) and name in layer):
            return index
    return None


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if "." not in node.module:
                yield from (f"{node.module}.{alias.name}" for alias in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _modules(package: str):
    """``(path, its layer)`` of every module inside a layer of ``package``."""
    for path in (REPO / package).rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        if len(parts) >= 2 and parts[1] != "__init__":
            yield path, _layer_of(package, parts[1])


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_every_module_is_in_a_layer(package):
    for path, layer in _modules(package):
        assert layer is not None, path.relative_to(REPO)


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_no_import_runs_back_up(package):
    for path, own in _modules(package):
        for module in _imports(path):
            parts = module.split(".")
            if parts[0] != package or len(parts) < 2:
                continue
            layer = _layer_of(package, parts[1])
            if layer is not None:
                assert layer <= own, f"{path.relative_to(REPO)} imports {module}, a layer above it"

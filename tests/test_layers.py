"""migrator/ and runtime/ are layered (docs/architecture.md): each package
imports only from its own layer or those below it, so no arrow runs back up and
no cycle forms between packages. Both install as ``estimator_revival`` (runtime/
is the package, migrator/ its ``migrator`` subpackage); the runtime never imports
the migrator, and the migrator imports nothing of the runtime."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# lowest first; packages in one tuple share a layer
LAYERS = {
    # the tables and codes; source text; names; rules; one source's migration
    # (migrate.py); the command and its I/O, and `migrate prove` (which the
    # command starts, and which reads the command's reports)
    "migrator": ["data", "source", "names", "rules", "migrate", ("command", "prove")],
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


# Programs `migrate prove` starts with each side's interpreter (the runtime side's
# imports the runtime there, as the migrated program does); never imported here.
SIDE_PROCESS = REPO / "migrator" / "prove" / "side_process"


def _modules(package: str):
    """``(path, its layer)`` of every module inside a layer of ``package``."""
    for path in (REPO / package).rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        if path.is_relative_to(SIDE_PROCESS):
            continue
        if len(parts) >= 2 and parts[1] != "__init__":
            yield path, _layer_of(package, parts[1])


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_every_module_is_in_a_layer(package):
    for path, layer in _modules(package):
        assert layer is not None, path.relative_to(REPO)


def _folder_and_part(module: str) -> tuple[str | None, str | None]:
    """The repository folder an imported module lives in, and its first part there
    (``estimator_revival.migrator.rules.x``: migrator/, ``rules``;
    ``estimator_revival.engine.x``: runtime/, ``engine``)."""
    parts = module.split(".")
    if parts[0] != "estimator_revival" or len(parts) < 2:
        return None, None
    if parts[1] == "migrator":
        return "migrator", (parts[2] if len(parts) > 2 else None)
    return "runtime", parts[1]


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_no_import_runs_back_up(package):
    for path, own in _modules(package):
        for module in _imports(path):
            folder, part = _folder_and_part(module)
            if folder != package or part is None:
                continue
            layer = _layer_of(package, part)
            if layer is not None:
                assert layer <= own, f"{path.relative_to(REPO)} imports {module}, a layer above it"


# `migrate --verify` looks names up in a process of its own, where the runtime is
# imported as migrated code imports it.
NAME_LOOKUP = REPO / "migrator" / "command" / "resolve_names.py"


def test_the_two_parts_never_import_each_other():
    for package in LAYERS:
        for path, _ in _modules(package):
            for module in _imports(path):
                folder, _ = _folder_and_part(module)
                if path == NAME_LOOKUP and module == "estimator_revival.estimator":
                    continue
                assert folder in (None, package), f"{path.relative_to(REPO)} imports {module}"

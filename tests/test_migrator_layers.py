"""migrator/ is layered by stage (docs/architecture.md): each package imports
only from its own layer or those below it, so no arrow runs back up and no cycle
forms between packages."""

import ast
from pathlib import Path

MIGRATOR = Path(__file__).resolve().parents[1] / "migrator"
# lowest first: the tables and codes; source text; names; rules; one source's
# migration (migrate.py); the command and its I/O
LAYERS = ["data", "source", "names", "rules", "migrate", "command"]


def _layer(module: str) -> int | None:
    """The layer of a module of migrator/ (None: outside it, or the package's
    own ``__version__``)."""
    parts = module.split(".")
    if parts[0] != "migrator" or len(parts) < 2 or parts[1] not in LAYERS:
        return None
    return LAYERS.index(parts[1])


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "migrator":
                yield from (f"migrator.{alias.name}" for alias in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def test_every_module_is_in_a_layer():
    for path in MIGRATOR.rglob("*.py"):
        relative = path.relative_to(MIGRATOR.parent).with_suffix("")
        parts = relative.parts
        assert len(parts) == 1 or parts[1] in LAYERS or parts[1] == "__init__", relative


def test_no_import_runs_back_up():
    for path in MIGRATOR.rglob("*.py"):
        parts = path.relative_to(MIGRATOR.parent).with_suffix("").parts
        if len(parts) < 2 or parts[1] == "__init__":
            continue
        own = LAYERS.index(parts[1])
        for module in _imports(path):
            layer = _layer(module)
            if layer is not None:
                assert layer <= own, f"{'/'.join(parts)}.py imports {module}, a layer above it"

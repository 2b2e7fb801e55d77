"""Where the runtime refuses what the Estimator ran, its message cites
docs/runtime.md's inventory ("What the runtime refuses"), which names the module
that raises it, and suggests no edit: an edit to the program can change the
numbers it trains to (a one-shot iterator removed changes every later op seed)."""

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CITATION = "What the runtime refuses"
# Words that tell the user to change the program
SUGGESTS_AN_EDIT = re.compile(
    r"\b(instead|use|move|call|set|rename|rewrite|replace|drop|pass|return)\b", re.IGNORECASE
)


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            _text(part) if isinstance(part, ast.Constant) else "{}" for part in node.values
        )
    return ""


def _refusals() -> list[tuple[str, str]]:
    """``(module path, message)`` of every message of the runtime that cites the inventory."""
    found = []
    for path in sorted((REPO / "runtime").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            text = _text(node)
            if CITATION in text:
                found.append((path.relative_to(REPO).as_posix(), text))
    return found


def _inventory() -> str:
    text = (REPO / "docs" / "runtime.md").read_text()
    start = text.index(f"## {CITATION}")
    return text[start : text.index("\n## ", start + 1)]


def test_every_refusal_s_module_is_in_the_inventory():
    refusals = _refusals()
    assert len(refusals) >= 12
    inventory = _inventory()
    assert sorted({path for path, _ in refusals if f"`{path}`" not in inventory}) == []


def test_no_refusal_suggests_an_edit():
    assert [(p, m) for p, m in _refusals() if SUGGESTS_AN_EDIT.search(m)] == []

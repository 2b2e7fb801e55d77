"""One run is final for every name the rewrite tables know: each key of each table
(TF 1 renames and modules, the Estimator namespaces and the runtime's
replacements, contrib call renames, private twins), referred to in each import
form, migrates to code that a second run leaves as it is. A table whose output
another table matches is applied to its end (symbols.estimator_api)."""

from __future__ import annotations

import pytest

from estimator_revival.migrator.data import symbols
from estimator_revival.migrator.migrate import migrate_code

BATCH = 150


def table_keys() -> list[str]:
    keys = {
        *symbols.tf1_renames(),
        *symbols.tf1_modules(),
        *symbols.NAMESPACES,
        *symbols.RUNTIME_REPLACEMENTS,
        *symbols.CONTRIB_CALL_RENAMES,
        *symbols.PRIVATE_TWINS,
    }
    return sorted(key for key in keys if "." in key)


def references(key: str, index: int) -> tuple[list[str], list[str]]:
    """``(imports, uses)`` of ``key`` in each import form: an attribute chain from
    ``import tensorflow as tf``, ``from module import name``, ``import module as m``."""
    module, _, name = key.rpartition(".")
    imports = [f"from {module} import {name} as name_{index}", f"import {module} as module_{index}"]
    uses = [f"form_b_{index} = name_{index}", f"form_c_{index} = module_{index}.{name}"]
    if key.startswith("tensorflow."):
        uses.append(f"form_a_{index} = tf.{key.removeprefix('tensorflow.')}")
    return imports, uses


def programs() -> list[tuple[str, str]]:
    keys = table_keys()
    found = []
    for start in range(0, len(keys), BATCH):
        imports, uses = ["import tensorflow as tf"], []
        for index, key in enumerate(keys[start : start + BATCH], start):
            key_imports, key_uses = references(key, index)
            imports += key_imports
            uses += key_uses
        found.append((f"{keys[start]}..", "\n".join([*imports, "", *uses, ""])))
    return found


@pytest.mark.parametrize(("first_key", "code"), programs(), ids=[k for k, _ in programs()])
def test_a_second_run_changes_nothing(first_key, code):
    first = migrate_code(code).migrated
    second = migrate_code(first).migrated
    changed = [
        f"{before!r} -> {after!r}"
        for before, after in zip(first.splitlines(), second.splitlines(), strict=False)
        if before != after
    ]
    assert second == first, "\n".join(changed[:20])

"""Regenerates migrator/data/tf1_renames.json from the rename tables that ship
with TensorFlow's own upgrade tool (tf_upgrade_v2), so the migrator never has to
import TensorFlow.

    .venv/bin/python scripts/generate_rename_table.py

Sources (data only): ``tensorflow.tools.compatibility.renames_v2.renames`` and
``all_renames_v2.manual_symbol_renames``. Entries for ``tf.estimator`` are left
out: the migrator sends those to the runtime instead.

tf_upgrade_v2 also rewrote the arguments of some renamed functions (keyword
renames, reorders, transformers: ``tf.gfile.Copy(oldpath=...)`` ->
``tf.io.gfile.copy(src=...)``). The migrator only renames, so those symbols go to
``tf.compat.v1.<same name>`` instead, which keeps TF 1 semantics exactly; such
``tf.contrib`` symbols (no compat.v1 home) are left out of the table.
"""

import json
from pathlib import Path

from tensorflow.tools.compatibility import all_renames_v2, reorders_v2, tf_upgrade_v2

OUT = Path(__file__).resolve().parents[1] / "migrator" / "data" / "tf1_renames.json"


def _qualified(name: str) -> str:
    return "tensorflow" + name[len("tf") :] if name.startswith("tf.") else name


def _argument_changes() -> set[str]:
    spec = tf_upgrade_v2.TFAPIChangeSpec()
    return (
        set(spec.function_keyword_renames)
        | set(spec.function_transformers)
        | set(reorders_v2.reorders)
    )


def main() -> None:
    table = {}
    changes_arguments = _argument_changes()
    for source in (all_renames_v2.symbol_renames, all_renames_v2.manual_symbol_renames):
        for old, new in source.items():
            if not old.startswith("tf.") or old.startswith("tf.estimator."):
                continue
            if old in changes_arguments and not new.startswith("tf.compat.v1."):
                if old.startswith("tf.contrib."):
                    continue
                new = "tf.compat.v1." + old[len("tf.") :]
            table[_qualified(old)] = _qualified(new)
    OUT.write_text(json.dumps(dict(sorted(table.items())), indent=0) + "\n")
    print(f"{len(table)} renames written to {OUT}")


if __name__ == "__main__":
    main()

"""Regenerates migrator/data/tf1_api.json from the tables that ship with TensorFlow's
own upgrade tool (tf_upgrade_v2), checked against the TensorFlow installed here, so
the migrator itself never has to import TensorFlow.

    .venv/bin/python scripts/generate_tf1_tables.py

Sources (data only), from ``tensorflow.tools.compatibility``: the symbol renames
(``all_renames_v2.symbol_renames`` and ``manual_symbol_renames``), and everything
tf_upgrade_v2 knew changed a function's arguments or meaning (keyword renames,
argument reorders, function transformers, function and argument warnings). Each TF
1 name gets exactly one of three outcomes:

* ``symbols``: a TF 2 name with the same arguments and meaning. A pure rename goes
  where tf_upgrade_v2 sent it; a name whose arguments or meaning changed goes to
  ``tf.compat.v1.<same name>``, which keeps TF 1 semantics exactly (tf_upgrade_v2
  rewrote such calls; the migrator does not need to).
* ``modules``: TF 1 modules that TensorFlow 2 has only under ``tf.compat.v1``
  (``tf.flags``, ``tf.gfile``, ``tf.layers``...): the module and all its members.
* ``removed``: no faithful TF 2 name; the migrator reports it (MIG104), with
  tf_upgrade_v2's own explanation where it had one.

And ``namesakes``: the TF 1 functions TF 2 kept under their name but changed, with
both parameter lists. What such a name means depends on the TensorFlow the file
was written for (``tf.nn.dropout(x, 0.9)`` keeps 90% in TF 1 and drops 90% in TF
2); the migrator decides per file and per call (``migrator.rules.transform``).

Every target is checked to exist in the installed TensorFlow (with tf-keras, as
the runtime selects it). ``removed`` also lists the public names TensorFlow 2.15
had and the installed TensorFlow lacks (read from the project's legacy environment,
``.venv-legacy``), so that code written for TF 2.x is checked too. Entries for ``tf.estimator`` are left out (the migrator
sends those to the runtime), and ``tf.contrib`` names keep only pure renames (the
rest are the migrator's own contrib rules, or reported).
"""

import importlib
import inspect
import json
import os
import subprocess
import types
from pathlib import Path

os.environ["TF_USE_LEGACY_KERAS"] = "1"  # as `import estimator_revival` does

import tensorflow as tf  # noqa: E402
from tensorflow.tools.compatibility import all_renames_v2, tf_upgrade_v2  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "migrator" / "data" / "tf1_api.json"
COMPAT_V1 = "tf.compat.v1."


def exists(name: str) -> bool:
    """Whether ``tf.a.b.c`` resolves in the installed TensorFlow."""
    parts = name.split(".")
    assert parts[0] == "tf", name
    value = tf
    for index, part in enumerate(parts[1:], start=1):
        try:
            value = getattr(value, part)
        except AttributeError:
            try:
                value = importlib.import_module("tensorflow." + ".".join(parts[1 : index + 1]))
            except ImportError:
                return False
    return True


def changed_arguments(spec) -> dict[str, str]:
    """TF 1 names whose calls tf_upgrade_v2 rewrote, with what changed."""
    changed = {}
    for name in [*spec.function_keyword_renames, *spec.function_reorders]:
        changed.setdefault(name, "its arguments were renamed or reordered in TensorFlow 2")
    for name in spec.function_transformers:
        changed.setdefault(name, "its calls need rewriting for TensorFlow 2")
    for name, warnings in spec.function_arg_warnings.items():
        messages = "; ".join(message for _, message in warnings.values())
        changed.setdefault(name, messages.replace("<function name>", name))
    return {name: why for name, why in changed.items() if name.startswith("tf.")}


def changed_meaning(spec) -> dict[str, str]:
    """TF 1 names tf_upgrade_v2 warned about: their TF 2 namesake means something else."""
    return {
        name: message.replace("<function name>", name)
        for name, (_, message) in spec.function_warnings.items()
        if name.startswith("tf.")
    }


def parameters(name: str) -> list[list] | None:
    """``[[parameter, whether it has a default], ...]`` of ``tf.a.b``, in order."""
    value = tf
    for part in name.split(".")[1:]:
        value = getattr(value, part)
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return None
    found = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            return None  # calls cannot be checked against it
        found.append([parameter.name, parameter.default is not parameter.empty])
    return found


def namesake_table(spec, symbols: dict[str, str]) -> dict[str, dict]:
    """TF 1 functions TF 2 kept under the same name but changed: their parameter
    lists in both, the arguments tf_upgrade_v2 warned about, and whether only some
    calls changed (``"arguments"``: renamed or reordered parameters, e.g.
    ``tf.reduce_sum``'s ``keep_dims``) or every use (``"meaning"``: tf_upgrade_v2
    transformed or warned about the function itself, e.g. ``tf.nn.dropout``, whose
    second parameter was ``keep_prob`` and is now ``rate``)."""
    meaning = {*spec.function_transformers, *changed_meaning(spec)}
    namesakes = {}
    for name, target in symbols.items():
        if target != COMPAT_V1 + name[len("tf.") :] or not exists(name):
            continue
        warned = sorted(argument for argument, _ in spec.function_arg_warnings.get(name, {}))
        namesakes[name] = {
            "kind": "meaning" if name in meaning else "arguments",
            "v1": parameters(target),
            "v2": parameters(name),
            "warned": warned,
        }
    return namesakes


def symbol_table(spec) -> tuple[dict[str, str], dict[str, str]]:
    renames = {**all_renames_v2.symbol_renames, **all_renames_v2.manual_symbol_renames}
    arguments, meaning = changed_arguments(spec), changed_meaning(spec)
    symbols, removed = {}, {}
    for name in sorted({*renames, *arguments, *meaning}):
        if not name.startswith("tf.") or name.startswith("tf.estimator."):
            continue
        contrib = name.startswith("tf.contrib.")
        same_in_v1 = COMPAT_V1 + name[len("tf.") :]
        if contrib and name in arguments:
            continue  # the migrator's own contrib rules, or reported
        if not contrib and (name in arguments or name in meaning):
            if exists(same_in_v1):
                symbols[name] = same_in_v1
            else:
                removed[name] = arguments.get(name) or meaning[name]
        elif name in renames and exists(renames[name]):
            symbols[name] = renames[name]
        elif exists(same_in_v1):
            symbols[name] = same_in_v1
        elif not contrib:
            target = renames.get(name, "no TF 2 name")
            removed[name] = f"{name} does not exist in TensorFlow 2 (tf_upgrade_v2: {target})"
            if target.startswith(COMPAT_V1):  # code written against that name too
                removed[target] = f"{target} no longer exists in TensorFlow 2"
    return symbols, removed


def module_table() -> dict[str, str]:
    """Modules of TF 1's API that TF 2 has only under tf.compat.v1."""
    modules = {}
    stack = [("tf", tf.compat.v1)]
    while stack:
        path, module = stack.pop()
        for attribute in dir(module):
            value = getattr(module, attribute, None)
            if attribute.startswith("_") or not isinstance(value, types.ModuleType):
                continue
            name = f"{path}.{attribute}"
            if name in ("tf.compat", "tf.estimator") or name.count(".") > 3:
                continue
            if exists(name):
                stack.append((name, value))
            else:
                modules[name] = COMPAT_V1 + name[len("tf.") :]
    return dict(sorted(modules.items()))


# Lists the public names of the TensorFlow it runs under (tf.* and tf.compat.v1.*).
PUBLIC_NAMES = """
import json, sys, types
import tensorflow as tf
names, seen = set(), set()
stack = [("tf", tf), ("tf.compat.v1", tf.compat.v1)]
while stack:
    path, module = stack.pop()
    if id(module) in seen or path.count(".") > 6:
        continue
    seen.add(id(module))
    for attribute in dir(module):
        if attribute.startswith("_"):
            continue
        try:
            value = getattr(module, attribute)
        except Exception:
            continue
        name = f"{path}.{attribute}"
        names.add(name)
        if isinstance(value, types.ModuleType) and attribute not in ("compat",):
            stack.append((name, value))
json.dump(sorted(names), sys.stdout)
"""
LEGACY_PYTHON = Path(__file__).resolve().parents[1] / ".venv-legacy" / "bin" / "python"


def removed_after_tf_2_15() -> dict[str, str]:
    """Public names TensorFlow 2.15 had (so code written for TF 2.x used them) that
    the installed TensorFlow does not; the Estimator's own (the runtime's) left out."""
    listed = subprocess.run(
        [str(LEGACY_PYTHON), "-c", PUBLIC_NAMES],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
    )
    removed = {}
    for name in json.loads(listed.stdout):
        parts = name.split(".")
        if "estimator" in parts or "contrib" in parts or "python" in parts or "tsl" in parts:
            continue  # the runtime's, contrib (reported) and TensorFlow's private modules
        parent = name.rpartition(".")[0]
        if exists(parent) and not exists(name):
            removed[name] = f"{name} was removed from TensorFlow after 2.15"
    return removed


def slim_names() -> dict[str, list[str]]:
    """The functions and classes tf_slim (tf.contrib.slim, .layers, .framework,
    .metrics and .losses, maintained outside TensorFlow) has, per module."""
    import tf_slim

    found = {}
    for module_name, module in (
        ("tf_slim", tf_slim),
        ("tf_slim.metrics", tf_slim.metrics),
        ("tf_slim.losses", tf_slim.losses),
    ):
        found[module_name] = sorted(
            name
            for name in dir(module)
            if not name.startswith("_") and not isinstance(getattr(module, name), types.ModuleType)
        )
    return found


def qualified(name: str) -> str:
    return "tensorflow" + name[len("tf") :]


def main() -> None:
    spec = tf_upgrade_v2.TFAPIChangeSpec()
    symbols, removed = symbol_table(spec)
    modules = module_table()
    removed = {**removed_after_tf_2_15(), **removed}
    namesakes = namesake_table(spec, symbols)
    table = {
        "tensorflow_version": tf.__version__,
        "symbols": {qualified(k): qualified(v) for k, v in symbols.items()},
        "namesakes": {qualified(k): v for k, v in namesakes.items()},
        # TF 1 names that TF 2 also has: using them says nothing about a file's TF
        "tf2_has": sorted(qualified(k) for k in symbols if exists(k)),
        "modules": {qualified(k): qualified(v) for k, v in modules.items()},
        "removed": {qualified(k): v for k, v in removed.items()},
        "tf_slim": slim_names(),
        # what tf.contrib.tpu had from TF's own tpu module, as TF 2 has it
        "compat_v1_tpu": sorted(n for n in dir(tf.compat.v1.tpu) if not n.startswith("_")),
    }
    OUT.write_text(json.dumps(table, indent=0, sort_keys=False) + "\n")
    print(
        f"{len(symbols)} symbols ({len(namesakes)} kept by TF 2 under their name), "
        f"{len(modules)} modules, "
        f"{len(removed)} removed -> {OUT}"
    )


if __name__ == "__main__":
    main()

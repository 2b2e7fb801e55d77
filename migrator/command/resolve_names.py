"""Which dotted names exist in the installed packages: run by ``migrate --verify``
in a process of its own (the migrator itself never imports TensorFlow).

    python -m migrator.command.resolve_names < names.json > answers.json

Reads a JSON list of names, writes ``{"versions": {...}, "missing": [...]}``. A name
exists if importing its top-level package and looking its other parts up
works (attribute by attribute, as code reaches it); lookups stop (and the name
counts as existing) at the first object that is neither a module nor a class, whose
attributes only exist at run time
(``tf.compat.v1.flags.FLAGS.learning_rate``). Exits with 3 if TensorFlow itself
cannot be imported.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import inspect
import json
import sys


def exists(name: str, modules: dict) -> bool:
    """Looks ``name`` up as code reaches it: attribute by attribute from its top-level
    package, importing a submodule where no attribute leads to it."""
    parts = name.split(".")
    value = _module(parts[0], modules)
    if value is None:
        return False
    for index, part in enumerate(parts[1:], start=2):
        if not (inspect.ismodule(value) or inspect.isclass(value)):
            return True  # an object's attributes may only exist at run time
        try:
            value = getattr(value, part)
        except Exception:  # AttributeError; a lazily loaded module may fail to load
            value = _module(".".join(parts[:index]), modules)
            if value is None:
                return False
    return True


def _module(name: str, modules: dict):
    if name not in modules:
        try:
            modules[name] = importlib.import_module(name)
        except Exception:  # ImportError, or a module that fails while importing
            modules[name] = None
    return modules[name]


def main() -> None:
    try:
        # tf-keras selected and TensorFlow set up, as migrated code has them
        import estimator_revival.estimator  # noqa: F401
    except ImportError:
        try:
            import tensorflow  # noqa: F401
        except ImportError:
            sys.exit(3)
    names = json.load(sys.stdin)
    modules: dict = {}
    versions = {}
    for package in ("tensorflow", "tf-keras", "estimator-revival"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions[package] = importlib.metadata.version(package)
    missing = [name for name in names if not exists(name, modules)]
    json.dump({"versions": versions, "missing": missing}, sys.stdout)


if __name__ == "__main__":
    main()

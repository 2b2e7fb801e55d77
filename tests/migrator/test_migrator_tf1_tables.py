"""Every TF 1 name TensorFlow's own upgrade tool knows, through the migrator: it goes
to its TF 2 name (when its arguments and meaning are unchanged), to
``tf.compat.v1.<same name>`` (exact TF 1 semantics), or it is reported; and every
target exists in the TensorFlow installed here (2.21)."""

import json
import re
from importlib import resources

import pytest
from tensorflow.tools.compatibility import all_renames_v2, tf_upgrade_v2

from estimator_revival.migrator.command.resolve_names import exists
from estimator_revival.migrator.migrate import migrate_code

SPEC = tf_upgrade_v2.TFAPIChangeSpec()
TABLES = json.loads(
    resources.files("estimator_revival.migrator.data").joinpath("tf1_api.json").read_text()
)
RENAMES = {**all_renames_v2.symbol_renames, **all_renames_v2.manual_symbol_renames}
ARGUMENTS_CHANGED = {
    *SPEC.function_keyword_renames,
    *SPEC.function_reorders,
    *SPEC.function_transformers,
    *SPEC.function_arg_warnings,
}
MEANING_CHANGED = set(SPEC.function_warnings)
EVERY_NAME = sorted(
    name
    for name in {*RENAMES, *ARGUMENTS_CHANGED, *MEANING_CHANGED}
    if name.startswith("tf.") and not name.startswith("tf.estimator.")
)
# `tf.Session` makes a file TF 1 code (it does not exist in TF 2).
TF1_FILE = "import tensorflow as tf\n\nsession = tf.Session\nvalue = {name}\n"


def test_every_target_exists_in_the_installed_tensorflow():
    modules = {}
    targets = {*TABLES["symbols"].values(), *TABLES["modules"].values()}
    missing = sorted(target for target in targets if not exists(target, modules))
    assert not missing
    assert len(targets) > 1000


def test_there_are_many_names_to_check():
    assert len(EVERY_NAME) > 1100


@pytest.mark.parametrize("name", EVERY_NAME)
def test_every_tf1_name_is_renamed_kept_as_tf1_or_reported(name):
    migration = migrate_code(TF1_FILE.format(name=name))
    value = re.search(r"^value = (.*)$", migration.migrated, re.MULTILINE).group(1)
    same_in_v1 = "tf.compat.v1." + name[len("tf.") :]
    if value == name:  # left as it was: only if reported
        assert migration.diagnostics, f"{name} left unchanged without a diagnostic"
        return
    if re.search(
        rf"^from estimator_revival\S* import \S+ as {value.split('.')[0]}$",
        migration.migrated,
        re.M,
    ):
        return  # the runtime's replacement (tests/migrator/test_migrator_symbols.py: it exists)
    changed = name in ARGUMENTS_CHANGED or name in MEANING_CHANGED
    if changed and not name.startswith("tf.contrib."):
        assert value == same_in_v1, f"{name} changed in TF 2: {value} must keep TF 1's meaning"
    elif not name.startswith("tf.contrib."):
        # a rename, or the rename of the rename (tf.manip.space_to_batch_nd is
        # tf.space_to_batch_nd, which TF 2 calls tf.space_to_batch) in TF's own table;
        # one to a name TF 2 kept but changed spelled through tf.compat.v2, so that a
        # later run cannot take it for TF 1's (symbols.stable_spelling)
        renames = [RENAMES.get(name)]
        while renames[-1] in RENAMES and len(renames) < 4:
            renames.append(RENAMES[renames[-1]])
        as_tf2 = ["tf.compat.v2." + renamed[len("tf.") :] for renamed in renames if renamed]
        assert value in (*renames, *as_tf2, same_in_v1), value
    target = value if value.startswith("tf_slim.") else "tensorflow" + value[len("tf") :]
    assert exists(target, {}), value


def positional_changes():
    """TF 1 functions TF 2 kept under their name whose n-th positional parameter is
    another one now: ``(name, n)`` with ``n`` enough arguments for a valid TF 1 call
    that passes it."""
    for qualified, spec in sorted(TABLES["namesakes"].items()):
        if spec["v1"] is None or spec["v2"] is None:
            continue
        v1 = [name for name, _ in spec["v1"]]
        v2 = [name for name, _ in spec["v2"]]
        required = sum(not has_default for _, has_default in spec["v1"])
        for index in range(min(len(v1), len(v2))):
            if v1[index] != v2[index]:
                yield "tf" + qualified[len("tensorflow") :], max(index + 1, required)
                break


POSITIONAL_CHANGES = list(positional_changes())


def test_the_functions_whose_positional_parameters_changed_include_dropout():
    assert ("tf.nn.dropout", 2) in POSITIONAL_CHANGES
    assert len(POSITIONAL_CHANGES) > 20


@pytest.mark.parametrize(("name", "count"), POSITIONAL_CHANGES)
def test_no_tf1_call_with_changed_positional_arguments_keeps_its_tf2_name(name, count):
    arguments = ", ".join(f"a{i}" for i in range(count))
    migration = migrate_code(TF1_FILE.format(name=f"{name}({arguments})"))
    value = re.search(r"^value = (.*)$", migration.migrated, re.MULTILINE).group(1)
    assert value == f"tf.compat.v1.{name[len('tf.') :]}({arguments})", value

"""A program's own modules are its own (issue 50): a top-level `runtime`,
`migrator`, `npu_bridge`, `tensorflow_estimator` or `estimator` module of the
program is never taken for the bundled runtime (or its former name) nor for
TensorFlow's packages; and code migrated under the runtime's former name,
`runtime`, is converted where the program has no `runtime` of its own."""

import json

from helpers.cli_runs import run

OWN_MODULES = {
    "runtime/__init__.py": "from runtime.runner import Runner\n",
    "runtime/runner.py": (
        "import tensorflow as tf\n\n\n"
        "class Runner(object):\n"
        "    def estimator(self, model_fn):\n"
        "        return tf.estimator.Estimator(model_fn)\n"
    ),
    "migrator.py": "def upgrade(database):\n    return database\n",
    "npu_bridge/__init__.py": "",
    "npu_bridge/npu_init.py": "RANK_SIZE = 1\n",
    "tensorflow_estimator.py": "def make_estimator():\n    return None\n",
    "estimator.py": "class EstimatorSpec(object):\n    pass\n",
}
MAIN = """import tensorflow as tf

import estimator
import migrator
import tensorflow_estimator
from npu_bridge.npu_init import *
from runtime import Runner
from runtime.runner import Runner as Again


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features, 2)
    return tf.estimator.EstimatorSpec(mode, predictions=logits)


if __name__ == "__main__":
    migrator.upgrade(tensorflow_estimator.make_estimator())
    Runner().estimator(model_fn)
    print(estimator.EstimatorSpec, Again, RANK_SIZE)
"""


def _project(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_project_s_own_modules_keep_their_imports_and_get_no_diagnostic(tmp_path):
    project = _project(tmp_path / "project", {**OWN_MODULES, "main.py": MAIN})
    report = tmp_path / "report.json"
    result = run(project, "--report", report)
    assert result.exit_code == 1, result.output  # changed, no error
    files = {entry["path"]: entry for entry in json.loads(report.read_text())["files"]}
    assert [d for entry in files.values() for d in entry["diagnostics"]] == []
    main = (project / "main.py").read_text()
    own_imports = [line for line in MAIN.splitlines()[2:8] if line]
    assert [line for line in main.splitlines() if line in own_imports] == own_imports
    # TensorFlow's own names are still converted around them
    assert "from estimator_revival import estimator as tf_estimator" in main
    assert "tf_estimator.EstimatorSpec(" in main and "tf.compat.v1.layers.dense(" in main
    assert "tf_estimator.Estimator(model_fn)" in (project / "runtime" / "runner.py").read_text()
    assert run(project).exit_code == 0, "a second run has nothing to do"


FORMERLY_MIGRATED = """import tensorflow as tf
import runtime  # noqa: F401 -- selects tf-keras for tf.compat.v1.layers
from runtime import estimator as tf_estimator


def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features, 2)
    return tf_estimator.EstimatorSpec(mode, predictions=logits)
"""


def test_code_migrated_under_the_former_name_is_converted_once(tmp_path):
    project = _project(tmp_path / "project", {"model.py": FORMERLY_MIGRATED})
    assert run(project).exit_code == 1
    converted = (project / "model.py").read_text()
    assert converted == FORMERLY_MIGRATED.replace(
        "import runtime", "import estimator_revival"
    ).replace("from runtime import", "from estimator_revival import")
    assert run(project).exit_code == 0, "a third run changes nothing"


def test_the_former_name_of_a_project_s_own_runtime_is_left_alone(tmp_path):
    """The same file, in a project with a `runtime` package of its own: its
    imports of `runtime` are that package's (its `estimator` module, here), so
    they stay, and tf-keras, which that package does not select, is."""
    files = {"runtime/__init__.py": "", "runtime/estimator.py": "EstimatorSpec = dict\n"}
    project = _project(tmp_path / "project", {**files, "model.py": FORMERLY_MIGRATED})
    assert run(project).exit_code == 1
    lines = (project / "model.py").read_text().splitlines()
    assert lines[:4] == [
        "import tensorflow as tf",
        "import runtime  # noqa: F401 -- selects tf-keras for tf.compat.v1.layers",
        "from runtime import estimator as tf_estimator",
        "import estimator_revival  # noqa: F401 -- selects tf-keras for tf.compat.v1.layers",
    ]
    assert lines[4:] == FORMERLY_MIGRATED.splitlines()[3:]

"""Jupyter notebooks: only Python is migrated, IPython's own syntax is recognised as
IPython recognises it, added imports go to the first Python cell, and every
diagnostic names its cell and the line in it."""

import json

from helpers.cli_runs import LEGACY, MIGRATED, run


def code(*lines, **extra):
    return {"cell_type": "code", "metadata": {}, "outputs": [], "source": list(lines), **extra}


def write(path, *cells):
    path.write_text(
        json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
        + "\n"
    )


def sources(path):
    return ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]]


def test_notebooks_migrate_code_cells_and_keep_magics_outputs_metadata(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["tf.estimator.Estimator stays"]},
            {
                "cell_type": "code",
                "execution_count": 3,
                "metadata": {"tags": ["train"]},
                "outputs": [{"output_type": "stream", "name": "stdout", "text": ["42\n"]}],
                "source": [
                    "%matplotlib inline\n",
                    "!pip list\n",
                    *LEGACY.splitlines(keepends=True),
                ],
            },
        ],
        "metadata": {"kernelspec": {"name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    assert run(path).exit_code == 1
    migrated = json.loads(path.read_text())
    cell = migrated["cells"][1]
    assert "".join(cell["source"]) == "%matplotlib inline\n!pip list\n" + MIGRATED
    assert cell["outputs"] == notebook["cells"][1]["outputs"]
    assert cell["metadata"] == {"tags": ["train"]} and cell["execution_count"] == 3
    assert migrated["cells"][0] == notebook["cells"][0]
    assert migrated["metadata"] == notebook["metadata"]
    assert run(path).exit_code == 0


def test_notebook_cells_share_the_imports_of_the_cells_above(tmp_path):
    """A notebook is one namespace: `tf` imported in cell 1 is `tf` in cell 3, and a
    diagnostic names the cell and the line within it."""

    def code(*lines):
        return {"cell_type": "code", "metadata": {}, "outputs": [], "source": list(lines)}

    notebook = {
        "cells": [
            code("%load_ext autoreload\n", "MODEL_DIR = '/tmp/m'"),
            code("import tensorflow as tf\n", "from tensorflow import estimator\n"),
            {"cell_type": "markdown", "metadata": {}, "source": ["## Train"]},
            code(
                "input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(x, shuffle=False)\n",
                "c = tf.estimator.BoostedTreesClassifier([3])",
            ),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "explore.ipynb"
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    result = run(path)
    assert result.exit_code == 2, "changed, and an error-level diagnostic remains"
    cells = [cell["source"] for cell in json.loads(path.read_text())["cells"]]
    assert cells[0] == notebook["cells"][0]["source"]
    assert cells[1] == ["import tensorflow as tf\n", "from estimator_revival import estimator\n"]
    assert cells[3] == [
        "input_fn = estimator.inputs.numpy_input_fn(x, shuffle=False)\n",
        "c = tf.estimator.BoostedTreesClassifier([3])",
    ]
    assert f"{path}[cell 3]:2:5: MIG101" in result.output
    again = run(path)
    assert again.exit_code == 2 and "0 changed, 1 errors" in again.output


def test_cell_magics_leave_their_cell_untouched_and_the_rest_migrates(tmp_path):
    path = tmp_path / "pipeline.ipynb"
    bash = '%%bash\nfor f in *.py; do\n  echo "tf.estimator $f"\ndone\n'
    writefile = "%%writefile train.py\nimport tensorflow as tf\nspec = tf.estimator.EstimatorSpec\n"
    write(path, code(bash), code(LEGACY), code(writefile))
    result = run(path)
    assert result.exit_code == 1, result.output
    assert sources(path) == [bash, MIGRATED, writefile]


def test_python_cell_magics_and_line_magics_keep_their_python_migrated(tmp_path):
    path = tmp_path / "timing.ipynb"
    write(
        path,
        code("import tensorflow as tf\n"),
        code("%%time\n", "est = tf.estimator.Estimator(model_fn)\n"),
        code(
            "%time est.train(tf.estimator.inputs.numpy_input_fn(x))\n",
            "%timeit -n 3 tf.layers.dense(x, 2)  # how fast?\n",
        ),
    )
    assert run(path).exit_code == 1
    assert sources(path) == [
        "import tensorflow as tf\nfrom estimator_revival import estimator as tf_estimator\n",
        "%%time\nest = tf_estimator.Estimator(model_fn)\n",
        "%time est.train(tf_estimator.inputs.numpy_input_fn(x))\n"
        "%timeit -n 3 tf.compat.v1.layers.dense(x, 2)  # how fast?\n",
    ]


def test_shell_help_and_assigned_magics_are_kept_and_comments_ending_in_a_question_are_code(
    tmp_path,
):
    cell = (
        "import tensorflow as tf\n"
        "!pip install tensorflow-estimator \\\n"
        "    --quiet\n"
        "files = !ls *.tfrecord\n"
        "timing = %timeit -o f()\n"
        "tf.estimator.RunConfig?\n"
        "??tf.estimator.Estimator\n"
        "for f in files:\n"
        "    !echo {f}\n"
        "spec = tf.estimator.EstimatorSpec  # which spec?\n"
        "doc = '''what is this?\n"
        "%not a magic inside a string\n"
        "'''\n"
    )
    path = tmp_path / "shell.ipynb"
    write(path, code(cell))
    assert run(path).exit_code == 1
    assert sources(path) == [
        cell.replace(
            "import tensorflow as tf\n",
            "import tensorflow as tf\nfrom estimator_revival import estimator as tf_estimator\n",
            1,
        ).replace("spec = tf.estimator.EstimatorSpec", "spec = tf_estimator.EstimatorSpec")
    ]


def test_added_imports_go_to_the_first_python_cell(tmp_path):
    path = tmp_path / "late_import.ipynb"
    write(
        path,
        code("%matplotlib inline\n", "MODEL_DIR = '/tmp/model'\n"),
        code("import tensorflow as tf\n"),
        code("est = tf.estimator.Estimator(model_fn, MODEL_DIR)\n"),
    )
    assert run(path).exit_code == 1
    assert sources(path) == [
        "from estimator_revival import estimator as tf_estimator\n\n%matplotlib inline\n"
        "MODEL_DIR = '/tmp/model'\n",
        "import tensorflow as tf\n",
        "est = tf_estimator.Estimator(model_fn, MODEL_DIR)\n",
    ]


def test_a_cell_that_does_not_parse_is_reported_at_its_line_and_the_others_migrate(tmp_path):
    path = tmp_path / "draft.ipynb"
    broken = "x = 1\ndef f(:\n    pass\n"
    write(
        path,
        code("import tensorflow as tf\n"),
        code(broken),
        code("c = tf.estimator.RunConfig()\n"),
    )
    result = run(path)
    assert result.exit_code == 2
    assert (
        f"{path}[cell 1]:2:" in result.output and "MIG001 cell could not be parsed" in result.output
    )
    assert sources(path)[1] == broken
    assert sources(path)[2] == "c = tf_estimator.RunConfig()\n"


def test_diagnostics_in_a_python_cell_magic_count_its_magic_line(tmp_path):
    path = tmp_path / "canned.ipynb"
    write(
        path,
        code("import tensorflow as tf\n"),
        code("%%time\n", "c = tf.estimator.BoostedTreesClassifier([3])\n"),
    )
    result = run(path)
    assert f"{path}[cell 1]:2:5: MIG101" in result.output

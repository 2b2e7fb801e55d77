"""The XLA-compile check (runtime/engine/xla_check.py) over every equivalence fixture
program: the device part of each train, eval and predict step compiles with
``jit_compile=True`` on the CPU, with a real element's static shapes, the way a
TPU compiles it; a TPUEstimator's host calls stay outside the compiled step.

Some programs contain ops no TPU compiles, and the check must say so, naming
the op (TPUEstimator ran them on a TPU no better): a sparse Adagrad update of an
embedding (TPU code densifies it, e.g. BERT's use_one_hot_embeddings), v1
summaries inside model_fn (TPU code writes them in a host_call; here also
optimize_loss's own and an Ascend program's, which npu_bridge ran on the host), string
constants in the predict graph (class names for a Classify export), a
streaming_concat metric, whose variable grows (TPU code ran it in metric_fn), and
contrib's LSTMBlockCell, which has no XLA kernel.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "programs" / "xla_compile_check.py"
# Not compiled here: a model_fn that builds a string lookup table in its step
# (TPU code looked ids up in input_fn, on the host). The check's jit_compile
# trace cannot build it (its initializer's keys end up out of scope: an open
# gap of this check, not of training, which tf1_bilstm_crf's equivalence runs).
NOT_CHECKED = {"tf1_bilstm_crf"}
# Nor a program whose input a hook feeds (TPU input pipelines took no feeds).
NOT_CHECKED |= {"tf1_feed_fn_hook_input"}
FIXTURES = sorted(
    path.name
    for path in (ROOT / "fixtures" / "equivalence").iterdir()
    if (path / "migrated.py").exists() and path.name not in NOT_CHECKED
)
NOT_TPU_PROGRAMS = {
    ("partitioned_embedding_keras_metric", "train"): "rejected: ResourceSparseApplyAdagrad",
    ("v1_summaries", "train"): "rejected: ScalarSummary",
    ("v1_summaries", "eval"): "rejected: ScalarSummary",
    ("custom_v1_head", "train"): "rejected: ScalarSummary",
    ("custom_v1_head", "eval"): "rejected: ScalarSummary",
    ("serving_signatures", "infer"): "rejected: ExpandDims",
    ("npu_loss_scaled_adam", "train"): "rejected: ScalarSummary",
    ("tf1_contrib_optimize_loss_metrics", "train"): "rejected: ScalarSummary",
    ("unet_reset_counters", "train"): "rejected: ScalarSummary",
    ("tf1_replicate_model_fn_towers", "train"): "rejected: ScalarSummary",
    # string features from input_fn (TPU input pipelines sent the device numbers)
    ("tf1_input_after_get_next", "train"): "rejected: _Arg",
    ("tf1_input_after_get_next", "eval"): "rejected: _Arg",
    ("tf1_input_after_get_next", "infer"): "rejected: _Arg",
    # streaming_concat grows its array variable (TPU code ran it in metric_fn, on the host)
    ("tf1_contrib_optimize_loss_metrics", "eval"): "rejected: a variable whose shape changes",
    # contrib's block LSTM kernels have no XLA kernel (TPU code used other cells)
    **{
        ("tf1_melody_rnn_cells", mode): "rejected: LSTMBlockCell"
        for mode in ("train", "eval", "infer")
    },
}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("xla") / "verdicts.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    command = [sys.executable, str(PROGRAM), "--out", str(out), *FIXTURES]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(out.read_text())


def test_every_fixture_program_is_checked():
    assert len(FIXTURES) >= 14
    assert {fixture for fixture, _ in NOT_TPU_PROGRAMS} <= set(FIXTURES)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_steps_compile_with_xla(verdicts, fixture):
    expected = {
        mode: NOT_TPU_PROGRAMS.get((fixture, mode), "compiled")
        for mode in ("train", "eval", "infer")
    }
    assert verdicts[fixture] == expected

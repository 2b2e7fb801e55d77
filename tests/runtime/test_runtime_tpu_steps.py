"""TPUEstimator checks ``steps`` as for a TPU whenever ``use_tpu`` is on.

TPUEstimator 2.15 (``_convert_train_steps_to_hooks``/``_convert_eval_steps_to_hooks``)
checked steps with ``check_positive_integer`` unless the mode ran on the CPU, and a
mode ran on the CPU only without use_tpu, or for evaluation without eval_on_tpu. On a
machine without TPU the legacy side stops earlier ("Cannot find any TPU cores"), so
these checks are asserted here rather than in the validation table. The runtime runs
use_tpu on one device when there is no TPU; the program's steps still must be valid
for the TPU it was written for. (Without use_tpu the Estimator's own conversion
applies: the validation table's "TPUEstimator on CPU fractional steps" row.)
"""

import pytest
import tensorflow as tf

from estimator_revival.estimator import tpu


def model_fn(features, labels, mode, params):
    step = tf.compat.v1.train.get_or_create_global_step()
    weight = tf.compat.v1.get_variable("w", [1], initializer=tf.compat.v1.zeros_initializer())
    loss = tf.reduce_sum(weight) + 1.0
    return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=tf.compat.v1.assign_add(step, 1))


def input_fn(params):
    return tf.data.Dataset.from_tensors(({"x": tf.ones([1])}, tf.ones([1]))).repeat()


def estimator(tmp_path, **kwargs):
    return tpu.TPUEstimator(
        model_fn,
        model_dir=str(tmp_path),
        config=tpu.RunConfig(),
        train_batch_size=1,
        eval_batch_size=1,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda e: e.train(input_fn, steps=12.3), TypeError, "Train steps must be int"),
        (lambda e: e.train(input_fn, max_steps=4.0), TypeError, "Train max_steps must be int"),
        # Estimator.train's own check comes first (validation_table.py's rows)
        (lambda e: e.train(input_fn, steps=0), ValueError, r"Must specify steps > 0, given: 0"),
        (lambda e: e.train(input_fn), ValueError, "one of `steps` or `max_steps` must be set"),
        (lambda e: e.evaluate(input_fn, steps=1.5), TypeError, "Eval steps must be int"),
        (lambda e: e.evaluate(input_fn), ValueError, "Evaluate `steps` must be set on TPU"),
    ],
)
def test_use_tpu_checks_steps_as_on_a_tpu(tmp_path, call, error, message):
    with pytest.raises(error, match=message):
        call(estimator(tmp_path, use_tpu=True))


def test_eval_on_tpu_false_evaluates_with_the_estimators_steps(tmp_path):
    """Evaluation without eval_on_tpu ran on the CPU, where ``steps=None`` reads the
    input to its end (three batches here)."""
    model = estimator(tmp_path, use_tpu=True, eval_on_tpu=False).train(input_fn, steps=1)
    three_batches = lambda params: input_fn(params).take(3)  # noqa: E731
    assert model.evaluate(three_batches, steps=None)["global_step"] == 1

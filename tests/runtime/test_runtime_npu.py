"""The runtime's npu namespace (npu_bridge's NPUEstimator, NPUEstimatorSpec,
NPURunConfig) on CPU: an NPUEstimatorSpec program computes what the same
program with a plain EstimatorSpec computes, and its host_call runs every step."""

import logging
import random
import sys
import types

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator, npu
from helpers.runtime_models import event_scalars, finite_input_fn, train_input_fn

STEPS = 12


def _model_fn(spec_class, host_call_dir=None):
    def model_fn(features, labels, mode, params):
        prediction = tf.compat.v1.layers.dense(features["x"], 1, name="linear")
        loss = tf.reduce_mean(tf.square(prediction - labels))
        if mode == estimator.ModeKeys.EVAL:
            mae = tf.compat.v1.metrics.mean_absolute_error(labels, prediction)
            return spec_class(mode, loss=loss, eval_metric_ops={"mae": mae})
        global_step = tf.compat.v1.train.get_global_step()
        optimizer = tf.compat.v1.train.MomentumOptimizer(params["learning_rate"], 0.9)
        train_op = optimizer.minimize(loss, global_step=global_step)
        if host_call_dir is None:
            return spec_class(mode, loss=loss, train_op=train_op)

        def host_call_fn(step, host_loss):
            with tf.summary.create_file_writer(host_call_dir).as_default():
                tf.summary.scalar("host_loss", host_loss[0], step=step[0])
                return tf.compat.v1.summary.all_v2_summary_ops()

        tensors = [tf.reshape(global_step, [1]), tf.reshape(loss, [1])]
        return spec_class(mode, loss=loss, train_op=train_op, host_call=(host_call_fn, tensors))

    return model_fn


class LossRecorder(tf.compat.v1.train.SessionRunHook):
    def __init__(self):
        self.losses = []

    def begin(self):
        self._loss = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[-1]

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


def _train(est):
    random.seed(0)  # Keras v1 initializers draw unseeded seeds from `random`
    recorder = LossRecorder()
    est.train(train_input_fn, steps=STEPS, hooks=[recorder])
    metrics = est.evaluate(finite_input_fn)
    variables = {name: est.get_variable_value(name) for name in est.get_variable_names()}
    return recorder.losses, metrics, variables


def _host_loss_events(directory) -> list[tuple[int, float]]:
    values = []
    for path in sorted(directory.glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                if value.tag == "host_loss":
                    values.append((event.step, float(tf.make_ndarray(value.tensor))))
    return values


def test_npu_spec_program_equals_estimator_spec_program_and_runs_host_call(tmp_path):
    params = {"learning_rate": 0.02}
    host_dir = tmp_path / "host_call"
    npu_est = npu.NPUEstimator(
        _model_fn(npu.NPUEstimatorSpec, str(host_dir)),
        model_dir=str(tmp_path / "npu"),
        config=npu.NPURunConfig(tf_random_seed=7, iterations_per_loop=4),
        params=params,
    )
    plain_est = estimator.Estimator(
        _model_fn(estimator.EstimatorSpec),
        model_dir=str(tmp_path / "plain"),
        config=estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=100),
        params=params,
    )
    npu_losses, npu_metrics, npu_vars = _train(npu_est)
    plain_losses, plain_metrics, plain_vars = _train(plain_est)

    assert len(npu_losses) == STEPS
    assert npu_losses == plain_losses  # bit for bit
    assert npu_metrics == plain_metrics
    assert sorted(npu_vars) == sorted(plain_vars)
    for name, value in plain_vars.items():
        np.testing.assert_array_equal(npu_vars[name], value, err_msg=name)

    # host_call ran once per training step, on that step's loss (one device's
    # tensors, not concatenated). Its global-step read comes after minimize() in
    # program order but depends on nothing, so, as in a TF1 Session, it sees the
    # step before the update: 0..STEPS-1 (runtime/tf1/step_reads.py).
    recorded = _host_loss_events(host_dir)
    assert [loss for _, loss in recorded] == npu_losses
    assert [step for step, _ in recorded] == list(range(STEPS))


def test_npu_run_config_defaults_and_ascend_only_options(caplog):
    config = npu.NPURunConfig()
    assert config.iterations_per_loop == 1
    assert config.save_summary_steps == 0
    assert config.save_checkpoints_steps == 100
    assert config.save_checkpoints_secs is None
    assert npu.NPURunConfig(save_checkpoints_secs=30).save_checkpoints_steps is None

    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        config = npu.NPURunConfig(precision_mode="allow_mix_precision", hcom_parallel=True)
    assert config.ascend_options == {"precision_mode": "allow_mix_precision", "hcom_parallel": True}
    assert "Ascend-only options hcom_parallel, precision_mode have no effect" in caplog.text


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"save_sumary_steps": 10}, TypeError, "unexpected keyword arguments: save_sumary_steps"),
        ({"iterations_per_loop": 0}, ValueError, "iterations_per_loop=...\\) must be an int >= 1"),
        ({"iterations_per_loop": "10s"}, ValueError, "must be an int >= 1; got '10s'"),
    ],
)
def test_npu_run_config_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        npu.NPURunConfig(**kwargs)


def test_npu_estimator_spec_validates_host_call_like_tpu():
    loss = tf.constant(1.0)
    mode = estimator.ModeKeys.EVAL
    with pytest.raises(ValueError, match="host_call should be tuple or list"):
        npu.NPUEstimatorSpec(mode, loss=loss, host_call=lambda: None)
    with pytest.raises(TypeError, match=r"host_call\[0\] should be callable"):
        npu.NPUEstimatorSpec(mode, loss=loss, host_call=(1, []))
    with pytest.raises(RuntimeError, match="In NPUEstimatorSpec.host_call, length of tensors 2"):
        npu.NPUEstimatorSpec(mode, loss=loss, host_call=(lambda a: a, [loss, loss]))
    spec = npu.NPUEstimatorSpec(mode, loss=loss, host_call=(lambda a: a, [loss]))
    assert isinstance(spec, estimator.EstimatorSpec)
    assert spec.host_call[1] == [loss]


def test_installed_npu_device_that_cannot_open_is_a_clear_error(tmp_path, monkeypatch):
    def open_device():
        raise ImportError("npu_device was built for TensorFlow 2.6.5")

    monkeypatch.setitem(sys.modules, "npu_device", types.SimpleNamespace(open=open_device))
    with pytest.raises(RuntimeError, match="supports TensorFlow 2.6 only.*2.6.5"):
        npu.NPUEstimator(_model_fn(npu.NPUEstimatorSpec), model_dir=str(tmp_path), params={})


def test_npu_estimator_without_npu_device_warns_and_keeps_npu_summary_default(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        est = npu.NPUEstimator(
            _model_fn(npu.NPUEstimatorSpec),
            model_dir=str(tmp_path),
            config=npu.NPURunConfig(tf_random_seed=1),
            params={"learning_rate": 0.01},
        )
    assert "npu_device package is not installed; running on CPU/GPU" in caplog.text
    est.train(train_input_fn, steps=3)
    assert est.get_variable_value("global_step") == 3
    # NPURunConfig's save_summary_steps=0: no loss summaries.
    assert "loss" not in event_scalars(tmp_path)

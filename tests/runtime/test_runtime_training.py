"""Estimator.train on the runtime: checkpoints, summaries, stop rules, hooks,
in-graph loops (docs/estimator_contract.md §1.4, §1.12)."""

import logging
import os

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator
from estimator_revival.engine.steps import TrainPrograms
from estimator_revival.engine.training import TrainController
from helpers.runtime_models import event_scalars, finite_input_fn, make, train_input_fn


def checkpoint_steps(model_dir):
    return sorted(
        int(name.split("-")[1].split(".")[0])
        for name in os.listdir(model_dir)
        if name.startswith("model.ckpt-") and name.endswith(".index")
    )


def test_checkpoints_at_start_every_k_steps_and_end_with_pruning(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=10, keep_checkpoint_max=3)
    est.train(train_input_fn, steps=35)
    assert checkpoint_steps(tmp_path) == [20, 30, 35]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert os.path.basename(state.model_checkpoint_path) == "model.ckpt-35"
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-20",
        "model.ckpt-30",
        "model.ckpt-35",
    ]


def test_first_checkpoint_is_written_at_the_initial_step(tmp_path):
    make(tmp_path, save_checkpoints_steps=100, keep_checkpoint_max=0).train(train_input_fn, steps=5)
    assert checkpoint_steps(tmp_path) == [0, 5]


def test_default_cadence_is_600_seconds(tmp_path):
    est = make(tmp_path)
    assert est.config.save_checkpoints_secs == 600
    est.train(train_input_fn, steps=12)
    assert checkpoint_steps(tmp_path) == [0, 12]


def test_steps_are_incremental_and_max_steps_is_absolute(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=50)
    est.train(train_input_fn, steps=7)
    est.train(train_input_fn, steps=7)
    assert est.get_variable_value("global_step") == 14
    est.train(train_input_fn, max_steps=10)
    assert est.get_variable_value("global_step") == 14, "max_steps already reached: no-op"
    est.train(train_input_fn, max_steps=20)
    assert est.get_variable_value("global_step") == 20


def test_training_without_a_stop_rule_runs_to_the_end_of_input(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=100)
    est.train(finite_input_fn)
    assert est.get_variable_value("global_step") == 8  # 64 examples / batch 8


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"steps": 1, "max_steps": 2}, "Can not provide both steps and max_steps."),
        ({"steps": 0}, "Must specify steps > 0"),
        ({"max_steps": -1}, "Must specify max_steps > 0"),
    ],
)
def test_bad_stop_arguments(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make(tmp_path).train(train_input_fn, **kwargs)


def test_summaries_loss_user_ops_and_steps_per_second(tmp_path):
    est = make(tmp_path, save_summary_steps=5, log_step_count_steps=10, save_checkpoints_steps=100)
    est.train(train_input_fn, steps=23)
    scalars = event_scalars(tmp_path)
    assert scalars["loss"] == [1, 6, 11, 16, 21]
    assert scalars["prediction_mean"] == [1, 6, 11, 16, 21]
    assert scalars["global_step/sec"] and all(s % 10 == 0 for s in scalars["global_step/sec"])


def test_step_settings_may_be_floats_as_the_estimator_took_them(tmp_path):
    """Real programs turned hooks off with 1e9 (UNet_Industrial); the Estimator's
    timers fire once a step reaches the last one plus the setting, so 4.5 steps
    are every 5, and 7.0 every 7 (docs/estimator_contract.md §1.3)."""
    est = make(
        tmp_path,
        save_summary_steps=4.5,
        log_step_count_steps=1e9,
        save_checkpoints_steps=7.0,
        keep_checkpoint_max=0,
    )
    assert est.config.log_step_count_steps == 1e9  # the value given, as RunConfig kept it
    est.train(train_input_fn, steps=23)
    scalars = event_scalars(tmp_path)
    assert scalars["loss"] == [1, 6, 11, 16, 21]
    assert "global_step/sec" not in scalars  # its first trigger only starts the clock
    assert checkpoint_steps(tmp_path) == [0, 7, 14, 21, 23]


def _loss_only_model_fn(features, labels, mode):
    """A model_fn that writes no summaries of its own."""
    prediction = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.reduce_mean(tf.square(prediction - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_summary_steps_do_not_end_loop_calls_of_a_model_fn_without_summaries(tmp_path, monkeypatch):
    """The loss summaries and step rates a call's steps were due are written after
    it, at the steps the Estimator's hooks wrote them; the loop runs on."""
    counts = []
    original = TrainController._run_loop_calls

    def counting(self, count, record):
        counts.append(count)
        return original(self, count, record)

    monkeypatch.setattr(TrainController, "_run_loop_calls", counting)
    config = estimator.RunConfig(
        save_summary_steps=5, log_step_count_steps=10, save_checkpoints_steps=100
    )
    est = estimator.Estimator(_loss_only_model_fn, model_dir=str(tmp_path), config=config)
    est.train(train_input_fn, steps=23)
    assert counts == [23]
    scalars = event_scalars(tmp_path)
    assert scalars["loss"] == [1, 6, 11, 16, 21]
    assert scalars["global_step/sec"] == [10, 20]


def test_nan_loss_stops_training_with_the_legacy_error(tmp_path):
    est = make(tmp_path, params={"loss_scale": float("nan")}, save_checkpoints_steps=100)
    with pytest.raises(estimator.NanLossDuringTrainingError):
        est.train(train_input_fn, steps=50)


def test_in_graph_loops_run_many_steps_per_call(tmp_path, monkeypatch):
    calls = []
    original = TrainPrograms._loop

    def counting(self, iterator, num_steps, record_first):
        calls.append(1)
        return original(self, iterator, num_steps, record_first)

    monkeypatch.setattr(TrainPrograms, "_loop", counting)
    make(tmp_path).train(train_input_fn, steps=250)
    # Traced once; then the controller runs 100-step stretches between summaries.
    assert len(calls) == 1
    assert make(tmp_path).get_variable_value("global_step") == 250


def _nan_from_step_5_model_fn(features, labels, mode):
    """Its loss is NaN at the steps that start from global step 5 on."""
    prediction = tf.compat.v1.layers.dense(features["x"], 1)
    global_step = tf.compat.v1.train.get_global_step()
    loss = tf.reduce_mean(tf.square(prediction - labels))
    loss *= tf.where(global_step >= 5, float("nan"), 1.0)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
    train_op = optimizer.minimize(loss, global_step=global_step)
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_a_nan_in_the_middle_of_a_loop_call_ends_training_at_its_step(tmp_path, caplog):
    """What TF 2.15's Estimator did with this model_fn (measured): it logged the
    steps before the NaN, wrote the NaN step's loss summary and no checkpoint; the
    next call trained on from the last checkpoint."""
    config = estimator.RunConfig(
        log_step_count_steps=1, save_checkpoints_steps=100, save_summary_steps=1
    )
    est = estimator.Estimator(_nan_from_step_5_model_fn, model_dir=str(tmp_path), config=config)
    with (
        caplog.at_level(logging.INFO, logger="tensorflow"),
        pytest.raises(estimator.NanLossDuringTrainingError),
    ):
        est.train(train_input_fn, steps=50)
    logged = [
        int(record.getMessage().rsplit("step = ", 1)[1])
        for record in caplog.records
        if record.getMessage().startswith("loss = ")
    ]
    assert logged == [0, 1, 2, 3, 4]
    assert checkpoint_steps(tmp_path) == [0]
    est.train(train_input_fn, steps=3)
    assert est.get_variable_value("global_step") == 3
    assert checkpoint_steps(tmp_path) == [0, 3]
    assert event_scalars(tmp_path)["loss"] == [1, 2, 3, 4, 5, 6, 1, 2, 3]


class StopAfter(tf.compat.v1.train.SessionRunHook):
    def __init__(self, steps):
        self.steps, self.seen = steps, []

    def begin(self):
        self.loss = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[-1]

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(
            {
                "loss": self.loss,
                "by_name": self.loss.name,
                "step": tf.compat.v1.train.get_global_step(),
            }
        )

    def after_run(self, run_context, run_values):
        self.seen.append(run_values.results)
        if len(self.seen) >= self.steps:
            run_context.request_stop()


def test_hooks_get_fetches_by_object_and_name_and_can_stop(tmp_path):
    hook = StopAfter(4)
    make(tmp_path).train(train_input_fn, steps=100, hooks=[hook])
    assert len(hook.seen) == 4
    # Variables are read before the step, as a TF1 session did (legacy: 0, 1, 2, 3).
    assert [r["step"] for r in hook.seen] == [0, 1, 2, 3]
    for result in hook.seen:
        assert result["loss"] == result["by_name"]
        assert np.isfinite(result["loss"])


class SessionHook(tf.compat.v1.train.SessionRunHook):
    def after_create_session(self, session, coord):
        session.run("anything")


class TensorThroughSessionHook(tf.compat.v1.train.SessionRunHook):
    """Runs a tensor of the traced step computed from the batch with its session."""

    def begin(self):
        self._loss = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOSSES)[0]

    def after_run(self, run_context, run_values):
        run_context.session.run(self._loss)


def test_a_hook_s_session_names_the_hook_for_what_only_a_step_computes(tmp_path):
    with pytest.raises(
        RuntimeError,
        match=r"SessionHook\.after_create_session runs 'anything' .* not in the model's graph",
    ):
        make(tmp_path / "a").train(train_input_fn, steps=3, hooks=[SessionHook()])
    with pytest.raises(
        RuntimeError,
        match=r"TensorThroughSessionHook\.after_run runs 'mul:0' .* the step's input "
        r"\(features, labels: 'IteratorGetNext'\)",
    ):
        make(tmp_path / "b").train(train_input_fn, steps=3, hooks=[TensorThroughSessionHook()])


def test_stop_at_step_hook_is_honoured(tmp_path):
    est = make(tmp_path)
    est.train(train_input_fn, hooks=[estimator.StopAtStepHook(last_step=9)])
    assert est.get_variable_value("global_step") == 9


class Listener(estimator.CheckpointSaverListener):
    def __init__(self):
        self.events = []

    def begin(self):
        self.events.append("begin")

    def before_save(self, session, global_step_value):
        self.events.append(("before", global_step_value))

    def after_save(self, session, global_step_value):
        self.events.append(("after", global_step_value))
        return global_step_value >= 10

    def end(self, session, global_step_value):
        self.events.append(("end", global_step_value))


def test_saving_listeners_wrap_every_save_and_can_stop_training(tmp_path):
    listener = Listener()
    est = make(tmp_path, save_checkpoints_steps=5)
    est.train(train_input_fn, steps=100, saving_listeners=[listener])
    assert est.get_variable_value("global_step") == 10
    assert listener.events == [
        "begin",
        ("before", 0),
        ("after", 0),
        ("before", 5),
        ("after", 5),
        ("before", 10),
        ("after", 10),
        ("end", 10),
    ]


def test_saving_listeners_need_a_checkpoint_cadence(tmp_path):
    est = make(tmp_path, save_checkpoints_steps=None, save_checkpoints_secs=None)
    with pytest.raises(ValueError, match="There should be a CheckpointSaverHook"):
        est.train(train_input_fn, steps=2, saving_listeners=[Listener()])


def test_metric_variables_built_in_train_mode_stay_out_of_checkpoints(tmp_path):
    """TF1's Saver saved global variables only; a model_fn that builds its v1
    metrics before branching on mode creates their local variables in TRAIN too."""

    def model_fn(features, labels, mode):
        prediction = tf.compat.v1.layers.dense(features["x"], 1, name="linear")
        loss = tf.reduce_mean(tf.square(prediction - labels))
        metrics = {"mae": tf.compat.v1.metrics.mean_absolute_error(labels, prediction)}
        if mode == estimator.ModeKeys.EVAL:
            return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(train_input_fn, steps=3)
    saved = tf.train.load_checkpoint(est.latest_checkpoint()).get_variable_to_shape_map()
    assert sorted(saved) == ["global_step", "linear/bias", "linear/kernel"]
    assert est.evaluate(finite_input_fn)["global_step"] == 3


class FetchEveryStep(tf.compat.v1.train.SessionRunHook):
    def __init__(self, fetch):
        self._fetch = fetch

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._fetch)


@pytest.mark.parametrize("attached", [False, True])
@pytest.mark.parametrize("hook_fetches_update", [False, True])
def test_updates_run_only_when_train_op_or_a_hook_needs_them(
    tmp_path, caplog, attached, hook_fetches_update
):
    """Batch norm's UPDATE_OPS outside train_op's dependencies never ran in TF1
    (its Session ran train_op and the loss), unless a hook fetched them."""

    def model_fn(features, labels, mode):
        hidden = tf.compat.v1.layers.batch_normalization(features["x"], training=True)
        prediction = tf.compat.v1.layers.dense(hidden, 1)
        loss = tf.reduce_mean(tf.square(prediction - labels))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
        updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(updates if attached else []):
            train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        hooks = [FetchEveryStep(tf.group(updates))] if hook_fetches_update else []
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=hooks)

    est = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        est.train(train_input_fn, steps=2)
    moving_mean = est.get_variable_value("batch_normalization/moving_mean")
    skipped = [r.getMessage() for r in caplog.records if "never ran" in r.getMessage()]
    if attached:
        assert skipped == []
    else:
        assert len(skipped) == 1
        assert "batch_normalization/moving_mean, batch_normalization/moving_variance" in skipped[0]
    if attached or hook_fetches_update:
        assert np.all(moving_mean != 0)
    else:
        np.testing.assert_array_equal(moving_mean, np.zeros_like(moving_mean))


def _summarized_counter_model_fn(features, labels, mode):
    """A counter bumped by an op only a summary depends on (a metric update
    summarized while training, DeepCTR-style)."""
    del labels
    prediction = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.reduce_mean(tf.square(prediction))
    counter = tf.compat.v1.get_variable(
        "summarized_runs", [], tf.float32, tf.zeros_initializer(), trainable=False
    )
    bumped = tf.identity(tf.compat.v1.assign_add(counter, 1.0), name="bump")
    tf.compat.v1.summary.scalar("runs", bumped)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.01)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class _FetchByName(tf.compat.v1.train.SessionRunHook):
    def __init__(self, name):
        self._name = name

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._name)


@pytest.mark.parametrize(("hooks", "runs"), [((), 3), ((_FetchByName("bump:0"),), 12)])
def test_an_update_only_a_summary_depends_on_runs_on_summary_steps_only(tmp_path, hooks, runs):
    """Estimator's Session ran such an op when SummarySaverHook fetched the
    summaries (global steps 1, 6, 11 of 12 here), or on every step where a hook
    fetched it."""
    config = estimator.RunConfig(tf_random_seed=1, save_summary_steps=5)
    est = estimator.Estimator(_summarized_counter_model_fn, model_dir=str(tmp_path), config=config)

    def input_fn():
        features = {"x": np.ones((4, 2), np.float32)}
        return tf.data.Dataset.from_tensors((features, np.zeros((4, 1), np.float32))).repeat()

    est.train(input_fn, steps=12, hooks=list(hooks))
    assert est.get_variable_value("summarized_runs") == runs
    assert event_scalars(tmp_path)["runs"] == [1, 6, 11]

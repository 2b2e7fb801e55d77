"""Estimator.evaluate / predict / model_fn rules / warm start on the runtime
(docs/estimator_contract.md §1.1, §1.5, §1.6, §1.8)."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator
from helpers.runtime_models import (
    X,
    Y,
    event_scalars,
    finite_input_fn,
    linear_model_fn,
    make,
    predict_input_fn,
    train_input_fn,
)


@pytest.fixture
def trained(tmp_path):
    est = make(tmp_path / "model", save_checkpoints_steps=100)
    est.train(train_input_fn, steps=20)
    return est


def test_evaluate_returns_metrics_mean_loss_and_global_step(trained):
    metrics = trained.evaluate(finite_input_fn)
    assert sorted(metrics) == ["global_step", "loss", "mae"]
    assert metrics["global_step"] == 20
    weights = trained.get_variable_value("linear/kernel")
    bias = trained.get_variable_value("linear/bias")
    predictions = X @ weights + bias
    batch_losses = [
        np.mean(np.square(predictions[i : i + 8] - Y[i : i + 8])) for i in range(0, 64, 8)
    ]
    np.testing.assert_allclose(metrics["loss"], np.mean(batch_losses), rtol=1e-6)
    np.testing.assert_allclose(metrics["mae"], np.mean(np.abs(predictions - Y)), rtol=1e-6)


def test_metrics_are_reset_between_evaluations(trained):
    first = trained.evaluate(finite_input_fn)
    second = trained.evaluate(finite_input_fn)
    assert first == second


def _counting_estimator(trained, model_fn, params: dict, calls: list):
    """An Estimator on ``trained``'s checkpoint whose model_fn appends each mode
    it is called in to ``calls``."""

    def counted(features, labels, mode, params):
        calls.append(mode)
        return model_fn(features, labels, mode, params)

    return estimator.Estimator(
        counted, model_dir=trained.model_dir, config=trained.config, params=params
    )


def _checked_model_fn(features, labels, mode, params):
    """linear_model_fn whose ``mae`` metric passes an assertion first in its value
    (``params["checked"] == "value"``) or in its update (``"update"``): a
    stateful op, so that part cannot run from the metric variables and the
    inputs alone and takes a model_fn call of its own."""
    spec = linear_model_fn(features, labels, mode, {})
    checked = params["checked"]
    if mode != estimator.ModeKeys.EVAL or not checked:
        return spec
    value, update = spec.eval_metric_ops["mae"]
    with tf.control_dependencies([tf.debugging.assert_non_negative(value)]):
        if checked == "value":
            value = tf.identity(value)
        else:
            update = tf.identity(update)
    return spec._replace(eval_metric_ops={"mae": (value, update)})


@pytest.mark.parametrize("checked, model_fn_calls", [(None, 1), ("value", 2), ("update", 2)])
def test_metric_updates_and_values_of_variables_and_inputs_alone_need_no_model_fn_call(
    trained, checked, model_fn_calls
):
    """Discovery calls model_fn; metric updates that read the inputs and read and
    write variables alone, and values that read variables alone (after the last
    update), run the discovery graph's own ops; others take a model_fn call."""
    calls = []
    est = _counting_estimator(trained, _checked_model_fn, {"checked": checked}, calls)
    metrics = est.evaluate(finite_input_fn)
    assert calls == [estimator.ModeKeys.EVAL] * model_fn_calls
    predictions = X @ trained.get_variable_value("linear/kernel") + trained.get_variable_value(
        "linear/bias"
    )
    np.testing.assert_allclose(metrics["mae"], np.mean(np.abs(predictions - Y)), rtol=1e-6)
    assert metrics == trained.evaluate(finite_input_fn)


def test_evaluate_steps_limits_batches(trained):
    one_batch = trained.evaluate(finite_input_fn, steps=1)
    weights = trained.get_variable_value("linear/kernel")
    bias = trained.get_variable_value("linear/bias")
    first = X[:8] @ weights + bias
    np.testing.assert_allclose(one_batch["mae"], np.mean(np.abs(first - Y[:8])), rtol=1e-6)
    with pytest.raises(ValueError, match="Must specify steps > 0"):
        trained.evaluate(finite_input_fn, steps=0)


def test_eval_summaries_land_in_eval_dirs_at_the_checkpoint_step(trained):
    trained.evaluate(finite_input_fn)
    trained.evaluate(finite_input_fn, name="holdout")
    for directory in ("eval", "eval_holdout"):
        scalars = event_scalars(f"{trained.model_dir}/{directory}")
        assert scalars["loss"] == [20]
        assert scalars["mae"] == [20]
        assert "checkpoint_path" in scalars


def metric_named(name):
    def model_fn(features, labels, mode, params):
        spec = linear_model_fn(features, labels, mode, params)
        if mode != estimator.ModeKeys.EVAL:
            return spec
        metric = tf.compat.v1.metrics.mean(spec.loss)
        return spec._replace(eval_metric_ops={name: metric})

    return model_fn


@pytest.mark.parametrize("name", ["loss", "global_step"])
def test_reserved_metric_names_are_rejected(tmp_path, name):
    est = estimator.Estimator(metric_named(name), model_dir=str(tmp_path), params={})
    with pytest.raises(ValueError, match=f"Metric with name .{name}. is not allowed"):
        est.evaluate(finite_input_fn)


def test_predict_yields_examples_and_honours_predict_keys(trained):
    rows = list(trained.predict(predict_input_fn))
    assert len(rows) == 10 and sorted(rows[0]) == ["double", "y"]
    np.testing.assert_allclose(rows[3]["double"], 2 * rows[3]["y"], rtol=1e-6)
    only = list(trained.predict(predict_input_fn, predict_keys=["y"]))
    assert sorted(only[0]) == ["y"]
    batches = list(trained.predict(predict_input_fn, yield_single_examples=False))
    assert [b["y"].shape[0] for b in batches] == [4, 4, 2]
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        list(trained.predict(predict_input_fn, predict_keys=["nothing"]))


def _predict_input_fn_with_ids_and_tags():
    ids = np.arange(10, dtype=np.int64)
    tags = tf.SparseTensor(
        indices=[[0, 0], [3, 1], [7, 0]], values=[2.0, 5.0, 3.0], dense_shape=[10, 2]
    )
    return tf.data.Dataset.from_tensor_slices({"x": X[:10], "id": ids, "tags": tags}).batch(4)


def _passthrough_model_fn(features, labels, mode, params):
    """linear_model_fn's predictions plus the ids passed through and a sum of the
    sparse tags; with ``params["checked"]`` an assertion on the ids comes first
    (a stateful op: the predictions then take a model_fn call of their own)."""
    spec = linear_model_fn(features, labels, mode, {})
    if mode != estimator.ModeKeys.PREDICT:
        return spec
    ids = features["id"]
    if params["checked"]:
        with tf.control_dependencies([tf.debugging.assert_non_negative(ids)]):
            ids = tf.identity(ids)
    tag_sums = tf.sparse.reduce_sum(features["tags"], axis=1)
    return spec._replace(predictions={**spec.predictions, "id": ids, "tag_sum": tag_sums})


@pytest.mark.parametrize("checked, model_fn_calls", [(False, 1), (True, 2)])
def test_predictions_of_features_and_variables_alone_need_no_traced_model_fn(
    trained, checked, model_fn_calls
):
    """Discovery calls model_fn; predictions computed from the features and
    variables alone run the discovery graph's own ops, others a traced model_fn."""
    calls = []
    est = _counting_estimator(trained, _passthrough_model_fn, {"checked": checked}, calls)
    rows = list(est.predict(_predict_input_fn_with_ids_and_tags))
    assert calls == [estimator.ModeKeys.PREDICT] * model_fn_calls
    weights = trained.get_variable_value("linear/kernel")
    bias = trained.get_variable_value("linear/bias")
    np.testing.assert_allclose([row["y"] for row in rows], X[:10] @ weights + bias, rtol=1e-6)
    assert [row["id"] for row in rows] == list(range(10))
    expected_sums = [2.0, 0, 0, 5.0, 0, 0, 0, 3.0, 0, 0]
    assert [row["tag_sum"] for row in rows] == expected_sums


def test_predict_is_lazy(tmp_path):
    def failing_input_fn():
        raise AssertionError("input_fn must not run before iteration")

    generator = make(tmp_path).predict(failing_input_fn)
    with pytest.raises(AssertionError):
        next(generator)


def test_predict_rejects_unequal_batch_lengths(tmp_path):
    def model_fn(features, mode):
        head = tf.compat.v1.layers.dense(features["x"], 1)
        predictions = {"rows": head, "first": head[:1]}
        return estimator.EstimatorSpec(mode, predictions=predictions, loss=tf.reduce_sum(head))

    est = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Batch length of predictions should be same"):
        list(est.predict(predict_input_fn))


@pytest.mark.parametrize(
    ("model_fn", "params", "message"),
    [
        (lambda labels, mode: None, None, "must include features argument"),
        (lambda features, mode: None, {"a": 1}, "does not include params argument"),
        (lambda features, mode, extra: None, None, "has following not expected args"),
    ],
)
def test_model_fn_argument_rules(model_fn, params, message):
    with pytest.raises(ValueError, match=message):
        estimator.Estimator(model_fn, params=params)


def test_model_fn_without_labels_rejects_labelled_input(tmp_path):
    def model_fn(features, mode):
        raise AssertionError("not reached")

    with pytest.raises(ValueError, match="model_fn does not take labels"):
        estimator.Estimator(model_fn, model_dir=str(tmp_path)).train(train_input_fn, steps=1)


def test_model_fn_must_return_an_estimator_spec(tmp_path):
    def model_fn(features, labels, mode):
        return {"loss": tf.constant(1.0)}

    with pytest.raises(ValueError, match="model_fn should return an EstimatorSpec."):
        estimator.Estimator(model_fn, model_dir=str(tmp_path)).train(train_input_fn, steps=1)


def test_conflicting_model_dirs_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="different values"):
        estimator.Estimator(
            linear_model_fn,
            model_dir=str(tmp_path / "a"),
            config=estimator.RunConfig(model_dir=str(tmp_path / "b")),
            params={},
        )


def test_warm_start_copies_trainable_variables_only_into_an_empty_model_dir(trained, tmp_path):
    source = trained.latest_checkpoint()
    warm = estimator.Estimator(
        linear_model_fn,
        model_dir=str(tmp_path / "warm"),
        config=estimator.RunConfig(tf_random_seed=99, save_checkpoints_steps=100),
        params={"learning_rate": 0.0},
        warm_start_from=source,
    )
    warm.train(train_input_fn, steps=1)
    np.testing.assert_array_equal(
        warm.get_variable_value("linear/kernel"), trained.get_variable_value("linear/kernel")
    )
    assert warm.get_variable_value("global_step") == 1, "the global step is not carried over"
    # A second train() resumes from its own checkpoint, not from the warm-start source.
    warm.train(train_input_fn, steps=1)
    assert warm.get_variable_value("global_step") == 2


def test_warm_start_remaps_embedding_rows_to_the_new_vocabulary(tmp_path):
    """VocabInfo: a row moves with its word; a word new to the vocabulary gets the
    backup initializer; the old vocabulary's dropped words are gone."""
    old_vocab, new_vocab = tmp_path / "old.txt", tmp_path / "new.txt"
    old_vocab.write_text("apple\nbanana\ncherry\n")
    new_vocab.write_text("cherry\napple\ndate\n")
    old_rows = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        old_table = tf.compat.v1.get_variable("old_words", initializer=old_rows)
        session.run(old_table.initializer)
        source = tf.compat.v1.train.Saver([old_table]).save(session, str(tmp_path / "src/ckpt"))

    def model_fn(features, labels, mode, params):
        table = tf.compat.v1.get_variable("words", [3, 2])
        loss = tf.reduce_sum(tf.nn.embedding_lookup(table, features["ids"])) * 0.0
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.0)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    vocab_info = estimator.VocabInfo(
        new_vocab=str(new_vocab),
        new_vocab_size=3,
        num_oov_buckets=0,
        old_vocab=str(old_vocab),
        backup_initializer=tf.compat.v1.ones_initializer(),
    )
    warm = estimator.Estimator(
        model_fn,
        model_dir=str(tmp_path / "warm"),
        params={},
        warm_start_from=estimator.WarmStartSettings(
            source,
            vars_to_warm_start="words",
            var_name_to_vocab_info={"words": vocab_info},
            var_name_to_prev_var_name={"words": "old_words"},
        ),
    )
    warm.train(lambda: ({"ids": tf.constant([[0]])}, tf.constant([0.0])), steps=1)
    np.testing.assert_array_equal(
        warm.get_variable_value("words"), [[5.0, 6.0], [1.0, 2.0], [1.0, 1.0]]
    )


def test_warm_start_settings_validate_their_source():
    with pytest.raises(ValueError, match="ckpt_to_initialize_from"):
        estimator.WarmStartSettings(ckpt_to_initialize_from="")


class CountingHook(tf.compat.v1.train.SessionRunHook):
    """Fetches a model_fn tensor by name each step and counts the calls."""

    def __init__(self, tensor_name=None):
        self.tensor_name = tensor_name
        self.calls = []

    def begin(self):
        self.began = True

    def before_run(self, run_context):
        if self.tensor_name is None:
            return None
        return tf.compat.v1.train.SessionRunArgs(self.tensor_name)

    def after_run(self, run_context, run_values):
        self.calls.append(run_values.results)


def model_fn_with_spec_hooks(spec_hook):
    def model_fn(features, labels, mode, params):
        spec = linear_model_fn(features, labels, mode, params)
        tf.identity(spec.loss if spec.loss is not None else 0.0, name="named_loss")
        if mode == estimator.ModeKeys.EVAL:
            return spec._replace(evaluation_hooks=[spec_hook])
        if mode == estimator.ModeKeys.PREDICT:
            return spec._replace(prediction_hooks=[spec_hook])
        return spec

    return model_fn


def test_evaluation_hooks_run_around_every_batch(tmp_path):
    spec_hook = CountingHook()
    est = estimator.Estimator(
        model_fn_with_spec_hooks(spec_hook), model_dir=str(tmp_path), params={}
    )
    est.train(train_input_fn, steps=5)
    call_hook = CountingHook("named_loss:0")
    metrics = est.evaluate(finite_input_fn, hooks=[call_hook])
    assert len(call_hook.calls) == 8 and len(spec_hook.calls) == 8  # 64 examples / batch 8
    np.testing.assert_allclose(np.mean(call_hook.calls), metrics["loss"], rtol=1e-6)
    assert spec_hook.began and call_hook.began


def test_prediction_hooks_run_around_every_batch(tmp_path):
    spec_hook = CountingHook()
    est = estimator.Estimator(
        model_fn_with_spec_hooks(spec_hook), model_dir=str(tmp_path), params={}
    )
    est.train(train_input_fn, steps=2)
    call_hook = CountingHook()
    rows = list(est.predict(predict_input_fn, hooks=[call_hook]))
    assert len(rows) == 10
    assert len(call_hook.calls) == 3 and len(spec_hook.calls) == 3  # batches of 4, 4, 2


def test_scaffold_init_fn_gets_a_clear_error_only_when_it_would_run(tmp_path, trained):
    def model_fn(features, labels, mode, params):
        spec = linear_model_fn(features, labels, mode, params)
        scaffold = tf.compat.v1.train.Scaffold(init_fn=lambda scaffold, session: None)
        return spec._replace(scaffold=scaffold)

    fresh = estimator.Estimator(model_fn, model_dir=str(tmp_path / "fresh"), params={})
    with pytest.raises(ValueError, match="Scaffold with init_fn"):
        fresh.train(train_input_fn, steps=1)
    resumed = estimator.Estimator(model_fn, model_dir=trained.model_dir, params={})
    assert resumed.evaluate(finite_input_fn)["global_step"] == 20

"""Estimator.export_saved_model on the runtime (docs/estimator_contract.md §1.7).
That a runtime export serves exactly what the TF 2.15 export served is proven by
the serving_signatures program in tests/equivalence/test_equivalence.py."""

import os

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator
from estimator_revival.estimator import tpu
from helpers.runtime_models import X, linear_model_fn, make, raw_receiver_fn, train_input_fn
from helpers.saved_model_compare import signature_layout


def supervised_receiver_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
    y = tf.compat.v1.placeholder(tf.float32, [None, 1], name="y")
    return estimator.export.SupervisedInputReceiver({"x": x}, y, {"x": x, "y": y})


@pytest.fixture
def trained(tmp_path):
    est = make(tmp_path / "model", save_checkpoints_steps=100)
    est.train(train_input_fn, steps=10)
    return est


def test_export_is_a_timestamped_directory_returned_as_bytes(trained, tmp_path):
    base = tmp_path / "export"
    path = trained.export_saved_model(str(base), raw_receiver_fn)
    assert isinstance(path, bytes)
    assert os.path.dirname(path) == os.fsencode(base)
    assert os.path.basename(path).isdigit()
    assert os.listdir(base) == [os.path.basename(path).decode()], "no temp- directory left"
    assert sorted(os.listdir(path)) == [b"saved_model.pb", b"variables"]


def test_export_serves_the_checkpoint_predictions(trained, tmp_path):
    """The served graph runs the same TF kernels on the same checkpoint as predict():
    equal bit for bit. numpy's ``X @ w`` sums in another order, so it is compared
    within the rounding of each value's own terms, which near-cancelling values need."""
    path = trained.export_saved_model(str(tmp_path / "export"), raw_receiver_fn)
    served = tf.saved_model.load(path.decode()).signatures["serving_default"](x=tf.constant(X[:5]))
    predicted = list(
        trained.predict(
            lambda: tf.data.Dataset.from_tensors({"x": X[:5]}), yield_single_examples=False
        )
    )
    assert len(predicted) == 1
    np.testing.assert_array_equal(served["y"].numpy(), predicted[0]["y"])
    np.testing.assert_array_equal(served["double"].numpy(), predicted[0]["double"])
    weights = trained.get_variable_value("linear/kernel")
    bias = trained.get_variable_value("linear/bias")
    # and they are the checkpoint's: within float32 rounding of each value's own terms
    terms = np.abs(X[:5]) @ np.abs(weights) + np.abs(bias)
    error = np.abs(served["y"].numpy() - (X[:5] @ weights + bias))
    assert np.all(error <= 4 * np.finfo(np.float32).eps * terms), (error, terms)


def test_export_savedmodel_is_the_tf1_name(trained, tmp_path):
    path = trained.export_savedmodel(str(tmp_path / "export"), raw_receiver_fn)
    [(tags, signatures)] = signature_layout(tmp_path / "export" / os.path.basename(path).decode())
    assert tags == ["serve"]
    assert list(signatures) == ["serving_default"]


def test_assets_extra_are_copied(trained, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    path = trained.export_saved_model(
        str(tmp_path / "export"), raw_receiver_fn, assets_extra={"nested/vocab.txt": str(vocab)}
    )
    copied = os.path.join(path.decode(), "assets.extra", "nested", "vocab.txt")
    with open(copied) as f:
        assert f.read() == "a\nb\n"


def test_all_modes_export_one_metagraph_each_with_its_tags(trained, tmp_path):
    path = trained.experimental_export_all_saved_models(
        str(tmp_path / "export"),
        {
            estimator.ModeKeys.PREDICT: raw_receiver_fn,
            estimator.ModeKeys.TRAIN: supervised_receiver_fn,
            estimator.ModeKeys.EVAL: supervised_receiver_fn,
        },
    )
    layout = signature_layout(tmp_path / "export" / os.path.basename(path).decode())
    assert [tags for tags, _ in layout] == [["train"], ["eval"], ["serve"]]
    methods = {
        key: method for _, signatures in layout for key, (method, _, _) in signatures.items()
    }
    assert methods == {
        "train": "tensorflow/supervised/training",
        "eval": "tensorflow/supervised/eval",
        "serving_default": "tensorflow/serving/predict",
    }


def test_missing_receiver_fn_is_an_error(trained, tmp_path):
    with pytest.raises(ValueError, match="An input_receiver_fn must be defined"):
        trained.export_saved_model(str(tmp_path / "export"), None)


def test_export_without_a_checkpoint_names_the_model_dir(tmp_path):
    est = make(tmp_path / "empty")
    with pytest.raises(ValueError, match="Couldn't find trained model at .*empty"):
        est.export_saved_model(str(tmp_path / "export"), raw_receiver_fn)


def test_export_uses_the_warm_start_checkpoint_when_model_dir_is_empty(trained, tmp_path):
    fresh = estimator.Estimator(
        linear_model_fn,
        model_dir=str(tmp_path / "fresh"),
        params={},
        warm_start_from=trained.model_dir,
    )
    path = fresh.export_saved_model(str(tmp_path / "export"), raw_receiver_fn)
    served = tf.saved_model.load(path.decode()).signatures["serving_default"](x=tf.constant(X[:2]))
    expected = X[:2] @ trained.get_variable_value("linear/kernel")
    np.testing.assert_allclose(
        served["y"].numpy(), expected + trained.get_variable_value("linear/bias"), rtol=1e-6
    )


def test_a_failing_export_leaves_nothing_behind(trained, tmp_path):
    def broken_receiver_fn():
        raise RuntimeError("receiver exploded")

    base = tmp_path / "export"
    with pytest.raises(RuntimeError, match="receiver exploded"):
        trained.experimental_export_all_saved_models(
            str(base),
            {estimator.ModeKeys.TRAIN: supervised_receiver_fn, "infer": broken_receiver_fn},
        )
    assert not base.exists() or os.listdir(base) == []


def test_variables_missing_from_the_checkpoint_are_named(trained, tmp_path):
    def model_fn_with_a_new_variable(features, labels, mode, params):
        tf.compat.v1.get_variable("not_in_checkpoint", [1])
        return linear_model_fn(features, labels, mode, params)

    est = estimator.Estimator(model_fn_with_a_new_variable, model_dir=trained.model_dir, params={})
    with pytest.raises(ValueError, match="Could not load all requested variables"):
        est.export_saved_model(str(tmp_path / "export"), raw_receiver_fn)


def test_no_valid_mode_is_an_error(trained, tmp_path):
    with pytest.raises(ValueError, match="No valid modes for exporting found"):
        trained.experimental_export_all_saved_models(str(tmp_path / "export"), {"bogus": None})


def _tpu_model_fn(features, labels, mode, params):
    """Records the params TPUEstimator passed, then behaves as linear_model_fn."""
    _tpu_model_fn.seen.append((mode, params.get("batch_size"), params.get("use_tpu")))
    spec = linear_model_fn(features, labels, mode, {})
    return tpu.TPUEstimatorSpec(
        mode, loss=spec.loss, train_op=spec.train_op, predictions=spec.predictions
    )


def _tpu_estimator(model_dir, **kwargs):
    return tpu.TPUEstimator(
        model_fn=_tpu_model_fn,
        config=tpu.RunConfig(model_dir=str(model_dir), tf_random_seed=1),
        use_tpu=False,
        train_batch_size=8,
        predict_batch_size=4,
        **kwargs,
    )


def test_tpu_estimator_exports_the_cpu_graph_without_a_batch_size(tmp_path):
    _tpu_model_fn.seen = []
    est = _tpu_estimator(tmp_path / "model")
    est.train(lambda params: train_input_fn(), steps=3)
    path = est.export_saved_model(str(tmp_path / "export"), raw_receiver_fn)
    assert _tpu_model_fn.seen[-1] == (estimator.ModeKeys.PREDICT, None, False)
    [(tags, _)] = signature_layout(tmp_path / "export" / os.path.basename(path).decode())
    assert tags == ["serve"]


def test_tpu_estimator_cannot_export_the_tpu_graph_alone(tmp_path):
    _tpu_model_fn.seen = []
    est = _tpu_estimator(tmp_path / "model", export_to_cpu=False)
    est.train(lambda params: train_input_fn(), steps=1)
    with pytest.raises(ValueError, match="export_to_cpu=True"):
        est.export_saved_model(str(tmp_path / "export"), raw_receiver_fn)

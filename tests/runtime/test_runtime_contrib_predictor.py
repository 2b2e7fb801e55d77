"""tf.contrib.predictor.from_saved_model on the runtime: an export served from a
Session of its own, with TF 1.15's choice of signature, its keys and errors."""

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf import meta_graph_pb2

from estimator_revival.contrib import predictor
from helpers.runtime_models import X, make, raw_receiver_fn, train_input_fn


@pytest.fixture(scope="module")
def trained_export(tmp_path_factory):
    base = tmp_path_factory.mktemp("predictor")
    est = make(base / "model", save_checkpoints_steps=100)
    est.train(train_input_fn, steps=10)
    return est, est.export_saved_model(str(base / "export"), raw_receiver_fn).decode()


def test_the_serving_signature_predicts_what_the_estimator_predicts(trained_export):
    est, export_dir = trained_export
    predict_fn = predictor.from_saved_model(export_dir)
    served = predict_fn({"x": X[:5]})
    predicted = next(
        est.predict(lambda: tf.data.Dataset.from_tensors({"x": X[:5]}), yield_single_examples=False)
    )
    assert sorted(served) == ["double", "y"]
    np.testing.assert_array_equal(served["y"], predicted["y"])
    np.testing.assert_array_equal(served["double"], predicted["double"])
    assert sorted(predict_fn.feed_tensors) == ["x"]
    assert predict_fn.graph is predict_fn.session.graph


def test_a_signature_is_chosen_by_key_and_an_unknown_one_is_named(trained_export):
    _, export_dir = trained_export
    chosen = predictor.from_saved_model(export_dir, signature_def_key="serving_default")
    assert sorted(chosen.fetch_tensors) == ["double", "y"]
    message = "Got signature_def_key \"nope\". Available signatures are \\['serving_default'\\]"
    with pytest.raises(ValueError, match=message):
        predictor.from_saved_model(export_dir, signature_def_key="nope")


def test_inputs_and_outputs_may_be_named_by_tensor(trained_export):
    _, export_dir = trained_export
    whole = predictor.from_saved_model(export_dir)
    by_name = predictor.from_saved_model(
        export_dir,
        input_names={"features": whole.feed_tensors["x"].name},
        output_names={"prediction": whole.fetch_tensors["y"].name},
    )
    result = by_name({"features": X[:3]})
    np.testing.assert_array_equal(result["prediction"], whole({"x": X[:3]})["y"])


def test_an_unexpected_input_key_is_an_error_naming_it(trained_export):
    _, export_dir = trained_export
    with pytest.raises(ValueError, match=r"Got unexpected keys in input_dict: \{'z'\}"):
        predictor.from_saved_model(export_dir)({"x": X[:1], "z": X[:1]})


def test_an_estimator_s_input_alternative_answers_for_its_key():
    """An export with receiver_tensors_alternatives named the default receiver's
    signatures ``default_input_alternative:<key>``; TF 1.15 looked there second."""
    meta_graph = meta_graph_pb2.MetaGraphDef()
    meta_graph.signature_def["default_input_alternative:serving_default"].method_name = "m"
    meta_graph.signature_def["other"].method_name = "other"
    assert predictor._signature(meta_graph, None).method_name == "m"
    assert predictor._signature(meta_graph, "other").method_name == "other"

"""input_fns returning what they compute from ``iterator.get_next()``
(runtime/tf1/input_slice.py): the steps read each iterator's dataset and run
what input_fn built after get_next() on every element, as the Estimator's
Session ran it; input_fn is called once per call; what a step cannot run is a
clear error naming the op and input_fn's line."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival import estimator
from estimator_revival.calls.iterator_input import datasets_recorded
from estimator_revival.calls.legacy_dataset import reopened
from estimator_revival.contrib import lookup as contrib_lookup
from estimator_revival.tf1 import input_slice

X = np.arange(12, dtype=np.float32).reshape(6, 2)
Y = np.arange(6, dtype=np.int64)
WORDS = np.array([b"no", b"yes", b"maybe", b"yes", b"no", b"no"])


def _dataset():
    return tf.data.Dataset.from_tensor_slices(({"x": X, "word": WORDS}, Y)).batch(2)


def _steps(input_fn, count=3):
    """What model_fn gets in each of ``count`` steps, as numpy."""
    graph = tf.Graph()
    with graph.as_default(), input_slice.iterators_recorded() as recorded:
        result = input_fn()
    iterated = input_slice.iterated_input(result, recorded)
    dataset = iterated.element_dataset([reopened(d) for d in iterated.datasets])
    step = tf.function(lambda element: iterated.model_input(element, variables={}))
    elements = iter(dataset)
    return [tf.nest.map_structure(np.asarray, step(next(elements))) for _ in range(count)]


def test_the_label_popped_and_looked_up_after_get_next_every_step():
    """The Cloud ML Engine census samples' ending: features.pop(LABEL) through an
    index table (its initializer in TABLE_INITIALIZERS), the rest as it is."""

    def input_fn():
        features, ids = tf.compat.v1.data.make_one_shot_iterator(_dataset()).get_next()
        table = contrib_lookup.index_table_from_tensor(tf.constant(["no", "yes"]))
        features["double"] = features["x"] * 2.0
        return features, table.lookup(features.pop("word"))

    steps = _steps(input_fn)
    assert [features["x"].tolist() for features, _ in steps] == X.reshape(3, 2, 2).tolist()
    assert [features["double"].tolist() for features, _ in steps] == (2 * X).reshape(
        3, 2, 2
    ).tolist()
    assert [sorted(features) for features, _ in steps] == [["double", "x"]] * 3
    assert [labels.tolist() for _, labels in steps] == [[0, 1], [-1, 1], [0, 0]]


def test_get_next_s_own_tensors_after_a_pop_are_read_as_returned():
    """``return features, features.pop(LABEL)``: the dict input_fn returns no
    longer holds the label it returns beside it."""

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices({"x": X, "label": Y}).batch(3)
        features = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        return features, features.pop("label")

    steps = _steps(input_fn, 2)
    assert [(sorted(f), f["x"].tolist(), y.tolist()) for f, y in steps] == [
        (["x"], X[:3].tolist(), [0, 1, 2]),
        (["x"], X[3:].tolist(), [3, 4, 5]),
    ]


def test_two_get_next_of_one_iterator_read_consecutive_elements_and_iterators_side_by_side():
    def input_fn():
        first = tf.compat.v1.data.make_initializable_iterator(_dataset().repeat())
        other = tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.range(100, 200))
        a, b = first.get_next(), first.get_next()
        return {"a": a[0]["x"], "b": b[0]["x"], "other": other.get_next()}, a[1] + b[1]

    steps = _steps(input_fn, 2)
    assert [f["a"].tolist() for f, _ in steps] == [X[0:2].tolist(), X[4:6].tolist()]
    assert [f["b"].tolist() for f, _ in steps] == [X[2:4].tolist(), X[0:2].tolist()]
    assert [int(f["other"]) for f, _ in steps] == [100, 101]
    assert [y.tolist() for _, y in steps] == [[2, 4], [4, 6]]


def test_what_a_step_cannot_run_names_the_op_and_the_line():
    def input_fn():
        features, labels = tf.compat.v1.data.make_one_shot_iterator(_dataset()).get_next()
        noise = tf.compat.v1.random_uniform([2, 2])  # a random op after get_next()
        return {"x": features["x"] + noise}, labels

    graph = tf.Graph()
    with graph.as_default(), input_slice.iterators_recorded() as recorded:
        result = input_fn()
    with pytest.raises(
        NotImplementedError, match=r"RandomUniform op at .*test_runtime_iterator_input.py:\d+"
    ):
        input_slice.iterated_input(result, recorded)


def test_eagerly_called_input_fn_records_its_iterators_datasets_in_order():
    def input_fn():
        one = tf.compat.v1.data.make_one_shot_iterator(_dataset())
        two = tf.compat.v1.data.make_initializable_iterator(tf.data.Dataset.range(3))
        return one.get_next()[0], two.get_next()

    with datasets_recorded() as datasets:
        input_fn()
    assert [d.element_spec for d in datasets] == [
        _dataset().element_spec,
        tf.TensorSpec([], tf.int64),
    ]
    assert tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.range(1)) is not None


def test_an_estimator_calls_such_an_input_fn_once_per_call():
    calls = []

    def input_fn():
        calls.append(1)
        features, labels = tf.compat.v1.data.make_one_shot_iterator(_dataset().repeat()).get_next()
        return {"x": features["x"] * 0.5}, labels

    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 6)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.compat.v1.train.get_global_step()
        )
        return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = estimator.Estimator(model_fn, config=estimator.RunConfig(save_checkpoints_steps=100))
    est.train(input_fn, steps=4)
    est.train(input_fn, steps=2)
    assert len(calls) == 2

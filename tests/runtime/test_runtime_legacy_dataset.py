"""input_fn's dataset, built in the legacy graph, opened eagerly without calling
input_fn again (runtime/calls/legacy_dataset.py): the elements a TF 1 Session's
iterator over it read, in order, with its shuffles, random maps and Python
generator; None for a dataset that reads state of its graph, whose input_fn is
then called again."""

import gc

import numpy as np
import tensorflow as tf

from estimator_revival.calls.legacy_dataset import reopened


def _in_a_graph(build, seed=5):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(seed)
        dataset = build()
    return graph, dataset


def _session_elements(graph, dataset) -> list:
    """What the Estimator's initializable iterator read, to the end."""
    with graph.as_default():
        iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
        element = iterator.get_next()
    elements = []
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(iterator.initializer)
        while True:
            try:
                elements.append(session.run(element))
            except tf.errors.OutOfRangeError:
                return elements


def _rows():
    for i in range(10):
        yield {"x": np.float32([i, -i])}, np.int32(i % 3)


def _generated_shuffled_noisy():
    dataset = tf.data.Dataset.from_generator(
        _rows, output_types=({"x": tf.float32}, tf.int32), output_shapes=({"x": [2]}, [])
    )
    noisy = lambda features, label: ({"x": features["x"] + tf.random.uniform([2])}, label)  # noqa: E731
    return dataset.shuffle(4).map(noisy).batch(3).repeat(2)


def test_the_elements_are_those_a_session_read_from_the_legacy_graph():
    graph, dataset = _in_a_graph(_generated_shuffled_noisy)
    expected = _session_elements(*_in_a_graph(_generated_shuffled_noisy))
    elements = list(reopened(dataset).as_numpy_iterator())
    assert len(elements) == len(expected) == 8
    for (features, labels), (want_features, want_labels) in zip(elements, expected, strict=True):
        np.testing.assert_array_equal(features["x"], want_features["x"])
        np.testing.assert_array_equal(labels, want_labels)
    # Not trivially so: another graph seed shuffles and draws otherwise.
    other = _session_elements(*_in_a_graph(_generated_shuffled_noisy, seed=6))
    assert not np.array_equal(other[0][0]["x"], expected[0][0]["x"])


def test_the_python_generator_outlives_the_graph_object_the_caller_dropped():
    graph, dataset = _in_a_graph(_generated_shuffled_noisy)
    opened = reopened(dataset)
    del graph, dataset
    gc.collect()
    assert len(list(opened.as_numpy_iterator())) == 8


def test_a_dataset_reading_a_lookup_table_or_a_placeholder_stays_in_its_graph():
    def with_table():
        keys = tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2])
        table = tf.lookup.StaticHashTable(keys, -1)
        return tf.data.Dataset.from_tensor_slices(["a", "c"]).map(table.lookup)

    def fed():
        rows = tf.compat.v1.placeholder(tf.float32, [None, 2])
        return tf.data.Dataset.from_tensor_slices(rows)

    for build in (with_table, fed):
        _, dataset = _in_a_graph(build)
        assert reopened(dataset) is None, build.__name__

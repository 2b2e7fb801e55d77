"""input_fns returning ``iterator.get_next()`` (runtime/calls/iterator_input.py): the
runtime reads the iterator's dataset, element by element, laid out as returned;
what it cannot read that way is a clear error, never one repeated batch."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.calls.iterator_input import dataset_of, iterators_recorded

X = np.arange(12, dtype=np.float32).reshape(6, 2)
Y = np.arange(6, dtype=np.int64)


def _dataset():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(2)


def _read(input_fn):
    with iterators_recorded() as iterators:
        result = input_fn()
    return dataset_of(result, iterators)


def test_one_shot_get_next_reads_every_batch_in_order():
    def input_fn():
        features, labels = tf.compat.v1.data.make_one_shot_iterator(_dataset()).get_next()
        return features, labels

    batches = [(f["x"].numpy().tolist(), y.numpy().tolist()) for f, y in _read(input_fn)]
    assert batches == [([[0, 1], [2, 3]], [0, 1]), ([[4, 5], [6, 7]], [2, 3]),
                       ([[8, 9], [10, 11]], [4, 5])]  # fmt: skip


def test_initializable_iterator_with_its_initializer_and_a_reordered_result():
    def input_fn():
        iterator = tf.compat.v1.data.make_initializable_iterator(_dataset())
        tf.compat.v1.add_to_collection("unused", iterator.initializer)
        features, labels = iterator.get_next()
        return {"features": features}, labels

    first = next(iter(_read(input_fn)))
    assert first[0]["features"]["x"].numpy().tolist() == [[0, 1], [2, 3]]
    assert first[1].numpy().tolist() == [0, 1]


def test_tensors_not_from_an_iterator_are_left_to_the_caller():
    assert _read(lambda: ({"x": tf.constant(X)}, tf.constant(Y))) is None


def test_iterators_are_restored_after_input_fn():
    original = tf.compat.v1.data.make_one_shot_iterator
    with iterators_recorded():
        assert tf.compat.v1.data.make_one_shot_iterator is not original
    assert tf.compat.v1.data.make_one_shot_iterator is original


@pytest.mark.parametrize(
    "input_fn, message",
    [
        (
            lambda: tf.compat.v1.data.make_one_shot_iterator(_dataset()).get_next()[0]["x"] * 2,
            "move that computation into dataset.map",
        ),
        (
            lambda: (
                tf.compat.v1.data.make_one_shot_iterator(_dataset()).get_next()[0],
                tf.compat.v1.data.make_one_shot_iterator(_dataset()).get_next()[1],
            ),
            "several iterators",
        ),
    ],
    ids=["computed", "two-iterators"],
)
def test_what_cannot_be_read_as_the_dataset_is_a_clear_error(input_fn, message):
    with pytest.raises(NotImplementedError, match=message):
        _read(input_fn)


def test_get_next_twice_is_a_clear_error():
    def input_fn():
        iterator = tf.compat.v1.data.make_one_shot_iterator(_dataset())
        iterator.get_next()
        return iterator.get_next()

    with pytest.raises(NotImplementedError, match="get_next\\(\\) twice"):
        _read(input_fn)

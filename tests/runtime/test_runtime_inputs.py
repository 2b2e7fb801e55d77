"""tf.estimator.inputs on the runtime: the batches TF1's feeding queues produced."""

import numpy as np
import pandas as pd
import pytest

from estimator_revival.estimator import inputs


def batches(input_fn):
    return [
        (features["x"].numpy().tolist(), labels.numpy().tolist()) for features, labels in input_fn()
    ]


def test_numpy_input_fn_in_order_with_a_partial_last_batch():
    x = np.arange(5, dtype=np.float32)
    got = batches(inputs.numpy_input_fn({"x": x}, y=x * 10, batch_size=2, shuffle=False))
    assert got == [([0, 1], [0, 10]), ([2, 3], [20, 30]), ([4], [40])]


def test_numpy_input_fn_repeating_forever_gives_full_batches_across_epochs():
    x = np.arange(3, dtype=np.float32)
    input_fn = inputs.numpy_input_fn({"x": x}, y=x, batch_size=2, num_epochs=None, shuffle=False)
    first = [f["x"].numpy().tolist() for f, _ in input_fn().take(3)]
    assert first == [[0, 1], [2, 0], [1, 2]]


def test_numpy_input_fn_with_a_plain_array_and_no_labels():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    got = [b.numpy().tolist() for b in inputs.numpy_input_fn(x, batch_size=2, shuffle=False)()]
    assert got == [[[0, 1], [2, 3]], [[4, 5]]]


def test_numpy_input_fn_shuffle_keeps_every_example_once_per_epoch():
    x = np.arange(20, dtype=np.float32)
    got = batches(inputs.numpy_input_fn({"x": x}, y=x, batch_size=20, shuffle=True))
    assert sorted(got[0][0]) == list(range(20)) and got[0][0] == got[0][1]


def test_pandas_input_fn_feeds_columns_and_target():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "z": [4.0, 5.0, 6.0]})
    target = pd.Series([7.0, 8.0, 9.0])
    input_fn = inputs.pandas_input_fn(frame, y=target, batch_size=2, shuffle=False)
    (features, labels), _ = list(input_fn())
    assert sorted(features) == ["x", "z"]
    assert features["z"].numpy().tolist() == [4.0, 5.0] and labels.numpy().tolist() == [7.0, 8.0]
    with pytest.raises(ValueError, match="Index for x and y are mismatched"):
        inputs.pandas_input_fn(frame, y=pd.Series([1.0, 2.0, 3.0], index=[5, 6, 7]), shuffle=False)

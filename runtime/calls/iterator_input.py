"""The datasets behind an input_fn's iterators, when input_fn is called eagerly.

An input_fn that returns ``iterator.get_next()`` (and what it computes from it)
is read from the discovery graph it ran in (runtime/tf1/input_slice.py). Where
its datasets cannot be opened from that graph (they read a table or a variable
of it) or where another input pipeline needs its own (a worker of a replicated
strategy), input_fn is called again, eagerly. Its iterators are then stand-ins
that remember their datasets, in the order input_fn made them: iterating a
dataset here would use up one of its shuffles (each iterator of a dataset
reshuffles), and an initializable iterator cannot be made eagerly at all.
What input_fn computes from ``get_next()`` is thrown away: the steps compute it
from the discovery graph.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import tensorflow as tf
from tensorflow.python.data.ops import dataset_ops


class RecordedIterator:
    """Stands for a v1 iterator over ``dataset`` while input_fn runs eagerly."""

    def __init__(self, dataset: tf.data.Dataset) -> None:
        self.dataset = dataset

    def get_next(self, name=None):
        """Values with the element's structure, only ever thrown away."""
        return tf.nest.map_structure(_stand_in, self.dataset.element_spec)

    @property
    def initializer(self):
        """The Estimator ran it with the Scaffold's local init; nothing to run here."""
        return tf.no_op()


def _stand_in(spec):
    """A value of ``spec`` (unknown dimensions 1)."""
    if isinstance(spec, tf.SparseTensorSpec):
        rank = spec.shape.rank
        return tf.sparse.SparseTensor(
            tf.zeros([0, rank], tf.int64), tf.zeros([0], spec.dtype), [1] * rank
        )
    if isinstance(spec, tf.RaggedTensorSpec):
        return tf.ragged.constant([], dtype=spec.dtype, ragged_rank=spec.ragged_rank)
    sizes = spec.shape.as_list() if spec.shape.rank is not None else []
    shape = [1 if size is None else size for size in sizes]
    if spec.dtype == tf.string:
        return tf.fill(shape, "")
    return tf.zeros(shape, spec.dtype)


@contextlib.contextmanager
def datasets_recorded() -> Iterator[list[tf.data.Dataset]]:
    """While it is active, v1 iterators input_fn makes eagerly are stand-ins;
    yields the datasets they iterate, in the order input_fn made them."""
    recorded: list[tf.data.Dataset] = []

    def make(dataset, *args, **kwargs):
        recorded.append(dataset)
        return RecordedIterator(dataset)

    names = ("_make_one_shot_iterator", "_make_initializable_iterator")
    originals = {name: getattr(dataset_ops.DatasetV1, name) for name in names}
    for name in names:
        setattr(dataset_ops.DatasetV1, name, make)
    try:
        yield recorded
    finally:
        for name, original in originals.items():
            setattr(dataset_ops.DatasetV1, name, original)

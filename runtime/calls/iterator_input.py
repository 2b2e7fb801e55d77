"""input_fns that return ``iterator.get_next()`` instead of a dataset.

The TF 1 tutorial pattern builds a dataset, makes a one-shot or initializable
iterator and returns its ``get_next()`` tensors: in the Estimator's graph those
tensors were a new batch on every step (the initializable iterator's initializer
ran with the Scaffold's local init). Called eagerly, ``get_next()`` is one batch
of values, which would be repeated forever. While input_fn runs,
:func:`iterators_recorded` hands out iterators that remember their dataset;
:func:`dataset_of` then returns that dataset, its elements laid out as input_fn
returned them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import tensorflow as tf

_FACTORIES = ("make_one_shot_iterator", "make_initializable_iterator")


class RecordedIterator:
    """Stands for a v1 iterator over ``dataset`` while input_fn runs eagerly."""

    def __init__(self, dataset: tf.data.Dataset) -> None:
        self.dataset = dataset
        self.element = None

    def get_next(self, name=None):
        if self.element is not None:
            raise NotImplementedError(
                "input_fn calls get_next() twice on one iterator; the runtime reads the "
                "dataset itself. Return the dataset, or one get_next() of it."
            )
        # Stand-ins with the element's structure: iterating the dataset here would
        # use up one of its shuffles (each iterator of a dataset reshuffles).
        self.element = tf.nest.map_structure(_stand_in, self.dataset.element_spec)
        return self.element

    @property
    def initializer(self):
        """The Estimator ran it with the Scaffold's local init; nothing to run here."""
        return tf.no_op()


def _stand_in(spec):
    """A value of ``spec`` (unknown dimensions 1), only ever compared by identity."""
    if isinstance(spec, tf.SparseTensorSpec):
        rank = spec.shape.rank
        return tf.sparse.SparseTensor(
            tf.zeros([0, rank], tf.int64), tf.zeros([0], spec.dtype), [1] * rank
        )
    if not isinstance(spec, tf.TensorSpec):
        raise NotImplementedError(
            f"input_fn returns get_next() of a dataset with {type(spec).__name__} "
            "elements; return the dataset itself."
        )
    sizes = spec.shape.as_list() if spec.shape.rank is not None else []
    shape = [1 if size is None else size for size in sizes]
    if spec.dtype == tf.string:
        return tf.fill(shape, "")
    return tf.zeros(shape, spec.dtype)


@contextlib.contextmanager
def iterators_recorded() -> Iterator[list[RecordedIterator]]:
    recorded: list[RecordedIterator] = []

    def make(dataset, shared_name=None):
        iterator = RecordedIterator(dataset)
        recorded.append(iterator)
        return iterator

    namespace = tf.compat.v1.data
    originals = {name: getattr(namespace, name) for name in _FACTORIES}
    for name in _FACTORIES:
        setattr(namespace, name, make)
    try:
        yield recorded
    finally:
        for name, original in originals.items():
            setattr(namespace, name, original)


def dataset_of(result, recorded: list[RecordedIterator]) -> tf.data.Dataset | None:
    """The dataset behind ``result`` when it is made of one iterator's
    ``get_next()`` tensors (None when no iterator was used)."""
    used = [iterator for iterator in recorded if iterator.element is not None]
    if not used:
        return None
    if len(used) > 1:
        raise NotImplementedError(
            "input_fn returns tensors of several iterators; return one dataset instead "
            "(e.g. tf.data.Dataset.zip)."
        )
    (iterator,) = used
    element = tf.nest.flatten(iterator.element)
    positions = {id(tensor): index for index, tensor in enumerate(element)}
    returned = tf.nest.flatten(result)
    missing = [tensor for tensor in returned if id(tensor) not in positions]
    if missing:
        raise NotImplementedError(
            "input_fn returns tensors computed from iterator.get_next(); the runtime "
            "reads the dataset itself, so move that computation into dataset.map(...) "
            "and return get_next()'s tensors (or the dataset) unchanged."
        )
    layout = [positions[id(tensor)] for tensor in returned]

    def arrange(*parts):
        flat = tf.nest.flatten(parts[0] if len(parts) == 1 else parts)
        return tf.nest.pack_sequence_as(result, [flat[index] for index in layout])

    return iterator.dataset.map(arrange)

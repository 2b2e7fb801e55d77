"""The iterator a program reads, with what the programs need to know about it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import tensorflow as tf

from runtime.distribute.replication import Replication


@dataclasses.dataclass(frozen=True)
class InputPipeline:
    iterator: object  # a dataset iterator, or a distributed one when replicated
    element_spec: object  # of one replica's element
    infinite: bool  # whether the input never ends (no end-of-input check needed)
    # What model_fn gets for an element (input_fn's own values around its tensors).
    to_model_input: Callable = staticmethod(lambda element: element)

    @classmethod
    def open(
        cls, open_dataset: Callable[..., tf.data.Dataset], replication: Replication
    ) -> InputPipeline:
        """Opens ``open_dataset(input_context)`` on one device, or on every worker
        of a replicated strategy (``distribute_datasets_from_function``)."""
        if not replication.replicated:
            dataset = open_dataset()
            return cls(iter(dataset), dataset.element_spec, _is_infinite(dataset))
        opened: list[tf.data.Dataset] = []

        def dataset_fn(input_context):
            dataset = open_dataset(input_context)
            opened.append(dataset)
            return dataset

        iterator = iter(replication.distribute(dataset_fn))
        dataset = opened[0]
        return cls(iterator, dataset.element_spec, _is_infinite(dataset))


def _is_infinite(dataset: tf.data.Dataset) -> bool:
    return int(dataset.cardinality()) == tf.data.INFINITE_CARDINALITY

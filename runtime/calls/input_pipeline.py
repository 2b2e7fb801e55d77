"""The iterator a program reads, with what the programs need to know about it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import tensorflow as tf

from estimator_revival.distribute.replication import Replication


@dataclasses.dataclass(frozen=True)
class InputPipeline:
    iterator: object  # a dataset iterator, or a distributed one when replicated
    element_spec: object  # of one replica's element
    infinite: bool  # whether the input never ends (no end-of-input check needed)
    # What model_fn gets for an element (input_fn's own values around its tensors).
    to_model_input: Callable = staticmethod(lambda element: element)
    # The placeholders input_fn's result is computed from, which hooks feed:
    # {tensor name: TensorSpec}
    feedable: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def open(
        cls,
        open_dataset: Callable[..., tf.data.Dataset],
        replication: Replication,
        *,
        whole_steps_only: bool = False,
    ) -> InputPipeline:
        """Opens ``open_dataset(input_context)`` on one device, or on every worker
        of a replicated strategy (``distribute_datasets_from_function``); with
        ``whole_steps_only``, without a last step some replica has no batch for."""
        if not replication.replicated:
            dataset = open_dataset()
            return cls(iter(dataset), dataset.element_spec, _is_infinite(dataset))
        opened: list[tuple] = []  # (element_spec, infinite) of the dataset

        def dataset_fn(input_context):
            dataset = open_dataset(input_context)
            if whole_steps_only:
                replicas = input_context.num_replicas_in_sync // input_context.num_input_pipelines
                dataset = _whole_steps(dataset, replicas)
            opened.append((dataset.element_spec, _is_infinite(dataset)))
            return dataset

        iterator = iter(replication.distribute(dataset_fn))
        return cls(iterator, *opened[0])


def _whole_steps(dataset: tf.data.Dataset, replicas: int) -> tf.data.Dataset:
    """``dataset`` without its last ``len % replicas`` batches. A legacy Estimator
    on MirroredStrategy read one batch per replica (a MultiDeviceIterator) and
    stopped at the first step where some replica got none, skipping the batches
    the others got; replica i of step k reads batch ``k * replicas + i`` here."""
    if replicas == 1 or _is_infinite(dataset):
        return dataset
    return dataset.window(replicas, drop_remainder=True).flat_map(_zipped)


def _zipped(*window: tf.data.Dataset) -> tf.data.Dataset:
    """One window's batches back in order, as elements of the input's structure."""
    return tf.data.Dataset.zip(window if len(window) > 1 else window[0])


def _is_infinite(dataset: tf.data.Dataset) -> bool:
    """Whether the input never ends (False when unknown: a dataset built in a
    function for the workers of a parameter-server cluster)."""
    cardinality = tf.get_static_value(dataset.cardinality())
    return cardinality is not None and int(cardinality) == tf.data.INFINITE_CARDINALITY

"""input_fns that return ``(features, labels)`` values instead of a dataset.

The legacy graph evaluated such tensors on every step and handed everything
else to model_fn as it was: ``({}, None)``, Python lists and numbers, numpy
arrays. Only the tensors go through a dataset here (repeated, one element per
step); each element is put back into the input_fn's structure with the other
values unchanged before model_fn sees it.
"""

from __future__ import annotations

import tensorflow as tf

_TENSOR_TYPES = (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)


class ConstantInput:
    def __init__(self, result) -> None:
        self._structure = result
        flat = tf.nest.flatten(result)
        self._is_tensor = [isinstance(leaf, _TENSOR_TYPES) for leaf in flat]
        self._values = [
            None if tensor else leaf for leaf, tensor in zip(flat, self._is_tensor, strict=True)
        ]
        self._tensors = tuple(
            leaf for leaf, tensor in zip(flat, self._is_tensor, strict=True) if tensor
        )

    def dataset(self) -> tf.data.Dataset:
        """The tensors, every step (a placeholder scalar when there are none)."""
        return tf.data.Dataset.from_tensors(self._tensors or (tf.constant(0),)).repeat()

    def model_input(self, element):
        """The input_fn's structure with ``element``'s tensors in their places."""
        tensors = iter(element)
        flat = [
            next(tensors) if tensor else value
            for tensor, value in zip(self._is_tensor, self._values, strict=True)
        ]
        return tf.nest.pack_sequence_as(self._structure, flat)

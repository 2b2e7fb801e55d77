"""``tf.contrib.cudnn_rnn``'s CPU cells for the legacy side, from TF 1.15's
``contrib/cudnn_rnn/python/ops/cudnn_rnn_ops.py``: ``CudnnCompatibleLSTMCell``
(``lstm_ops.LSTMBlockCell`` with ``forget_bias=0``) and ``CudnnCompatibleGRUCell``
(``rnn_cell_impl.GRUCell`` with cuDNN's candidate)."""

import contrib_rnn
import tensorflow as tf
from tensorflow.python.framework import tensor_shape
from tensorflow.python.ops import array_ops, init_ops, math_ops, nn_ops


class CudnnCompatibleLSTMCell(contrib_rnn.LSTMBlockCell):
    def __init__(self, num_units, reuse=None):
        super().__init__(num_units, forget_bias=0, cell_clip=None, use_peephole=False,
                         reuse=reuse, name="cudnn_compatible_lstm_cell")  # fmt: skip


class CudnnCompatibleGRUCell(tf.compat.v1.nn.rnn_cell.GRUCell):
    def __init__(self, num_units, reuse=None, kernel_initializer=None):
        super().__init__(num_units, activation=None, reuse=reuse,
                         kernel_initializer=kernel_initializer)  # fmt: skip

    def build(self, inputs_shape):
        if tensor_shape.dimension_value(inputs_shape[1]) is None:
            raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
        input_depth = tensor_shape.dimension_value(inputs_shape[1])
        bias_or = lambda default: (  # noqa: E731
            self._bias_initializer if self._bias_initializer is not None else default
        )
        self._gate_kernel = self.add_variable(
            "gates/kernel", shape=[input_depth + self._num_units, 2 * self._num_units],
            initializer=self._kernel_initializer)  # fmt: skip
        self._gate_bias = self.add_variable(
            "gates/bias", shape=[2 * self._num_units],
            initializer=bias_or(init_ops.constant_initializer(1.0, dtype=self.dtype)))  # fmt: skip
        self._candidate_input_kernel = self.add_variable(
            "candidate/input_projection/kernel", shape=[input_depth, self._num_units],
            initializer=self._kernel_initializer)  # fmt: skip
        self._candidate_hidden_kernel = self.add_variable(
            "candidate/hidden_projection/kernel", shape=[self._num_units, self._num_units],
            initializer=self._kernel_initializer)  # fmt: skip
        self._candidate_input_bias = self.add_variable(
            "candidate/input_projection/bias", shape=[self._num_units],
            initializer=bias_or(init_ops.zeros_initializer(dtype=self.dtype)))  # fmt: skip
        self._candidate_hidden_bias = self.add_variable(
            "candidate/hidden_projection/bias", shape=[self._num_units],
            initializer=bias_or(init_ops.zeros_initializer(dtype=self.dtype)))  # fmt: skip
        self.built = True

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        candidate = nn_ops.bias_add(math_ops.matmul(inputs, self._candidate_input_kernel),
                                    self._candidate_input_bias)  # fmt: skip
        candidate += r * nn_ops.bias_add(math_ops.matmul(state, self._candidate_hidden_kernel),
                                         self._candidate_hidden_bias)  # fmt: skip
        candidate = self._activation(candidate)
        new_h = (1 - u) * candidate + u * state
        return new_h, new_h

"""``tf.contrib.cudnn_rnn``'s CPU cells, as TF 1.15 defined them: RNN cells that
compute what cuDNN's LSTM and GRU compute, step by step, so a model trained with
``CudnnLSTM``/``CudnnGRU`` on a GPU ran (and was often trained) on a CPU.

``CudnnCompatibleLSTMCell`` is ``LSTMBlockCell`` without a forget bias, in scope
``cudnn_compatible_lstm_cell``. ``CudnnCompatibleGRUCell`` is cuDNN's GRU: the
reset gate applies to the hidden state's projection (bias included), not to the
state, with its own kernels and biases for the candidate's input and hidden
projections. The GPU layers themselves (``CudnnLSTM``, ``CudnnGRU``...) have no
CPU kernel on TF 1 or TF 2; ``migrate`` reports them.
"""

from __future__ import annotations

import tensorflow as tf

from estimator_revival.contrib.rnn_cells import LSTMBlockCell


class CudnnCompatibleLSTMCell(LSTMBlockCell):
    """cuDNN's LSTM as an RNN cell (forget bias 0, no peepholes, no clipping)."""

    def __init__(self, num_units, reuse=None):
        super().__init__(
            num_units,
            forget_bias=0,
            cell_clip=None,
            use_peephole=False,
            reuse=reuse,
            name="cudnn_compatible_lstm_cell",
        )


class CudnnCompatibleGRUCell(tf.compat.v1.nn.rnn_cell.GRUCell):
    """cuDNN's GRU as an RNN cell:

    ``r, u = sigmoid([x, h] @ gates/kernel + gates/bias)``;
    ``c = tanh(x @ W_x + b_x + r * (h @ W_h + b_h))``; ``h' = (1 - u) * c + u * h``.
    """

    def __init__(self, num_units, reuse=None, kernel_initializer=None):
        super().__init__(
            num_units, activation=None, reuse=reuse, kernel_initializer=kernel_initializer
        )

    def _bias_initializer_or(self, default):
        return self._bias_initializer if self._bias_initializer is not None else default

    def build(self, inputs_shape):
        input_depth = tf.compat.v1.dimension_value(inputs_shape[1])
        if input_depth is None:
            raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
        units = self._num_units
        self._gate_kernel = self.add_weight(
            "gates/kernel",
            shape=[input_depth + units, 2 * units],
            initializer=self._kernel_initializer,
        )
        self._gate_bias = self.add_weight(
            "gates/bias",
            shape=[2 * units],
            initializer=self._bias_initializer_or(
                tf.compat.v1.constant_initializer(1.0, dtype=self.dtype)
            ),
        )
        self._candidate_input_kernel = self.add_weight(
            "candidate/input_projection/kernel",
            shape=[input_depth, units],
            initializer=self._kernel_initializer,
        )
        self._candidate_hidden_kernel = self.add_weight(
            "candidate/hidden_projection/kernel",
            shape=[units, units],
            initializer=self._kernel_initializer,
        )
        zeros = tf.compat.v1.zeros_initializer(dtype=self.dtype)
        self._candidate_input_bias = self.add_weight(
            "candidate/input_projection/bias",
            shape=[units],
            initializer=self._bias_initializer_or(zeros),
        )
        self._candidate_hidden_bias = self.add_weight(
            "candidate/hidden_projection/bias",
            shape=[units],
            initializer=self._bias_initializer_or(zeros),
        )
        self.built = True

    def call(self, inputs, state):
        gate_inputs = tf.matmul(tf.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = tf.nn.bias_add(gate_inputs, self._gate_bias)
        r, u = tf.split(value=tf.sigmoid(gate_inputs), num_or_size_splits=2, axis=1)
        candidate = tf.nn.bias_add(
            tf.matmul(inputs, self._candidate_input_kernel), self._candidate_input_bias
        )
        candidate += r * tf.nn.bias_add(
            tf.matmul(state, self._candidate_hidden_kernel), self._candidate_hidden_bias
        )
        candidate = self._activation(candidate)
        new_h = (1 - u) * candidate + u * state
        return new_h, new_h

"""``tf.contrib.rnn``'s fused LSTM and its helpers, as TF 1.15 defined them.

``LSTMBlockFusedCell`` runs a whole sequence in one ``BlockLSTM`` kernel, which
TensorFlow 2 still ships (with its gradient) but no longer wraps: a v1 layer
whose variables are ``<name>/kernel`` (``[input + units, 4 * units]``, the
variable scope's default initializer) and ``<name>/bias`` (zeros), so TF 1.15
checkpoints restore. Time-major inputs ``[time, batch, depth]`` (or a list of
``[batch, depth]``); outputs past each ``sequence_length`` are zeros and the
final state is the state at the last valid step. ``TimeReversedFusedRNN`` runs
a fused cell backwards over each sequence; ``FusedRNNCellAdaptor`` runs an
ordinary cell as a fused one. ``LSTMBlockCell``, ``GRUBlockCell`` and
``LayerNormBasicLSTMCell`` step one time step at a time (runtime/contrib/rnn_cells.py). The cells TF 2 kept under
``tf.compat.v1.nn.rnn_cell`` (``LSTMCell``, ``DropoutWrapper``, ...) are mapped
there by ``migrate`` instead.
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import gen_rnn_ops

from estimator_revival.contrib.rnn_cells import (
    BlockLSTMWeights,
    GRUBlockCell,
    GRUBlockCellV2,
    LayerNormBasicLSTMCell,
    LSTMBlockCell,
)

__all__ = [
    "FusedRNNCellAdaptor",
    "GRUBlockCell",
    "GRUBlockCellV2",
    "LSTMBlockCell",
    "LSTMBlockFusedCell",
    "LayerNormBasicLSTMCell",
    "TimeReversedFusedRNN",
    "stack_bidirectional_dynamic_rnn",
]

LSTMStateTuple = tf.compat.v1.nn.rnn_cell.LSTMStateTuple


class LSTMBlockFusedCell(BlockLSTMWeights, tf.compat.v1.layers.Layer):
    """An LSTM over a whole time-major sequence in one kernel (TF 1.15's fused cell)."""

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        cell_clip=None,
        use_peephole=False,
        reuse=None,
        dtype=None,
        name="lstm_fused_cell",
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self._use_peephole = use_peephole
        self.input_spec = tf.compat.v1.layers.InputSpec(ndim=3)

    @property
    def num_units(self):
        return self._num_units

    def build(self, input_shape):
        self._add_block_lstm_weights(tf.compat.v1.dimension_value(input_shape[2]))
        self.built = True

    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        is_list = isinstance(inputs, list)
        if is_list:
            inputs = tf.stack(inputs)
        shape = inputs.get_shape().with_rank(3)
        if not tf.compat.v1.dimension_value(shape[2]):
            raise ValueError(f"Expecting inputs_shape[2] to be set: {shape}")
        batch_size = tf.compat.v1.dimension_value(shape[1])
        if batch_size is None:
            batch_size = tf.shape(inputs)[1]
        time_len = tf.compat.v1.dimension_value(shape[0])
        if time_len is None:
            time_len = tf.shape(inputs)[0]
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            zeros = tf.zeros(tf.stack([batch_size, self._num_units]), dtype=dtype)
            initial_state = zeros, zeros
        else:
            if len(initial_state) != 2:
                raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
            if dtype is None:
                dtype = initial_state[0].dtype
        if sequence_length is not None:
            sequence_length = tf.convert_to_tensor(sequence_length)
        initial_cell_state, initial_output = initial_state
        cell_states, outputs = self._call_cell(
            inputs, initial_cell_state, initial_output, dtype, sequence_length, time_len
        )
        if sequence_length is None:
            final_cell_state, final_output = cell_states[-1], outputs[-1]
        else:
            mask = tf.transpose(tf.sequence_mask(sequence_length, time_len, dtype=dtype), [1, 0])
            outputs *= tf.tile(tf.expand_dims(mask, [-1]), [1, 1, self._num_units])
            # the state at sequence_length - 1, which may be -1: the initial state
            all_cell_states = tf.concat([tf.expand_dims(initial_cell_state, [0]), cell_states], 0)
            all_outputs = tf.concat([tf.expand_dims(initial_output, [0]), outputs], 0)
            final_cell_state = _at_steps(all_cell_states, sequence_length, batch_size)
            final_output = _at_steps(all_outputs, sequence_length, batch_size)
        if is_list:
            outputs = tf.unstack(outputs)
        return outputs, LSTMStateTuple(final_cell_state, final_output)

    def _call_cell(self, inputs, cs_prev, h_prev, dtype, sequence_length, time_len):
        wci, wcf, wco = self._peepholes(dtype)
        if sequence_length is None:
            max_seq_len = tf.cast(time_len, tf.int64)
        else:
            max_seq_len = tf.cast(tf.reduce_max(sequence_length), tf.int64)
        _, cs, _, _, _, _, h = gen_rnn_ops.block_lstm(
            seq_len_max=max_seq_len,
            x=inputs,
            cs_prev=cs_prev,
            h_prev=h_prev,
            w=self._kernel,
            wci=wci,
            wcf=wcf,
            wco=wco,
            b=self._bias,
            forget_bias=self._forget_bias,
            cell_clip=self._cell_clip,
            use_peephole=self._use_peephole,
        )
        return cs, h


def _at_steps(data, steps, batch_size):
    """``out[i] = data[steps[i], i]``."""
    return tf.gather_nd(data, tf.stack([steps, tf.range(batch_size)], axis=1))


class FusedRNNCellAdaptor:
    """An ordinary RNN cell run over a whole sequence, as a fused cell is."""

    def __init__(self, cell, use_dynamic_rnn=False):
        self._cell = cell
        self._use_dynamic_rnn = use_dynamic_rnn

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        is_list = isinstance(inputs, list)
        if self._use_dynamic_rnn:
            if is_list:
                inputs = tf.stack(inputs)
            outputs, state = tf.compat.v1.nn.dynamic_rnn(
                self._cell,
                inputs,
                sequence_length=sequence_length,
                initial_state=initial_state,
                dtype=dtype,
                time_major=True,
                scope=scope,
            )
            return (tf.unstack(outputs) if is_list else outputs), state
        if not is_list:
            inputs = tf.unstack(inputs)
        outputs, state = tf.compat.v1.nn.static_rnn(
            self._cell,
            inputs,
            initial_state=initial_state,
            dtype=dtype,
            sequence_length=sequence_length,
            scope=scope,
        )
        return (outputs if is_list else tf.stack(outputs)), state


class TimeReversedFusedRNN:
    """A fused cell run from the end of each sequence to its start."""

    def __init__(self, cell):
        self._cell = cell

    @staticmethod
    def _reverse(sequence, lengths):
        if isinstance(sequence, list):
            return list(reversed(sequence))
        if lengths is None:
            return tf.reverse(sequence, [0])
        return tf.reverse_sequence(sequence, lengths, 0, 1)

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        inputs = self._reverse(inputs, sequence_length)
        outputs, state = self._cell(
            inputs,
            initial_state=initial_state,
            dtype=dtype,
            sequence_length=sequence_length,
            scope=scope,
        )
        return self._reverse(outputs, sequence_length), state


def stack_bidirectional_dynamic_rnn(
    cells_fw,
    cells_bw,
    inputs,
    initial_states_fw=None,
    initial_states_bw=None,
    dtype=None,
    sequence_length=None,
    parallel_iterations=None,
    time_major=False,
    scope=None,
    swap_memory=False,
):
    """Bidirectional layers stacked, each layer's outputs (forward and backward
    concatenated) the next one's inputs: ``(outputs, states_fw, states_bw)``."""
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list):
        raise ValueError("cells_fw must be a list of RNNCells (one per layer).")
    if not isinstance(cells_bw, list):
        raise ValueError("cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for states, cells, direction in (
        (initial_states_fw, cells_fw, "fw"),
        (initial_states_bw, cells_bw, "bw"),
    ):
        if states is not None and (not isinstance(states, list) or len(states) != len(cells)):
            raise ValueError(
                f"initial_states_{direction} must be a list of state tensors (one per layer)."
            )
    states_fw, states_bw = [], []
    prev_layer = inputs
    with tf.compat.v1.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw, strict=True)):
            initial_state_fw = initial_states_fw[i] if initial_states_fw else None
            initial_state_bw = initial_states_bw[i] if initial_states_bw else None
            with tf.compat.v1.variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = tf.compat.v1.nn.bidirectional_dynamic_rnn(
                    cell_fw,
                    cell_bw,
                    prev_layer,
                    initial_state_fw=initial_state_fw,
                    initial_state_bw=initial_state_bw,
                    sequence_length=sequence_length,
                    parallel_iterations=parallel_iterations,
                    dtype=dtype,
                    swap_memory=swap_memory,
                    time_major=time_major,
                )
                prev_layer = tf.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)

"""``tf.contrib.rnn`` for the legacy side, from TF 1.15's
``contrib/rnn/python/ops/lstm_ops.py`` and ``fused_rnn_cell.py``: the fused LSTM
(one ``BlockLSTM`` kernel over the sequence, a ``tf.layers`` layer with
``kernel`` and ``bias``), the time-reversed wrapper, and TF 1.15's re-exports of
the core cells (``tensorflow.python.ops.rnn_cell``) and stacked bidirectional
RNNs (``contrib/rnn/python/ops/rnn.py``)."""

import tensorflow as tf
from tensorflow.python.framework import dtypes, ops, tensor_shape
from tensorflow.python.ops import (
    array_ops,
    array_ops_stack,
    gen_rnn_ops,
    init_ops,
    math_ops,
    rnn,
    variable_scope,
)

# TF 1.15's tf.contrib.rnn re-exported the core cells
_CORE_CELLS = (
    "BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell",
    "LSTMCell", "LSTMStateTuple", "MultiRNNCell", "RNNCell", "ResidualWrapper",
)  # fmt: skip


def core_cells() -> dict:
    return {name: getattr(tf.compat.v1.nn.rnn_cell, name) for name in _CORE_CELLS}


class LSTMBlockFusedCell(tf.compat.v1.layers.Layer):
    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 reuse=None, dtype=None, name="lstm_fused_cell"):  # fmt: skip
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
        input_size = tensor_shape.dimension_value(input_shape[2])
        self._kernel = self.add_variable(
            "kernel", [input_size + self._num_units, self._num_units * 4]
        )
        self._bias = self.add_variable("bias", [self._num_units * 4],
                                       initializer=init_ops.constant_initializer(0.0))  # fmt: skip
        if self._use_peephole:
            self._w_i_diag = self.add_variable("w_i_diag", [self._num_units])
            self._w_f_diag = self.add_variable("w_f_diag", [self._num_units])
            self._w_o_diag = self.add_variable("w_o_diag", [self._num_units])
        self.built = True

    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        is_list = isinstance(inputs, list)
        if is_list:
            inputs = array_ops_stack.stack(inputs)
        inputs_shape = inputs.get_shape().with_rank(3)
        if not inputs_shape[2]:
            raise ValueError(f"Expecting inputs_shape[2] to be set: {inputs_shape}")
        batch_size = tensor_shape.dimension_value(inputs_shape[1])
        if batch_size is None:
            batch_size = array_ops.shape(inputs)[1]
        time_len = tensor_shape.dimension_value(inputs_shape[0])
        if time_len is None:
            time_len = array_ops.shape(inputs)[0]
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            z = array_ops.zeros(array_ops_stack.stack([batch_size, self.num_units]), dtype=dtype)
            initial_state = z, z
        else:
            if len(initial_state) != 2:
                raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
            if dtype is None:
                dtype = initial_state[0].dtype
        if sequence_length is not None:
            sequence_length = ops.convert_to_tensor(sequence_length)
        initial_cell_state, initial_output = initial_state
        cell_states, outputs = self._call_cell(
            inputs, initial_cell_state, initial_output, dtype, sequence_length
        )
        if sequence_length is not None:
            mask = array_ops.transpose(
                array_ops.sequence_mask(sequence_length, time_len, dtype=dtype), [1, 0]
            )
            mask = array_ops.tile(array_ops.expand_dims(mask, [-1]), [1, 1, self.num_units])
            outputs *= mask
            mod_cell_states = array_ops.concat(
                [array_ops.expand_dims(initial_cell_state, [0]), cell_states], 0
            )
            mod_outputs = array_ops.concat([array_ops.expand_dims(initial_output, [0]), outputs], 0)
            final_cell_state = self._gather_states(mod_cell_states, sequence_length, batch_size)
            final_output = self._gather_states(mod_outputs, sequence_length, batch_size)
        else:
            final_cell_state = cell_states[-1]
            final_output = outputs[-1]
        if is_list:
            outputs = array_ops_stack.unstack(outputs)
        return outputs, tf.compat.v1.nn.rnn_cell.LSTMStateTuple(final_cell_state, final_output)

    def _gather_states(self, data, indices, batch_size):
        return array_ops.gather_nd(
            data, array_ops_stack.stack([indices, math_ops.range(batch_size)], axis=1)
        )

    def _call_cell(self, inputs, initial_cell_state=None, initial_output=None, dtype=None,
                   sequence_length=None):  # fmt: skip
        inputs_shape = inputs.get_shape().with_rank(3)
        time_len = tensor_shape.dimension_value(inputs_shape[0])
        if time_len is None:
            time_len = array_ops.shape(inputs)[0]
        if self._use_peephole:
            wci, wco, wcf = self._w_i_diag, self._w_o_diag, self._w_f_diag
        else:
            wci = wcf = wco = array_ops.zeros([self._num_units], dtype=dtype)
        if sequence_length is None:
            max_seq_len = math_ops.cast(time_len, dtypes.int64)
        else:
            max_seq_len = math_ops.cast(math_ops.reduce_max(sequence_length), dtypes.int64)
        _, cs, _, _, _, _, h = gen_rnn_ops.block_lstm(
            seq_len_max=max_seq_len, x=inputs, cs_prev=initial_cell_state, h_prev=initial_output,
            w=self._kernel, wci=wci, wcf=wcf, wco=wco, b=self._bias,
            forget_bias=self._forget_bias, cell_clip=self._cell_clip,
            use_peephole=self._use_peephole)  # fmt: skip
        return cs, h


class TimeReversedFusedRNN:
    def __init__(self, cell):
        self._cell = cell

    def _reverse(self, t, lengths):
        if isinstance(t, list):
            return list(reversed(t))
        if lengths is None:
            return array_ops.reverse_v2(t, [0])
        return array_ops.reverse_sequence(t, lengths, 0, 1)

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        inputs = self._reverse(inputs, sequence_length)
        outputs, state = self._cell(inputs, initial_state=initial_state, dtype=dtype,
                                    sequence_length=sequence_length, scope=scope)  # fmt: skip
        outputs = self._reverse(outputs, sequence_length)
        return outputs, state


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                                    initial_states_bw=None, dtype=None, sequence_length=None,
                                    parallel_iterations=None, time_major=False, scope=None,
                                    swap_memory=False):  # fmt: skip
    if not cells_fw or not cells_bw or len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    states_fw, states_bw = [], []
    prev_layer = inputs
    with variable_scope.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw, strict=True)):
            initial_state_fw = initial_states_fw[i] if initial_states_fw else None
            initial_state_bw = initial_states_bw[i] if initial_states_bw else None
            with variable_scope.variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = rnn.bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, prev_layer, initial_state_fw=initial_state_fw,
                    initial_state_bw=initial_state_bw, sequence_length=sequence_length,
                    parallel_iterations=parallel_iterations, dtype=dtype,
                    swap_memory=swap_memory, time_major=time_major)  # fmt: skip
                prev_layer = array_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)

"""``tf.contrib.rnn`` for the legacy side, from TF 1.15's
``contrib/rnn/python/ops/lstm_ops.py``, ``rnn_cell.py`` and ``fused_rnn_cell.py``:
the one-step ``LSTMBlockCell`` (with the gradient contrib registered) and
``LayerNormBasicLSTMCell``, ``gru_ops.py``'s ``GRUBlockCell`` and ``GRUBlockCellV2``
(with the gradient contrib registered), the fused LSTM
(one ``BlockLSTM`` kernel over the sequence, a ``tf.layers`` layer with
``kernel`` and ``bias``), the time-reversed wrapper, and TF 1.15's re-exports of
the core cells (``tensorflow.python.ops.rnn_cell``) and stacked bidirectional
RNNs (``contrib/rnn/python/ops/rnn.py``)."""

import contrib_layers
import tensorflow as tf
from tensorflow.python.framework import dtypes, ops, tensor_shape
from tensorflow.python.ops import (
    array_ops,
    array_ops_stack,
    gen_nn_ops,
    gen_rnn_ops,
    init_ops,
    math_ops,
    nn_ops,
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


class LSTMBlockCell(tf.compat.v1.nn.rnn_cell.RNNCell):
    """TF 1.15's ``lstm_ops.LSTMBlockCell``: a ``LayerRNNCell`` over the
    ``LSTMBlockCell`` kernel."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 dtype=None, reuse=None, name="lstm_cell"):  # fmt: skip
        super().__init__(_reuse=reuse, dtype=dtype, name=name)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._use_peephole = use_peephole
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self.input_spec = tf.compat.v1.layers.InputSpec(ndim=2)

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        # rnn_cell_impl.LayerRNNCell.__call__
        return tf.compat.v1.layers.Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)

    @property
    def state_size(self):
        return tf.compat.v1.nn.rnn_cell.LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        if not tensor_shape.dimension_value(inputs_shape[1]):
            raise ValueError(f"Expecting inputs_shape[1] to be set: {inputs_shape}")
        input_size = tensor_shape.dimension_value(inputs_shape[1])
        self._kernel = self.add_variable("kernel", [input_size + self._num_units,
                                                    self._num_units * 4])  # fmt: skip
        self._bias = self.add_variable("bias", [self._num_units * 4],
                                       initializer=init_ops.constant_initializer(0.0))  # fmt: skip
        if self._use_peephole:
            self._w_i_diag = self.add_variable("w_i_diag", [self._num_units])
            self._w_f_diag = self.add_variable("w_f_diag", [self._num_units])
            self._w_o_diag = self.add_variable("w_o_diag", [self._num_units])
        self.built = True

    def call(self, inputs, state):
        if len(state) != 2:
            raise ValueError("Expecting state to be a tuple with length 2.")
        if self._use_peephole:
            wci, wcf, wco = self._w_i_diag, self._w_f_diag, self._w_o_diag
        else:
            wci = wcf = wco = array_ops.zeros([self._num_units], dtype=self.dtype)
        (cs_prev, h_prev) = state
        (_, cs, _, _, _, _, h) = gen_rnn_ops.lstm_block_cell(
            x=inputs, cs_prev=cs_prev, h_prev=h_prev, w=self._kernel, wci=wci, wcf=wcf,
            wco=wco, b=self._bias, forget_bias=self._forget_bias, cell_clip=self._cell_clip,
            use_peephole=self._use_peephole)  # fmt: skip
        return h, tf.compat.v1.nn.rnn_cell.LSTMStateTuple(cs, h)


@ops.RegisterGradient("LSTMBlockCell")
def _LSTMBlockCellGrad(op, *grad):
    """lstm_ops._LSTMBlockCellGrad (TF 2.15, like TF 2.21, has no gradient for it)."""
    (x, cs_prev, h_prev, w, wci, wcf, wco, b) = op.inputs
    (i, cs, f, o, ci, co, _) = op.outputs
    (_, cs_grad, _, _, _, _, h_grad) = grad
    batch_size = tensor_shape.dimension_value(x.get_shape().with_rank(2)[0])
    if batch_size is None:
        batch_size = -1
    input_size = tensor_shape.dimension_value(x.get_shape().with_rank(2)[1])
    cell_size = tensor_shape.dimension_value(cs_prev.get_shape().with_rank(2)[1])
    (cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad) = gen_rnn_ops.lstm_block_cell_grad(
        x=x, cs_prev=cs_prev, h_prev=h_prev, w=w, wci=wci, wcf=wcf, wco=wco, b=b, i=i, cs=cs,
        f=f, o=o, ci=ci, co=co, cs_grad=cs_grad, h_grad=h_grad,
        use_peephole=op.get_attr("use_peephole"))  # fmt: skip
    xh_grad = math_ops.matmul(dicfo, w, transpose_b=True)
    x_grad = array_ops.slice(xh_grad, (0, 0), (batch_size, input_size))
    h_prev_grad = array_ops.slice(xh_grad, (0, input_size), (batch_size, cell_size))
    xh = array_ops.concat([x, h_prev], 1)
    w_grad = math_ops.matmul(xh, dicfo, transpose_a=True)
    b_grad = gen_nn_ops.bias_add_grad(dicfo)
    return (x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad)


class GRUBlockCell(tf.compat.v1.nn.rnn_cell.RNNCell):
    """TF 1.15's ``gru_ops.GRUBlockCell``: a ``LayerRNNCell`` over the
    ``GRUBlockCell`` kernel."""

    def __init__(self, num_units=None, reuse=None, name="gru_cell", cell_size=None):
        super().__init__(_reuse=reuse, name=name)
        if (cell_size is None) == (num_units is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        if num_units is None:
            num_units = cell_size
        self._cell_size = num_units
        self.input_spec = tf.compat.v1.layers.InputSpec(ndim=2)

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        # rnn_cell_impl.LayerRNNCell.__call__
        return tf.compat.v1.layers.Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)

    @property
    def state_size(self):
        return self._cell_size

    @property
    def output_size(self):
        return self._cell_size

    def build(self, input_shape):
        input_size = tensor_shape.dimension_value(input_shape[1])
        if input_size is None:
            raise ValueError("Expecting input_size to be set.")
        self._gate_kernel = self.add_variable(
            "w_ru", [input_size + self._cell_size, self._cell_size * 2])  # fmt: skip
        self._gate_bias = self.add_variable(
            "b_ru", [self._cell_size * 2], initializer=init_ops.constant_initializer(1.0))  # fmt: skip
        self._candidate_kernel = self.add_variable(
            "w_c", [input_size + self._cell_size, self._cell_size])  # fmt: skip
        self._candidate_bias = self.add_variable(
            "b_c", [self._cell_size], initializer=init_ops.constant_initializer(0.0))  # fmt: skip
        self.built = True

    def call(self, inputs, h_prev):
        cell_size = h_prev.get_shape().with_rank(2)[1]
        if cell_size != self._cell_size:
            raise ValueError(
                f"Shape of h_prev[1] incorrect: cell_size {self._cell_size} vs {cell_size}")  # fmt: skip
        (_, _, _, new_h) = gen_rnn_ops.gru_block_cell(
            x=inputs, h_prev=h_prev, w_ru=self._gate_kernel, b_ru=self._gate_bias,
            w_c=self._candidate_kernel, b_c=self._candidate_bias)  # fmt: skip
        return new_h, new_h


class GRUBlockCellV2(GRUBlockCell):
    """TF 1.15's ``gru_ops.GRUBlockCellV2``: only its variables' names differ."""

    def build(self, input_shape):
        input_size = tensor_shape.dimension_value(input_shape[1])
        if input_size is None:
            raise ValueError("Expecting input_size to be set.")
        self._gate_kernel = self.add_variable(
            "gates/kernel", [input_size + self._cell_size, self._cell_size * 2])  # fmt: skip
        self._gate_bias = self.add_variable(
            "gates/bias", [self._cell_size * 2],
            initializer=init_ops.constant_initializer(1.0))  # fmt: skip
        self._candidate_kernel = self.add_variable(
            "candidate/kernel", [input_size + self._cell_size, self._cell_size])  # fmt: skip
        self._candidate_bias = self.add_variable(
            "candidate/bias", [self._cell_size],
            initializer=init_ops.constant_initializer(0.0))  # fmt: skip
        self.built = True


@ops.RegisterGradient("GRUBlockCell")
def _GRUBlockCellGrad(op, *grad):
    """gru_ops._GRUBlockCellGrad (TF 2.15, like TF 2.21, has no gradient for it)."""
    (x, h_prev, w_ru, w_c, b_ru, b_c) = op.inputs
    (r, u, c, _) = op.outputs
    (_, _, _, d_h) = grad
    (d_x, d_h_prev, d_c_bar, d_r_bar_u_bar) = gen_rnn_ops.gru_block_cell_grad(
        x=x, h_prev=h_prev, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c, r=r, u=u, c=c, d_h=d_h)  # fmt: skip
    x_h_prev = array_ops.concat([x, h_prev], 1)
    d_w_ru = math_ops.matmul(x_h_prev, d_r_bar_u_bar, transpose_a=True)
    d_b_ru = gen_nn_ops.bias_add_grad(d_r_bar_u_bar)
    x_h_prevr = array_ops.concat([x, h_prev * r], 1)
    d_w_c = math_ops.matmul(x_h_prevr, d_c_bar, transpose_a=True)
    d_b_c = gen_nn_ops.bias_add_grad(d_c_bar)
    return d_x, d_h_prev, d_w_ru, d_w_c, d_b_ru, d_b_c


class LayerNormBasicLSTMCell(tf.compat.v1.nn.rnn_cell.RNNCell):
    """TF 1.15's ``contrib/rnn/python/ops/rnn_cell.py`` LayerNormBasicLSTMCell, with
    contrib.layers' layer_norm (migrator/prove/side_process/standins/contrib_layers.py)."""

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=math_ops.tanh,
                 layer_norm=True, norm_gain=1.0, norm_shift=0.0, dropout_keep_prob=1.0,
                 dropout_prob_seed=None, reuse=None):  # fmt: skip
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._activation = activation
        self._forget_bias = forget_bias
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift
        self._reuse = reuse

    @property
    def state_size(self):
        return tf.compat.v1.nn.rnn_cell.LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def _norm(self, inp, scope, dtype=dtypes.float32):
        shape = inp.get_shape()[-1:]
        with variable_scope.variable_scope(scope):
            variable_scope.get_variable("gamma", shape=shape, dtype=dtype,
                                        initializer=init_ops.constant_initializer(self._norm_gain))  # fmt: skip
            variable_scope.get_variable("beta", shape=shape, dtype=dtype,
                                        initializer=init_ops.constant_initializer(self._norm_shift))  # fmt: skip
        return contrib_layers.layer_norm(inp, reuse=True, scope=scope)

    def _linear(self, args):
        out_size = 4 * self._num_units
        proj_size = args.get_shape()[-1]
        weights = variable_scope.get_variable("kernel", [proj_size, out_size], dtype=args.dtype)
        out = math_ops.matmul(args, weights)
        if not self._layer_norm:
            bias = variable_scope.get_variable("bias", [out_size], dtype=args.dtype)
            out = nn_ops.bias_add(out, bias)
        return out

    def call(self, inputs, state):
        c, h = state
        args = array_ops.concat([inputs, h], 1)
        concat = self._linear(args)
        dtype = args.dtype
        i, j, f, o = array_ops.split(value=concat, num_or_size_splits=4, axis=1)
        if self._layer_norm:
            i = self._norm(i, "input", dtype=dtype)
            j = self._norm(j, "transform", dtype=dtype)
            f = self._norm(f, "forget", dtype=dtype)
            o = self._norm(o, "output", dtype=dtype)
        g = self._activation(j)
        if (not isinstance(self._keep_prob, float)) or self._keep_prob < 1:
            g = tf.compat.v1.nn.dropout(g, self._keep_prob, seed=self._seed)
        new_c = c * math_ops.sigmoid(f + self._forget_bias) + math_ops.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state", dtype=dtype)
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        return new_h, tf.compat.v1.nn.rnn_cell.LSTMStateTuple(new_c, new_h)

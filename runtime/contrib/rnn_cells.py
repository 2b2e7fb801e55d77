"""``tf.contrib.rnn``'s step-at-a-time LSTM and GRU cells, as TF 1.15 defined them.

``LSTMBlockCell`` runs one LSTM step in TensorFlow's ``LSTMBlockCell`` kernel,
which TF 2 still ships without its gradient (TF 1.15's contrib registered it; so
does this module, from the ``LSTMBlockCellGrad`` kernel). Its variables are those
of the fused cell: ``<scope>/lstm_cell/kernel`` (``[input + units, 4 * units]``,
the variable scope's default initializer), ``.../bias`` (zeros) and, with
peepholes, ``w_i_diag``/``w_f_diag``/``w_o_diag``; gates in the order
``i, c, f, o``.

``LayerNormBasicLSTMCell`` is a basic LSTM (gates ``i, j, f, o`` from one
``kernel``, no bias with layer normalization) whose gates and new cell state are
layer-normalized (``gamma``/``beta`` under ``input``, ``transform``, ``forget``,
``output`` and ``state``), with recurrent dropout on the candidate ``g``.

``GRUBlockCell`` (and ``GRUBlockCellV2``, the same cell with other variable
names) runs one GRU step in TensorFlow's ``GRUBlockCell`` kernel, whose gradient
is registered here from ``GRUBlockCellGrad`` as TF 1.15's contrib did.

All take their variables under the names TF 1.15 gave them, so its checkpoints
restore.
"""

from __future__ import annotations

import tensorflow as tf
import tf_slim
from tensorflow.python.framework import ops
from tensorflow.python.ops import gen_rnn_ops

LSTMStateTuple = tf.compat.v1.nn.rnn_cell.LSTMStateTuple


class BlockLSTMWeights:
    """The variables of TF 1.15's block LSTM layers (the fused cell and the
    one-step cell), for a layer with ``_num_units`` and ``_use_peephole``."""

    def _add_block_lstm_weights(self, input_size: int) -> None:
        units = self._num_units
        self._kernel = self.add_weight("kernel", [input_size + units, units * 4])
        self._bias = self.add_weight(
            "bias", [units * 4], initializer=tf.compat.v1.constant_initializer(0.0)
        )
        if self._use_peephole:
            self._w_i_diag = self.add_weight("w_i_diag", [units])
            self._w_f_diag = self.add_weight("w_f_diag", [units])
            self._w_o_diag = self.add_weight("w_o_diag", [units])

    def _peepholes(self, dtype) -> tuple:
        """``(wci, wcf, wco)``: the peephole weights, or zeros without peepholes."""
        if self._use_peephole:
            return self._w_i_diag, self._w_f_diag, self._w_o_diag
        zeros = tf.zeros([self._num_units], dtype=dtype)
        return zeros, zeros, zeros


class LayerRNNCell(tf.compat.v1.nn.rnn_cell.RNNCell):
    """TF 1.15's ``LayerRNNCell``: a cell whose variables live in the layer's own
    scope (called as a ``tf.compat.v1.layers.Layer``, not through the RNN cell's
    custom getter)."""

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        return tf.compat.v1.layers.Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)


class LSTMBlockCell(BlockLSTMWeights, LayerRNNCell):
    """One LSTM step in one kernel (TF 1.15's ``LSTMBlockCell``, a ``LayerRNNCell``:
    its variables live in the layer's own scope, ``lstm_cell`` by default)."""

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        cell_clip=None,
        use_peephole=False,
        dtype=None,
        reuse=None,
        name="lstm_cell",
    ):
        super().__init__(_reuse=reuse, dtype=dtype, name=name)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._use_peephole = use_peephole
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self.input_spec = tf.compat.v1.layers.InputSpec(ndim=2)

    @property
    def state_size(self):
        return LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        input_size = tf.compat.v1.dimension_value(inputs_shape[1])
        if not input_size:
            raise ValueError(f"Expecting inputs_shape[1] to be set: {inputs_shape}")
        self._add_block_lstm_weights(input_size)
        self.built = True

    def call(self, inputs, state):
        if len(state) != 2:
            raise ValueError("Expecting state to be a tuple with length 2.")
        wci, wcf, wco = self._peepholes(self.dtype)
        cs_prev, h_prev = state
        _, cs, _, _, _, _, h = gen_rnn_ops.lstm_block_cell(
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
        return h, LSTMStateTuple(cs, h)


def _lstm_block_cell_gradient(op, *grads):
    """The inputs' gradients of one ``LSTMBlockCell`` step: the kernel's own
    ``LSTMBlockCellGrad`` gives the gates' gradient (``dicfo``) and the cell
    state's and peepholes'; the rest follows from ``[x, h_prev] @ w + b``."""
    x, cs_prev, h_prev, w, wci, wcf, wco, b = op.inputs
    i, cs, f, o, ci, co, _ = op.outputs
    cs_grad, h_grad = grads[1], grads[6]
    input_size = tf.compat.v1.dimension_value(x.shape.with_rank(2)[1])
    cell_size = tf.compat.v1.dimension_value(cs_prev.shape.with_rank(2)[1])
    if input_size is None:
        raise ValueError("input_size from `x` should not be None.")
    if cell_size is None:
        raise ValueError("cell_size from `cs_prev` should not be None.")
    batch_size = tf.compat.v1.dimension_value(x.shape[0]) or -1
    cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad = gen_rnn_ops.lstm_block_cell_grad(
        x, cs_prev, h_prev, w, wci, wcf, wco, b, i, cs, f, o, ci, co, cs_grad, h_grad,
        use_peephole=op.get_attr("use_peephole"),
    )  # fmt: skip
    xh_grad = tf.matmul(dicfo, w, transpose_b=True)
    x_grad = tf.slice(xh_grad, (0, 0), (batch_size, input_size))
    h_prev_grad = tf.slice(xh_grad, (0, input_size), (batch_size, cell_size))
    w_grad = tf.matmul(tf.concat([x, h_prev], 1), dicfo, transpose_a=True)
    b_grad = tf.raw_ops.BiasAddGrad(out_backprop=dicfo)
    return x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad


class GRUBlockCell(LayerRNNCell):
    """One GRU step in one kernel (TF 1.15's ``GRUBlockCell``, a ``LayerRNNCell``
    in the layer's own scope, ``gru_cell`` by default): variables ``w_ru``
    (``[input + units, 2 * units]``, reset and update gates), ``b_ru`` (ones),
    ``w_c`` (``[input + units, units]``, the candidate) and ``b_c`` (zeros)."""

    _VARIABLE_NAMES = ("w_ru", "b_ru", "w_c", "b_c")

    def __init__(self, num_units=None, reuse=None, name="gru_cell", cell_size=None):
        super().__init__(_reuse=reuse, name=name)
        if (cell_size is None) == (num_units is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        self._cell_size = num_units if num_units is not None else cell_size
        self.input_spec = tf.compat.v1.layers.InputSpec(ndim=2)

    @property
    def state_size(self):
        return self._cell_size

    @property
    def output_size(self):
        return self._cell_size

    def build(self, input_shape):
        input_size = tf.compat.v1.dimension_value(input_shape[1])
        if input_size is None:
            raise ValueError("Expecting input_size to be set.")
        units = self._cell_size
        gates_kernel, gates_bias, candidate_kernel, candidate_bias = self._VARIABLE_NAMES
        self._gate_kernel = self.add_weight(gates_kernel, [input_size + units, 2 * units])
        self._gate_bias = self.add_weight(
            gates_bias, [2 * units], initializer=tf.compat.v1.constant_initializer(1.0)
        )
        self._candidate_kernel = self.add_weight(candidate_kernel, [input_size + units, units])
        self._candidate_bias = self.add_weight(
            candidate_bias, [units], initializer=tf.compat.v1.constant_initializer(0.0)
        )
        self.built = True

    def call(self, inputs, h_prev):
        cell_size = h_prev.shape.with_rank(2)[1]
        if cell_size != self._cell_size:
            raise ValueError(
                f"Shape of h_prev[1] incorrect: cell_size {self._cell_size} vs {cell_size}"
            )
        *_, new_h = gen_rnn_ops.gru_block_cell(
            x=inputs,
            h_prev=h_prev,
            w_ru=self._gate_kernel,
            w_c=self._candidate_kernel,
            b_ru=self._gate_bias,
            b_c=self._candidate_bias,
        )
        return new_h, new_h


class GRUBlockCellV2(GRUBlockCell):
    """TF 1.15's ``GRUBlockCellV2``: ``GRUBlockCell`` with the variable names of
    TF's own GRU cell (``gates/kernel``, ``gates/bias``, ``candidate/kernel``,
    ``candidate/bias``)."""

    _VARIABLE_NAMES = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")


def _gru_block_cell_gradient(op, *grads):
    """The inputs' gradients of one ``GRUBlockCell`` step: the kernel's own
    ``GRUBlockCellGrad`` gives the input's, the previous state's and the gates'
    pre-activation gradients; the weights' follow from ``[x, h_prev] @ w_ru + b_ru``
    and ``[x, r * h_prev] @ w_c + b_c``."""
    x, h_prev, w_ru, w_c, b_ru, b_c = op.inputs
    r, u, c, _ = op.outputs
    h_grad = grads[3]
    x_grad, h_prev_grad, c_bar_grad, r_bar_u_bar_grad = gen_rnn_ops.gru_block_cell_grad(
        x=x, h_prev=h_prev, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c, r=r, u=u, c=c, d_h=h_grad
    )
    w_ru_grad = tf.matmul(tf.concat([x, h_prev], 1), r_bar_u_bar_grad, transpose_a=True)
    b_ru_grad = tf.raw_ops.BiasAddGrad(out_backprop=r_bar_u_bar_grad)
    w_c_grad = tf.matmul(tf.concat([x, h_prev * r], 1), c_bar_grad, transpose_a=True)
    b_c_grad = tf.raw_ops.BiasAddGrad(out_backprop=c_bar_grad)
    return x_grad, h_prev_grad, w_ru_grad, w_c_grad, b_ru_grad, b_c_grad


def _register_gradient(op_type: str, gradient) -> None:
    """TF 1.15's contrib registered these; TF 2 ships the kernels without."""
    try:
        ops.gradient_registry.lookup(op_type)
    except LookupError:
        ops.RegisterGradient(op_type)(gradient)


_register_gradient("LSTMBlockCell", _lstm_block_cell_gradient)
_register_gradient("GRUBlockCell", _gru_block_cell_gradient)


class LayerNormBasicLSTMCell(tf.compat.v1.nn.rnn_cell.RNNCell):
    """A basic LSTM with layer normalization and recurrent dropout (Ba et al. 2016;
    Semeniuta et al. 2016), TF 1.15's contrib cell."""

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        input_size=None,
        activation=tf.tanh,
        layer_norm=True,
        norm_gain=1.0,
        norm_shift=0.0,
        dropout_keep_prob=1.0,
        dropout_prob_seed=None,
        reuse=None,
    ):
        super().__init__(_reuse=reuse)
        if input_size is not None:
            tf.compat.v1.logging.warn("%s: The input_size parameter is deprecated.", self)
        self._num_units = num_units
        self._activation = activation
        self._forget_bias = forget_bias
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift

    @property
    def state_size(self):
        return LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def _norm(self, value, scope, dtype):
        shape = value.shape[-1:]
        with tf.compat.v1.variable_scope(scope):
            tf.compat.v1.get_variable(
                "gamma",
                shape=shape,
                initializer=tf.compat.v1.constant_initializer(self._norm_gain),
                dtype=dtype,
            )
            tf.compat.v1.get_variable(
                "beta",
                shape=shape,
                initializer=tf.compat.v1.constant_initializer(self._norm_shift),
                dtype=dtype,
            )
        return tf_slim.layers.layer_norm(value, reuse=True, scope=scope)

    def _linear(self, args):
        out_size = 4 * self._num_units
        kernel = tf.compat.v1.get_variable("kernel", [args.shape[-1], out_size], dtype=args.dtype)
        out = tf.matmul(args, kernel)
        if not self._layer_norm:
            bias = tf.compat.v1.get_variable("bias", [out_size], dtype=args.dtype)
            out = tf.nn.bias_add(out, bias)
        return out

    def call(self, inputs, state):
        c, h = state
        args = tf.concat([inputs, h], 1)
        dtype = args.dtype
        i, j, f, o = tf.split(value=self._linear(args), num_or_size_splits=4, axis=1)
        if self._layer_norm:
            i = self._norm(i, "input", dtype)
            j = self._norm(j, "transform", dtype)
            f = self._norm(f, "forget", dtype)
            o = self._norm(o, "output", dtype)
        g = self._activation(j)
        if not isinstance(self._keep_prob, float) or self._keep_prob < 1:
            g = tf.compat.v1.nn.dropout(g, keep_prob=self._keep_prob, seed=self._seed)
        new_c = c * tf.sigmoid(f + self._forget_bias) + tf.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state", dtype)
        new_h = self._activation(new_c) * tf.sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)

"""Each kernel of migrator/prove/kernel_changes.py's KERNEL_CHANGES on fixed random inputs,
on this interpreter's TensorFlow: ``python kernel_outputs.py OUT.npz``.

The ops run in a Session on placeholders, one kernel per run, so that nothing else
is fused with it (tests/equivalence/test_kernel_changes.py compares the outputs of
TF 2.15 and 2.21)."""

import sys

import numpy as np
import tensorflow as tf

_RANDOM = np.random.RandomState(0)
_VALUES = _RANDOM.normal(scale=3.0, size=(64, 256)).astype(np.float32)
_POSITIVE = np.abs(_VALUES) + np.float32(0.01)
# Rows of 16, as the fixtures' classes and attention: oneDNN's softmax of such rows
# gives the same bits on both versions (of rows of 64 and more, not), Eigen's not
_SOFTMAX_ROWS = _VALUES.reshape(-1, 16)
# One channel, as the CNN fixture's images: oneDNN's convolution of several
# channels gives the same bits on both versions. Fused with its bias and relu, as
# Grappler runs a model's convolution: oneDNN's fused kernel changed with its AVX2
# and its AVX-512 code (its plain convolution, with its AVX-512 code only).
_IMAGES = _RANDOM.normal(size=(24, 8, 8, 1)).astype(np.float32)
_FILTERS = _RANDOM.normal(size=(3, 3, 1, 8)).astype(np.float32)
_BIASES = _RANDOM.normal(size=(8,)).astype(np.float32)

# A fused LSTM over a sequence (tf.contrib.rnn.LSTMBlockFusedCell): time-major
# inputs, the initial cell state and output, weights, three zero peephole
# vectors and the bias; its output h
_LSTM_INPUTS = _RANDOM.normal(size=(6, 8, 10)).astype(np.float32)
_LSTM_STATE = _RANDOM.normal(scale=0.5, size=(2, 8, 12)).astype(np.float32)
_LSTM_WEIGHTS = _RANDOM.normal(scale=0.3, size=(22, 48)).astype(np.float32)
_LSTM_BIAS = _RANDOM.normal(scale=0.1, size=(48,)).astype(np.float32)


def _block_lstm(inputs):
    from tensorflow.python.ops import gen_rnn_ops

    zeros = tf.zeros([12])
    return gen_rnn_ops.block_lstm(
        seq_len_max=tf.constant(6, tf.int64),
        x=inputs,
        cs_prev=tf.constant(_LSTM_STATE[0]),
        h_prev=tf.constant(_LSTM_STATE[1]),
        w=tf.constant(_LSTM_WEIGHTS),
        wci=zeros,
        wcf=zeros,
        wco=zeros,
        b=tf.constant(_LSTM_BIAS),
        forget_bias=1.0,
        cell_clip=-1.0,
        use_peephole=False,
    ).h


# One GRU step (tf.contrib.rnn.GRUBlockCell): inputs, the previous state, the
# gates' and the candidate's weights (its gradient's kernel, GRUBlockCellGrad,
# gives the same bits on both versions)
_GRU_INPUTS = _RANDOM.normal(size=(16, 6)).astype(np.float32)
_GRU_STATE = _RANDOM.normal(scale=0.5, size=(16, 8)).astype(np.float32)
_GRU_GATES_KERNEL = _RANDOM.normal(scale=0.3, size=(14, 16)).astype(np.float32)
_GRU_CANDIDATE_KERNEL = _RANDOM.normal(scale=0.3, size=(14, 8)).astype(np.float32)


def _gru_block_cell(inputs):
    return tf.raw_ops.GRUBlockCell(
        x=inputs,
        h_prev=tf.constant(_GRU_STATE),
        w_ru=tf.constant(_GRU_GATES_KERNEL),
        w_c=tf.constant(_GRU_CANDIDATE_KERNEL),
        b_ru=tf.ones([16]),
        b_c=tf.zeros([8]),
    ).h


def _fused_convolution(images):
    convolution = tf.nn.conv2d(images, tf.constant(_FILTERS), strides=1, padding="SAME")
    return tf.nn.relu(tf.nn.bias_add(convolution, tf.constant(_BIASES)))


KERNELS = {
    "Tanh": (tf.math.tanh, _VALUES),
    "Erf": (tf.math.erf, _VALUES),
    "Pow": (lambda x: tf.pow(x, 3.0), _VALUES),
    "Sigmoid": (tf.math.sigmoid, _VALUES),
    "Reciprocal": (tf.math.reciprocal, _POSITIVE),
    "Softmax": (tf.nn.softmax, _SOFTMAX_ROWS),
    "Conv2D": (_fused_convolution, _IMAGES),
    "BlockLSTM": (_block_lstm, _LSTM_INPUTS),
    "GRUBlockCell": (_gru_block_cell, _GRU_INPUTS),
}


def main(out_path: str) -> None:
    tf.compat.v1.disable_eager_execution()
    outputs = {}
    for name, (kernel, inputs) in KERNELS.items():
        with tf.Graph().as_default():
            placeholder = tf.compat.v1.placeholder(tf.float32, inputs.shape)
            output = kernel(placeholder)
            assert name in {op.type for op in tf.compat.v1.get_default_graph().get_operations()}
            with tf.compat.v1.Session() as session:
                outputs[name] = session.run(output, {placeholder: inputs})
    np.savez(out_path, **outputs)


if __name__ == "__main__":
    main(sys.argv[1])

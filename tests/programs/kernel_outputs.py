"""Each kernel of tests/helpers/kernel_drift.py's KERNEL_CHANGES on fixed random inputs,
on this interpreter's TensorFlow: ``python kernel_outputs.py OUT.npz``.

The ops run in a Session on placeholders, one op per run, so that nothing is fused
(tests/equivalence/test_kernel_changes.py compares the outputs of TF 2.15 and 2.21)."""

import sys

import numpy as np
import tensorflow as tf

_RANDOM = np.random.RandomState(0)
_VALUES = _RANDOM.normal(scale=3.0, size=(64, 256)).astype(np.float32)
_POSITIVE = np.abs(_VALUES) + np.float32(0.01)
# One channel, as the CNN fixture's images: oneDNN's convolution of several
# channels gives the same bits on both versions.
_IMAGES = _RANDOM.normal(size=(24, 8, 8, 1)).astype(np.float32)
_FILTERS = _RANDOM.normal(size=(3, 3, 1, 8)).astype(np.float32)

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


KERNELS = {
    "Tanh": (tf.math.tanh, _VALUES),
    "Erf": (tf.math.erf, _VALUES),
    "Sigmoid": (tf.math.sigmoid, _VALUES),
    "Reciprocal": (tf.math.reciprocal, _POSITIVE),
    "Conv2D": (
        lambda images: tf.nn.conv2d(images, tf.constant(_FILTERS), strides=1, padding="SAME"),
        _IMAGES,
    ),
    "BlockLSTM": (_block_lstm, _LSTM_INPUTS),
}


def main(out_path: str) -> None:
    tf.compat.v1.disable_eager_execution()
    # whether the CPU this runs on (emulated or not) has AVX-512, as numpy detects it
    features = getattr(np, "_core", getattr(np, "core", None))._multiarray_umath.__cpu_features__
    outputs = {"avx512": np.array(features["AVX512F"])}
    for name, (kernel, inputs) in KERNELS.items():
        with tf.Graph().as_default():
            placeholder = tf.compat.v1.placeholder(tf.float32, inputs.shape)
            output = kernel(placeholder)
            assert output.op.type == name, output.op.type
            with tf.compat.v1.Session() as session:
                outputs[name] = session.run(output, {placeholder: inputs})
    np.savez(out_path, **outputs)


if __name__ == "__main__":
    main(sys.argv[1])

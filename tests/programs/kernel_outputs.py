"""Each kernel of tests/kernel_drift.py's KERNEL_CHANGES on fixed random inputs,
on this interpreter's TensorFlow: ``python kernel_outputs.py OUT.npz``.

The ops run in a Session on placeholders, one op per run, so that nothing is fused
(tests/test_kernel_changes.py compares the outputs of TF 2.15 and 2.21)."""

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

KERNELS = {
    "Tanh": (tf.math.tanh, _VALUES),
    "Erf": (tf.math.erf, _VALUES),
    "Sigmoid": (tf.math.sigmoid, _VALUES),
    "Reciprocal": (tf.math.reciprocal, _POSITIVE),
    "Conv2D": (
        lambda images: tf.nn.conv2d(images, tf.constant(_FILTERS), strides=1, padding="SAME"),
        _IMAGES,
    ),
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

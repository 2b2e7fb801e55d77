"""Evaluates single TensorFlow kernels on fixed inputs and saves the results, so a
test can show which kernels give different bits on TF 2.15 and TF 2.21:
``python kernel_drift_probe.py OUT.npz``."""

import sys

import numpy as np
import tensorflow as tf

# At the sizes the projects use (a BERT attention block: batch x seq x hidden).
INPUT = np.random.RandomState(0).normal(size=(16, 16, 16)).astype(np.float32)
KERNELS = {
    "Tanh": tf.tanh,
    "Pow": lambda x: tf.pow(x, 3.0),
    "Reciprocal": tf.math.reciprocal,
    "Sigmoid": tf.math.sigmoid,
    # controls: kernels that give the same bits on both versions
    "Relu": tf.nn.relu,
    "MatMul": lambda x: tf.matmul(x, x, transpose_b=True),
}


def main() -> None:
    x = tf.constant(INPUT)
    np.savez(sys.argv[1], **{name: fn(x).numpy() for name, fn in KERNELS.items()})


if __name__ == "__main__":
    main()

"""TensorFlow 1.x's API on TensorFlow 2.15, for legacy programs written for TF 1.x,
where ``import tensorflow as tf`` meant TF 1's API (``tf.flags``, ``tf.layers``,
``tf.nn.dropout(x, keep_prob)``, shapes of ``Dimension`` objects).

TF 2.15's ``tf.compat.v1`` *is* TF 1.15's public API carried into TF 2 (the same
functions, TF 1 signatures and semantics): every name of it is put on the
``tensorflow`` module over the TF 2 name, and TF 1's behaviour is switched on
(``tf.compat.v1.disable_v2_behavior()``: TF 1's shapes, so ``x.shape[-1].value``
works, v1 initializers seeded by the graph seed, reference variables, v1 control
flow), as TF 1.15 ran every program. What TF 2.15's compat.v1 lacks (``tf.contrib``) comes from
``tensorflow_contrib.py``. With ``LEGACY_CONTROL_FLOW_V2`` set (the
``reference_control_flow_v2`` side), ``tf.cond`` and ``tf.while_loop`` build TF 2's
control flow instead, as the runtime's traced step does."""

import os

import tensorflow as tf


def install() -> None:
    v1 = tf.compat.v1
    for name in dir(v1):
        if not name.startswith("_") and name != "compat":
            setattr(tf, name, getattr(v1, name))
    v1.disable_v2_behavior()
    if os.environ.get("LEGACY_CONTROL_FLOW_V2"):
        v1.enable_control_flow_v2()

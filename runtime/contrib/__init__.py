"""Names of TF 1.15's ``tf.contrib`` that TensorFlow 2 has nowhere, with TF 1.15's
behaviour: what ``migrate`` rewrites those names to (``tf.contrib.learn.ModeKeys``
-> ``estimator_revival.contrib.learn.ModeKeys``). The rest of ``tf.contrib.layers``,
``.framework``, ``.metrics``, ``.losses`` and ``.slim`` go to ``tf_slim``, which is
that code, maintained outside TensorFlow."""

from estimator_revival.tf1 import tensorflow_setup

tensorflow_setup.prepare()

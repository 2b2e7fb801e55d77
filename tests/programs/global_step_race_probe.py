"""How often TF 1's Session reads the global step after the optimizer's increment
in the same run: ``python global_step_race_probe.py`` (TF 2.15).

The Estimator's hooks fetch the global step's read (``training_util.
_get_or_create_global_step_read``) in the same ``session.run`` as the train op,
and ``Optimizer.minimize(global_step=...)`` increments it with no dependency on
that read. Usually the read runs first; sometimes (9 of 20000 runs when measured)
it runs after the increment. SummarySaverHook then takes the step for one more
than it is and requests the next summary one step early
(tests/helpers/harness.py, :func:`summaries_without_step_races`).
"""

import tensorflow as tf
from tensorflow.python.training import training_util

RUNS = 20000

graph = tf.Graph()
with graph.as_default():
    global_step = tf.compat.v1.train.get_or_create_global_step()
    read = training_util._get_or_create_global_step_read()
    x = tf.compat.v1.get_variable("x", [64, 64])
    loss = tf.reduce_sum(tf.matmul(x, x))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(1e-9).minimize(
        loss, global_step=global_step
    )
    with tf.compat.v1.Session() as session:
        session.run(tf.compat.v1.global_variables_initializer())
        late = sum(session.run([train_op, read])[1] != step for step in range(RUNS))
print(f"reads after the increment: {late} of {RUNS}")

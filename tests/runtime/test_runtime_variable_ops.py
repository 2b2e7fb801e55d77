"""``variable.op`` in model_fn (runtime/tf1/variable_ops.py): TF 1 code names the
variables by their op, ``v.op.name``, as it did in the Estimator's graph, while
TensorFlow's own ``hasattr(v, "op")`` checks still see eager variables."""

import tensorflow as tf

from estimator_revival import estimator

SEEN = {}


def model_fn(features, labels, mode):
    with tf.compat.v1.variable_scope("tower"):
        kernel = tf.compat.v1.get_variable("kernel", [2, 1])
        bias = tf.compat.v1.get_variable("bias", [1], initializer=tf.compat.v1.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, kernel) + bias - labels))
    variables = tf.compat.v1.trainable_variables()
    SEEN["names"] = [v.op.name for v in variables]
    SEEN["types"] = {v.op.type for v in variables}
    decayed = [v for v in variables if v.op.name.endswith("/kernel")]
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    with tf.control_dependencies([kernel]):  # TensorFlow's own read of a variable's op
        train_op = optimizer.minimize(
            loss + 0.01 * tf.add_n([tf.reduce_sum(v) for v in decayed]),
            tf.compat.v1.train.get_global_step(),
        )
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    return tf.data.Dataset.from_tensors((tf.ones([1, 2]), tf.ones([1, 1]))).repeat(2)


def test_model_fn_names_variables_by_their_op_as_in_the_legacy_graph(tmp_path):
    est = estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn)
    assert SEEN["names"] == ["tower/kernel", "tower/bias"]
    assert SEEN["types"] == {"VarHandleOp"}
    assert est.get_variable_value("global_step") == 2

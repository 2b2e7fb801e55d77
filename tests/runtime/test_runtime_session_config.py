"""The Estimator's session config for the runtime's functions
(runtime/tf1/session_config.py): one pass of Grappler and soft placement, or the
RunConfig's; a call made inside another (train_and_evaluate's evaluation inside
training) leaves the outer call's options as they were, so the outer call's
functions first called afterwards are optimized as the ones before."""

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2
from tensorflow.python.eager import context

from estimator_revival.tf1 import session_config


def _active() -> tf.compat.v1.ConfigProto:
    serialized = context.context().function_call_options.config_proto_serialized
    return tf.compat.v1.ConfigProto.FromString(serialized)


def test_functions_get_the_estimators_graph_options():
    with session_config.estimator_graph_options():
        active = _active()
    assert active.graph_options.rewrite_options.meta_optimizer_iterations == (
        rewriter_config_pb2.RewriterConfig.ONE
    )
    assert active.allow_soft_placement


def test_a_call_inside_a_call_leaves_the_outer_options():
    outer = tf.compat.v1.ConfigProto(allow_soft_placement=False)
    outer.graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
    with session_config.estimator_graph_options(outer):
        before = _active()
        with session_config.estimator_graph_options():
            assert _active().allow_soft_placement
        assert _active() == before
        assert not before.allow_soft_placement
        assert session_config.placement_config().allow_soft_placement is False


def test_eager_ops_stay_soft_placed_whatever_the_session_config():
    hard = tf.compat.v1.ConfigProto(allow_soft_placement=False)
    with session_config.estimator_graph_options(hard), tf.device("/gpu:7"):  # no such device
        value = tf.constant(2.0) * 3.0
    assert float(value) == 6.0

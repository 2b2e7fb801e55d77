"""Graph optimization and placement settings for the traced steps, as
Estimator's Session had.

Estimator ran its graphs with ``meta_optimizer_iterations=ONE``
(``run_config.get_default_session_config``); ``tf.function`` defaults to more
Grappler passes, whose extra constant folding can reorder float arithmetic (e.g.
inside ``tf.nn.gelu``) and change results in the last bit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2
from tensorflow.python.eager import context


def session_config_or_default(session_config=None) -> tf.compat.v1.ConfigProto:
    """``RunConfig.session_config``, or the Estimator's default when None: soft
    placement (an op pinned to a device the machine lacks runs where it can) and
    one pass of Grappler."""
    if session_config is not None:
        return session_config
    config = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    config.graph_options.rewrite_options.meta_optimizer_iterations = (
        rewriter_config_pb2.RewriterConfig.ONE
    )
    return config


def placement_config() -> tf.compat.v1.ConfigProto:
    """For a Session the runtime runs part of model_fn's graph in: soft placement
    as the call's session config has it (under ``estimator_graph_options``), so
    that an op pinned to a device this machine lacks runs on what it has, or
    fails with the placer's error as the Estimator's session did."""
    active = tf.compat.v1.ConfigProto.FromString(
        context.context().function_call_options.config_proto_serialized
    )
    return tf.compat.v1.ConfigProto(allow_soft_placement=active.allow_soft_placement)


@contextlib.contextmanager
def estimator_graph_options(session_config=None) -> Iterator[None]:
    """While active, functions first called in this thread are optimized and
    placed with Estimator's graph options and soft placement, or those of
    ``RunConfig.session_config``.

    Eager ops meanwhile are soft-placed whatever the session config says: they
    are TF 2's own work for the program (a strategy's copy creates its
    collective ops' variables on the strategy's devices), which a TF 1 Session
    never ran; a program that switched v2 behaviour off before TensorFlow
    started would have them placed without soft placement."""
    eager = context.context()
    previous = eager.function_call_options
    previous_eager_soft = tf.config.get_soft_device_placement()
    tf.config.set_soft_device_placement(True)
    config = eager.config
    estimator_config = session_config_or_default(session_config)
    config.allow_soft_placement = estimator_config.allow_soft_placement
    config.graph_options.CopyFrom(estimator_config.graph_options)
    eager.function_call_options = context.FunctionCallOptions(
        executor_type=previous.executor_type, config_proto=config
    )
    try:
        yield
    finally:
        # in this order: setting soft placement drops the thread's call options
        tf.config.set_soft_device_placement(previous_eager_soft)
        eager.function_call_options = previous

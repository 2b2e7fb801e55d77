"""Graph optimization settings for the traced steps, as Estimator's Session had.

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


@contextlib.contextmanager
def estimator_graph_options(session_config=None) -> Iterator[None]:
    """While active, functions first called in this thread are optimized with
    Estimator's graph options, or those of ``RunConfig.session_config``."""
    eager = context.context()
    previous = eager.function_call_options
    config = eager.config
    config.allow_soft_placement = True
    config.graph_options.CopyFrom(session_config_or_default(session_config).graph_options)
    eager.function_call_options = context.FunctionCallOptions(
        executor_type=previous.executor_type, config_proto=config
    )
    try:
        yield
    finally:
        eager.function_call_options = previous

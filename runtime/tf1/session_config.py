"""Graph optimization settings for the traced steps, as Estimator's Session had.

Estimator ran its graphs with ``meta_optimizer_iterations=ONE``
(``run_config.get_default_session_config``); ``tf.function`` defaults to more
Grappler passes, whose extra constant folding can reorder float arithmetic (e.g.
inside ``tf.nn.gelu``) and change results in the last bit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tensorflow.core.protobuf import rewriter_config_pb2
from tensorflow.python.eager import context


@contextlib.contextmanager
def estimator_graph_options(session_config=None) -> Iterator[None]:
    """While active, functions first called in this thread are optimized with
    Estimator's graph options, or those of ``RunConfig.session_config``."""
    eager = context.context()
    previous = eager.function_call_options
    config = eager.config
    config.allow_soft_placement = True
    if session_config is not None:
        config.graph_options.CopyFrom(session_config.graph_options)
    else:
        config.graph_options.rewrite_options.meta_optimizer_iterations = (
            rewriter_config_pb2.RewriterConfig.ONE
        )
    eager.function_call_options = context.FunctionCallOptions(
        executor_type=previous.executor_type, config_proto=config
    )
    try:
        yield
    finally:
        eager.function_call_options = previous

"""tf-keras layers inside a traced step, computing what they computed in a TF1 graph.

tf-keras picks some code paths by ``executing_eagerly_outside_functions()``, which
is False in the graph Estimator built and True around a ``tf.function``. For fused
batch norm that choice changes the arithmetic: in a function the kernel updates
the moving averages itself (``exponential_avg_factor``), in a TF1 graph they were
``moving -= (moving - batch) * (1 - momentum)``, rounded differently in the last
bit. BatchNormalization also takes the graph path inside an XLA context, which is
what :func:`tf1_batch_norm_updates` makes it see while model_fn is traced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tf_keras.src.layers.normalization import batch_normalization


@contextlib.contextmanager
def tf1_batch_norm_updates() -> Iterator[None]:
    original = batch_normalization.get_enclosing_xla_context
    batch_normalization.get_enclosing_xla_context = _moving_averages_as_in_tf1_graphs
    try:
        yield
    finally:
        batch_normalization.get_enclosing_xla_context = original


def _moving_averages_as_in_tf1_graphs():
    """Read by BatchNormalization only as ``... is None``: not None selects the
    TF1-graph moving-average updates."""
    return True

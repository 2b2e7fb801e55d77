"""``tf.estimator.experimental``: what the runtime has of it (``migrate`` rewrites
these here; the namespace's other names stay reported as MIG101)."""

from runtime.canned.sdca import LinearSDCA

__all__ = ["LinearSDCA"]

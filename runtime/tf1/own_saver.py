"""A Scaffold's saver with code of its own, called as the Estimator's session called it.

With ``Scaffold(saver=...)`` the Estimator saved and restored through that
object: its session manager restored a checkpoint with
``saver.restore(session, path)`` (then, when training,
``saver.recover_last_checkpoints(paths)``), and its CheckpointSaverHook saved with
``saver.save(session, prefix, global_step=step)``. A plain
``tf.compat.v1.train.Saver`` is reproduced from its settings
(session_setup.SaverSettings): the runtime writes the same files itself. A saver
with code of its own (a subclass, or a wrapper that records or adds to what it
saves) cannot be reproduced, so it is called: in a session over model_fn's
discovery graph, whose variables hold the store's values while it saves, and
hand theirs to the store after it restored. No op is added to that graph.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import tensorflow as tf
from tensorflow.python.training import saver as saver_lib
from tensorflow.python.util import object_identity

from estimator_revival.tf1 import session_setup

if TYPE_CHECKING:  # the store's module imports discovery, which imports this one
    from estimator_revival.tf1.variable_store import VariableStore


class OwnSaver:
    def __init__(self, saver, graph: tf.Graph) -> None:
        """``saver``: the Scaffold's, built in ``graph`` (model_fn's discovery graph)."""
        self.saver = saver
        self._graph = graph
        self._variables = {
            variable.op.name: variable
            for variable in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
        }

    @classmethod
    def of(cls, saver, graph: tf.Graph) -> OwnSaver | None:
        """The saver to call, or None for none or a plain Saver."""
        if saver is None or type(saver) is saver_lib.Saver:
            return None
        return cls(saver, graph)

    def restore(self, checkpoint_path: str, names: Sequence[str]) -> dict:
        """``{name: value}`` of the variables ``names`` after ``saver.restore``."""
        with self._session() as session:
            self.saver.restore(session, checkpoint_path)
            try:
                return session.run({name: self._variables[name] for name in names})
            except tf.errors.FailedPreconditionError as error:
                raise session_setup.not_ready(error.message) from None

    def save(self, store: VariableStore, prefix: str, step: int) -> str:
        """``saver.save`` of the store's values, as model.ckpt-<step>."""
        names = [name for name in store.names() if name in self._variables]
        assignments = [self._variables[name].initializer for name in names]
        values = {
            assignment.inputs[1]: store[name].numpy()
            for name, assignment in zip(names, assignments, strict=True)
        }
        with self._session() as session:
            with _feedable(self._graph, values):
                session.run(assignments, feed_dict=values)
            return self.saver.save(session, prefix, global_step=step, write_meta_graph=False)

    @contextlib.contextmanager
    def _session(self) -> Iterator[tf.compat.v1.Session]:
        """A session over the graph, entered as the default graph: the saver's
        methods run its graph ops only outside eager execution."""
        config = tf.compat.v1.ConfigProto(allow_soft_placement=True)
        with self._graph.as_default(), tf.compat.v1.Session(config=config) as session:
            yield session


@contextlib.contextmanager
def _feedable(graph: tf.Graph, tensors) -> Iterator[None]:
    """Lets ``tensors`` be fed while active. Discovery read the constant initial
    values statically (tf.get_static_value), which marks them unfeedable so that
    what was read stays true; feeding them here only sets the variables."""
    unfeedable = graph._unfeedable_tensors
    graph._unfeedable_tensors = object_identity.ObjectIdentitySet(
        tensor for tensor in unfeedable if tensor not in tensors
    )
    try:
        yield
    finally:
        graph._unfeedable_tensors = unfeedable

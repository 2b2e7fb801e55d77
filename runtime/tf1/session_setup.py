"""What a TF1 Session did once, before the first step, kept out of a traced step.

model_fn may build ops whose meaning was "run when the session is created": a
Scaffold's ``Saver`` (whose restore op loaded the checkpoint), ``local_init_op``
made of ``local_variables_initializer()`` / ``tables_initializer()``, and
``init_from_checkpoint``, which only replaced initializers. The Estimator ran them
once per ``train``/``evaluate``/``predict`` call. A ``tf.function`` runs every
stateful op it traces, on every step; and the store's variables, created outside
the trace, have no initializer op to group. The runtime does that work itself
when a call begins (restoring the checkpoint, resetting local variables, taking
init_from_checkpoint's values at discovery), so while model_fn is traced:

- a ``Saver`` is not built: no save or restore ops in the step;
- a variable's ``initializer`` is an op that does nothing, so initializer groups
  and control dependencies on them build and run as no-ops;
- ``report_uninitialized_variables()`` (a Scaffold's ``ready_op``) reports none;
- ``init_from_checkpoint`` does nothing.

What the Estimator's checkpoints took from a Scaffold's saver is in
:class:`SaverSettings`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable, Iterator

import tensorflow as tf
from tensorflow.python.ops import variables as variables_lib
from tensorflow.python.training import checkpoint_utils
from tensorflow.python.training import saver as saver_lib
from tensorflow.python.training.saving import saveable_object_util


@dataclasses.dataclass(frozen=True)
class SaverSettings:
    """The settings of a ``Scaffold(saver=Saver(...))`` that decided the
    Estimator's checkpoints (its CheckpointSaverHook saved with that saver)."""

    max_to_keep: int | None
    keep_checkpoint_every_n_hours: float
    save_relative_paths: bool
    # The checkpoint keys it saved and restored; None: every global variable.
    keys: frozenset[str] | None

    def check_restores_all(self, records) -> None:
        """A saver that leaves variables out cannot resume: the Session restored
        instead of running the init op, and its ready check raised."""
        if self.keys is None:
            return
        missing = [record.name for record in records if record.checkpoint_key not in self.keys]
        if missing:
            raise not_ready(f"Variables not initialized: {', '.join(missing)}")


def not_ready(reason: str) -> RuntimeError:
    """The error of the Estimator's session manager when a saver's restore left
    the model not ready."""
    return RuntimeError(
        "Init operations did not make model ready for local_init.  Init op: "
        f"group_deps, init fn: None, error: {reason}"
    )


def saver_settings(saver) -> SaverSettings | None:
    """The settings of a model_fn's Scaffold saver (built in a graph), or None."""
    if saver is None:
        return None
    return SaverSettings(
        max_to_keep=saver._max_to_keep,
        keep_checkpoint_every_n_hours=saver._keep_checkpoint_every_n_hours,
        save_relative_paths=saver._save_relative_paths,
        keys=_keys(saver._var_list),
    )


def _keys(var_list) -> frozenset[str] | None:
    if var_list is None:
        return None
    if isinstance(var_list, dict):
        for key, variable in var_list.items():
            if getattr(variable, "op", None) is not None and variable.op.name != key:
                raise ValueError(
                    f"Scaffold(saver=Saver(var_list={{{key!r}: {variable.op.name}, ...}})) "
                    "saves a variable under another name; the runtime saves each variable "
                    "under its own name only (docs/runtime.md, 'What the runtime refuses')."
                )
        return frozenset(var_list)
    return frozenset(saveable_object_util.op_list_to_dict(list(var_list)))


@contextlib.contextmanager
def done_when_the_call_began(variables: Iterable[tf.Variable]) -> Iterator[None]:
    """While active (around model_fn in a trace), session-setup ops are inert."""
    components = [
        component
        for variable in variables
        for component in getattr(variable, "_values", (variable,))
    ]
    previous = [component._initializer_op for component in components]
    already_initialized = tf.no_op(name="initialized_when_the_call_began")
    for component in components:
        component._initializer_op = already_initialized
    replacements = [
        (saver_lib.Saver, "build", _not_built),
        (checkpoint_utils, "_init_from_checkpoint", lambda ckpt_dir_or_file, assignment_map: None),
        # where TF's own code and where users reach it
        (variables_lib, "report_uninitialized_variables", _none_uninitialized),
        (tf.compat.v1, "report_uninitialized_variables", _none_uninitialized),
    ]
    originals = [getattr(owner, name) for owner, name, _ in replacements]
    for owner, name, replacement in replacements:
        setattr(owner, name, replacement)
    try:
        yield
    finally:
        for (owner, name, _), original in zip(replacements, originals, strict=True):
            setattr(owner, name, original)
        for component, op in zip(components, previous, strict=True):
            component._initializer_op = op


def _not_built(saver) -> None:
    """``Saver.build`` in a traced step: the runtime saves and restores itself."""


def _none_uninitialized(var_list=None, name="report_uninitialized_variables") -> tf.Tensor:
    """``report_uninitialized_variables`` in a traced step: the runtime's variables
    are initialized before the step runs."""
    return tf.constant([], dtype=tf.string, name=name)

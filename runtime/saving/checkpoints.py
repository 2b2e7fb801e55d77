"""TF1 name-based checkpoints (``model.ckpt-N`` + ``checkpoint``), interchangeable
with a legacy Estimator's model_dir in both directions.
"""

from __future__ import annotations

import contextlib
import logging
import os

import tensorflow as tf

from estimator_revival.saving.graph_files import GraphFiles
from estimator_revival.tf1.own_saver import OwnSaver
from estimator_revival.tf1.variable_store import GLOBAL_STEP_NAME, VariableStore

log = logging.getLogger("tensorflow")


def latest(model_dir: str) -> str | None:
    return tf.train.latest_checkpoint(model_dir) if model_dir else None


def to_resume(model_dir: str) -> str | None:
    """The checkpoint training resumes from (None: none yet).

    A ``checkpoint`` state naming files that are gone raises, as the Estimator's
    Saver did, instead of training from step 0 over the state.
    """
    state = tf.train.get_checkpoint_state(model_dir)
    path = latest(model_dir)
    if path is None and state is not None and state.model_checkpoint_path:
        raise ValueError(
            f"The passed save_path is not a valid checkpoint: {state.model_checkpoint_path}"
        )
    return path


def global_step_of(checkpoint_path: str) -> int:
    with _reading(checkpoint_path):
        return int(tf.train.load_checkpoint(checkpoint_path).get_tensor(GLOBAL_STEP_NAME))


def latest_global_step(model_dir: str) -> int:
    """The global step of the latest checkpoint in ``model_dir``, 0 without one."""
    checkpoint = latest(model_dir)
    return 0 if checkpoint is None else global_step_of(checkpoint)


def read_values(checkpoint_path: str, records) -> dict:
    """``{record name: saved value}`` (partitions sliced out of their full variable);
    a clear error names what the checkpoint lacks."""
    with _reading(checkpoint_path):
        return _read_values(checkpoint_path, records)


@contextlib.contextmanager
def _reading(checkpoint_path: str):
    """Errors from a truncated or corrupt checkpoint name its path, with the error
    class a TF 1 Saver raised (truncated data: OutOfRangeError; a bad index: DataLossError)."""
    try:
        yield
    except IndexError as error:  # the reader's short read of a .data file
        raise tf.errors.OutOfRangeError(
            None, None, f"Checkpoint {checkpoint_path} is truncated: {error}"
        ) from error
    except tf.errors.OpError as error:
        error_class = tf.errors.DataLossError if type(error) is tf.errors.OpError else type(error)
        raise error_class(
            None, None, f"Checkpoint {checkpoint_path} cannot be read: {error.message}"
        ) from error


def read_tables(checkpoint_path: str, tables) -> dict:
    """``{table name: (keys, values)}`` saved as TF 1's Saver saved hash tables."""
    if not tables:  # most models: no second read of the checkpoint's index
        return {}
    with _reading(checkpoint_path):
        reader = tf.train.load_checkpoint(checkpoint_path)
        _require(reader, checkpoint_path, [key for t in tables for key in t.checkpoint_keys])
        return {t.name: tuple(reader.get_tensor(key) for key in t.checkpoint_keys) for t in tables}


def _require(reader, checkpoint_path: str, keys) -> None:
    saved = reader.get_variable_to_shape_map()
    missing = sorted({key for key in keys if key not in saved})
    if missing:
        raise ValueError(
            f"Checkpoint {checkpoint_path} does not hold variables {missing} that model_fn "
            "creates. Was it written by a different model_fn?"
        )


def _read_values(checkpoint_path: str, records) -> dict:
    reader = tf.train.load_checkpoint(checkpoint_path)
    _require(reader, checkpoint_path, [record.checkpoint_key for record in records])
    values = {}
    for record in records:
        value = reader.get_tensor(record.checkpoint_key)
        if record.partition is not None:
            _, _, offset, shape = record.partition
            value = value[tuple(slice(o, o + n) for o, n in zip(offset, shape, strict=True))]
        values[record.name] = value
    return values


class CheckpointWriter:
    """Saves the store under ``<model_dir>/model.ckpt-<step>``, pruning old ones."""

    def __init__(
        self,
        model_dir: str,
        store: VariableStore,
        *,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float,
        keys: frozenset[str] | None = None,
        save_relative_paths: bool = True,
        graph_files: GraphFiles | None = None,
        own_saver: OwnSaver | None = None,
    ) -> None:
        """``keys``: the checkpoint keys to save (None: every global variable);
        ``graph_files``: writes a ``.meta`` beside each checkpoint; ``own_saver``:
        the Scaffold's saver that saves instead (the settings are its own)."""
        self._prefix = os.path.join(model_dir, "model.ckpt")
        self._graph_files = graph_files
        self._store = store
        self._own_saver = own_saver
        state = tf.train.get_checkpoint_state(model_dir)
        if own_saver is not None:
            self._saver = own_saver.saver
        else:
            var_list = store.checkpoint_var_list()
            if keys is not None:
                var_list = {key: value for key, value in var_list.items() if key in keys}
            self._saver = tf.compat.v1.train.Saver(
                var_list=var_list,
                max_to_keep=max_to_keep or 0,
                keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                save_relative_paths=save_relative_paths,
            )
        if state is not None:
            self._saver.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
        self.last_saved_step: int | None = None

    def save(self, step: int) -> str:
        tf.io.gfile.makedirs(os.path.dirname(self._prefix))
        log.info("Saving checkpoints for %d into %s.", step, self._prefix)
        if self._own_saver is not None:
            path = self._own_saver.save(self._store, self._prefix, step)
        else:
            path = self._saver.save(None, self._prefix, global_step=step, write_meta_graph=False)
        if self._graph_files is not None:
            self._graph_files.write_meta_graph(path)
        self.last_saved_step = step
        return path

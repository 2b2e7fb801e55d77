"""``warm_start_from``: initializing a fresh model from another checkpoint
(docs/estimator_contract.md §1.8).
"""

from __future__ import annotations

import collections
import logging
import os
import re

import numpy as np
import tensorflow as tf

from estimator_revival.tf1.variable_store import VariableStore

log = logging.getLogger("tensorflow")


class WarmStartSettings(
    collections.namedtuple(
        "WarmStartSettings",
        [
            "ckpt_to_initialize_from",
            "vars_to_warm_start",
            "var_name_to_vocab_info",
            "var_name_to_prev_var_name",
        ],
    )
):
    """Settings for warm-starting (``tf.estimator.WarmStartSettings``)."""

    def __new__(
        cls,
        ckpt_to_initialize_from,
        vars_to_warm_start=".*",
        var_name_to_vocab_info=None,
        var_name_to_prev_var_name=None,
    ):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(
            cls,
            ckpt_to_initialize_from,
            vars_to_warm_start,
            var_name_to_vocab_info or {},
            var_name_to_prev_var_name or {},
        )


def settings_from(warm_start_from) -> WarmStartSettings | None:
    """Normalizes the ``warm_start_from`` constructor argument."""
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        path = os.fspath(warm_start_from)
        path = path.decode() if isinstance(path, bytes) else path
        saved_model_variables = os.path.join(path, "variables", "variables")
        if tf.io.gfile.exists(saved_model_variables + ".index"):
            log.info("Warm-starting from a SavedModel")
            return WarmStartSettings(ckpt_to_initialize_from=saved_model_variables)
        return WarmStartSettings(ckpt_to_initialize_from=path)
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    raise ValueError(
        f"warm_start_from must be a string or a WarmStartSettings, instead got {type(warm_start_from)}"
    )


def apply(settings: WarmStartSettings, store: VariableStore) -> list[str]:
    """Copies matching variables from the checkpoint; returns the names warm-started."""
    reader = tf.train.load_checkpoint(settings.ckpt_to_initialize_from)
    saved = reader.get_variable_to_shape_map()
    chosen = _chosen(settings.vars_to_warm_start, store)
    warmed = []
    for name in chosen:
        source = settings.var_name_to_prev_var_name.get(name, name)
        if source not in saved:
            continue
        vocab_info = settings.var_name_to_vocab_info.get(name)
        if vocab_info is None:
            store[name].assign(reader.get_tensor(source))
        else:
            store[name].assign(_remapped(name, store[name].numpy(), vocab_info, settings))
        warmed.append(name)
    log.info("Warm-started %d variables from %s.", len(warmed), settings.ckpt_to_initialize_from)
    return warmed


def _remapped(name: str, current: np.ndarray, vocab_info, settings: WarmStartSettings):
    """The value TF1's ``warm_start`` gives ``name`` with a vocabulary remap (rows
    moved to their new vocabulary ids, new rows from the backup initializer),
    computed by TensorFlow's own implementation in a throwaway graph."""
    with tf.Graph().as_default() as graph:
        variable = tf.compat.v1.get_variable(name, initializer=tf.constant(current))
        prev_name = settings.var_name_to_prev_var_name.get(name)
        tf.compat.v1.train.warm_start(
            settings.ckpt_to_initialize_from,
            vars_to_warm_start=[variable],
            var_name_to_vocab_info={name: vocab_info},
            var_name_to_prev_var_name={name: prev_name} if prev_name else None,
        )
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(variable.initializer)
            return session.run(variable)


def _chosen(vars_to_warm_start, store: VariableStore) -> list[str]:
    """A single regex selects among TRAINABLE variables (the code's default, not the
    docstring's); a list of regexes selects among all global variables."""
    if isinstance(vars_to_warm_start, str):
        pattern = re.compile(vars_to_warm_start)
        return [name for name in store.trainable_names() if pattern.match(name)]
    if isinstance(vars_to_warm_start, (list, tuple)):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            patterns = [re.compile(v) for v in vars_to_warm_start]
            return [n for n in store.names() if any(p.match(n) for p in patterns)]
        return [v.name.split(":")[0] for v in vars_to_warm_start]
    if vars_to_warm_start is None:
        return []
    raise ValueError(
        f"vars_to_warm_start must be a string, a list or None, got {vars_to_warm_start!r}"
    )

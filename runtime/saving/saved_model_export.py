"""``export_saved_model``: SavedModels with Estimator's signatures, tags and layout
(docs/estimator_contract.md §1.7).

Each exported mode gets a fresh graph laid out as Estimator laid it out (global
step, seed, receiver, model_fn), its variables restored from the checkpoint by a
``Saver``, and is added with ``tf.compat.v1.saved_model.Builder``: that is what
gives classify / regress signatures, which ``tf.saved_model.save`` cannot write.
The export is assembled in ``temp-<timestamp>`` and renamed into place, so
readers of ``export_dir_base`` never see half an export.
"""

from __future__ import annotations

import logging
import os

import tensorflow as tf
from tensorflow.python.saved_model.model_utils import export_utils
from tensorflow.python.training import training_util

from estimator_revival.calls.mode_keys import ModeKeys
from estimator_revival.calls.model_fn_call import ModelFnCaller

log = logging.getLogger("tensorflow")

# The first mode exported saves the variables; TRAIN first, since checkpoints come
# from the TRAIN graph and so hold all of its variables.
EXPORT_ORDER = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)


def export_all_saved_models(
    export_dir_base,
    receiver_fns: dict,
    *,
    checkpoint_path: str,
    call_model_fn: ModelFnCaller,
    random_seed,
    session_config,
    assets_extra: dict | None = None,
    as_text: bool = False,
    strip_default_attrs: bool = True,
) -> bytes:
    """Writes one SavedModel with a metagraph per mode in ``receiver_fns`` and
    returns its timestamped directory (bytes, as Estimator returned it)."""
    modes = [mode for mode in EXPORT_ORDER if receiver_fns.get(mode)]
    if not modes:
        raise ValueError(f"No valid modes for exporting found. Got {receiver_fns.keys()}.")
    export_dir = export_utils.get_timestamped_export_dir(export_dir_base)
    temp_dir = export_utils.get_temp_export_dir(export_dir)
    try:
        builder = tf.compat.v1.saved_model.Builder(temp_dir)
        for index, mode in enumerate(modes):
            _add_meta_graph(
                builder,
                mode,
                receiver_fns[mode],
                checkpoint_path=checkpoint_path,
                call_model_fn=call_model_fn,
                random_seed=random_seed,
                session_config=session_config,
                save_variables=index == 0,
                strip_default_attrs=strip_default_attrs,
            )
        builder.save(as_text)
        _copy_assets_extra(temp_dir, assets_extra or {})
        tf.io.gfile.rename(temp_dir, export_dir)
    except BaseException:
        if tf.io.gfile.exists(temp_dir):
            tf.io.gfile.rmtree(temp_dir)
        raise
    return export_dir


def _add_meta_graph(
    builder,
    mode: str,
    receiver_fn,
    *,
    checkpoint_path: str,
    call_model_fn: ModelFnCaller,
    random_seed,
    session_config,
    save_variables: bool,
    strip_default_attrs: bool,
) -> None:
    with tf.Graph().as_default() as graph:
        training_util.create_global_step(graph)
        tf.compat.v1.random.set_random_seed(random_seed)
        receiver = receiver_fn()
        spec = call_model_fn(receiver.features, getattr(receiver, "labels", None), mode)
        export_outputs = export_utils.export_outputs_for_mode(
            mode=spec.mode,
            serving_export_outputs=spec.export_outputs,
            predictions=spec.predictions,
            loss=spec.loss,
            metrics=spec.eval_metric_ops,
        )
        signature_defs = export_utils.build_all_signature_defs(
            receiver.receiver_tensors,
            export_outputs,
            getattr(receiver, "receiver_tensors_alternatives", None),
            serving_only=mode == ModeKeys.PREDICT,
        )
        saver = spec.scaffold.saver or tf.compat.v1.train.Saver(sharded=True)
        local_init_op = spec.scaffold.local_init_op
        if local_init_op is None:
            local_init_op = tf.compat.v1.train.Scaffold.default_local_init_op()
        with tf.compat.v1.Session(graph=graph, config=session_config) as session:
            _restore(saver, session, checkpoint_path, mode)
            builder._add_train_op(spec.train_op)  # kept in the TRAIN metagraph, as Estimator did
            meta_graph = dict(
                tags=export_utils.EXPORT_TAG_MAP[mode],
                signature_def_map=signature_defs,
                assets_collection=tf.compat.v1.get_collection(
                    tf.compat.v1.GraphKeys.ASSET_FILEPATHS
                ),
                main_op=local_init_op,
                saver=saver,
                strip_default_attrs=strip_default_attrs,
            )
            if save_variables:
                builder.add_meta_graph_and_variables(session, **meta_graph)
            else:
                builder.add_meta_graph(**meta_graph)


def _restore(saver, session, checkpoint_path: str, mode: str) -> None:
    try:
        saver.restore(session, checkpoint_path)
    except tf.errors.NotFoundError as error:
        raise ValueError(
            "Could not load all requested variables from checkpoint. Please make sure "
            "your model_fn does not expect variables that were not saved in the "
            f"checkpoint.\n\nEncountered error with mode `{mode}` while restoring "
            f"checkpoint from: `{checkpoint_path}`. Full Traceback:\n\n{error}"
        ) from error


def _copy_assets_extra(export_dir, assets_extra: dict) -> None:
    """Copies ``{relative destination: source}`` into ``<export>/assets.extra/``."""
    root = os.path.join(os.fsdecode(export_dir), "assets.extra")
    for destination, source in assets_extra.items():
        target = os.path.join(root, os.fsdecode(destination))
        tf.io.gfile.makedirs(os.path.dirname(target))
        tf.io.gfile.copy(source, target)


def checkpoint_to_export(checkpoint_path, *, latest, warm_start, model_dir) -> str:
    """The given checkpoint, else the latest in model_dir, else the warm-start one."""
    if checkpoint_path:
        return checkpoint_path
    if latest:
        return latest
    if warm_start is not None:
        path = warm_start.ckpt_to_initialize_from
        if tf.io.gfile.isdir(path):
            path = tf.train.latest_checkpoint(path)
        return path
    raise ValueError(f"Couldn't find trained model at {model_dir}.")

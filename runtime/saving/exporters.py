"""Exporters that ``train_and_evaluate`` runs after each evaluation
(``tf.estimator.LatestExporter`` / ``BestExporter`` / ``FinalExporter``), writing
into ``<model_dir>/export/<name>/<timestamp>``."""

from __future__ import annotations

import abc
import logging
import os

import tensorflow as tf

from estimator_revival.calls.model_fn_call import fn_args

log = logging.getLogger("tensorflow")


class Exporter(abc.ABC):
    """A kind of export run after an evaluation (``tf.estimator.Exporter``)."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Directory name under ``<model_dir>/export``; unique among an EvalSpec's exporters."""

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        """Exports (or not) and returns the export directory, or None."""


class _SavedModelExport:
    """The ``export_saved_model`` call every exporter makes."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra, as_text) -> None:
        self.name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    def __call__(self, estimator, export_path, checkpoint_path):
        return estimator.export_saved_model(
            export_path,
            self._serving_input_receiver_fn,
            assets_extra=self._assets_extra,
            as_text=self._as_text,
            checkpoint_path=checkpoint_path,
        )


def _validate_exports_to_keep(exports_to_keep, message: str) -> None:
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError(message)


def delete_old_exports(export_dir_base, exports_to_keep) -> None:
    """Keeps the ``exports_to_keep`` newest timestamped (10-digit) exports."""
    export_dir_base = os.fsdecode(export_dir_base)  # an Experiment's export path is bytes
    if exports_to_keep is None or not tf.io.gfile.isdir(export_dir_base):
        return
    versions = sorted(
        name
        for name in tf.io.gfile.listdir(export_dir_base)
        if len(name.rstrip("/")) == 10 and name.rstrip("/").isdigit()
    )
    for name in versions[:-exports_to_keep]:
        path = os.path.join(export_dir_base, name)
        try:
            tf.io.gfile.rmtree(path)
        except tf.errors.NotFoundError as error:
            log.warning("Can not delete %s recursively: %s", path, error)


class LatestExporter(Exporter):
    """Exports after every evaluation, keeping the newest ``exports_to_keep``."""

    def __init__(
        self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5
    ):
        self._export = _SavedModelExport(name, serving_input_receiver_fn, assets_extra, as_text)
        _validate_exports_to_keep(
            exports_to_keep, "`exports_to_keep`, if provided, must be positive number"
        )
        self._exports_to_keep = exports_to_keep

    @property
    def name(self) -> str:
        return self._export.name

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        result = self._export(estimator, export_path, checkpoint_path)
        delete_old_exports(export_path, self._exports_to_keep)
        return result


class FinalExporter(Exporter):
    """Exports once, after the evaluation that reaches ``max_steps``."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        self._export = _SavedModelExport(name, serving_input_receiver_fn, assets_extra, as_text)

    @property
    def name(self) -> str:
        return self._export.name

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        log.info("Performing the final export in the end of training.")
        return self._export(estimator, export_path, checkpoint_path)


def loss_smaller(best_eval_result, current_eval_result) -> bool:
    """BestExporter's default ``compare_fn``: a lower ``loss`` is better."""
    if not best_eval_result or "loss" not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or "loss" not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


def _verify_compare_fn_args(compare_fn) -> None:
    args = set(fn_args(compare_fn))
    for required in ("best_eval_result", "current_eval_result"):
        if required not in args:
            raise ValueError(f"compare_fn ({compare_fn}) must include {required} argument.")
    unexpected = list(args - {"best_eval_result", "current_eval_result"})
    if unexpected:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: {unexpected}")


class BestExporter(Exporter):
    """Exports when an evaluation beats the best so far (by ``compare_fn``).

    The best result survives restarts: on first use it is read back from the
    evaluation event files matching ``event_file_pattern`` under model_dir.
    """

    def __init__(
        self,
        name="best_exporter",
        serving_input_receiver_fn=None,
        event_file_pattern="eval/*.tfevents.*",
        compare_fn=loss_smaller,
        assets_extra=None,
        as_text=False,
        exports_to_keep=5,
    ):
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        _verify_compare_fn_args(compare_fn)
        self._compare_fn = compare_fn
        self._export = _SavedModelExport(name, serving_input_receiver_fn, assets_extra, as_text)
        self._event_file_pattern = event_file_pattern
        self._model_dir = None
        self._best_eval_result = None
        self._has_exported = False
        _validate_exports_to_keep(
            exports_to_keep,
            f"`exports_to_keep`, if provided, must be a positive number. Got {exports_to_keep}",
        )
        self._exports_to_keep = exports_to_keep

    @property
    def name(self) -> str:
        return self._export.name

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._best_in_event_files(
                os.path.join(self._model_dir, self._event_file_pattern)
            )
        is_better = (
            self._best_eval_result is None
            or not self._has_exported
            or self._compare_fn(
                best_eval_result=self._best_eval_result, current_eval_result=eval_result
            )
        )
        if not is_better:
            return None
        log.info("Performing best model export.")
        self._best_eval_result = eval_result
        result = self._export(estimator, export_path, checkpoint_path)
        delete_old_exports(export_path, self._exports_to_keep)
        self._has_exported = True
        return result

    def _best_in_event_files(self, pattern: str):
        best = None
        for path in tf.io.gfile.glob(pattern):
            for event in tf.compat.v1.train.summary_iterator(path):
                result = {
                    value.tag: value.simple_value
                    for value in event.summary.value
                    if value.HasField("simple_value")
                }
                if result and (best is None or self._compare_fn(best, result)):
                    best = result
        return best

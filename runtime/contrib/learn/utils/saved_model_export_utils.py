"""``tf.contrib.learn.utils.saved_model_export_utils.make_export_strategy``."""

from __future__ import annotations

from estimator_revival.contrib.learn.export_strategy import ExportStrategy
from estimator_revival.saving.exporters import delete_old_exports


def make_export_strategy(
    serving_input_fn,
    default_output_alternative_key=None,
    assets_extra=None,
    as_text=False,
    exports_to_keep=5,
    strip_default_attrs=None,
) -> ExportStrategy:
    """The ``Servo`` strategy: a SavedModel of the given (or newest) checkpoint
    under ``export_dir_base/<timestamp>``, keeping the newest ``exports_to_keep``
    (None: all), as TF 1.15's did for a ``tf.estimator.Estimator``."""

    def export_fn(estimator, export_dir_base, checkpoint_path=None, strip_default_attrs=False):
        if default_output_alternative_key is not None:
            raise ValueError(
                "default_output_alternative_key is not supported in core Estimator. "
                f"Given: {default_output_alternative_key}"
            )
        export_result = estimator.export_savedmodel(
            export_dir_base,
            serving_input_fn,
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
            strip_default_attrs=strip_default_attrs,
        )
        delete_old_exports(export_dir_base, exports_to_keep)
        return export_result

    return ExportStrategy("Servo", export_fn, strip_default_attrs)

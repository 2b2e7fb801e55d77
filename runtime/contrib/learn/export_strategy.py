"""``tf.contrib.learn.ExportStrategy``: how an Experiment exports after evaluating."""

from __future__ import annotations

import collections
import inspect


class ExportStrategy(
    collections.namedtuple("ExportStrategy", ["name", "export_fn", "strip_default_attrs"])
):
    """A named ``export_fn(estimator, export_dir_base, ...)``, as TF 1.15 defined it."""

    def __new__(cls, name, export_fn, strip_default_attrs=None):
        return super().__new__(cls, name, export_fn, strip_default_attrs)

    def export(self, estimator, export_path, checkpoint_path=None, eval_result=None):
        """Exports ``estimator`` under ``export_path``; returns what ``export_fn``
        returns (the export's directory). ``export_fn`` gets ``checkpoint_path``,
        ``eval_result`` and ``strip_default_attrs`` where it declares them."""
        declared = inspect.signature(self.export_fn).parameters
        kwargs = {}
        if "checkpoint_path" in declared:
            kwargs["checkpoint_path"] = checkpoint_path
        if "eval_result" in declared:
            if "checkpoint_path" not in declared:
                raise ValueError(
                    "An export_fn accepting eval_result must also accept checkpoint_path."
                )
            kwargs["eval_result"] = eval_result
        if "strip_default_attrs" in declared:
            kwargs["strip_default_attrs"] = self.strip_default_attrs
        return self.export_fn(estimator, export_path, **kwargs)

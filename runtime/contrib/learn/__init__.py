"""``tf.contrib.learn``'s names that Estimator code used: ``ModeKeys``, and the
``Experiment`` that drove 2017-2018 training scripts, with ``learn_runner``, the
contrib ``RunConfig`` and export strategies (TF 1.15's behaviour over the
runtime's Estimator; docs/contrib.md)."""

from estimator_revival.contrib.learn import learn_runner, utils
from estimator_revival.contrib.learn.experiment import Experiment
from estimator_revival.contrib.learn.export_strategy import ExportStrategy
from estimator_revival.contrib.learn.mode_keys import ModeKeys
from estimator_revival.contrib.learn.run_config import RunConfig
from estimator_revival.contrib.learn.utils.saved_model_export_utils import make_export_strategy

__all__ = [
    "Experiment",
    "ExportStrategy",
    "ModeKeys",
    "RunConfig",
    "learn_runner",
    "make_export_strategy",
    "utils",
]

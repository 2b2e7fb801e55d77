"""The proof's settings, put on the Estimator classes of the side's program (the
legacy program's tensorflow-estimator, or the migrated program's runtime) before
the program starts, so that no line of it changes (each wrapper keeps the
wrapped method's signature: programs and stand-ins read it):

- every ``RunConfig`` that has no ``tf_random_seed`` gets ``seed``, and every one
  writes summaries every step (``save_summary_steps=1``); Python's ``random`` and
  numpy are seeded with ``seed`` too;
- with ``steps``, each ``train`` call stops after that many steps (its ``steps``
  or ``max_steps`` lowered: on TPUEstimator too, whose step loop they set);
- each ``evaluate`` call's metrics are appended to ``RECORD/evaluations.json``,
  and the first PREDICTIONS_KEPT predictions of each ``predict`` call are saved as
  ``RECORD/predict-<call>.npz``.
"""

import functools
import itertools
import json
import os
import random

import numpy as np

PREDICTIONS_KEPT = 16
EVALUATIONS = "evaluations.json"


def install(*, record: str, steps, seed: int, legacy: bool) -> None:
    random.seed(seed)
    np.random.seed(seed)
    os.makedirs(record, exist_ok=True)
    if legacy:
        from tensorflow_estimator.python.estimator import estimator, run_config
    else:
        import estimator_revival.estimator  # noqa: F401 - prepares TensorFlow
        from estimator_revival.engine import estimator, run_config
    _seed_run_configs(run_config.RunConfig, seed)
    estimator_class = estimator.Estimator
    if steps is not None:
        _cap_training(estimator_class, steps)
    _record_evaluations(estimator_class, record)
    _record_predictions(estimator_class, record)


def _seed_run_configs(run_config_class, seed: int) -> None:
    init = run_config_class.__init__

    @functools.wraps(init)
    def seeded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self._tf_random_seed is None:
            self._tf_random_seed = seed
        self._save_summary_steps = 1

    run_config_class.__init__ = seeded


def _cap_training(estimator_class, cap: int) -> None:
    train = estimator_class.train

    @functools.wraps(train)
    def capped(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        if max_steps is not None:
            max_steps = min(max_steps, _global_step(self.model_dir) + cap)
        else:
            steps = cap if steps is None else min(steps, cap)
        return train(
            self,
            input_fn,
            hooks=hooks,
            steps=steps,
            max_steps=max_steps,
            saving_listeners=saving_listeners,
        )

    estimator_class.train = capped


def _global_step(model_dir) -> int:
    """The global step of the latest checkpoint in ``model_dir`` (0: none)."""
    import tensorflow as tf

    checkpoint = tf.compat.v1.train.latest_checkpoint(model_dir) if model_dir else None
    if checkpoint is None:
        return 0
    return int(tf.compat.v1.train.load_variable(checkpoint, "global_step"))


def _record_evaluations(estimator_class, record: str) -> None:
    evaluate = estimator_class.evaluate
    path = os.path.join(record, EVALUATIONS)

    @functools.wraps(evaluate)
    def recorded(self, *args, **kwargs):
        metrics = evaluate(self, *args, **kwargs)
        found = []
        if os.path.exists(path):
            with open(path) as file:
                found = json.load(file)
        found.append({key: _plain(value) for key, value in sorted(metrics.items())})
        with open(path, "w") as file:
            json.dump(found, file)
        return metrics

    estimator_class.evaluate = recorded


def _record_predictions(estimator_class, record: str) -> None:
    predict = estimator_class.predict
    calls = itertools.count()

    @functools.wraps(predict)
    def recorded(self, *args, **kwargs):
        path = os.path.join(record, f"predict-{next(calls)}.npz")
        kept = []
        try:
            for prediction in predict(self, *args, **kwargs):
                if len(kept) < PREDICTIONS_KEPT:
                    kept.append(prediction)
                    if len(kept) == PREDICTIONS_KEPT:
                        _save_predictions(path, kept)
                yield prediction
        finally:
            if len(kept) < PREDICTIONS_KEPT:
                _save_predictions(path, kept)

    estimator_class.predict = recorded


def _save_predictions(path: str, predictions: list) -> None:
    """``{"<index>/<key>": value}`` (``"<index>"`` for a single tensor): one array per
    prediction, which may differ in shape (a tagger's sequences)."""
    arrays = {}
    for index, prediction in enumerate(predictions):
        if isinstance(prediction, dict):
            arrays.update({f"{index}/{key}": _storable(v) for key, v in prediction.items()})
        else:
            arrays[str(index)] = _storable(prediction)
    np.savez(path, **arrays)


def _storable(value) -> np.ndarray:
    """An array ``np.load`` reads back without pickles: strings (object arrays of
    bytes, as predictions of string tensors come) as bytes."""
    array = np.asarray(value)
    if array.dtype != object:
        return array
    items = [item if isinstance(item, bytes) else str(item).encode() for item in array.ravel()]
    return np.array(items, dtype=np.bytes_).reshape(array.shape)


def _plain(value):
    """A metric as JSON keeps it: a float keeps every bit (repr round-trips)."""
    array = np.asarray(value)
    if array.dtype.kind in "SUO":
        return repr(array.tolist())
    return array.item() if array.ndim == 0 else array.tolist()

"""``tf.contrib.predictor.from_saved_model``, as TF 1.15 defined it: a SavedModel
loaded into a Session of its own, called with a dict of numpy inputs named as
the signature's inputs, returning a dict of numpy outputs. Serving scripts and
batch-prediction jobs of the Estimator era used it to run an export.

TF 2 still has what it was built from (``tf.compat.v1.Session`` and the v1
SavedModel loader), so a SavedModel the Estimator or the runtime exported runs
here as it did under TF 1.15, in its own graph, beside TF 2's eager execution.
"""

from __future__ import annotations

import tensorflow as tf

DEFAULT_TAGS = "serve"
# Estimator exports named an input receiver's alternatives this way
_INPUT_ALTERNATIVE = "default_input_alternative:{}"


class SavedModelPredictor:
    """A SavedModel's signature as a function of numpy inputs (TF 1.15's
    ``contrib.predictor.saved_model_predictor.SavedModelPredictor``)."""

    def __init__(
        self,
        export_dir,
        signature_def_key=None,
        signature_def=None,
        input_names=None,
        output_names=None,
        tags=None,
        graph=None,
        config=None,
    ):
        self._graph = graph or tf.Graph()
        tags = (tags or DEFAULT_TAGS).split(",")
        with self._graph.as_default():
            self._session = tf.compat.v1.Session(config=config)
            meta_graph = tf.compat.v1.saved_model.loader.load(self._session, tags, export_dir)
        if input_names is None:
            if signature_def is None:
                signature_def = _signature(meta_graph, signature_def_key)
            input_names = {key: info.name for key, info in signature_def.inputs.items()}
            output_names = {key: info.name for key, info in signature_def.outputs.items()}
        elif output_names is None:
            raise ValueError("Both input_names and output_names must be given.")
        self._feed_tensors = {k: self._graph.get_tensor_by_name(v) for k, v in input_names.items()}
        self._fetch_tensors = {
            k: self._graph.get_tensor_by_name(v) for k, v in output_names.items()
        }

    @property
    def graph(self):
        return self._graph

    @property
    def session(self):
        return self._session

    @property
    def feed_tensors(self):
        return self._feed_tensors

    @property
    def fetch_tensors(self):
        return self._fetch_tensors

    def __call__(self, input_dict):
        unexpected = set(input_dict) - set(self._feed_tensors)
        if unexpected:
            raise ValueError(
                f"Got unexpected keys in input_dict: {unexpected}\n"
                f"expected: {set(self._feed_tensors)}"
            )
        feed_dict = {
            tensor: input_dict[key]
            for key, tensor in self._feed_tensors.items()
            if input_dict.get(key) is not None
        }
        return self._session.run(fetches=self._fetch_tensors, feed_dict=feed_dict)

    def __repr__(self):
        return (
            f"{type(self).__name__} with feed tensors {self._feed_tensors} "
            f"and fetch_tensors {self._fetch_tensors}"
        )


def _signature(meta_graph, key):
    """The signature ``key`` names (the default serving one by default), or the
    input alternative an Estimator export gave that name."""
    key = key or tf.compat.v1.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    signatures = meta_graph.signature_def
    for candidate in (key, _INPUT_ALTERNATIVE.format(key)):
        if candidate in signatures:
            return signatures[candidate]
    raise ValueError(
        f'Got signature_def_key "{key}". Available signatures are {list(signatures)}. '
        f"Original error:\n'{key}'"
    )


def from_saved_model(
    export_dir,
    signature_def_key=None,
    signature_def=None,
    input_names=None,
    output_names=None,
    tags=None,
    graph=None,
    config=None,
):
    """A predictor for the SavedModel in ``export_dir``; ``signature_def_key``
    defaults to the serving signature, ``tags`` to ``"serve"``."""
    return SavedModelPredictor(
        export_dir=export_dir,
        signature_def_key=signature_def_key,
        signature_def=signature_def,
        input_names=input_names,
        output_names=output_names,
        tags=tags,
        graph=graph,
        config=config,
    )

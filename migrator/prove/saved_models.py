"""An export as a serving client sees it: metagraph tags, signature keys, method
names and input/output specs, and every signature called on requests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

REQUEST_ROWS = 4


def signature_layout(export_dir: Path) -> list:
    """Per metagraph: its tags and, per signature, method name and the dtype and
    shape of every input and output (tensor names are free to differ)."""
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    proto.ParseFromString((export_dir / "saved_model.pb").read_bytes())
    layout = []
    for meta_graph in proto.meta_graphs:
        signatures = {
            key: (
                signature.method_name,
                _tensor_specs(signature.inputs),
                _tensor_specs(signature.outputs),
            )
            for key, signature in meta_graph.signature_def.items()
        }
        layout.append((sorted(meta_graph.meta_info_def.tags), signatures))
    return layout


def _tensor_specs(infos) -> dict:
    return {
        key: (info.dtype, [dim.size for dim in info.tensor_shape.dim])
        for key, info in sorted(infos.items())
    }


def call_every_signature(export_dir: Path, requests: dict) -> dict:
    """``{signature key: {output key: array}}`` for every signature of the export
    whose inputs ``requests`` all has."""
    import tensorflow as tf

    loaded = tf.saved_model.load(str(export_dir))
    results = {}
    for key, function in loaded.signatures.items():
        inputs = function.structured_input_signature[1]
        if set(inputs) - set(requests):
            continue
        outputs = function(**{name: requests[name] for name in inputs})
        results[key] = {name: value.numpy() for name, value in outputs.items()}
    return results


def serve(export_dir: Path, layout: list) -> dict:
    """Every signature whose inputs are numbers or booleans called on the same
    generated rows (floats drawn from a seeded normal, integers zero: a valid id
    of any vocabulary); signatures of serialized requests are compared by their
    specs and variables only."""
    import tensorflow as tf

    rng = np.random.RandomState(0)
    requests = {}
    for _, signatures in layout:
        for _, inputs, _ in signatures.values():
            for name, (dtype, shape) in sorted(inputs.items()):
                dtype = tf.dtypes.as_dtype(dtype)
                dims = [REQUEST_ROWS if size == -1 else size for size in shape]
                if name in requests:
                    continue
                if dtype.is_floating:
                    requests[name] = tf.constant(rng.normal(size=dims), dtype)
                elif dtype.is_integer or dtype.is_bool:
                    requests[name] = tf.zeros(dims, dtype)
    return call_every_signature(export_dir, requests)

"""Comparing two exports the way a serving client sees them: metagraph tags,
signature keys, method names and input/output specs, then every signature called
on the same requests after ``tf.saved_model.load`` on TF 2.21."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2


def signature_layout(export_dir: Path) -> list:
    """Per metagraph: its tags and, per signature, method name and the dtype and
    shape of every input and output (tensor names are free to differ)."""
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


def serving_requests(trace) -> dict:
    """What the fixture program said to feed its signatures, by input name."""
    requests = {
        name: tf.constant([base64.b64decode(b) for b in values])
        for name, values in trace.data["serving_strings"].items()
    }
    for key, value in trace.arrays.items():
        if key.startswith("serving/"):
            requests[key.removeprefix("serving/")] = tf.constant(value)
    return requests


def call_every_signature(export_dir: Path, requests: dict) -> dict:
    """``{signature key: {output key: array}}`` for every signature of the export."""
    loaded = tf.saved_model.load(str(export_dir))
    results = {}
    for key, function in loaded.signatures.items():
        inputs = function.structured_input_signature[1]
        missing = sorted(set(inputs) - set(requests))
        assert not missing, f"{export_dir} signature {key}: no request data for {missing}"
        outputs = function(**{name: requests[name] for name in inputs})
        results[key] = {name: value.numpy() for name, value in outputs.items()}
    return results


def assert_exports_equal(legacy, migrated, *, values: bool = True) -> None:
    """The same exports, signatures and served outputs, bit for bit (without
    ``values``: the same outputs with the same dtypes and shapes)."""
    assert migrated.data["exports"].keys() == legacy.data["exports"].keys()
    requests = serving_requests(legacy)
    for name, legacy_path in legacy.data["exports"].items():
        legacy_dir = legacy.out / legacy_path
        migrated_dir = migrated.out / migrated.data["exports"][name]
        assert signature_layout(migrated_dir) == signature_layout(legacy_dir), name
        expected = call_every_signature(legacy_dir, requests)
        actual = call_every_signature(migrated_dir, requests)
        assert actual.keys() == expected.keys(), name
        for key, outputs in expected.items():
            assert actual[key].keys() == outputs.keys(), f"{name}/{key}"
            for output, value in outputs.items():
                what = f"{name}/{key}/{output}"
                if values:
                    np.testing.assert_array_equal(actual[key][output], value, what)
                else:
                    assert actual[key][output].dtype == value.dtype, what
                    assert actual[key][output].shape == value.shape, what

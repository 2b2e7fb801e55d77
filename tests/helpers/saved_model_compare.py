"""Comparing two exports the way a serving client sees them: metagraph tags,
signature keys, method names and input/output specs, then every signature called
on the same requests after ``tf.saved_model.load`` on TF 2.21."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import tensorflow as tf

from estimator_revival.migrator.prove import saved_models
from estimator_revival.migrator.prove.saved_models import signature_layout

__all__ = ["signature_layout"]  # the layout prove compares, for the tests' own comparisons


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
    """``{signature key: {output key: array}}`` for every signature of the export,
    each of whose inputs ``requests`` must have."""
    for _, signatures in signature_layout(export_dir):
        for key, (_, inputs, _) in signatures.items():
            missing = sorted(set(inputs) - set(requests))
            assert not missing, f"{export_dir} signature {key}: no request data for {missing}"
    return saved_models.call_every_signature(export_dir, requests)


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

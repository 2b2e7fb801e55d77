"""Builds a canned estimator's own graph for tests/kernel_drift.py.

``python canned_drift_probe.py NAME MODE META`` (TF 2.15, tensorflow-estimator):
estimator NAME of canned_estimators.py builds its graph for MODE (train or eval)
on the fixture's first batch, exported as a MetaGraph, which
``legacy_graph_replay.py outputs`` then replays on each TensorFlow version.
"""

import sys

import tensorflow as tf


def export(name: str, mode: str, meta_path: str) -> None:
    import canned_estimators as fixture

    make_estimator, all_labels, *feature_names = fixture.ESTIMATORS[name]
    names = feature_names[0] if feature_names else fixture.FEATURES
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(7)
        tf.compat.v1.train.get_or_create_global_step()  # as the Estimator made it first
        features = {key: tf.constant(fixture.FEATURES[key][:8]) for key in names}
        labels = fixture.label_tensor(all_labels, 8)
        est = make_estimator(None)
        est.model_fn(features, labels, mode, est.config)
        tf.compat.v1.train.export_meta_graph(meta_path, graph=graph)


if __name__ == "__main__":
    export(sys.argv[1], sys.argv[2], sys.argv[3])

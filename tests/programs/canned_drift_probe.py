"""Builds the canned estimators' own graphs, at a trained state, for
tests/helpers/kernel_drift.py to run on each TensorFlow version.

``python canned_drift_probe.py OUT_DIR [NAME ...]`` (TF 2.15, tensorflow-estimator):
for each estimator of canned_estimators.py (all by default), its TRAIN graph on the
fixture's first batch trains three steps in a Session from its seeded initial
values and is saved (``OUT_DIR/NAME/trained.ckpt``); the TRAIN graph (its train op
kept in the collection run_side.py keeps it in) and the EVAL graph are exported
as MetaGraphs. Prints ``{"NAME/MODE": [META, CHECKPOINT]}``.
"""

import json
import os
import sys

import tensorflow as tf

TRAIN_OP_COLLECTION = "legacy_replay_train_op"  # migrator/prove/side_process/run_side.py
TRAINED_STEPS = 3
ROWS = 8


def export(name: str, out_dir: str) -> dict:
    directory = os.path.join(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    checkpoint = os.path.join(directory, "trained.ckpt")
    graphs = {}
    for mode in ("train", "eval"):
        meta = os.path.join(directory, f"{mode}.meta")
        with tf.Graph().as_default() as graph:
            spec = _model(name, mode, os.path.join(directory, "model"))
            if mode == "train":
                tf.compat.v1.add_to_collection(TRAIN_OP_COLLECTION, spec.train_op)
                _train(spec.train_op, checkpoint)
            tf.compat.v1.train.export_meta_graph(meta, graph=graph)
        graphs[f"{name}/{mode}"] = [meta, checkpoint]
    return graphs


def _model(name: str, mode: str, model_dir: str):
    import canned_estimators as fixture

    make_estimator, all_labels, *feature_names = fixture.ESTIMATORS[name]
    names = feature_names[0] if feature_names else fixture.FEATURES
    tf.compat.v1.set_random_seed(7)
    tf.compat.v1.train.get_or_create_global_step()  # as the Estimator made it first
    # SDCA's kernel visits a batch's examples in a random order: one example
    rows = 1 if "sdca" in name else ROWS
    features = {key: tf.constant(fixture.FEATURES[key][:rows]) for key in names}
    if "sdca" in name:
        features["example_id"] = tf.constant(fixture.EXAMPLE_ID[:rows])
    labels = fixture.label_tensor(all_labels, rows)
    est = make_estimator(model_dir)
    return est.model_fn(features, labels, mode, est.config)


def _train(train_op, checkpoint: str) -> None:
    saver = tf.compat.v1.train.Saver()
    with tf.compat.v1.Session() as session:
        session.run(
            [
                tf.compat.v1.global_variables_initializer(),
                tf.compat.v1.local_variables_initializer(),
                tf.compat.v1.tables_initializer(),
            ]
        )
        for _ in range(TRAINED_STEPS):
            session.run(train_op)
        saver.save(session, checkpoint)


if __name__ == "__main__":
    import canned_estimators

    out_dir, names = sys.argv[1], sys.argv[2:] or sorted(canned_estimators.ESTIMATORS)
    print(
        json.dumps({key: value for name in names for key, value in export(name, out_dir).items()})
    )

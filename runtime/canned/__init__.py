"""The canned estimators (``tf.estimator.DNNClassifier`` and its kin) and the heads
they use, built on the runtime's Estimator.

Each builds the graph tensorflow-estimator 2.15 built, op for op where it matters:
the same layers in the same order (so unseeded initializers draw the same op
seeds), the same variable names (checkpoints interchange), the same losses,
metrics, predictions and export signatures.
"""

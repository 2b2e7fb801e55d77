"""The TF 1 flavour of the canned estimators (``tf.compat.v1.estimator.DNNClassifier``
and its kin, which TF 1 code reached as ``tf.estimator.DNNClassifier``): v1
optimizers by name (learning rate 0.05), the loss summed over the batch, v1 metrics,
``optimizer.minimize`` with the global step, and v1 layers and feature columns.

They share with the TF 2 flavour what the two flavours computed alike: a head's
labels, loss per example, predictions and export signatures.
"""

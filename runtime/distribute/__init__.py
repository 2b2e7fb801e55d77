"""Where the steps run: TF_CONFIG clusters, the ``tf.distribute`` strategy chosen,
replication of the steps, TPU host calls and the XLA compile check."""

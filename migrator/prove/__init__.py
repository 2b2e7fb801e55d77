"""``migrate prove``: runs a repository's program as the Estimator ran it and as
``migrate`` made it, and compares what the runs left, value by value
(docs/prove.md).

Only ``migrate prove`` imports this package; it needs TensorFlow (the runtime
side's) to read the runs' checkpoints and event files, which ``migrate`` itself
never imports.
"""

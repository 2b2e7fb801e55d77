"""The engine: the ``Estimator`` class, its training controller and the compiled
programs it runs, hooks, the call cache, and ``train_and_evaluate``."""

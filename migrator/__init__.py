"""``migrate``: rewrites TensorFlow 1 Estimator code so it runs on TF 2.16+.

The migrator never imports TensorFlow: every table it needs is data in
``migrator/data`` or in :mod:`migrator.data.symbols`.
"""

__version__ = "0.1.0"

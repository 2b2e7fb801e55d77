"""Started with this folder on PYTHONPATH (the reference side of migrate prove and of
the tests), an interpreter of the main environment gives a program ``tf.estimator``
as tensorflow-estimator 2.15 on TensorFlow 2.21, as soon as the program imports ``tensorflow``; programs
it starts in turn inherit it (cluster tasks, notebooks)."""

import wrapt


@wrapt.when_imported("tensorflow")
def _put_the_estimator_back(tensorflow):
    import estimator_compat

    estimator_compat.install()

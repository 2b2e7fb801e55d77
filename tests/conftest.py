import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
# A program's own `runtime` and `migrator` packages come first here too (as in every
# process the tests start, helpers.sides.USER_PACKAGES): nothing reaches the bundled
# runtime or the migrator by those names.
sys.path.insert(0, str(Path(__file__).resolve().parent / "user_packages"))
# As `import estimator_revival` does, before anything imports TensorFlow in this
# process: the tests look TF 1 names up as the migrated code reaches them, with tf-keras.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")


@pytest.fixture(autouse=True, scope="session")
def _private_cache_directory(tmp_path_factory):
    """`migrate --verify` caches name lookups in the user's cache directory: the tests
    use a fresh one of their own."""
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture(autouse=True)
def _fresh_result_cache(tmp_path_factory, monkeypatch):
    """Each test starts with an empty `migrate` result cache: a result kept by an
    earlier test would hide what this one migrates (or the failure it injects)."""
    monkeypatch.setenv("MIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("results")))


@pytest.fixture
def eager_global_step():
    """A global step created eagerly, as TF 2-style code does (in the collection of
    the process's default graph), taken out of that collection afterwards so that
    it does not outlive the test."""
    import tensorflow as tf

    yield tf.compat.v1.train.get_or_create_global_step()
    tf.compat.v1.get_default_graph().clear_collection(tf.compat.v1.GraphKeys.GLOBAL_STEP)

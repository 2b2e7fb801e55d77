"""Runs a legacy program under TF 2.15 with the TF 1.x stand-ins installed:
``python tests/standins/run_legacy.py [--tf1-api] SCRIPT [ARGS...]`` or
``... [--tf1-api] -m MODULE [ARGS...]``. With ``--tf1-api``, ``import tensorflow``
gives TF 1's API (``tf1_api.py``), for programs written for TF 1.x."""

import os
import runpy
import sys

STANDINS = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    tf1_api = sys.argv[1] == "--tf1-api"
    if tf1_api:
        del sys.argv[1]
    as_module = sys.argv[1] == "-m"
    target = sys.argv[2] if as_module else os.path.abspath(sys.argv[1])
    sys.argv = [target, *sys.argv[3 if as_module else 2 :]]
    # as `python -m MODULE` / `python SCRIPT` set it
    sys.path[0] = os.getcwd() if as_module else os.path.dirname(target)
    sys.path.insert(1, STANDINS)
    import tensorflow_contrib

    tensorflow_contrib.install()
    if tf1_api:
        import tf1_api as api

        api.install()
    if as_module:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")


if __name__ == "__main__":
    main()

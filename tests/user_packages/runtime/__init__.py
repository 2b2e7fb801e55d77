"""A program's own package named ``runtime``, as NVIDIA's TF 1 examples have one
(``from runtime import Runner``). The tests put this folder first on ``sys.path``
of every process they run, so that a migrated program (or the runtime itself)
that imported ``runtime`` expecting the bundled runtime fails at once."""

OWNER = "the program"


class Runner:
    """What such a package offers: nothing the bundled runtime has."""

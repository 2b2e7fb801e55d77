"""``tf.contrib.training.HParams``, ``tf.contrib.learn.ModeKeys`` and
``tf.contrib.framework``'s global-step helpers for the legacy side, written from
what TF 1.15's ``contrib/training/python/training/hparam.py``,
``contrib/learn/python/learn/estimators/constants`` and ``contrib/framework`` did
(migrator/prove/side_process/standins/README.md). The runtime side uses runtime/contrib/."""

import re

import tensorflow as tf

_ITEM = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|[^,\[]*)")


def _assignments(text):
    """The (name, value text) pairs of "a=1,b=[2,3]" (a list keeps its commas)."""
    pairs, rest = [], text.strip()
    while rest:
        item = _ITEM.match(rest)
        if item is None:
            raise ValueError(f"Malformed hyperparameter value: {rest}")
        pairs.append((item.group(1), item.group(2).strip()))
        rest = rest[item.end() :].strip()
        if rest.startswith(","):
            rest = rest[1:].strip()
        elif rest:
            raise ValueError(f"Malformed hyperparameter value: {rest}")
    return pairs


def _cast(name, kind, text):
    if kind is bool:
        lowered = text.lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise ValueError(f"Could not parse hparam '{name}': {text}")
    try:
        return kind(text)
    except ValueError as error:
        raise ValueError(f"Could not parse hparam '{name}': {text}") from error


class HParams:
    """Each keyword is a hyperparameter and an attribute; its type is its value's
    (a list's, its elements'); ``parse("a=1,b=[2,3]")`` sets values of those
    types (ints where the type is float are taken)."""

    def __init__(self, **kwargs):
        self._types = {}
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        multi = isinstance(value, (list, tuple))
        if multi and not value:
            raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
        self._types[name] = (type(value[0] if multi else value), multi)
        setattr(self, name, value)

    def parse(self, values):
        seen = set()
        for name, text in _assignments(values):
            if name in seen:
                raise ValueError(f"Multiple assignments to variable '{name}'")
            seen.add(name)
            if name not in self._types:
                raise ValueError(f"Unknown hyperparameter type for {name}")
            kind, multi = self._types[name]
            if multi:
                items = [item.strip() for item in text[1:-1].split(",") if item.strip()]
                setattr(self, name, [_cast(name, kind, item) for item in items])
            else:
                setattr(self, name, _cast(name, kind, text))
        return self

    def values(self):
        return {name: getattr(self, name) for name in self._types}


class ModeKeys:
    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


get_or_create_global_step = tf.compat.v1.train.get_or_create_global_step
get_global_step = tf.compat.v1.train.get_global_step


def batch_and_drop_remainder(batch_size):
    """TF 1.15: a transformation batching by ``batch_size`` without the short last
    batch."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)

"""``tf.contrib.training.HParams``: named hyperparameters with fixed types, set from
keyword arguments, a ``"name=value,..."`` string or JSON, as TF 1.15 defined them
(the contract is written down in docs/contrib.md).

Every hyperparameter has a type, taken from its first value (of a list: its first
element): ``int``, ``float``, ``bool``, ``str`` or a list of one of them. Setting it
later casts the new value to that type where TF 1.15 allowed it (an int to a float,
never a float to an int, never anything to or from a bool) and raises ValueError
otherwise.
"""

from __future__ import annotations

import json
import numbers
import re

# name, an optional [index], "=", then a single value or a [list]
_ASSIGNMENT = re.compile(
    r"""(?P<name>[a-zA-Z][\w.]*)
    (\[\s*(?P<index>\d+)\s*\])?
    \s*=\s*
    ((?P<value>[^,\[]*) | \[(?P<values>[^\]]*)\])
    ($|,\s*)""",
    re.VERBOSE,
)


class HParams:
    def __init__(self, hparam_def=None, model_structure=None, **kwargs) -> None:
        if hparam_def is not None:
            raise ValueError("hparam_def (an HParamDef protocol buffer) is not supported")
        self._hparam_types: dict[str, tuple[type, bool]] = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value) -> None:
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name: str, value) -> None:
        kind, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast(name, kind, element) for element in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name: str) -> None:
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> HParams:
        """Overrides from ``"name=value,name=[v1,v2],name[0]=v"`` (values of the
        hyperparameters' own types)."""
        types = {name: kind for name, (kind, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, types))

    def override_from_dict(self, values_dict: dict) -> HParams:
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure) -> None:
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False) -> str:
        values = {name: value for name, value in self.values().items() if not callable(value)}
        return json.dumps(values, indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> HParams:
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> dict:
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key: str, default=None):
        if key not in self._hparam_types:
            return default
        if default is not None:
            kind, is_list = self._hparam_types[key]
            expected = list if is_list else kind
            if not isinstance(default, expected) and not (
                kind is float and isinstance(default, int) and not isinstance(default, bool)
            ):
                raise ValueError(
                    f"Hparam '{key}' of type '{kind}' is incompatible with default={default!r}"
                )
        return getattr(self, key)

    def __contains__(self, key: str) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return str(sorted(self.values().items()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self})"


def _cast(name: str, kind: type, value):
    """``value`` as a ``kind`` where TF 1.15 allowed it, else ValueError."""
    failure = ValueError(f"Could not cast hparam '{name}' of type '{kind}' from value {value!r}")
    if issubclass(kind, type(None)):
        return value
    if issubclass(kind, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise failure
    if issubclass(kind, bool) != isinstance(value, bool):
        raise failure
    if issubclass(kind, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise failure
    if issubclass(kind, numbers.Number) and not isinstance(value, numbers.Number):
        raise failure
    return kind(value)


def parse_values(values: str, type_map: dict[str, type], ignore_unknown: bool = False) -> dict:
    """``{name: value}`` from a ``"name=value,..."`` string, each value parsed as its
    hyperparameter's type (``name[i]=v`` sets one element: ``{name: {i: v}}``)."""
    results: dict = {}
    position = 0
    while position < len(values):
        match = _ASSIGNMENT.match(values, position)
        if not match:
            raise ValueError(f"Malformed hyperparameter value: {values[position:]}")
        position = match.end()
        name = match.group("name")
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        kind = type_map[name]
        if match.group("index") is not None:
            index = int(match.group("index"))
            if match.group("value") is None:
                raise ValueError(f"Malformed hyperparameter value: {match.group(0)}")
            element = _parse(name, kind, match.group("value"))
            results.setdefault(name, {})
            if not isinstance(results[name], dict) or index in results[name]:
                raise ValueError(f"Multiple assignments to variable '{name}[{index}]'")
            results[name][index] = element
        elif match.group("value") is not None:
            if name in results:
                raise ValueError(f"Multiple assignments to variable '{name}'")
            results[name] = _parse(name, kind, match.group("value"))
        else:
            if name in results:
                raise ValueError(f"Multiple assignments to variable '{name}'")
            items = [item for item in match.group("values").split(",") if item]
            results[name] = [_parse(name, kind, item) for item in items]
    return results


def _parse(name: str, kind: type, text: str):
    text = text.strip()
    try:
        if kind is bool:
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise ValueError(text)
        return kind(text)
    except ValueError:
        raise ValueError(
            f"Could not parse hparam '{name}' of type '{kind.__name__}' from value '{text}'"
        ) from None

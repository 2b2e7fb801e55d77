"""``[tool.migrate]`` in the target repository's pyproject.toml.

[tool.migrate]
select = ["MIG2", "MIG101"]   # code prefixes to enable (default: all)
ignore = ["MIG203"]           # code prefixes to disable
exclude = ["third_party/*"]   # glob patterns, relative to this pyproject.toml's directory
jobs = 4                      # worker processes

Every value is checked: a wrong type, an unknown key or a code that matches no rule
is an error naming the file and the key. MIG0xx (the file could not be read,
parsed or migrated) are always reported.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
import tomllib

from estimator_revival.migrator.migrate import ALL_CODES

ALWAYS_REPORTED = "MIG0"


@dataclasses.dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    jobs: int | None = None
    root: Path | None = None  # the directory of the pyproject.toml that set them

    def enabled_codes(self) -> frozenset[str]:
        chosen = {
            c for c in ALL_CODES if not self.select or any(c.startswith(p) for p in self.select)
        }
        enabled = {c for c in chosen if not any(c.startswith(p) for p in self.ignore)}
        return frozenset(enabled | {c for c in ALL_CODES if c.startswith(ALWAYS_REPORTED)})


def find_pyproject(start: Path) -> Path | None:
    start = start.resolve()
    for directory in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(start: Path) -> Settings:
    """Settings from the nearest pyproject.toml at or above ``start`` (if any)."""
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Settings()
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as error:
        raise click.BadParameter(f"{pyproject}: {error}", param_hint="pyproject.toml") from error
    table = document.get("tool", {}).get("migrate", {})
    if not isinstance(table, dict):
        _fail(pyproject, "[tool.migrate] must be a table")
    known = {f.name for f in dataclasses.fields(Settings)} - {"root"}
    unknown = sorted(set(table) - known)
    if unknown:
        _fail(pyproject, f"unknown [tool.migrate] keys {unknown}; known: {sorted(known)}")
    settings = Settings(
        select=_strings(table, "select", pyproject),
        ignore=_strings(table, "ignore", pyproject),
        exclude=_strings(table, "exclude", pyproject),
        jobs=_jobs(table, pyproject),
        root=pyproject.parent,
    )
    validate_codes(settings.select, where=f"{pyproject}: [tool.migrate] select")
    validate_codes(settings.ignore, where=f"{pyproject}: [tool.migrate] ignore")
    return settings


def _strings(table: dict, key: str, pyproject: Path) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        _fail(
            pyproject,
            f"[tool.migrate] {key} must be a list of strings, e.g. {key} = "
            f'["{_example(key)}"], not {value!r}',
        )
    return tuple(value)


def _example(key: str) -> str:
    return {"exclude": "third_party/*", "select": "MIG1", "ignore": "MIG203"}[key]


def _jobs(table: dict, pyproject: Path) -> int | None:
    value = table.get("jobs")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        _fail(pyproject, f"[tool.migrate] jobs must be a positive integer, not {value!r}")
    return value


def _fail(pyproject: Path, message: str):
    raise click.BadParameter(f"{pyproject}: {message}", param_hint="pyproject.toml")


def validate_codes(prefixes, *, where: str) -> None:
    for prefix in prefixes:
        if not prefix or not any(code.startswith(prefix) for code in ALL_CODES):
            raise click.BadParameter(
                f"{prefix!r} matches no rule code (known: {', '.join(sorted(ALL_CODES))})",
                param_hint=where,
            )

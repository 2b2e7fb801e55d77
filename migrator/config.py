"""``[tool.migrate]`` in the target repository's pyproject.toml.

[tool.migrate]
select = ["MIG2", "MIG101"]   # code prefixes to enable (default: all)
ignore = ["MIG203"]           # code prefixes to disable
exclude = ["third_party/*"]   # glob patterns, relative to each PATH
jobs = 4
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
import tomllib

from migrator.migrate import ALL_CODES


@dataclasses.dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    jobs: int | None = None

    def enabled_codes(self) -> frozenset[str]:
        chosen = {
            c for c in ALL_CODES if not self.select or any(c.startswith(p) for p in self.select)
        }
        return frozenset(c for c in chosen if not any(c.startswith(p) for p in self.ignore))


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
        table = tomllib.loads(pyproject.read_text()).get("tool", {}).get("migrate", {})
    except tomllib.TOMLDecodeError as error:
        raise click.BadParameter(f"{pyproject}: {error}", param_hint="pyproject.toml") from error
    known = {f.name for f in dataclasses.fields(Settings)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise click.BadParameter(
            f"{pyproject}: unknown [tool.migrate] keys {unknown}; known: {sorted(known)}",
            param_hint="pyproject.toml",
        )
    settings = Settings(
        select=tuple(table.get("select", ())),
        ignore=tuple(table.get("ignore", ())),
        exclude=tuple(table.get("exclude", ())),
        jobs=table.get("jobs"),
    )
    validate_codes(settings.select + settings.ignore, where=str(pyproject))
    return settings


def validate_codes(prefixes, *, where: str) -> None:
    for prefix in prefixes:
        if not any(code.startswith(prefix) for code in ALL_CODES):
            raise click.BadParameter(
                f"{prefix!r} matches no rule code (known: {', '.join(sorted(ALL_CODES))})",
                param_hint=where,
            )

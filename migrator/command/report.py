"""The ``--report`` file: JSON, or Markdown / HTML rendered from templates/.

Files with errors come first, then those with warnings, then the rest; a count per
code and an index of files open the report. Notebook changes are shown cell by
cell, as code. The HTML is autoescaped: source text and file names never become
markup.
"""

from __future__ import annotations

import collections
import dataclasses
import difflib
import json
from pathlib import Path

import jinja2

from estimator_revival.migrator import __version__
from estimator_revival.migrator.command.files import FileResult
from estimator_revival.migrator.data.diagnostics import CODES
from estimator_revival.migrator.source.text import write_atomically

# The copy a wheel installs (estimator_revival/migrator/templates), or templates/
# in a checkout (an editable install).
TEMPLATE_DIRECTORIES = [
    Path(__file__).resolve().parents[1] / "templates",
    Path(__file__).resolve().parents[2] / "templates",
]
FORMATS = {".json": None, ".md": "report.md.j2", ".html": "report.html.j2"}
_SEVERITY_ORDER = {"error": 0, "warning": 1, "note": 2}


@dataclasses.dataclass(frozen=True)
class Totals:
    """The counts the summary line and the report both show."""

    files_scanned: int
    files_changed: int
    errors: int
    warnings: int
    notes: int

    @classmethod
    def of(cls, results: list[FileResult], *, files_scanned: int) -> Totals:
        severities = collections.Counter(d.severity for r in results for d in r.diagnostics)
        return cls(
            files_scanned=files_scanned,
            files_changed=sum(r.changed for r in results),
            errors=severities["error"],
            warnings=severities["warning"],
            notes=severities["note"],
        )


def unified_diff(result: FileResult) -> str:
    old, new = result.texts()
    return _diff(old, new, result.path.as_posix().lstrip("/"))


def _diff(old: str, new: str, name: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


def readable_diff(result: FileResult) -> str:
    """The change as a reader wants it: a notebook's cell by cell, as code."""
    if result.path.suffix != ".ipynb":
        return unified_diff(result)
    old, new = result.texts()
    try:
        old_cells, new_cells = json.loads(old)["cells"], json.loads(new)["cells"]
    except (ValueError, KeyError, TypeError):
        return unified_diff(result)
    name = result.path.as_posix().lstrip("/")
    return "".join(
        _diff(_source(before), _source(after), f"{name}[cell {index}]")
        for index, (before, after) in enumerate(zip(old_cells, new_cells, strict=False))
        if _source(before) != _source(after)
    )


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def summary(results: list[FileResult], *, files_scanned: int) -> dict:
    files = []
    for result in results:
        if not (result.changed or result.diagnostics or result.error):
            continue
        diagnostics = sorted(
            result.diagnostics, key=lambda d: (_SEVERITY_ORDER[d.severity], d.line, d.column)
        )
        files.append(
            {
                "path": str(result.path),
                "changed": result.changed,
                "error": result.error,
                "diff": readable_diff(result) if result.changed else "",
                "errors": sum(d.severity == "error" for d in diagnostics),
                "warnings": sum(d.severity == "warning" for d in diagnostics),
                "diagnostics": [
                    {
                        "path": d.path,
                        "line": d.line,
                        "column": d.column,
                        "code": d.code,
                        "severity": d.severity,
                        "message": d.message,
                        "suggestion": d.suggestion,
                    }
                    for d in diagnostics
                ],
            }
        )
    files.sort(key=lambda f: (f["errors"] == 0, f["warnings"] == 0, f["path"]))
    counts = collections.Counter(d["code"] for f in files for d in f["diagnostics"])
    totals = Totals.of(results, files_scanned=files_scanned)
    return {
        "version": __version__,
        **dataclasses.asdict(totals),
        "by_code": [
            {"code": code, "severity": CODES[code].severity, "title": CODES[code].title, "count": n}
            for code, n in sorted(
                counts.items(), key=lambda i: (_SEVERITY_ORDER[CODES[i[0]].severity], i[0])
            )
        ],
        "codes": {code: c.title for code, c in CODES.items()},
        "files": files,
    }


def write(path: Path, results: list[FileResult], *, files_scanned: int) -> None:
    if path.suffix not in FORMATS:
        raise ValueError(f"--report: unknown format {path.suffix!r}; use one of {sorted(FORMATS)}")
    data = summary(results, files_scanned=files_scanned)
    if FORMATS[path.suffix] is None:
        text = json.dumps(data, indent=2) + "\n"
    else:
        environment = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(d) for d in TEMPLATE_DIRECTORIES]),
            # report.html.j2 ends in .j2: name both so the HTML is escaped.
            autoescape=jinja2.select_autoescape(["html", "html.j2"], default=False),
            keep_trailing_newline=True,
        )
        text = environment.get_template(FORMATS[path.suffix]).render(report=data)
    path.parent.mkdir(parents=True, exist_ok=True)  # within --out, made after the tree
    write_atomically(path, text.encode("utf-8"))

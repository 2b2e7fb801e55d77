"""The ``--report`` file: JSON, or Markdown / HTML rendered from templates/."""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

import jinja2

from migrator import __version__
from migrator.diagnostics import CODES
from migrator.files import FileResult

# templates/ in a checkout (editable install), or the copy a wheel installs.
TEMPLATE_DIRECTORIES = [
    Path(__file__).resolve().parents[1] / "templates",
    Path(sys.prefix) / "share" / "estimator-revival" / "templates",
]
FORMATS = {".json": None, ".md": "report.md.j2", ".html": "report.html.j2"}


def unified_diff(result: FileResult) -> str:
    old, new = result.texts()
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{result.path.as_posix().lstrip('/')}",
            tofile=f"b/{result.path.as_posix().lstrip('/')}",
        )
    )


def summary(results: list[FileResult]) -> dict:
    files = []
    for result in results:
        if not (result.changed or result.diagnostics or result.error):
            continue
        files.append(
            {
                "path": str(result.path),
                "changed": result.changed,
                "error": result.error,
                "diff": unified_diff(result) if result.changed else "",
                "diagnostics": [
                    {
                        "line": d.line,
                        "column": d.column,
                        "code": d.code,
                        "severity": d.severity,
                        "message": d.message,
                        "suggestion": d.suggestion,
                    }
                    for d in result.diagnostics
                ],
            }
        )
    diagnostics = [d for f in files for d in f["diagnostics"]]
    return {
        "version": __version__,
        "files_scanned": len(results),
        "files_changed": sum(r.changed for r in results),
        "errors": sum(d["severity"] == "error" for d in diagnostics),
        "warnings": sum(d["severity"] == "warning" for d in diagnostics),
        "codes": {code: c.title for code, c in CODES.items()},
        "files": files,
    }


def write(path: Path, results: list[FileResult]) -> None:
    if path.suffix not in FORMATS:
        raise ValueError(f"--report: unknown format {path.suffix!r}; use one of {sorted(FORMATS)}")
    data = summary(results)
    if FORMATS[path.suffix] is None:
        text = json.dumps(data, indent=2) + "\n"
    else:
        environment = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(d) for d in TEMPLATE_DIRECTORIES]),
            autoescape=jinja2.select_autoescape(["html"]),
            keep_trailing_newline=True,
        )
        text = environment.get_template(FORMATS[path.suffix]).render(report=data)
    path.write_text(text, encoding="utf-8")

"""Runs a notebook's code cells top to bottom in one namespace, as Jupyter's
"Restart Kernel and Run All" does, without a kernel:

    python tests/helpers/run_notebook.py NOTEBOOK.ipynb [-p NAME VALUE]...

IPython-only lines (``%magic``, ``!shell``) are skipped. ``-p`` values replace
the assignments of the cell tagged ``parameters`` (papermill's convention): they
run right after that cell, as Python literals where they parse as one, else as
strings. The working directory is on ``sys.path``, as in a kernel started there.
"""

from __future__ import annotations

import ast
import json
import os
import sys


def parameters(argv: list[str]) -> dict:
    values = {}
    while argv:
        flag, name, value, *argv = argv
        if flag != "-p":
            raise SystemExit(f"expected -p NAME VALUE, got {flag!r}")
        try:
            values[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            values[name] = value
    return values


def code_cells(notebook_path: str) -> list[tuple[str, bool]]:
    """(source without IPython-only lines, tagged `parameters`) per code cell."""
    with open(notebook_path, encoding="utf-8") as f:
        notebook = json.load(f)
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        lines = source if isinstance(source, list) else source.splitlines(True)
        python = "".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
        cells.append((python, "parameters" in cell.get("metadata", {}).get("tags", [])))
    return cells


def main() -> None:
    notebook_path, overrides = sys.argv[1], parameters(sys.argv[2:])
    sys.path[0] = os.getcwd()
    namespace = {"__name__": "__main__"}
    for index, (source, is_parameters) in enumerate(code_cells(notebook_path)):
        exec(compile(source, f"{notebook_path}[cell {index}]", "exec"), namespace)
        if is_parameters:
            namespace.update(overrides)


if __name__ == "__main__":
    main()

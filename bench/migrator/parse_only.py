"""The floor: parse every .py file of a tree (or one file) with libcst, nothing else."""

import sys
from pathlib import Path

import libcst as cst

root = Path(sys.argv[1])
for path in [root] if root.is_file() else sorted(root.rglob("*.py")):
    cst.parse_module(path.read_text())

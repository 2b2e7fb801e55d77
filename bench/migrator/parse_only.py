"""The floor: parse every .py file of a tree with libcst, nothing else."""

import sys
from pathlib import Path

import libcst as cst

for path in sorted(Path(sys.argv[1]).rglob("*.py")):
    cst.parse_module(path.read_text())

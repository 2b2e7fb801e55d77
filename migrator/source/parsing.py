"""Parsing source for the migration: Python's own parser first, then libcst."""

from __future__ import annotations

import ast

import libcst as cst


class UnparsableSource(Exception):
    """The source is not Python this interpreter can parse; where and why."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.line = line
        self.column = column
        self.message = message


def parse_with_python(code: str) -> ast.Module:
    """Python's own parser first: it is fast, rejects what the interpreter would
    (e.g. more than 200 nested brackets, which would overflow libcst's parser) and
    points where users expect."""
    try:
        return ast.parse(code)
    except SyntaxError as error:
        raise UnparsableSource(error.lineno or 1, error.offset or 1, error.msg) from None
    except (ValueError, MemoryError, RecursionError) as error:  # NUL bytes, too complex
        raise UnparsableSource(1, 1, str(error) or type(error).__name__) from None


def parse_with_libcst(code: str) -> cst.Module:
    try:
        return cst.parse_module(code)
    except cst.ParserSyntaxError as error:
        raise UnparsableSource(error.raw_line, error.raw_column + 1, error.message) from None

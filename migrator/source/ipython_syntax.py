"""Which lines of a notebook cell are IPython's own syntax rather than Python.

The rules are those of IPython's input transformer (``IPython.core.inputtransformer2``),
applied to logical lines (a statement continued over brackets, a triple-quoted string
or a backslash is one line; text in strings and comments is not syntax):

* a cell whose first non-blank line starts with ``%%`` is a cell magic: the rest of
  the cell belongs to the magic (``%%bash``, ``%%writefile``, ``%%html``...), except
  for the magics that run their body as Python in the notebook's namespace
  (``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``, ``%%debug``);
* a logical line whose first character (after indentation) is one of
  ``! ? % , ; /`` is an escaped command: ``!ls``, ``%matplotlib inline``, ``?obj``,
  IPython's autocall forms; it ends at its line (or its backslash continuation);
* ``name = %magic ...`` and ``name = !command`` assign a magic's or a command's output;
* a logical line that ends with ``?`` (outside a string or comment) asks for help.

Line magics that run a Python statement (``%time``, ``%timeit``, ``%prun``,
``%debug``) keep the statement, which is then migrated like any other code.
"""

from __future__ import annotations

import ast
import dataclasses
import re

PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
PYTHON_LINE_MAGICS = frozenset({"time", "timeit", "prun", "debug"})
_ESCAPES = frozenset("!?%,;/")
_STRING_START = re.compile(r"(?i)(?<![\w])(?:[rbuf]|br|rb|fr|rf)?('''|\"\"\"|'|\")")
_PLAIN_ASSIGN = re.compile(r"(?<![=!<>+\-*/%&|^@:~])=(?!=)")


@dataclasses.dataclass(frozen=True)
class MagicLine:
    """Lines ``first`` to ``last`` (0-based, inclusive) of a cell are IPython syntax.
    For a line magic such as ``%time`` that runs a Python statement, ``python`` is
    that statement and ``prefix`` what precedes it on the line."""

    first: int
    last: int
    prefix: str = ""
    python: str | None = None


def cell_magic(lines: list[str]) -> str | None:
    """The name of the cell magic a cell starts with (``bash`` for ``%%bash``), if any."""
    for line in lines:
        stripped = line.strip()
        if stripped:
            match = re.match(r"%%(\w*)", stripped)
            return match.group(1) if match else None
    return None


def magic_lines(lines: list[str]) -> list[MagicLine]:
    """The IPython-syntax lines of a cell's Python part (physical lines, ends kept)."""
    code, ranges = _scan(lines)
    found = []
    for first, last in ranges:
        if lines[first].lstrip(" \t")[:1] in _ESCAPES:
            found.append(_escaped(first, last, lines[first]))
            continue
        logical = "".join(code[first : last + 1])
        if _assigns_from_magic(logical) or logical.rstrip().endswith("?"):
            found.append(MagicLine(first, last))
    return found


def _escaped(first: int, last: int, line: str) -> MagicLine:
    """An escaped command; for a line magic that runs Python, the statement it runs
    (the longest tail after the magic's name and options that parses)."""
    body = line.rstrip("\r\n")
    match = re.match(r"[ \t]*%(\w+)", body)
    if first != last or match is None or match.group(1) not in PYTHON_LINE_MAGICS:
        return MagicLine(first, last)
    for gap in re.finditer(r"[ \t]+", body[match.end() :]):
        start = match.end() + gap.end()
        if _is_statement(body[start:]):
            return MagicLine(first, last, body[:start], body[start:])
    return MagicLine(first, last)


def _is_statement(text: str) -> bool:
    try:
        return bool(text.strip()) and bool(ast.parse(text).body)
    except (SyntaxError, ValueError):
        return False


def _assigns_from_magic(code: str) -> bool:
    """``a = %magic ...`` or ``a, b = !command``: the first plain ``=`` outside
    brackets is followed by ``%name`` or ``!``."""
    depth = 0
    for index, character in enumerate(code):
        if character in "([{":
            depth += 1
        elif character in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and _PLAIN_ASSIGN.match(code, index):
            after = code[index + 1 :].lstrip(" \t")
            return after.startswith("!") or re.match(r"%[A-Za-z_]", after) is not None
    return False


def _scan(lines: list[str]) -> tuple[list[str], list[tuple[int, int]]]:
    """Per physical line, its code with strings blanked and comments dropped; and the
    ``(first, last)`` physical lines of each logical line."""
    code: list[str] = []
    ranges: list[tuple[int, int]] = []
    first = 0
    depth = 0
    quote: str | None = None  # an open triple-quoted string
    escaped = False  # in an escaped command (not Python: not scanned)
    for number, line in enumerate(lines):
        if number == first:
            escaped = line.lstrip(" \t")[:1] in _ESCAPES
        text = line
        if escaped:
            code.append("")
        else:
            text, depth, quote = _scan_line(line, depth, quote)
            code.append(text)
        continued = text.rstrip("\r\n").endswith("\\")
        if depth == 0 and quote is None and not continued:
            ranges.append((first, number))
            first = number + 1
    if first < len(lines):
        ranges.append((first, len(lines) - 1))
    return code, ranges


def _scan_line(line: str, depth: int, quote: str | None) -> tuple[str, int, str | None]:
    """One physical line: its code, and the bracket depth and open triple quote after it."""
    out: list[str] = []
    index = 0
    while index < len(line):
        if quote is not None:
            end, closed = _string_end(line, index, quote)
            out.append(" " * (end - index))
            index = end
            quote = None if closed else quote
            continue
        character = line[index]
        if character == "#":
            out.append(line[len(line.rstrip("\r\n")) :])  # keep the line end
            break
        match = _STRING_START.match(line, index)
        if match:
            out.append(" " * (match.end() - index))
            index = match.end()
            quote = match.group(1)
            continue
        if character in "([{":
            depth += 1
        elif character in ")]}":
            depth = max(0, depth - 1)
        out.append(character)
        index += 1
    return "".join(out), depth, quote


def _string_end(text: str, start: int, quote: str) -> tuple[int, bool]:
    """Index just after the string's closing ``quote``, and whether it closed on this
    line (a one-quote string always ends with its line)."""
    index = start
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text.startswith(quote, index):
            return index + len(quote), True
        if len(quote) == 1 and text[index] in "\r\n":
            return index, True
        index += 1
    return len(text), len(quote) == 1

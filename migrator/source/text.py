"""Reading and writing source files without losing a byte: encodings, BOMs,
line endings and file modes survive; writes are atomic."""

from __future__ import annotations

import codecs
import dataclasses
import os
import re
import tempfile
from pathlib import Path

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


@dataclasses.dataclass(frozen=True)
class SourceText:
    """A decoded file and how to turn it back into the same bytes."""

    text: str
    encoding: str
    bom: bool

    def encode(self, text: str) -> bytes:
        data = text.encode(self.encoding)
        return codecs.BOM_UTF8 + data if self.bom else data


def decode(data: bytes) -> SourceText:
    """Decodes Python source as the interpreter would (PEP 263 + UTF-8 BOM)."""
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
    encoding = "utf-8"
    for line in data.splitlines()[:2]:
        match = _CODING.match(line)
        if match:
            encoding = codecs.lookup(match.group(1).decode("ascii")).name
            break
    return SourceText(data.decode(encoding), encoding, bom)


def _process_umask() -> int:
    """The umask, read once (setting it is the only way to read it, so not in a
    thread that writes files)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


_NEW_FILE_MODE = 0o666 & ~_process_umask()


def write_atomically(path: Path, data: bytes) -> None:
    """Replaces ``path`` in one rename, keeping its mode (a new file gets the mode
    the umask gives any file the user creates, not the temporary file's 0600);
    readers never see half a file."""
    mode = path.stat().st_mode if path.exists() else _NEW_FILE_MODE
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

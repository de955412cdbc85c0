"""Output paths checked before a long run, so a bad one fails at once
instead of after every game was played."""

from __future__ import annotations

import tempfile
from pathlib import Path


class OutputError(ValueError):
    """An output path that cannot be written; the message names it."""


def _probe_dir(folder: Path, shown: str) -> None:
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise OutputError(f"cannot write into {shown}: {exc.strerror or exc}") from None


def prepare_dir(path: str | Path) -> Path:
    """Create the folder ``path`` (and its parents) and check a file can be written there."""
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{path} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder {path}: {exc.strerror or exc}") from None
    _probe_dir(folder, str(path))
    return folder


def check_file(path: str | Path) -> Path:
    """Check that the file ``path`` can be written (its folder is created); the file itself is not touched."""
    file = Path(path).expanduser()
    if file.is_dir():
        raise OutputError(f"{path} is a folder, not a file")
    prepare_dir(file.parent)
    if file.exists():
        try:
            with file.open("ab"):
                pass
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    return file

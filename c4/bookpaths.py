"""Book options given as paths: every path named must exist.

``--books``/``--engine-books`` take ``default``, ``none`` or comma-separated
files and folders; the loaders skip a missing path quietly, so a typo would
run a whole match without the book. This check refuses it up front.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

KEYWORDS = ("", "default", "none", "off")


class BookPathError(ValueError):
    """A book path that does not exist; the message names the option and the path."""


def explicit_book_paths(spec: str | None, option: str) -> list[str]:
    """The paths ``spec`` names ([] for a keyword or None); BookPathError for one that does not exist."""
    if spec is None or spec.strip().lower() in KEYWORDS:
        return []
    paths = [p.strip() for p in re.split(rf"[,{re.escape(os.pathsep)}]", spec) if p.strip()]
    for p in paths:
        if not Path(p).expanduser().exists():
            raise BookPathError(f"{option}: no such book file or folder: {p}")
    return paths

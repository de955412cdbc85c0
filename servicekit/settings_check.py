"""Settings from the environment, refused with one clear line when wrong.

A service's settings class reads ``PREFIX_*`` variables (pydantic-settings).
:func:`load_settings` first refuses any variable with that prefix that no
field reads (a typo in ``.env`` would otherwise be ignored in silence), then
turns a value that does not parse into ``NAME='value': why``. Both raise
:class:`SettingsError`; :func:`settings_or_exit` ends the process with that
line and exit status 2 before anything starts.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from typing import TypeVar

from pydantic import AliasChoices, ValidationError
from pydantic_settings import BaseSettings

S = TypeVar("S", bound=BaseSettings)


class SettingsError(ValueError):
    """An unknown or malformed setting; the message names the variable."""


def env_names(cls: type[BaseSettings]) -> dict[str, str]:
    """Every variable the class reads -> its field."""
    prefix = cls.model_config.get("env_prefix", "")
    names = {}
    for field, info in cls.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            names.update({str(choice).upper(): field for choice in alias.choices})
        elif isinstance(alias, str):
            names[alias.upper()] = field
        else:
            names[(prefix + field).upper()] = field
    return names


def load_settings(cls: type[S], environ: Mapping[str, str] | None = None, also: Iterable[str] = ()) -> S:
    """``cls()`` after checking ``environ`` (default: the process's). ``also``:
    variables with the prefix that another program reads (not an error)."""
    environ = os.environ if environ is None else environ
    prefix = cls.model_config.get("env_prefix", "").upper()
    names = env_names(cls)
    allowed = set(names) | {name.upper() for name in also}
    if prefix:
        unknown = sorted(k for k in environ if k.upper().startswith(prefix) and k.upper() not in allowed)
        if unknown:
            known = ", ".join(sorted(n for n in names if n.startswith(prefix)))
            raise SettingsError(f"unknown setting {unknown[0]}"
                                f"{f' (and {len(unknown) - 1} more)' if len(unknown) > 1 else ''}: "
                                f"the {prefix}* settings are {known}")
    try:
        return cls()
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err.get("loc") else "?"
        by_field = {f: n for n, f in names.items() if n in environ or n.lower() in environ}
        name = by_field.get(field, (prefix + field).upper())
        value = environ.get(name, err.get("input"))
        raise SettingsError(f"{name}={value!r}: {err['msg']}") from None


def settings_or_exit(cls: type[S], program: str, also: Iterable[str] = ()) -> S:
    """:func:`load_settings`, or exit 2 with ``program: <the error>`` on stderr."""
    try:
        return load_settings(cls, also=also)
    except SettingsError as exc:  # before logging is set up: the one line goes to stderr
        sys.stderr.write(f"{program}: {exc}\n")
        raise SystemExit(2) from None

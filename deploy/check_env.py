"""The entrypoint of every app container (docker-compose.yml): check the
deployment's own C4_* settings that a .env file passes in, then exec the
service's command (same process, so signals and exit status are the service's).

    python /app/deploy/check_env.py COMMAND...

Each service refuses unknown or malformed variables of its own prefix
(C4_ENGINE_*, ..., servicekit/settings_check.py). The compose file's own
settings (C4_HTTP_PORT, C4_BIND, ...) have no prefix of a service, so a typo
such as C4_HTTP_PROT would pass in silence: here any C4_* variable that is
neither one of those, nor of a service's prefix, nor read by the code stops
the container with exit status 2 and one line naming it, and so does a value
of those settings that does not parse. Standard library only.
"""

from __future__ import annotations

import ipaddress
import os
import re
import sys
from collections.abc import Callable, Mapping

# Prefixes whose variables the services' settings classes check themselves.
SERVICE_PREFIXES = ("C4_ENGINE_", "C4_SOLVER_", "C4_GATEWAY_", "C4_BOOKGEN_", "C4_QUEUE_METRICS_", "C4_UP_")
# Read by the code outside a settings class (servicekit.logs, the learned players, c4 up's children);
# the learned players check C4_NET_RUNTIME's value themselves (engine_svc/learned/runtime.py).
PROCESS_VARS = {"C4_LOG_FORMAT", "C4_MODEL_DIR", "C4_NET_RUNTIME", "C4_STACK_ID"}


def _port(value: str) -> str | None:
    return None if value.isdigit() and 1 <= int(value) <= 65535 else "a port number 1..65535"


def _address(value: str) -> str | None:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return "an IP address of this host (127.0.0.1, 0.0.0.0, ...)"
    return None


def _boolean(value: str) -> str | None:
    return None if value.lower() in {"true", "false"} else "true or false"


def _memory(value: str) -> str | None:  # redis-server's maxmemory
    return None if re.fullmatch(r"\d+([kmg]b?)?", value, re.I) else "a size such as 1gb, 512mb"


def _url(*schemes: str) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        return None if re.fullmatch(rf"({'|'.join(schemes)})://\S+", value) else f"a {' or '.join(schemes)}:// URL"
    return check


def _any(_value: str) -> str | None:
    return None


# The variables docker-compose.yml itself interpolates, and what each must look like.
COMPOSE_VARS: dict[str, Callable[[str], str | None]] = {
    "C4_BIND": _address,
    "C4_HTTP_PORT": _port,
    "C4_BRIDGE_PORT": _port,
    "C4_PUBLIC_URL": _url("http", "https"),
    "C4_IMAGE": _any,
    "C4_REDIS_IMAGE": _any,
    "C4_REDIS_URL": _url("redis", "rediss", "unix"),
    "C4_REDIS_MAXMEMORY": _memory,
    "C4_BACKEND_INTERNAL": _boolean,
}


def problem(environ: Mapping[str, str]) -> str | None:
    """The first unknown or malformed deployment setting, as one line; else None."""
    for name in sorted(environ):
        if not name.startswith("C4_") or name.startswith(SERVICE_PREFIXES) or name in PROCESS_VARS:
            continue
        if environ[name] == "":  # empty is unset to compose's ${NAME:-default}
            continue
        check = COMPOSE_VARS.get(name)
        if check is None:
            return f"unknown setting {name}: the deployment's settings are {', '.join(COMPOSE_VARS)} (docs/deploy.md)"
        why = check(environ[name])
        if why:
            return f"{name}={environ[name]!r}: not {why}"
    return None


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: python deploy/check_env.py COMMAND...\n")
        return 2
    why = problem(os.environ)
    if why:
        sys.stderr.write(f"{' '.join(argv[:3])}: {why}\n")
        return 2
    os.execvp(argv[0], argv)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A container health check that costs a few milliseconds: GET a URL, exit 0
on a 2xx answer, else 1 with the reason on stderr. Standard library only (no
grpc, no project import), so Docker's probe process starts fast.

    python -m servicekit.healthcheck http://127.0.0.1:9101/healthz [TIMEOUT_S]
"""

import sys
import urllib.error
import urllib.request


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        sys.stderr.write("usage: python -m servicekit.healthcheck URL [TIMEOUT_S]\n")
        return 2
    url, timeout = argv[0], float(argv[1]) if len(argv) == 2 else 5.0
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return 0 if 200 <= reply.status < 300 else 1
    except urllib.error.HTTPError as err:
        sys.stderr.write(f"{url}: HTTP {err.code} {err.read(200).decode(errors='replace').strip()}\n")
    except (OSError, ValueError) as err:
        sys.stderr.write(f"{url}: {type(err).__name__}: {err}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

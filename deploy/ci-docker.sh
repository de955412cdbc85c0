#!/usr/bin/env bash
# The real Docker deployment, end to end (.ci/run runs it after `make test`; as root):
#   1. Docker ready: engine, daemon, compose plugin, stand-in base images
#      (deploy/docker-standins.sh: no image registry is needed)
#   2. docker-compose.yml validates
#   3. build the image (one service builds it, the rest use it by name)
#   4. up -d --wait: every service healthy
#   5. a move over REST and over the JSON bridge (deploy/smoke.py)
#   6. a .env with a misspelt setting (a service's, the compose file's): the container refuses to start, naming it
#   7. scale the engine to 2: both healthy, and the new replica gets the gateway's calls within 30 s
#   8. down -v (also when a step fails)
# Each step logs its time; any failure ends the script non-zero with the reason.
# Where Docker cannot start, that is a failure, not a skip.
#
# Environment: CI_DOCKER_PROJECT (compose project, default c4ci), CI_DOCKER_WAIT_S
# (time to healthy allowed, default 900), CI_DOCKER_KEEP=1 (leave the stack running).
set -Eeuo pipefail
cd "$(dirname "$0")/.."
PROJECT=${CI_DOCKER_PROJECT:-c4ci}
WAIT_S=${CI_DOCKER_WAIT_S:-900}
T0=$SECONDS
STEP_T=$SECONDS
log()  { printf '[ci-docker %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
step() { STEP_T=$SECONDS; log "== $*"; }
took() { log "   done in $((SECONDS - STEP_T)) s"; }
fail() { log "FAILED: $*"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

[ "$(id -u)" = 0 ] || fail "run as root: Docker's daemon and the stand-in images need it"

step "docker: engine, daemon, compose plugin, base images (deploy/docker-standins.sh)"
bash deploy/docker-standins.sh || fail "Docker could not be prepared (see the lines above)"
docker info >/dev/null 2>&1 || fail "the Docker daemon does not answer"
docker compose version >/dev/null 2>&1 || fail "no docker compose plugin"
log "   $(docker version --format 'Docker Engine {{.Server.Version}}'), Compose $(docker compose version --short)"
took

export C4_HTTP_PORT=${C4_HTTP_PORT:-$(free_port)} C4_BRIDGE_PORT=${C4_BRIDGE_PORT:-$(free_port)}
compose() { docker compose -p "$PROJECT" "$@"; }
made_env=0
down() {
    local rc=$?
    [ "$made_env" = 1 ] && rm -f .env
    if [ "${CI_DOCKER_KEEP:-0}" = 1 ]; then log "CI_DOCKER_KEEP=1: the stack keeps running (project $PROJECT)"; return; fi
    if [ $rc -ne 0 ]; then
        log "last log lines of each service:"
        compose ps -a >&2 || true
        compose logs --no-color --tail 30 >&2 || true
    fi
    step "down -v"
    compose down -v --remove-orphans >&2 || log "   down failed"
    took
    log "total $((SECONDS - T0)) s (exit $rc)"
}

step "docker-compose.yml validates"
compose config -q || fail "docker-compose.yml does not validate"
took

step "build the image"
compose build engine || fail "the image did not build"
image=$(compose config --images | sort -u | grep -v redis | head -n1)
size=$(docker image inspect --format '{{.Size}}' "$image")
log "   $image: $((size / 1000000)) MB"
took
trap down EXIT

step "up -d --wait (every service healthy within ${WAIT_S} s)"
compose up -d --wait --wait-timeout "$WAIT_S" || fail "the stack did not become healthy"
took
for svc in engine solver; do
    w=$(compose logs --no-color "$svc" 2>/dev/null | grep -o '"warmup_s": *[0-9.]*' | tail -n1 | grep -o '[0-9.]*$' || true)
    log "   $svc warm-up ${w:-?} s"
done

step "a move over REST and over the bridge"
python3 deploy/smoke.py "http://127.0.0.1:$C4_HTTP_PORT" "127.0.0.1:$C4_BRIDGE_PORT" --moves 3 \
    || fail "the smoke game failed"
took

step "a misspelt setting in .env stops the service with one line naming it"
if [ -e .env ]; then
    log "   a .env exists here: left alone, step skipped"
else
    # a service's own setting (the engine's check), then one of this compose file's (deploy/check_env.py)
    for bad in C4_ENGINE_TT_MBB C4_HTTP_PROT; do
        made_env=1
        printf '%s=64\n' "$bad" >.env
        rc=0
        out=$(compose run --rm --no-deps -T engine 2>&1) || rc=$?
        rm -f .env
        made_env=0
        [ "$rc" = 2 ] || fail "the engine with $bad in .env exited $rc, not 2: $out"
        line=$(printf '%s\n' "$out" | grep -m1 "unknown setting $bad") \
            || fail "no line naming $bad: $out"
        log "   $bad: exit 2: ${line:0:90}..."
    done
fi
took

step "scale the engine to 2"
compose up -d --wait --wait-timeout "$WAIT_S" --no-recreate --scale engine=2 || fail "the second engine did not become healthy"
[ "$(compose ps -q engine | wc -l)" = 2 ] || fail "not 2 engine containers"
took

step "the new engine replica gets the gateway's calls"
moves_of() {  # engine moves searched by replica $1, from its own /metrics
    compose exec -T --index "$1" engine python -c '
import urllib.request
text = urllib.request.urlopen("http://127.0.0.1:9101/metrics", timeout=10).read().decode()
print(int(sum(float(l.rsplit(" ", 1)[1]) for l in text.splitlines() if l.startswith("engine_moves_total{"))))'
}
before=$(moves_of 2)
deadline=$((SECONDS + 30))  # issue 18: a new replica gets calls within 30 s of being healthy
while :; do
    python3 deploy/smoke.py "http://127.0.0.1:$C4_HTTP_PORT" "127.0.0.1:$C4_BRIDGE_PORT" --moves 4 2>/dev/null \
        || fail "a game failed after scaling"
    now=$(moves_of 2)
    [ "$now" -gt "$before" ] && break
    [ $SECONDS -lt $deadline ] || fail "the second engine got no move within 30 s of being healthy"
done
log "   replica 2 searched $((now - before)) move(s), replica 1 $(moves_of 1) in all"
took
log "deployment check passed"

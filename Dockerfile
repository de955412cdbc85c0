# One image for every process of the stack: engine, solver, gateway, bookgen
# workers (docker-compose.yml picks the command). Slim Python 3.11, a non-root
# user, and a warm numba cache built here, so a container starts without
# compiling its kernels.
#
#   docker build -t connect4-stack .
#   docker compose up            # see docs/deploy.md

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    NUMBA_CACHE_DIR=/var/cache/c4/numba

# /var/lib/c4/learned: the corrective book that learning writes (a volume in
# docker-compose.yml; a new volume takes this folder's owner, so c4 can write).
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin c4 \
 && mkdir -p /app "$NUMBA_CACHE_DIR" /var/lib/c4/learned \
 && chown c4 "$NUMBA_CACHE_DIR" /var/lib/c4/learned
WORKDIR /app

# Dependencies first, from pyproject.toml alone, so a code change reuses this layer.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

# The code, installed in place (web/ and books/ stay beside the packages that read them).
COPY . .
RUN pip install --no-deps -e . \
 && python -m compileall -q .

# Warm numba cache: start each service until SERVING, as the user that runs them.
# The cache is keyed by the CPU: on a different CPU model a service recompiles
# at start (still correct; it reports ready only when warm).
USER c4
RUN python deploy/warm_cache.py

EXPOSE 8000 4444 50051 50052 9101 9102
# docker-compose.yml sets the command of each service; alone, the image runs the gateway.
CMD ["python", "-m", "gateway"]

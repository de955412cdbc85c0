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

# Dependencies first, from pyproject.toml and constraints.txt alone, so a code
# change reuses this layer: the runtime dependencies only (no extras), at the
# versions of constraints.txt, the same pins `make` installs. Then the standard
# library's .pyc files: the base image ships none and PYTHONDONTWRITEBYTECODE
# keeps it so, and without them every process, each health probe included,
# compiles what it imports (0.3 s of CPU a probe instead of a few tens of ms).
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && pip install -c constraints.txt -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt \
 && python -m compileall -q "$(python -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"

# The code, installed in place (web/ and books/ stay beside the packages that read them).
COPY . .
RUN pip install --no-deps --no-build-isolation -e . \
 && python -m compileall -q .

# Warm numba cache: start each service until SERVING, as the user that runs them.
# Numba keys its cache by the CPU it compiles for; naming a CPU level here (and
# so in every container) instead of the build machine's own model makes the
# cache fit any x86-64 CPU that has that level (docs/deploy.md: the choice and
# its measured cost).
ENV NUMBA_CPU_NAME=x86-64-v2 \
    NUMBA_CPU_FEATURES=+popcnt
USER c4
RUN python deploy/warm_cache.py

EXPOSE 8000 4444 50051 50052 9101 9102
# docker-compose.yml sets the command of each service; alone, the image runs the gateway.
CMD ["python", "-m", "gateway"]

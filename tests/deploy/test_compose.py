"""docker-compose.yml agrees with the code: services, commands, ports, health
checks and the names of the environment variables the settings classes read.

No Docker engine is needed: the file is read with PyYAML and, where a real
Compose binary is installed (``docker compose`` or ``.venv/bin/docker-compose``,
see .ci/run), validated and resolved by it.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pydantic import AliasChoices
from pydantic_settings import BaseSettings

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "docker-compose.yml"
APP_SERVICES = {  # compose service -> (modules that may hold its settings class, env prefix)
    "engine": (("engine_svc.settings", "engine_svc.config"), "C4_ENGINE_"),
    "solver": (("solver_svc.settings", "solver_svc.config"), "C4_SOLVER_"),
    "gateway": (("gateway.settings", "gateway.config"), "C4_GATEWAY_"),
    "bookgen-worker": (("books.bookgen.config", "books.bookgen.settings"), "C4_BOOKGEN_"),
    "queue-metrics": (("c4.stack.queue_metrics",), "C4_QUEUE_METRICS_"),
}
# Settings a service reads through another package's settings class.
ALSO_READS = {"queue-metrics": ["bookgen-worker"]}
# Variables the image itself reads, not a settings class.
RUNTIME_VARS = {"PYTHONUNBUFFERED", "NUMBA_CACHE_DIR", "NUMBA_NUM_THREADS"}


CHEAP_PROBE = ["python", "-m", "servicekit.healthcheck"]


def parse_seconds(text: str) -> float:
    """Compose's durations as `config` prints them: 10s, 1m30s, 5m0s."""
    total, number = 0.0, ""
    for ch in str(text):
        if ch.isdigit() or ch == ".":
            number += ch
        else:
            total += float(number or 0) * {"h": 3600, "m": 60, "s": 1}[ch]
            number = ""
    return total + float(number or 0)


def compose_binary() -> list[str] | None:
    """A real Compose: the docker CLI plugin, else the binary .ci/run installs."""
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    for candidate in (Path(sys.executable).parent / "docker-compose", shutil.which("docker-compose")):
        if candidate and Path(candidate).exists():
            version = subprocess.run([str(candidate), "version"], capture_output=True, text=True)
            if version.returncode == 0 and "v2." in version.stdout:
                return [str(candidate)]
    return None


def require_compose() -> list[str]:
    found = compose_binary()
    if found is None:  # make test installs one (deploy/setup-system.sh): never a reason to skip
        pytest.fail("no Compose binary: `make test` installs one into .venv/bin/docker-compose "
                    "(deploy/setup-system.sh)")
    return found


def clean_env() -> dict[str, str]:
    """The environment without any variable the compose file interpolates or passes through."""
    names = set(re.findall(r"\$\{(\w+)", COMPOSE_FILE.read_text()))
    raw = yaml.safe_load(COMPOSE_FILE.read_text())
    for svc in raw["services"].values():
        names.update((svc.get("environment") or {}).keys())
    return {k: v for k, v in os.environ.items() if k not in names and not k.startswith("COMPOSE_")}


@pytest.fixture(scope="module")
def raw() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def interpolate_defaults(text: str) -> str:
    """Compose's interpolation with every variable unset: ``${X:-d}``/``${X-d}`` -> d,
    ``${X}`` -> empty, ``$$`` -> ``$`` (for machines without a Compose binary)."""
    pattern = re.compile(r"(?<!\$)\$\{(\w+)(?::?-([^}$]*))?\}")  # innermost first: nested defaults
    while True:
        text, n = pattern.subn(lambda m: m.group(2) or "", text)
        if not n:
            return text.replace("$$", "$")


@pytest.fixture(scope="module")
def resolved(raw) -> dict:
    """The model as Compose sees it (defaults interpolated): from a real Compose
    binary when there is one, else interpolated here."""
    binary = compose_binary()
    if binary is None:
        return yaml.safe_load(interpolate_defaults(COMPOSE_FILE.read_text()))
    out = subprocess.run([*binary, "-f", str(COMPOSE_FILE), "config", "--format", "json"],
                         capture_output=True, text=True, env=clean_env(), cwd=REPO)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def settings_class(modules: tuple[str, ...], prefix: str) -> type[BaseSettings]:
    """The pydantic settings class of a service, found by its env prefix."""
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                continue
        except ModuleNotFoundError:
            continue
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, BaseSettings) and value is not BaseSettings
                    and value.model_config.get("env_prefix") == prefix):
                return value
    raise AssertionError(f"no settings class with env_prefix {prefix} in {' or '.join(modules)}")


def env_names(cls: type[BaseSettings]) -> dict[str, str]:
    """Every environment variable the class reads -> its field name."""
    prefix = cls.model_config.get("env_prefix", "")
    names = {}
    for field_name, info in cls.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            for choice in alias.choices:
                if isinstance(choice, str):
                    names[choice.upper()] = field_name
        elif isinstance(alias, str):
            names[alias.upper()] = field_name
        else:
            names[(prefix + (info.alias or field_name)).upper()] = field_name
    return names


def environment(service: dict) -> dict[str, str | None]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the "KEY=VALUE" form
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    return {k: (None if v is None else str(v)) for k, v in env.items()}


def settings_from(service: dict, cls: type[BaseSettings], monkeypatch) -> BaseSettings:
    """The settings a container of this service gets: its compose environment only."""
    for name in env_names(cls):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment(service).items():
        if value is not None:
            monkeypatch.setenv(name, value)
    return cls()


def grpc_target(addr: str) -> tuple[str, int]:
    """host, port of a gRPC target such as ``dns:///engine:50051``."""
    target = re.sub(r"^dns:(//[^/]*)?/", "", addr)
    host, _, port = target.rpartition(":")
    return host, int(port)


# ---------------------------------------------------------------------------- tests


def test_compose_binary_validates_the_file():
    binary = require_compose()
    out = subprocess.run([*binary, "-f", str(COMPOSE_FILE), "config", "-q"],
                         capture_output=True, text=True, env=clean_env(), cwd=REPO)
    assert out.returncode == 0, out.stderr


def test_services_and_commands(resolved):
    services = resolved["services"]
    assert set(services) == {"redis", *APP_SERVICES}
    for name in APP_SERVICES:
        command = services[name]["command"]
        assert command[:2] == ["python", "-m"], (name, command)
        module = command[2]
        assert importlib.util.find_spec(module) is not None, f"{name}: no module {module}"
        if module == "c4.main":
            from c4.main import build_parser

            args = build_parser().parse_args(command[3:])
            assert callable(args.run)
        else:
            spec = importlib.util.find_spec(module)
            if spec.submodule_search_locations is not None:  # a package: needs __main__
                assert importlib.util.find_spec(f"{module}.__main__") is not None, f"{name}: `python -m {module}`"
            else:
                assert '__name__ == "__main__"' in Path(spec.origin).read_text(), f"{name}: `python -m {module}`"


def test_every_setting_name_is_read_by_the_code(resolved):
    for service, (modules, prefix) in APP_SERVICES.items():
        known = env_names(settings_class(modules, prefix))
        for other in ALSO_READS.get(service, []):
            known.update(env_names(settings_class(*APP_SERVICES[other])))
        for name in environment(resolved["services"][service]):
            if name in RUNTIME_VARS:
                continue
            assert name.upper() in known, f"{service}: {name} is read by no settings field"


# Settings a container does not take from the shell: web_dir is a path inside the image.
NOT_PASSED = {"gateway": {"web_dir"}}


def test_every_setting_of_the_code_can_be_set_from_the_shell(raw):
    """Each settings field has one of its variable names in its service's environment
    (bare, to pass the shell's or .env's value through, or wired), so docs/services.md
    holds for containers too."""
    for service, (modules, prefix) in APP_SERVICES.items():
        names = env_names(settings_class(modules, prefix))
        listed = {name.upper() for name in environment(raw["services"][service])}
        fields = set(names.values()) - NOT_PASSED.get(service, set())
        missing = sorted(field for field in fields
                         if not any(n in listed for n, f in names.items() if f == field))
        assert not missing, f"{service}: no variable in docker-compose.yml sets {missing}"


def test_learn_requests_go_to_the_queue_the_workers_take(raw, resolved, monkeypatch):
    from books.bookgen.config import BookgenSettings

    default = BookgenSettings.model_fields["learn_queue"].default
    wired = environment(raw["services"]["gateway"])["C4_GATEWAY_LEARN_QUEUE"]
    assert wired == f"${{C4_BOOKGEN_LEARN_QUEUE:-{default}}}"
    assert environment(resolved["services"]["gateway"])["C4_GATEWAY_LEARN_QUEUE"] == default
    assert "C4_BOOKGEN_LEARN_QUEUE" in environment(raw["services"]["bookgen-worker"])


def test_what_workers_learn_reaches_the_engines(resolved, monkeypatch):
    """Learning appends to the bookgen workers' corrective book; each container has its
    own files, so that book must be on a volume the engines mount and list."""
    services = resolved["services"]
    worker = settings_from(services["bookgen-worker"], settings_class(*APP_SERVICES["bookgen-worker"]), monkeypatch)
    engine = settings_from(services["engine"], settings_class(*APP_SERVICES["engine"]), monkeypatch)
    learned = Path(worker.corrective_book)
    assert learned in engine.book_paths()
    assert engine.book_paths()[-1] == learned, "learned moves override the shipped books"

    def volume_holding(service: dict) -> str | None:
        for v in service.get("volumes", []):
            if isinstance(v, str):  # the short form, when no Compose binary resolved the file
                source, target = v.split(":")[:2]
                v = {"type": "bind" if source.startswith((".", "/")) else "volume", "source": source, "target": target}
            if v["type"] == "volume" and learned.parent == Path(v["target"]):
                return v["source"]
        return None

    assert volume_holding(services["bookgen-worker"]) is not None, "the worker writes on a volume"
    assert volume_holding(services["engine"]) == volume_holding(services["bookgen-worker"])
    text = (REPO / "Dockerfile").read_text()
    assert re.search(rf"chown c4 .*{re.escape(str(learned.parent))}", text), "the image lets c4 write there"


def test_backend_network_is_internal_unless_told(resolved):
    assert resolved["networks"]["backend"].get("internal") is True


def test_settings_parse_from_the_compose_environment(resolved, monkeypatch):
    """What compose sets is valid for each settings class, and the wiring agrees."""
    services = resolved["services"]
    got = {}
    for service, (modules, prefix) in APP_SERVICES.items():
        got[service] = settings_from(services[service], settings_class(modules, prefix), monkeypatch)

    engine, solver, gateway = got["engine"], got["solver"], got["gateway"]
    for svc in (engine, solver, gateway):
        assert svc.host == "0.0.0.0", "inside a container a service listens on the container's network"
    assert gateway.bridge_host == "0.0.0.0"
    assert grpc_target(gateway.engine_addr) == ("engine", engine.port)
    assert grpc_target(gateway.solver_addr) == ("solver", solver.port)
    assert gateway.engine_addr.startswith("dns:///") and gateway.solver_addr.startswith("dns:///"), \
        "dns:/// so gRPC resolves every replica of a scaled service"
    # Redis is the compose service for every process that uses it.
    assert gateway.redis_url.startswith("redis://redis:6379")
    assert solver.redis_url.startswith("redis://redis:6379")
    assert got["bookgen-worker"].redis_url.startswith("redis://redis:6379")
    assert got["queue-metrics"].redis_url.startswith("redis://redis:6379")
    assert got["queue-metrics"].host == "0.0.0.0"
    assert services["queue-metrics"]["healthcheck"]["test"][-2] == \
        f"http://127.0.0.1:{got['queue-metrics'].port}/metrics"

    # Ports: what each service listens on is what is exposed, checked and published.
    for name, svc in (("engine", engine), ("solver", solver)):
        exposed = {str(p).split("/")[0] for p in services[name].get("expose", [])}
        assert {str(svc.port), str(svc.metrics_port)} <= exposed, name
        test = services[name]["healthcheck"]["test"]
        assert test == ["CMD", *CHEAP_PROBE, f"http://127.0.0.1:{svc.metrics_port}/healthz", "15"], (name, test)
    test = services["gateway"]["healthcheck"]["test"]
    assert test == ["CMD", *CHEAP_PROBE, f"http://127.0.0.1:{gateway.port}/readyz", "15"], test
    worker = got["bookgen-worker"]
    assert worker.health_host == "0.0.0.0" and str(worker.health_port) in services["bookgen-worker"]["expose"]
    assert services["bookgen-worker"]["healthcheck"]["test"] == \
        ["CMD", *CHEAP_PROBE, f"http://127.0.0.1:{worker.health_port}/healthz", "15"]
    targets = set()
    for entry in services["gateway"]["ports"]:
        if isinstance(entry, dict):
            targets.add(int(entry["target"]))
        else:
            targets.add(int(str(entry).rsplit(":", 1)[-1].split("/")[0]))
    assert targets == {gateway.port, gateway.bridge_port}


def test_published_ports_are_on_loopback_by_default(raw, resolved):
    for name, service in resolved["services"].items():
        for entry in service.get("ports", []):
            if isinstance(entry, dict):
                assert entry.get("host_ip") == "127.0.0.1", (name, entry)
            else:
                assert str(entry).startswith("127.0.0.1:") or "${C4_BIND:-127.0.0.1}" in str(entry), (name, entry)
        if name != "gateway":
            assert not service.get("ports"), f"{name} needs no published port"
    for entry in raw["services"]["gateway"]["ports"]:
        assert str(entry).startswith("${C4_BIND:-127.0.0.1}:"), "the bind address is a variable"


def test_health_dependencies_restart(resolved):
    services = resolved["services"]
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"
        assert service.get("restart") in ("unless-stopped", "always", "on-failure"), name
        assert "container_name" not in service, f"{name}: a fixed name forbids --scale"
        for dep, spec in (service.get("depends_on") or {}).items():
            assert dep in services
            assert spec["condition"] == "service_healthy", (name, dep)
    assert set(services["gateway"]["depends_on"]) == {"redis", "engine", "solver"}
    assert "redis" in services["bookgen-worker"]["depends_on"]
    assert "redis-cli" in " ".join(services["redis"]["healthcheck"]["test"])
    # each replica of the worker has its own node name
    worker = services["bookgen-worker"]
    name = worker["command"][worker["command"].index("--name") + 1]
    assert name == "bookgen@%h"


def test_probes_are_cheap_and_patient(resolved):
    """No probe imports grpc or broadcasts to Celery: each is one HTTP GET by a
    standard-library script; a probe's timeout and retries hold on a loaded machine."""
    for name, service in resolved["services"].items():
        check = service["healthcheck"]
        if name != "redis":
            assert check["test"][1:4] == CHEAP_PROBE, (name, check["test"])
        assert parse_seconds(check["timeout"]) >= 3 and check["retries"] >= 3, (name, check)
        if name != "redis":  # the probe gives up (and says why) before Docker kills it
            assert float(check["test"][-1]) < parse_seconds(check["timeout"]), (name, check)


def test_dotenv_reaches_the_services_when_there(raw):
    """So each service checks a .env's settings of its own at start (unknown or malformed: exit 2)."""
    for name, service in raw["services"].items():
        if name != "redis":
            assert service["env_file"] == [{"path": ".env", "required": False}], name


def test_one_service_builds_the_image(resolved):
    app = [name for name, service in resolved["services"].items()
           if service.get("image") == resolved["services"]["engine"]["image"]]
    assert len(app) >= 4, app
    builders = [name for name in app if resolved["services"][name].get("build")]
    assert builders == ["engine"], builders
    for name in app:
        assert resolved["services"][name].get("pull_policy") == "never", name


def test_health_checks_run_on_docker_engines_before_v25(raw):
    """Compose refuses to create any container with healthcheck.start_interval on an
    engine older than v25 (Debian 12's docker.io is 20.10)."""
    for name, service in raw["services"].items():
        assert "start_interval" not in (service.get("healthcheck") or {}), name


def test_redis_persists_on_a_named_volume(resolved):
    redis = resolved["services"]["redis"]
    command = redis["command"]
    command = command if isinstance(command, list) else command.split()
    assert command[command.index("--appendonly") + 1] == "yes"
    volumes = redis["volumes"]
    mounts = [(v["source"], v["target"]) if isinstance(v, dict) else tuple(v.split(":")[:2]) for v in volumes]
    assert any(target == "/data" and source in resolved.get("volumes", {}) for source, target in mounts), mounts


def test_passed_through_settings_have_working_defaults(raw, monkeypatch):
    """A variable listed without a value is left to the code's default: that default must load."""
    for modules, prefix in APP_SERVICES.values():
        cls = settings_class(modules, prefix)
        for name in env_names(cls):
            monkeypatch.delenv(name, raising=False)
        cls()  # every default usable


def test_dockerfile_warms_the_numba_cache():
    text = (REPO / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    cache = re.search(r"NUMBA_CACHE_DIR=(\S+)", text).group(1)
    assert cache.startswith("/") and "deploy/warm_cache.py" in text
    assert re.search(r"^USER (?!root)\w+", text, re.M), "services run as a non-root user"
    assert (REPO / "deploy" / "warm_cache.py").exists()
    ignored = (REPO / ".dockerignore").read_text().split()
    assert {".venv", ".git", "data"} <= set(ignored)
